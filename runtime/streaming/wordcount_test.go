package streaming

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/jobgraph"
)

// The WordCount of these tests, shaped like Flink's example:
//
//	text → FlatMap(tokenize) → KeyBy(word) → Sum(1) → Print
//
// Its arguments are the lines of text.
const wordCountProgram = "streaming-test.wordcount"

func init() { RegisterProgram(wordCountProgram, wordCountMain) }

var nonWord = regexp.MustCompile(`\W+`)

// tokenize splits a line as Flink's WordCount does: lower-case, split on
// \W+, drop empty tokens; it emits (word, 1).
func tokenize(line string, out Collector[Tuple2[string, int]]) {
	for _, word := range nonWord.Split(strings.ToLower(line), -1) {
		if word != "" {
			out.Collect(Tuple2Of(word, 1))
		}
	}
}

func word(t Tuple2[string, int]) string { return t.F0 }

func wordCountMain(env *StreamExecutionEnvironment, args []string) error {
	text := FromCollection(env, args)
	counts := KeyBy(FlatMap(text, tokenize), word).Sum(1)
	counts.Print()
	return env.Execute("WordCount")
}

var hamletLines = []string{"To be, or not to be,", "that is the question:"}

// vertexSummary is what a test compares of a JobVertex.
type vertexSummary struct {
	Name             string
	Invokable        string
	Parallelism      int
	MaxParallelism   int
	SlotSharingGroup string
	Config           StreamConfig
}

func summarize(t *testing.T, jg *jobgraph.JobGraph) []vertexSummary {
	t.Helper()
	var got []vertexSummary
	for _, v := range jg.Vertices() {
		config, err := ReadStreamConfig(v.Configuration)
		if err != nil {
			t.Fatalf("vertex %s: %v", v.Name, err)
		}
		got = append(got, vertexSummary{v.Name, v.InvokableClassName, v.Parallelism, v.MaxParallelism, v.SlotSharingGroup, *config})
	}
	return got
}

// TestWordCountJobGraph: at parallelism 4 the five operators make two
// chains, joined by one HASH edge.
func TestWordCountJobGraph(t *testing.T) {
	sg, err := PlanProgram(wordCountProgram, hamletLines, 4)
	if err != nil {
		t.Fatalf("PlanProgram: %v", err)
	}
	// Node IDs follow the program: 1 source, 2 flatMap, (3 is the KeyBy,
	// which becomes an edge), 4 sum, 5 print.
	var nodes []string
	for _, n := range sg.StreamNodes() {
		nodes = append(nodes, n.String())
	}
	wantNodes := []string{"Source: Collection Source-1", "Flat Map-2", "Keyed Aggregation-4", "Sink: Print to Std. Out-5"}
	if diff := cmp.Diff(wantNodes, nodes); diff != "" {
		t.Fatalf("stream nodes (-want +got):\n%s", diff)
	}

	jg, err := sg.JobGraph()
	if err != nil {
		t.Fatalf("JobGraph: %v", err)
	}
	if err := jg.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if jg.Name != "WordCount" {
		t.Errorf("job name = %q, want WordCount", jg.Name)
	}

	want := []vertexSummary{
		{
			Name:             "Source: Collection Source -> Flat Map",
			Invokable:        SourceStreamTaskClass,
			Parallelism:      4,
			MaxParallelism:   128,
			SlotSharingGroup: "default",
			Config: StreamConfig{
				ProgramName:        wordCountProgram,
				ProgramArgs:        hamletLines,
				ProgramParallelism: 4,
				ChainedNodeIDs:     []int{1, 2},
				OutEdges:           []OutEdge{{SourceNodeID: 2, TargetNodeID: 4, Partitioner: "HASH"}},
			},
		},
		{
			Name:             "Keyed Aggregation -> Sink: Print to Std. Out",
			Invokable:        OneInputStreamTaskClass,
			Parallelism:      4,
			MaxParallelism:   128,
			SlotSharingGroup: "default",
			Config: StreamConfig{
				ProgramName:        wordCountProgram,
				ProgramArgs:        hamletLines,
				ProgramParallelism: 4,
				ChainedNodeIDs:     []int{4, 5},
				OutEdges:           []OutEdge{},
			},
		},
	}
	if diff := cmp.Diff(want, summarize(t, jg)); diff != "" {
		t.Fatalf("job vertices (-want +got):\n%s", diff)
	}

	// The configuration survives the trip to the JobManager.
	encoded, err := jobgraph.Encode(jg)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	decoded, err := jobgraph.Decode(encoded)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := cmp.Diff(want, summarize(t, decoded)); diff != "" {
		t.Fatalf("decoded job vertices (-want +got):\n%s", diff)
	}

	source, aggregation := jg.Vertices()[0], jg.Vertices()[1]
	if len(aggregation.Inputs()) != 1 {
		t.Fatalf("aggregation has %d inputs, want 1", len(aggregation.Inputs()))
	}
	edge := aggregation.Inputs()[0]
	if edge.Source.Producer != source || edge.DistributionPattern != jobgraph.AllToAll ||
		edge.ShipStrategyName != "HASH" || edge.Source.ResultType != jobgraph.PipelinedBounded {
		t.Errorf("edge = %v %s %s, want the source chain → aggregation, ALL_TO_ALL, HASH, PIPELINED_BOUNDED",
			edge, edge.ShipStrategyName, edge.Source.ResultType)
	}
}

// TestTaskFindsItsOperatorsByNodeID plays the TaskExecutor: from nothing
// but a JobVertex's Configuration it plans the program again and finds the
// functions, key selector, partitioner and parallelism of its chain.
func TestTaskFindsItsOperatorsByNodeID(t *testing.T) {
	client, err := PlanProgram(wordCountProgram, hamletLines, 4)
	if err != nil {
		t.Fatal(err)
	}
	jg, err := CreateJobGraph(client)
	if err != nil {
		t.Fatal(err)
	}

	// The TaskExecutor's side: it only has the task configuration.
	sourceConfig, err := ReadStreamConfig(jg.Vertices()[0].Configuration)
	if err != nil {
		t.Fatal(err)
	}
	sg, err := PlanProgram(sourceConfig.ProgramName, sourceConfig.ProgramArgs, sourceConfig.ProgramParallelism)
	if err != nil {
		t.Fatal(err)
	}

	head := sg.StreamNode(sourceConfig.HeadNodeID())
	if head.Operator.Kind != CollectionSource || !slices.Equal(head.Operator.Elements, []any{hamletLines[0], hamletLines[1]}) {
		t.Fatalf("head = %v %v, want the collection source of the lines", head.Operator.Kind, head.Operator.Elements)
	}

	flatMap := sg.StreamNode(sourceConfig.ChainedNodeIDs[1])
	var emitted []any
	flatMap.Operator.FlatMap(hamletLines[0], func(r any) { emitted = append(emitted, r) })
	wantEmitted := []any{Tuple2Of("to", 1), Tuple2Of("be", 1), Tuple2Of("or", 1), Tuple2Of("not", 1), Tuple2Of("to", 1), Tuple2Of("be", 1)}
	if diff := cmp.Diff(wantEmitted, emitted); diff != "" {
		t.Fatalf("flatMap output (-want +got):\n%s", diff)
	}

	out := sourceConfig.OutEdges[0]
	var edge *StreamEdge
	for _, e := range sg.StreamNode(out.SourceNodeID).OutEdges {
		if e.Target.ID == out.TargetNodeID {
			edge = e
		}
	}
	if edge == nil || edge.Partitioner.String() != out.Partitioner {
		t.Fatalf("no %s edge %d → %d in the rebuilt graph", out.Partitioner, out.SourceNodeID, out.TargetNodeID)
	}
	partitioner := edge.Partitioner.Copy()
	if got := partitioner.SelectChannel(Tuple2Of("hello", 1), edge.Target.Parallelism); got != 1 {
		t.Errorf(`"hello" goes to channel %d, want 1 (key group 35 of 128, subtask 1 of 4)`, got)
	}

	sum := sg.StreamNode(out.TargetNodeID)
	if sum.Operator.Kind != ReduceOperator || sum.KeySelector == nil || sum.Parallelism != 4 {
		t.Fatalf("node %v: kind %v, key selector set %v, parallelism %d", sum, sum.Operator.Kind, sum.KeySelector != nil, sum.Parallelism)
	}
	if got := sum.KeySelector(Tuple2Of("to", 1)); got != "to" {
		t.Errorf("key of (to,1) = %v, want to", got)
	}
	if got := sum.Operator.Reduce(Tuple2Of("to", 1), Tuple2Of("to", 1)); got != Tuple2Of("to", 2) {
		t.Errorf("sum of (to,1) and (to,1) = %v, want (to,2)", got)
	}
}

// TestNodeIDsAreDeterministic: planning a program twice gives the same
// graph, which is what lets a TaskExecutor find operators by node ID.
func TestNodeIDsAreDeterministic(t *testing.T) {
	describe := func(sg *StreamGraph) []string {
		var lines []string
		for _, n := range sg.StreamNodes() {
			lines = append(lines, n.String())
			for _, e := range n.OutEdges {
				lines = append(lines, "  "+e.String())
			}
		}
		return lines
	}
	first, err := PlanProgram(wordCountProgram, hamletLines, 2)
	if err != nil {
		t.Fatal(err)
	}
	second, err := PlanProgram(wordCountProgram, hamletLines, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(describe(first), describe(second)); diff != "" {
		t.Fatalf("two plannings differ (-first +second):\n%s", diff)
	}
}

func TestSumAndReduce(t *testing.T) {
	sumTuples, err := sumAggregator[Tuple2[string, int]](1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sumTuples(Tuple2Of("a", 2), Tuple2Of("b", 3)); got != Tuple2Of("a", 5) {
		t.Errorf("sum = %v, want (a,5): F0 from the accumulator", got)
	}
	sumFloats, err := sumAggregator[float64](0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sumFloats(1.5, 2.25); got != 3.75 {
		t.Errorf("sum = %v, want 3.75", got)
	}
	type reading struct {
		Sensor string
		Value  int64
		note   int
	}
	sumReadings, err := sumAggregator[reading](1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sumReadings(reading{"s", 1, 0}, reading{"s", 2, 0}); got.Value != 3 {
		t.Errorf("sum = %v, want Value 3", got)
	}

	for _, bad := range []struct {
		name string
		err  error
	}{
		{"position out of range", errOf(sumAggregator[Tuple2[string, int]](2))},
		{"string field", errOf(sumAggregator[Tuple2[string, int]](0))},
		{"unexported field", errOf(sumAggregator[reading](2))},
		{"number at position 1", errOf(sumAggregator[int](1))},
		{"slice record", errOf(sumAggregator[[]int](0))},
	} {
		if bad.err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

func errOf[F any](_ F, err error) error { return err }
