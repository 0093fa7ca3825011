package executiongraph

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// ExecutionJobVertex is a JobVertex inside the ExecutionGraph: it holds the
// vertex's parallel subtasks (ExecutionVertices) and the results they
// produce. It mirrors Flink's
// org.apache.flink.runtime.executiongraph.ExecutionJobVertex.
type ExecutionJobVertex struct {
	graph            *ExecutionGraph
	jobVertex        *jobgraph.JobVertex
	maxParallelism   int
	taskVertices     []*ExecutionVertex
	producedDataSets []*IntermediateResult
	inputs           []*IntermediateResult
}

// newExecutionJobVertex creates the job vertex and the results it produces,
// but no subtasks yet (see initialize). It fails with a
// *api.JobException, Flink's JobException as the constructor of its
// ExecutionJobVertex throws it, when the vertex's parallelism is higher
// than its max parallelism (jobgraph.DefaultMaxParallelism of its
// parallelism when the JobVertex sets none).
//
// That is not an invalid JobGraph (jobgraph.ErrInvalidJobGraph): the
// client and the Dispatcher accept such a job, as Flink's do, and only the
// JobMaster, building the ExecutionGraph at step m4, refuses it. The job
// then ends FAILED during initialization, "JobInitializationException:
// Could not start the JobMaster." with this error as its cause. In Flink
// that is typically a job rescaled (flink run -p, or the web UI's
// parallelism) past the max parallelism its program sets.
func newExecutionJobVertex(g *ExecutionGraph, jv *jobgraph.JobVertex) (*ExecutionJobVertex, error) {
	maxParallelism := jv.MaxParallelism
	if maxParallelism == 0 {
		maxParallelism = jobgraph.DefaultMaxParallelism(jv.Parallelism)
	}
	// Verify that our parallelism is not higher than the maximum
	// parallelism (Flink's words, in the same place).
	if jv.Parallelism > maxParallelism {
		return nil, &api.JobException{Message: fmt.Sprintf("Vertex %s's parallelism (%d) is higher than the max parallelism (%d). Please lower the parallelism or increase the max parallelism.",
			jv.Name, jv.Parallelism, maxParallelism)}
	}
	ejv := &ExecutionJobVertex{
		graph:            g,
		jobVertex:        jv,
		maxParallelism:   maxParallelism,
		producedDataSets: make([]*IntermediateResult, len(jv.ProducedDataSets())),
	}
	for i, dataSet := range jv.ProducedDataSets() {
		ejv.producedDataSets[i] = newIntermediateResult(dataSet, ejv)
	}
	return ejv, nil
}

// initialize creates the subtasks: each gets its partitions of every
// produced result and its first Execution, which the graph registers.
func (ejv *ExecutionJobVertex) initialize() {
	parallelism := ejv.jobVertex.Parallelism
	for _, result := range ejv.producedDataSets {
		result.partitions = make([]*IntermediateResultPartition, parallelism)
	}
	ejv.taskVertices = make([]*ExecutionVertex, parallelism)
	for subtask := range parallelism {
		ev := newExecutionVertex(ejv, subtask)
		ejv.taskVertices[subtask] = ev
		ejv.graph.registerExecution(ev.currentExecution)
	}
}

// connectToPredecessors wires every subtask to the results the vertex
// reads, one input edge at a time, in input order. It mirrors Flink's
// ExecutionJobVertex.connectToPredecessors. The producers must have been
// initialized already, which the topological order guarantees.
func (ejv *ExecutionJobVertex) connectToPredecessors(results map[api.IntermediateDataSetID]*IntermediateResult) error {
	for _, edge := range ejv.jobVertex.Inputs() {
		result := results[edge.Source.ID]
		if result == nil {
			return fmt.Errorf("Cannot connect this job graph to the previous graph. No previous intermediate result found for ID %s", edge.Source.ID)
		}
		ejv.inputs = append(ejv.inputs, result)
		connectVertexToResult(ejv, result, edge.DistributionPattern)
	}
	return nil
}

// JobVertex returns the JobVertex this vertex expands.
func (ejv *ExecutionJobVertex) JobVertex() *jobgraph.JobVertex { return ejv.jobVertex }

// Graph returns the graph the vertex belongs to.
func (ejv *ExecutionJobVertex) Graph() *ExecutionGraph { return ejv.graph }

// ID returns the ID of the JobVertex.
func (ejv *ExecutionJobVertex) ID() api.JobVertexID { return ejv.jobVertex.ID }

// Name returns the name of the JobVertex, e.g. "Flat Map -> Map".
func (ejv *ExecutionJobVertex) Name() string { return ejv.jobVertex.Name }

// Parallelism returns the number of subtasks.
func (ejv *ExecutionJobVertex) Parallelism() int { return len(ejv.taskVertices) }

// MaxParallelism returns the vertex's max parallelism, or
// jobgraph.DefaultMaxParallelism of its parallelism if the JobVertex set
// none.
func (ejv *ExecutionJobVertex) MaxParallelism() int { return ejv.maxParallelism }

// SlotSharingGroup returns the name of the vertex's slot sharing group; ""
// means the vertex is alone in a group of its own.
func (ejv *ExecutionJobVertex) SlotSharingGroup() string { return ejv.jobVertex.SlotSharingGroup }

// TaskVertices returns the subtasks, by subtask index. The slice belongs to
// the graph; do not modify it.
func (ejv *ExecutionJobVertex) TaskVertices() []*ExecutionVertex { return ejv.taskVertices }

// ProducedDataSets returns the results the vertex produces, in the order of
// the JobVertex's data sets. The slice belongs to the graph.
func (ejv *ExecutionJobVertex) ProducedDataSets() []*IntermediateResult { return ejv.producedDataSets }

// Inputs returns the results the vertex reads, in input order. The slice
// belongs to the graph.
func (ejv *ExecutionJobVertex) Inputs() []*IntermediateResult { return ejv.inputs }

// ConsumedPartitionGroups returns the groups through which the subtasks
// read input (an index into Inputs), each once, in the order of the
// subtasks that read them: one for an ALL_TO_ALL input, one per range of
// partitions for a POINTWISE one.
func (ejv *ExecutionJobVertex) ConsumedPartitionGroups(input int) []*ConsumedPartitionGroup {
	var groups []*ConsumedPartitionGroup
	seen := make(map[*ConsumedPartitionGroup]bool)
	for _, subtask := range ejv.taskVertices {
		if group := subtask.consumedPartitionGroups[input]; !seen[group] {
			seen[group] = true
			groups = append(groups, group)
		}
	}
	return groups
}

// AggregateState sums up the states of the subtasks in one state, for
// display (the web UI's vertex status). The rules are Flink's
// ExecutionJobVertex.getAggregateJobVertexState, first match wins:
//
//	any subtask FAILED        → FAILED
//	any subtask CANCELING     → CANCELING
//	any subtask CANCELED      → CANCELED
//	any subtask INITIALIZING  → INITIALIZING
//	any subtask RUNNING       → RUNNING
//	any subtask FINISHED      → FINISHED if all are, else RUNNING
//	otherwise                 → CREATED (SCHEDULED, DEPLOYING, ... collapse into it)
func (ejv *ExecutionJobVertex) AggregateState() api.ExecutionState {
	var counts [numExecutionStates]int // subtasks per state, as Flink's int[]
	for _, ev := range ejv.taskVertices {
		counts[ev.ExecutionState()]++
	}
	return aggregateJobVertexState(counts, len(ejv.taskVertices))
}

func aggregateJobVertexState(counts [numExecutionStates]int, parallelism int) api.ExecutionState {
	switch {
	case counts[api.ExecutionFailed] > 0:
		return api.ExecutionFailed
	case counts[api.ExecutionCanceling] > 0:
		return api.ExecutionCanceling
	case counts[api.ExecutionCanceled] > 0:
		return api.ExecutionCanceled
	case counts[api.ExecutionInitializing] > 0:
		return api.ExecutionInitializing
	case counts[api.ExecutionRunning] > 0:
		return api.ExecutionRunning
	case counts[api.ExecutionFinished] > 0:
		if counts[api.ExecutionFinished] == parallelism {
			return api.ExecutionFinished
		}
		return api.ExecutionRunning
	default:
		return api.ExecutionCreated
	}
}
