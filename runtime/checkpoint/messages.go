package checkpoint

import "flinklab/runtime/api"

// AcknowledgeCheckpoint is a task's answer to a checkpoint it took: the
// handles of its state and what it measured (Flink's
// AcknowledgeCheckpoint message, sent through the
// CheckpointCoordinatorGateway of the JobMaster).
type AcknowledgeCheckpoint struct {
	JobID           api.JobID              `json:"jobId"`
	TaskExecutionID api.ExecutionAttemptID `json:"taskExecutionId"`
	CheckpointID    int64                  `json:"checkpointId"`
	Metrics         CheckpointMetrics      `json:"checkpointMetrics"`
	SubtaskState    *TaskStateSnapshot     `json:"subtaskState,omitempty"`
}

// DeclineCheckpoint is a task's refusal of a checkpoint (Flink's
// DeclineCheckpoint message): a task that is not running yet, or whose
// snapshot failed. The reason crosses processes as text.
type DeclineCheckpoint struct {
	JobID           api.JobID              `json:"jobId"`
	TaskExecutionID api.ExecutionAttemptID `json:"taskExecutionId"`
	CheckpointID    int64                  `json:"checkpointId"`
	// Reason is the Name of the CheckpointFailureReason.
	Reason string `json:"reason"`
	// Message is the whole refusal, as the task's log says it.
	Message string `json:"message"`
}
