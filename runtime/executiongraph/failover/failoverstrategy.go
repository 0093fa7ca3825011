package failover

import (
	"slices"

	"flinklab/runtime/api"
)

// FailoverStrategy decides which tasks restart when one fails (Flink:
// FailoverStrategy). Whether the job restarts at all, and when, is the
// RestartBackoffTimeStrategy's business.
type FailoverStrategy interface {
	// TasksNeedingRestart returns the subtasks to restart after vertex
	// failed with cause (Flink: getTasksNeedingRestart).
	TasksNeedingRestart(vertex api.ExecutionVertexID, cause error) []api.ExecutionVertexID
}

// RestartAllFailoverStrategy restarts every task of the job, whichever one
// failed (Flink: RestartAllFailoverStrategy;
// jobmanager.execution.failover-strategy: full).
type RestartAllFailoverStrategy struct {
	vertices []api.ExecutionVertexID
}

// NewRestartAllFailoverStrategy returns the strategy for a job made of the
// given subtasks.
func NewRestartAllFailoverStrategy(vertices []api.ExecutionVertexID) *RestartAllFailoverStrategy {
	return &RestartAllFailoverStrategy{vertices: slices.Clone(vertices)}
}

// TasksNeedingRestart returns all subtasks, in the order given.
func (s *RestartAllFailoverStrategy) TasksNeedingRestart(api.ExecutionVertexID, error) []api.ExecutionVertexID {
	return slices.Clone(s.vertices)
}

func (s *RestartAllFailoverStrategy) String() string { return "RestartAllFailoverStrategy" }
