package streaming_test

import (
	"fmt"
	"regexp"
	"strings"

	"flinklab/runtime/streaming"
)

// Example builds WordCount at parallelism 4 and prints its three graphs'
// worth of structure: the StreamGraph's nodes and edges, then the JobGraph's
// chains.
func Example() {
	env := streaming.NewStreamExecutionEnvironment().SetParallelism(4)

	text := streaming.FromElements(env, "To be, or not to be,", "that is the question:")
	nonWord := regexp.MustCompile(`\W+`)
	words := streaming.FlatMap(text, func(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
		for _, word := range nonWord.Split(strings.ToLower(line), -1) {
			if word != "" {
				out.Collect(streaming.Tuple2Of(word, 1))
			}
		}
	})
	counts := streaming.KeyBy(words, func(t streaming.Tuple2[string, int]) string { return t.F0 }).Sum(1)
	counts.Print()

	streamGraph, err := env.GetStreamGraph("WordCount")
	if err != nil {
		panic(err)
	}
	for _, node := range streamGraph.StreamNodes() {
		fmt.Printf("node %v, parallelism %d, %v\n", node, node.Parallelism, node.ChainingStrategy)
		for _, edge := range node.OutEdges {
			fmt.Printf("  edge %v chainable=%v\n", edge, streaming.IsChainable(edge, streamGraph))
		}
	}

	jobGraph, err := streaming.CreateJobGraph(streamGraph)
	if err != nil {
		panic(err)
	}
	for _, vertex := range jobGraph.Vertices() {
		fmt.Printf("vertex %q, parallelism %d, %s\n", vertex.Name, vertex.Parallelism, vertex.Configuration[streaming.ConfigChainedNodeIDs])
		for _, input := range vertex.Inputs() {
			fmt.Printf("  reads %q %s %s\n", input.Source.Producer.Name, input.DistributionPattern, input.ShipStrategyName)
		}
	}
	// Output:
	// node Source: Collection Source-1, parallelism 4, HEAD
	//   edge (Source: Collection Source-1 -> Flat Map-2, FORWARD) chainable=true
	// node Flat Map-2, parallelism 4, ALWAYS
	//   edge (Flat Map-2 -> Keyed Aggregation-4, HASH) chainable=false
	// node Keyed Aggregation-4, parallelism 4, ALWAYS
	//   edge (Keyed Aggregation-4 -> Sink: Print to Std. Out-5, FORWARD) chainable=true
	// node Sink: Print to Std. Out-5, parallelism 4, ALWAYS
	// vertex "Source: Collection Source -> Flat Map", parallelism 4, [1,2]
	// vertex "Keyed Aggregation -> Sink: Print to Std. Out", parallelism 4, [4,5]
	//   reads "Source: Collection Source -> Flat Map" ALL_TO_ALL HASH
}

// ExampleAssignKeyToParallelOperator follows one key through Flink's key
// groups.
func ExampleAssignKeyToParallelOperator() {
	keyHash := streaming.HashCode("hello") // Java's "hello".hashCode()
	keyGroup := streaming.ComputeKeyGroupForKeyHash(keyHash, 128)
	subtask := streaming.ComputeOperatorIndexForKeyGroup(128, 4, keyGroup)
	fmt.Println(keyHash, streaming.MurmurHash(keyHash), keyGroup, subtask)
	fmt.Println(streaming.AssignKeyToParallelOperator("hello", 128, 4))
	fmt.Println(streaming.ComputeKeyGroupRangeForOperatorIndex(128, 4, subtask))
	// Output:
	// 99162322 1715862179 35 1
	// 1
	// KeyGroupRange{startKeyGroup=32, endKeyGroup=63}
}

// ExampleNewSlotSharingGroupBuilder gives a slot sharing group the
// resources each of its slots needs, and shows what the builder refuses.
func ExampleNewSlotSharingGroupBuilder() {
	counting, err := streaming.NewSlotSharingGroupBuilder("counting").
		SetCPUCores(0.25).
		SetTaskHeapMemoryMB(64).
		SetManagedMemoryMB(32).
		Build()
	fmt.Println(counting.Name(), counting.ResourceProfile(), err)

	byName, err := streaming.NewSlotSharingGroupBuilder("counting").Build()
	fmt.Println(byName.ResourceProfile(), err)

	_, err = streaming.NewSlotSharingGroupBuilder("counting").SetManagedMemoryMB(32).Build()
	fmt.Println(err)
	_, err = streaming.NewSlotSharingGroupBuilder("counting").SetCPUCores(0).SetTaskHeapMemoryMB(64).Build()
	fmt.Println(err)
	// Output:
	// counting ResourceProfile{cpuCores=0.25, taskHeapMemory=64.000mb (67108864 bytes), taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes} <nil>
	// ResourceProfile{UNKNOWN} <nil>
	// The cpu cores and task heap memory are required when specifying the resource of a slot sharing group. You need to explicitly configure them with positive value.
	// The cpu cores should be positive.
}

// ExampleStreamExecutionEnvironment_SetRuntimeMode builds WordCount in
// BATCH mode: the same two chains as in STREAMING, a BLOCKING exchange
// between them, and a Sum that emits only final counts.
func ExampleStreamExecutionEnvironment_SetRuntimeMode() {
	env := streaming.NewStreamExecutionEnvironment().SetParallelism(4).SetRuntimeMode(streaming.Batch)

	text := streaming.FromElements(env, "To be, or not to be,", "that is the question:")
	words := streaming.FlatMap(text, func(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
		for _, word := range strings.Fields(line) {
			out.Collect(streaming.Tuple2Of(word, 1))
		}
	})
	streaming.KeyBy(words, func(t streaming.Tuple2[string, int]) string { return t.F0 }).Sum(1).Print()

	streamGraph, err := env.GetStreamGraph("")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q in %v mode\n", streamGraph.JobName, streamGraph.RuntimeMode)
	for _, node := range streamGraph.StreamNodes() {
		fmt.Printf("node %v runs %v\n", node, node.Operator.Kind)
	}

	jobGraph, err := streaming.CreateJobGraph(streamGraph)
	if err != nil {
		panic(err)
	}
	for _, vertex := range jobGraph.Vertices() {
		fmt.Printf("vertex %q\n", vertex.Name)
		for _, input := range vertex.Inputs() {
			fmt.Printf("  reads %q %s %s %s\n", input.Source.Producer.Name, input.DistributionPattern, input.ShipStrategyName, input.Source.ResultType)
		}
	}
	// Output:
	// "Flink Batch Job" in BATCH mode
	// node Source: Collection Source-1 runs FromElementsFunction
	// node Flat Map-2 runs StreamFlatMap
	// node Keyed Aggregation-4 runs BatchGroupedReduceOperator
	// node Sink: Print to Std. Out-5 runs PrintSinkFunction
	// vertex "Source: Collection Source -> Flat Map"
	// vertex "Keyed Aggregation -> Sink: Print to Std. Out"
	//   reads "Source: Collection Source -> Flat Map" ALL_TO_ALL HASH BLOCKING
}
