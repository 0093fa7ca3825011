package jobgraph

import (
	"fmt"

	"flinklab/runtime/api"
)

// JobVertex is one node of the JobGraph: usually a chain of operators that
// the StreamingJobGraphGenerator fused together, run as one task with
// Parallelism parallel subtasks. It mirrors Flink's
// org.apache.flink.runtime.jobgraph.JobVertex.
//
// A vertex knows its inputs (the JobEdges it reads) and the
// IntermediateDataSets it produces; ConnectNewDataSetAsInput creates both
// ends of a connection at once. The exported fields are the vertex's
// configuration and may be set freely until the graph is submitted.
type JobVertex struct {
	// ID identifies the vertex within its job. It is random, and stays the
	// same across restarts, so state and metrics can be matched to it.
	ID api.JobVertexID
	// Name is what logs and the web UI show, e.g. "Flat Map -> Map".
	Name string
	// Parallelism is the number of parallel subtasks, at least 1.
	Parallelism int
	// MaxParallelism is the upper bound for rescaling (the number of key
	// groups). 0 means "not set": the ExecutionGraph then uses
	// DefaultMaxParallelism(Parallelism).
	MaxParallelism int
	// InvokableClassName names the code a TaskExecutor runs for each
	// subtask (Flink: the AbstractInvokable subclass, such as
	// "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask").
	InvokableClassName string
	// SlotSharingGroup names the group whose subtasks may share slots. The
	// empty name means the vertex is alone in a group of its own, which is
	// what Flink gives every JobVertex by default.
	SlotSharingGroup string
	// CoLocationGroup is the key of the vertex's co-location group, "" if none.
	CoLocationGroup string
	// MinResources is what each subtask needs from a slot; the zero value
	// (api.UnknownResourceProfile) means any slot will do.
	MinResources api.ResourceProfile
	// Configuration is the task configuration the invokable reads when it
	// starts (Flink: the vertex's Configuration, holding serialized
	// operators and their settings).
	Configuration map[string]string
	// OperatorIDs name the operators of the vertex's chain, head first
	// (Flink: JobVertex#getOperatorIDs). A checkpoint keeps state per
	// operator, and a restore looks it up by these IDs.
	OperatorIDs []api.OperatorID

	inputs           []*JobEdge
	producedDataSets []*IntermediateDataSet
}

// NewJobVertex returns a vertex with a random ID.
func NewJobVertex(name, invokableClassName string, parallelism int) *JobVertex {
	return &JobVertex{
		ID:                 api.NewJobVertexID(),
		Name:               name,
		Parallelism:        parallelism,
		InvokableClassName: invokableClassName,
	}
}

// Inputs returns the edges this vertex reads, in the order they were
// connected. The slice belongs to the vertex; do not modify it.
func (v *JobVertex) Inputs() []*JobEdge { return v.inputs }

// ProducedDataSets returns the data sets this vertex produces, in the order
// they were created. The slice belongs to the vertex; do not modify it.
func (v *JobVertex) ProducedDataSets() []*IntermediateDataSet { return v.producedDataSets }

// IsInputVertex reports whether the vertex reads nothing: it is a source.
func (v *JobVertex) IsInputVertex() bool { return len(v.inputs) == 0 }

// IsOutputVertex reports whether the vertex produces nothing: it is a sink.
func (v *JobVertex) IsOutputVertex() bool { return len(v.producedDataSets) == 0 }

// ConnectNewDataSetAsInput makes this vertex read a new data set produced
// by input: it creates an IntermediateDataSet owned by input and a JobEdge
// from that data set to this vertex, and registers the edge at both ends.
// It mirrors Flink's JobVertex.connectNewDataSetAsInput. The caller may set
// ShipStrategyName on the returned edge.
//
//	input ──produces──► IntermediateDataSet ──JobEdge(pattern)──► v
func (v *JobVertex) ConnectNewDataSetAsInput(input *JobVertex, pattern DistributionPattern, resultType ResultPartitionType) *JobEdge {
	dataSet := input.createAndAddResultDataSet(api.NewIntermediateDataSetID(), resultType)
	edge := &JobEdge{Source: dataSet, Target: v, DistributionPattern: pattern}
	v.addInput(edge)
	return edge
}

// createAndAddResultDataSet mirrors Flink's JobVertex.createAndAddResultDataSet.
func (v *JobVertex) createAndAddResultDataSet(id api.IntermediateDataSetID, resultType ResultPartitionType) *IntermediateDataSet {
	dataSet := &IntermediateDataSet{ID: id, Producer: v, ResultType: resultType}
	v.producedDataSets = append(v.producedDataSets, dataSet)
	return dataSet
}

// addInput registers edge at its target (v) and at its source data set.
func (v *JobVertex) addInput(edge *JobEdge) {
	v.inputs = append(v.inputs, edge)
	edge.Source.consumers = append(edge.Source.consumers, edge)
}

// String returns the vertex's name and ID, e.g. "Map (3f2a...)", the way
// Flink names a vertex in its messages.
func (v *JobVertex) String() string { return fmt.Sprintf("%s (%s)", v.Name, v.ID) }
