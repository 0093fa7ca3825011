package checkpoint

import "flinklab/runtime/api"

// TaskToCheckpoint is one running subtask, as a checkpoint needs it: who
// it is, what its chain holds, and how to reach it (Flink: the Execution
// of an ExecutionVertex, in a CheckpointPlan).
type TaskToCheckpoint struct {
	AttemptID   api.ExecutionAttemptID
	JobVertexID api.JobVertexID
	// TaskNameWithSubtask names the subtask in log lines and traces:
	// "Source: sensor-events (1/2)#0".
	TaskNameWithSubtask string
	// Location is where the subtask runs, for log lines: Flink's
	// TaskManagerLocation, "resourceId @ address".
	Location string
	// Parallelism and MaxParallelism are the subtask's JobVertex's; the
	// completed checkpoint keeps them with each operator's state.
	Parallelism    int
	MaxParallelism int
	// OperatorIDs are the operators of the subtask's chain, head first
	// (Flink: ExecutionJobVertex#getOperatorIDs). Each gets an
	// OperatorState in the checkpoint, stateless ones too. When empty, the
	// operators of the acknowledged snapshot are taken.
	OperatorIDs []api.OperatorID

	// The RPCs to the subtask's TaskExecutor. The coordinator calls them
	// on its own goroutine and does not wait: they must return at once and
	// must not call back into the coordinator (acknowledgements arrive
	// later, as messages). The caller logs their failures.
	TriggerCheckpoint        func(checkpointID, timestamp int64, options CheckpointOptions)
	NotifyCheckpointComplete func(checkpointID, timestamp int64)
	NotifyCheckpointAborted  func(checkpointID, latestCompletedCheckpointID, timestamp int64)
}

// CheckpointPlan is who takes part in one checkpoint (Flink's
// CheckpointPlan, computed by the DefaultCheckpointPlanCalculator when the
// checkpoint is triggered).
type CheckpointPlan struct {
	// TasksToTrigger are told to start the checkpoint: the sources.
	TasksToTrigger []TaskToCheckpoint
	// TasksToWaitFor must all acknowledge before the checkpoint completes:
	// every subtask.
	TasksToWaitFor []TaskToCheckpoint
	// TasksToCommitTo are told when the checkpoint completes or is aborted.
	TasksToCommitTo []TaskToCheckpoint
}
