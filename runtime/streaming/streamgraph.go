package streaming

import (
	"fmt"
	"reflect"

	"flinklab/runtime/jobgraph"
)

// StreamGraph is the program as a graph of operators: one StreamNode per
// source, operator and sink, joined by StreamEdges that carry a
// partitioner. It is the first of the three graphs (StreamGraph → JobGraph
// → ExecutionGraph) and mirrors Flink's
// org.apache.flink.streaming.api.graph.StreamGraph.
//
// A StreamGraph is built by GetStreamGraph (or Execute, or PlanProgram) and
// not changed afterwards. The client turns it into a JobGraph
// (CreateJobGraph); a TaskExecutor builds it again from the same program
// and looks up the operators of its task by node ID (StreamNode).
type StreamGraph struct {
	// JobName is the name Execute was given, or DefaultJobName.
	JobName string
	// ChainingEnabled is false after the program's DisableOperatorChaining.
	ChainingEnabled bool
	// RuntimeMode is the mode the graph was built in: Streaming or Batch,
	// never Automatic, which the generator resolves (Flink keeps it as the
	// StreamGraph's JobType). In Batch every JobEdge is BLOCKING and every
	// keyed reduce a BatchReduceOperator.
	RuntimeMode RuntimeExecutionMode
	// ProgramName, ProgramArgs, ProgramParallelism and ProgramRuntimeMode
	// say how the program was started (SetProgram): the runner's choices,
	// before the program's main made its own. Each JobVertex carries them,
	// for tasks to rerun the program as it first ran.
	ProgramName        string
	ProgramArgs        []string
	ProgramParallelism int
	ProgramRuntimeMode RuntimeExecutionMode

	nodes    []*StreamNode // in ID order
	nodeByID map[int]*StreamNode
	// slotSharingGroups are the groups the program gave resources, by name.
	slotSharingGroups map[string]SlotSharingGroup
}

// StreamNode is one operator of the program: what it runs, how many
// subtasks run it, and how it may be chained. It mirrors Flink's StreamNode.
// Everything a task needs to run the operator is reachable from here: the
// Operator (kind and function), the KeySelector of a keyed operator, the
// OutEdges with their partitioners, and Parallelism.
type StreamNode struct {
	// ID is the ID of the transformation the node comes from: 1, 2, 3, …
	// in the order the program created its transformations. A partitioning
	// (KeyBy, Rebalance, …) takes an ID but becomes no node, so IDs may
	// have gaps, as in Flink's plans.
	ID int
	// OperatorName is the name shown in plans: "Map", "Source: Collection
	// Source", "Sink: Print to Std. Out", or what Name set.
	OperatorName string
	// Parallelism is the number of parallel subtasks.
	Parallelism int
	// MaxParallelism is the number of key groups (SetMaxParallelism, or
	// jobgraph.DefaultMaxParallelism(Parallelism)).
	MaxParallelism int
	// SlotSharingGroup is the group's name, DefaultSlotSharingGroup unless
	// set or inherited.
	SlotSharingGroup string
	// CoLocationGroup is the key SetCoLocationGroupKey set, or "".
	CoLocationGroup string
	// ChainingStrategy is HEAD for sources, ALWAYS for the others, NEVER
	// after DisableChaining and HEAD after StartNewChain.
	ChainingStrategy ChainingStrategy
	// Uid is the user-given stable ID, or "".
	Uid string
	// Operator is what the node runs.
	Operator Operator
	// KeySelector extracts a keyed operator's key from a record (the function
	// given to KeyBy; Flink: StreamNode's state partitioner); nil if unkeyed.
	KeySelector func(record any) any
	// KeyType is the Go type of the keys KeySelector returns (Flink: the
	// node's state key serializer); nil if unkeyed. The keyed state
	// backend writes keys of this type into checkpoints.
	KeyType reflect.Type
	// OutputType is the Go type of the records the node emits; nil for sinks.
	OutputType reflect.Type

	// InEdges and OutEdges are the node's edges, in the program's order.
	InEdges  []*StreamEdge
	OutEdges []*StreamEdge
}

// String returns Flink's short form of a node: "Flat Map-2".
func (n *StreamNode) String() string { return fmt.Sprintf("%s-%d", n.OperatorName, n.ID) }

// StreamEdge connects two StreamNodes. Its Partitioner decides which
// downstream subtask gets each record; only a FORWARD edge can be chained.
// It mirrors Flink's StreamEdge.
type StreamEdge struct {
	Source      *StreamNode
	Target      *StreamNode
	Partitioner StreamPartitioner
}

// String describes the edge as "(Flat Map-2 -> Keyed Aggregation-4, HASH)".
func (e *StreamEdge) String() string {
	return fmt.Sprintf("(%v -> %v, %v)", e.Source, e.Target, e.Partitioner)
}

// streamEdge returns the StreamEdge a chain output stands for, or nil.
func (g *StreamGraph) streamEdge(out OutEdge) *StreamEdge {
	source := g.StreamNode(out.SourceNodeID)
	if source == nil {
		return nil
	}
	for _, edge := range source.OutEdges {
		if edge.Target.ID == out.TargetNodeID && edge.Partitioner.String() == out.Partitioner {
			return edge
		}
	}
	return nil
}

// newStreamGraph returns an empty graph, to be built in mode (Streaming
// or Batch), whose default job name depends on the mode.
func newStreamGraph(jobName string, mode RuntimeExecutionMode) *StreamGraph {
	switch {
	case jobName != "":
	case mode == Batch:
		jobName = DefaultBatchJobName
	default:
		jobName = DefaultJobName
	}
	return &StreamGraph{JobName: jobName, ChainingEnabled: true, RuntimeMode: mode, nodeByID: make(map[int]*StreamNode)}
}

// StreamNodes returns the nodes in ID order. The slice belongs to the
// graph; do not modify it.
func (g *StreamGraph) StreamNodes() []*StreamNode { return g.nodes }

// StreamNode returns the node with the given ID, or nil. This is how a
// task finds its operators again: the JobVertex configuration lists the
// node IDs of its chain (see StreamConfig).
func (g *StreamGraph) StreamNode(id int) *StreamNode { return g.nodeByID[id] }

// SourceIDs returns the IDs of the nodes without inputs, in ascending order.
func (g *StreamGraph) SourceIDs() []int {
	var ids []int
	for _, n := range g.nodes {
		if len(n.InEdges) == 0 {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// JobGraph turns the graph into a JobGraph: CreateJobGraph(g). It mirrors
// Flink's StreamGraph.getJobGraph.
func (g *StreamGraph) JobGraph() (*jobgraph.JobGraph, error) { return CreateJobGraph(g) }

// addNode adds n; its ID must be new and larger than every ID so far.
func (g *StreamGraph) addNode(n *StreamNode) {
	if _, taken := g.nodeByID[n.ID]; taken || (len(g.nodes) > 0 && g.nodes[len(g.nodes)-1].ID > n.ID) {
		panic(fmt.Sprintf("streaming: stream node %v added out of order", n))
	}
	g.nodes = append(g.nodes, n)
	g.nodeByID[n.ID] = n
}

// addEdge connects source to target.
func (g *StreamGraph) addEdge(source, target *StreamNode, partitioner StreamPartitioner) *StreamEdge {
	edge := &StreamEdge{Source: source, Target: target, Partitioner: partitioner}
	source.OutEdges = append(source.OutEdges, edge)
	target.InEdges = append(target.InEdges, edge)
	return edge
}
