package scheduler

import (
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// RequestCheckpointStats returns the statistics of the job's checkpoints,
// nil when the job is not checkpointed (Flink:
// SchedulerBase#requestCheckpointStats, the ExecutionGraph's
// getCheckpointStatsSnapshot).
func (s *DefaultScheduler) RequestCheckpointStats() *checkpoint.CheckpointStatsSnapshot {
	if s.checkpointCoordinator == nil {
		return nil
	}
	stats := s.checkpointCoordinator.Stats()
	return &stats
}

// archivedGraph is a snapshot of the ExecutionGraph with how the job is
// checkpointed and how its checkpoints went, as Flink's
// ArchivedExecutionGraph.createFrom copies them: RequestJob answers it,
// and the final one outlives the job in the Dispatcher's job store.
func (s *DefaultScheduler) archivedGraph() *gateway.ArchivedExecutionGraph {
	a := archive(s.deps.Graph, s.exceptionHistory)
	if s.checkpointCoordinator != nil {
		config := s.deps.Checkpointing.Config
		a.CheckpointCoordinatorConfiguration = &config
		a.CheckpointStatsSnapshot = s.RequestCheckpointStats()
	}
	return a
}
