// Package explain prints, for the terminal, the decisions that turn a
// program's StreamGraph into its JobGraph and the JobGraph into its
// ExecutionGraph: which operators were chained and why the others were
// not, which JobVertices that makes and how many slots they need, how
// each JobEdge becomes partitions and ConsumedPartitionGroups, and which
// subtasks form a pipelined region.
//
//	go run ./tools/graphs -explain wordcount
//
// WriteSlots does the same for where the subtasks run (package slots):
// the TaskManagers' resources, the shared slots, the requirements, the
// slots cut out of each TaskManager and what waits; WriteRunningSlots for
// a running job as REST shows it.
//
//	go run ./tools/graphs -slots -explain -p 2 -D taskmanager.numberOfTaskSlots=2 wordcount
//
// WriteRegions prints a job's pipelined regions and, for a failed
// subtask, what region failover restarts and why (package regions).
//
//	go run ./tools/graphs -regions -explain -fail "work -> Sink: print-sink (2/4)" -p 4 pipelines
//
// It says in words what the diagrams of diagrams/ draw.
package explain

import (
	"fmt"
	"io"
	"strings"

	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// maxSubtasksListed is how many consumer subtasks of a POINTWISE edge are
// listed one by one; the others are counted.
const maxSubtasksListed = 8

// Write prints the three steps for streamGraph and jobGraph, which must
// come from it (streaming.CreateJobGraph). It builds the ExecutionGraph as
// the JobMaster would (executiongraph.BuildGraph), without running it.
func Write(w io.Writer, streamGraph *streaming.StreamGraph, jobGraph *jobgraph.JobGraph) error {
	reasons, err := streaming.NotChainedReasons(streamGraph, jobGraph)
	if err != nil {
		return err
	}
	executionGraph, err := executiongraph.BuildGraph(jobGraph)
	if err != nil {
		return err
	}
	names := vertexNames(jobGraph)

	fmt.Fprintf(w, "%s: StreamGraph → JobGraph → ExecutionGraph\n\n", jobGraph.Name)
	writeChaining(w, streamGraph)
	fmt.Fprintln(w)
	writeJobGraph(w, jobGraph, names, reasons)
	fmt.Fprintln(w)
	writeExecutionGraph(w, jobGraph, executionGraph, names)
	fmt.Fprintln(w)
	writeRegions(w, executionGraph, names)
	return nil
}

// vertexNames names each JobVertex v0, v1, … in the order of the JobGraph,
// as the diagrams do.
func vertexNames(jobGraph *jobgraph.JobGraph) map[*jobgraph.JobVertex]string {
	names := make(map[*jobgraph.JobVertex]string, jobGraph.NumberOfVertices())
	for i, v := range jobGraph.Vertices() {
		names[v] = fmt.Sprintf("v%d", i)
	}
	return names
}

// writeChaining prints each StreamEdge and the chaining decision on it
// (StreamingJobGraphGenerator.isChainable).
func writeChaining(w io.Writer, streamGraph *streaming.StreamGraph) {
	var rows [][2]string
	for _, node := range streamGraph.StreamNodes() {
		for _, edge := range node.OutEdges {
			decision := "chained"
			if reason := streaming.NotChainableReason(edge, streamGraph); reason != "" {
				decision = "not chained: " + reason
			}
			rows = append(rows, [2]string{fmt.Sprintf("%v → %v (%v)", edge.Source, edge.Target, edge.Partitioner), decision})
		}
	}
	fmt.Fprintf(w, "StreamGraph: %s, %s; chaining (isChainable)\n", count(len(streamGraph.StreamNodes()), "operator", "operators"), count(len(rows), "edge", "edges"))
	writeRows(w, rows)
}

// writeJobGraph prints the chains, one JobVertex each, and the JobEdges
// between them with the reason they are edges and not calls.
func writeJobGraph(w io.Writer, jobGraph *jobgraph.JobGraph, names map[*jobgraph.JobVertex]string, reasons map[*jobgraph.JobEdge]string) {
	var edges [][2]string
	for _, consumer := range jobGraph.Vertices() {
		for _, edge := range consumer.Inputs() {
			from := fmt.Sprintf("%s → %s  %v %s", names[edge.Source.Producer], names[consumer], edge.DistributionPattern, edge.ShipStrategyName)
			edges = append(edges, [2]string{from, "not chained: " + reasons[edge]})
		}
	}
	fmt.Fprintf(w, "JobGraph: %s (one per chain), %s\n", count(jobGraph.NumberOfVertices(), "JobVertex", "JobVertices"), count(len(edges), "JobEdge", "JobEdges"))
	var vertices [][2]string
	for _, v := range jobGraph.Vertices() {
		vertices = append(vertices, [2]string{names[v] + "  " + v.Name, fmt.Sprintf("parallelism %d, slot sharing group %q", v.Parallelism, v.SlotSharingGroup)})
	}
	writeRows(w, append(vertices, edges...))
}

// writeExecutionGraph prints the subtasks and slots the job needs, and for
// each JobEdge how its partitions are read.
func writeExecutionGraph(w io.Writer, jobGraph *jobgraph.JobGraph, executionGraph *executiongraph.ExecutionGraph, names map[*jobgraph.JobVertex]string) {
	fmt.Fprintf(w, "ExecutionGraph: %d subtasks; %s\n", executionGraph.TotalNumberOfVertices(), slotsNeeded(jobGraph))
	for _, consumer := range jobGraph.Vertices() {
		subtasks := executionGraph.JobVertex(consumer.ID).TaskVertices()
		for input, edge := range consumer.Inputs() {
			groups := executionGraph.JobVertex(consumer.ID).ConsumedPartitionGroups(input)
			producer := edge.Source.Producer
			fmt.Fprintf(w, "  %s → %s  %v: %s (one per subtask of %s), read by %s through %s\n",
				names[producer], names[consumer], edge.DistributionPattern, count(producer.Parallelism, "partition", "partitions"), names[producer],
				count(len(subtasks), "subtask", "subtasks"), count(len(groups), "ConsumedPartitionGroup", "ConsumedPartitionGroups"))
			if edge.DistributionPattern != jobgraph.Pointwise {
				continue
			}
			for i, subtask := range subtasks {
				if i == maxSubtasksListed {
					fmt.Fprintf(w, "      … and %d more subtasks\n", len(subtasks)-i)
					break
				}
				fmt.Fprintf(w, "      %s reads %s\n", subtask.TaskNameWithSubtaskIndex(), partitionNumbers(subtask.ConsumedPartitionGroups()[input]))
			}
		}
	}
}

// maxRegionsListed is how many pipelined regions are listed one by one.
const maxRegionsListed = 8

// writeRegions prints the pipelined regions: the subtasks Flink's
// scheduler deploys together and, with the failover strategy "region",
// restarts together. (flinklab's scheduler still deploys and restarts
// every subtask at once.)
func writeRegions(w io.Writer, executionGraph *executiongraph.ExecutionGraph, names map[*jobgraph.JobVertex]string) {
	regions := executionGraph.PipelinedRegions()
	fmt.Fprintf(w, "Pipelined regions: %d (each deployed together, and restarted together by region failover)\n", len(regions))
	for i, region := range regions {
		if i == maxRegionsListed {
			fmt.Fprintf(w, "  … and %d more regions\n", len(regions)-i)
			break
		}
		var subtasks []string
		for _, ev := range region.Vertices {
			subtasks = append(subtasks, fmt.Sprintf("%s (%d/%d)", names[ev.JobVertex().JobVertex()], ev.SubtaskIndex()+1, ev.JobVertex().Parallelism()))
		}
		fmt.Fprintf(w, "  region %d: %s\n", i+1, strings.Join(subtasks, ", "))
	}
}

// slotsNeeded says how many slots the job needs, and how that adds up
// (jobgraph.JobGraph.SlotsNeeded).
func slotsNeeded(jobGraph *jobgraph.JobGraph) string {
	total, perGroup := jobGraph.SlotsNeeded()
	var parts []string
	for _, group := range jobGraph.SlotSharingGroups() {
		parts = append(parts, fmt.Sprintf("%q: %d", group, perGroup[group]))
	}
	for _, v := range jobGraph.Vertices() {
		if v.SlotSharingGroup == "" {
			parts = append(parts, fmt.Sprintf("%s, in no group: %d", v.Name, v.Parallelism))
		}
	}
	return fmt.Sprintf("%s (the largest parallelism of each slot sharing group: %s)", count(total, "slot", "slots"), strings.Join(parts, ", "))
}

// partitionNumbers lists the partitions of a group: "partition 3",
// "partitions 0, 1".
func partitionNumbers(group *executiongraph.ConsumedPartitionGroup) string {
	var numbers []string
	for _, id := range group.Partitions() {
		numbers = append(numbers, fmt.Sprint(id.PartitionNum))
	}
	if len(numbers) == 1 {
		return "partition " + numbers[0]
	}
	return "partitions " + strings.Join(numbers, ", ")
}

// count prints n things: "1 slot", "2 slots".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// writeRows prints two columns, the second aligned.
func writeRows(w io.Writer, rows [][2]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %s%s  %s\n", r[0], strings.Repeat(" ", width-len([]rune(r[0]))), r[1])
	}
}
