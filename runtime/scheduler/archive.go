package scheduler

import (
	"slices"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
)

// archive takes a snapshot of the graph that other goroutines may read
// (Flink's ArchivedExecutionGraph.createFrom).
func archive(g *executiongraph.ExecutionGraph, history []gateway.ExceptionHistoryEntry) *gateway.ArchivedExecutionGraph {
	a := &gateway.ArchivedExecutionGraph{
		JobID:            g.JobID(),
		JobName:          g.JobName(),
		State:            g.State(),
		StatusTimestamps: map[api.JobStatus]time.Time{},
		ExceptionHistory: slices.Clone(history),
	}
	for s := api.JobInitializing; s <= api.JobReconciling; s++ {
		if ts := g.StatusTimestamp(s); !ts.IsZero() {
			a.StatusTimestamps[s] = ts
		}
	}
	if cause := g.FailureCause(); cause != nil {
		a.FailureCause = cause.Error()
	}
	for _, ejv := range g.VerticesTopologically() {
		v := gateway.ArchivedExecutionJobVertex{
			ID:               ejv.ID(),
			Name:             ejv.Name(),
			Parallelism:      ejv.Parallelism(),
			MaxParallelism:   ejv.MaxParallelism(),
			SlotSharingGroup: ejv.SlotSharingGroup(),
			State:            ejv.AggregateState(),
		}
		for _, ev := range ejv.TaskVertices() {
			e := ev.CurrentExecution()
			sub := gateway.ArchivedExecution{
				SubtaskIndex:  ev.SubtaskIndex(),
				AttemptNumber: e.AttemptNumber(),
				AttemptID:     e.AttemptID(),
				State:         e.State(),
			}
			sub.StateTimestamps = make(map[api.ExecutionState]time.Time)
			for _, s := range api.ExecutionStates() {
				if ts := e.StateTimestamp(s); !ts.IsZero() {
					sub.StateTimestamps[s] = ts
				}
			}
			if slot, ok := e.AssignedSlot(); ok {
				sub.TaskManager = slot.TaskManagerLocation.ResourceID
				sub.AllocationID = slot.AllocationID
			}
			if cause := e.FailureCause(); cause != nil {
				sub.FailureCause = cause.Error()
			}
			v.Subtasks = append(v.Subtasks, sub)
		}
		a.Vertices = append(a.Vertices, v)
	}
	return a
}
