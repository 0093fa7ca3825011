package executiongraph

import (
	"fmt"

	"flinklab/runtime/api"
)

// ExecutionVertex is one parallel subtask of a job vertex: "Map (2/4)". It
// outlives its attempts: each time the subtask is (re)started it gets a new
// Execution, while its partitions and connections stay. It mirrors Flink's
// org.apache.flink.runtime.executiongraph.ExecutionVertex.
type ExecutionVertex struct {
	jobVertex               *ExecutionJobVertex
	id                      api.ExecutionVertexID
	currentExecution        *Execution
	producedPartitions      []*IntermediateResultPartition
	consumedPartitionGroups []*ConsumedPartitionGroup
}

// newExecutionVertex creates subtask subtaskIndex of ejv, with its
// partitions of every result ejv produces and its first attempt.
func newExecutionVertex(ejv *ExecutionJobVertex, subtaskIndex int) *ExecutionVertex {
	ev := &ExecutionVertex{
		jobVertex:          ejv,
		id:                 api.ExecutionVertexID{JobVertexID: ejv.ID(), SubtaskIndex: subtaskIndex},
		producedPartitions: make([]*IntermediateResultPartition, len(ejv.producedDataSets)),
	}
	if n := len(ejv.jobVertex.Inputs()); n > 0 {
		ev.consumedPartitionGroups = make([]*ConsumedPartitionGroup, 0, n)
	}
	for i, result := range ejv.producedDataSets {
		partition := newIntermediateResultPartition(result, ev)
		result.partitions[subtaskIndex] = partition
		ev.producedPartitions[i] = partition
	}
	attempt := 0
	if ejv.graph.attemptNumberOf != nil {
		attempt = ejv.graph.attemptNumberOf(ev.id)
	}
	ev.currentExecution = newExecution(ev, attempt)
	return ev
}

// ID returns the subtask's ID: its job vertex and subtask index.
func (ev *ExecutionVertex) ID() api.ExecutionVertexID { return ev.id }

// SubtaskIndex returns the 0-based index of the subtask.
func (ev *ExecutionVertex) SubtaskIndex() int { return ev.id.SubtaskIndex }

// JobVertex returns the job vertex the subtask belongs to.
func (ev *ExecutionVertex) JobVertex() *ExecutionJobVertex { return ev.jobVertex }

// TaskNameWithSubtaskIndex returns the name Flink prints for the subtask:
// the vertex name, then the 1-based subtask index and the parallelism, as
// in "Map (2/4)" for subtask index 1 of 4.
func (ev *ExecutionVertex) TaskNameWithSubtaskIndex() string {
	return fmt.Sprintf("%s (%d/%d)", ev.jobVertex.Name(), ev.id.SubtaskIndex+1, ev.jobVertex.Parallelism())
}

// CurrentExecution returns the subtask's current attempt.
func (ev *ExecutionVertex) CurrentExecution() *Execution { return ev.currentExecution }

// ExecutionState returns the state of the current attempt.
func (ev *ExecutionVertex) ExecutionState() api.ExecutionState { return ev.currentExecution.state }

// ProducedPartitions returns the subtask's partition of each result its job
// vertex produces, in the order of ExecutionJobVertex.ProducedDataSets. The
// slice belongs to the graph; do not modify it.
func (ev *ExecutionVertex) ProducedPartitions() []*IntermediateResultPartition {
	return ev.producedPartitions
}

// ConsumedPartitionGroups returns what the subtask reads: one group per
// input edge of its job vertex, in input order. For an ALL_TO_ALL input,
// the group is the very same object for every subtask of the vertex. The
// slice belongs to the graph; do not modify it.
func (ev *ExecutionVertex) ConsumedPartitionGroups() []*ConsumedPartitionGroup {
	return ev.consumedPartitionGroups
}

func (ev *ExecutionVertex) addConsumedPartitionGroup(group *ConsumedPartitionGroup) {
	ev.consumedPartitionGroups = append(ev.consumedPartitionGroups, group)
}

// ConsumedSubpartitionIndex returns which subpartition of partition p this
// subtask reads, or -1 if the subtask does not read p.
//
// A partition has one subpartition per subtask that reads it, and each of
// those readers takes the subpartition at its position among them:
//
//   - ALL_TO_ALL: every subtask of the consumer reads p, so subtask i reads
//     subpartition i;
//   - POINTWISE, fewer producers than consumers: p is read by a small run
//     of consumers, and the k-th of them reads subpartition k;
//   - POINTWISE, at least as many producers as consumers: p has a single
//     reader, which reads subpartition 0.
//
// Differs from Flink: Flink computes subtaskIndex % numberOfConsumers.
// Both give each reader of a partition its own subpartition; for an uneven
// POINTWISE fan-out (3 → 7) they pair readers and subpartitions
// differently. The position is what the diagrams show, so we use it.
func (ev *ExecutionVertex) ConsumedSubpartitionIndex(p *IntermediateResultPartition) int {
	for _, group := range p.consumerVertexGroups {
		// Every consumer group is a run of consecutive subtasks of one job
		// vertex, so the position is an offset from its first member.
		first := group.vertices[0]
		if first.JobVertexID != ev.id.JobVertexID {
			continue
		}
		position := ev.id.SubtaskIndex - first.SubtaskIndex
		if position >= 0 && position < len(group.vertices) && group.vertices[position] == ev.id {
			return position
		}
	}
	return -1
}

// ResetForNewExecution replaces the subtask's finished, canceled or failed
// attempt with a new one (attempt number + 1, state CREATED), for a
// restart. The graph forgets the old attempt and registers the new one. It
// fails with an error wrapping ErrUnexpectedState while the current attempt
// is not in a terminal state. It mirrors Flink's
// ExecutionVertex.resetForNewExecution.
//
// Differs from Flink: Flink deregisters an attempt as soon as it reaches a
// terminal state, and keeps a history of prior attempts for the web UI.
// Here the attempt stays findable until it is replaced, and only the
// current attempt is kept.
func (ev *ExecutionVertex) ResetForNewExecution() (*Execution, error) {
	old := ev.currentExecution
	if !old.state.IsTerminal() {
		return nil, fmt.Errorf("%w: Cannot reset a vertex that is in non-terminal state %s: %s",
			ErrUnexpectedState, old.state, old)
	}
	if old.state == api.ExecutionFinished {
		// Its results will be written again, by the new attempt.
		for _, p := range ev.producedPartitions {
			p.resetForNewExecution()
		}
	}
	graph := ev.jobVertex.graph
	graph.deregisterExecution(old)
	next := newExecution(ev, old.AttemptNumber()+1)
	ev.currentExecution = next
	graph.registerExecution(next)
	return next, nil
}
