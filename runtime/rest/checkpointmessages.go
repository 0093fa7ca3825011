package rest

import (
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// The bodies of the checkpoint and savepoint endpoints, with Flink 1.20's
// field names (org.apache.flink.runtime.rest.messages.checkpoints and
// ….job.savepoints).

// CheckpointingStatistics answers GET /jobs/{jobid}/checkpoints (Flink's
// CheckpointingStatistics): the counts, a summary of the completed
// checkpoints, the latest of each kind (null when there is none), and the
// recent ones, newest first.
type CheckpointingStatistics struct {
	Counts  checkpoint.CheckpointStatsCounts  `json:"counts"`
	Summary checkpoint.CheckpointStatsSummary `json:"summary"`
	Latest  LatestCheckpoints                 `json:"latest"`
	History []CheckpointStatistics            `json:"history"`
}

// LatestCheckpoints are the newest completed checkpoint, savepoint and
// failed checkpoint, and the checkpoint the job last restored.
type LatestCheckpoints struct {
	Completed *CheckpointStatistics                    `json:"completed"`
	Savepoint *CheckpointStatistics                    `json:"savepoint"`
	Failed    *CheckpointStatistics                    `json:"failed"`
	Restored  *checkpoint.RestoredCheckpointStatistics `json:"restored"`
}

// CheckpointStatistics are one checkpoint's statistics (Flink's
// CheckpointStatistics and its three subclasses, which "className" names:
// "completed", "failed", "in_progress"). A completed checkpoint has
// external_path and discarded, a failed one failure_timestamp and
// failure_message; savepointFormat is null for a checkpoint. tasks, by
// JobVertexID, is {} in the overview and filled in the details.
type CheckpointStatistics struct {
	ClassName               string                                         `json:"className"`
	ID                      int64                                          `json:"id"`
	Status                  checkpoint.CheckpointStatsStatus               `json:"status"`
	IsSavepoint             bool                                           `json:"is_savepoint"`
	SavepointFormat         *string                                        `json:"savepointFormat"`
	TriggerTimestamp        int64                                          `json:"trigger_timestamp"`
	LatestAckTimestamp      int64                                          `json:"latest_ack_timestamp"`
	CheckpointedSize        int64                                          `json:"checkpointed_size"`
	StateSize               int64                                          `json:"state_size"`
	EndToEndDuration        int64                                          `json:"end_to_end_duration"`
	AlignmentBuffered       int64                                          `json:"alignment_buffered"`
	ProcessedData           int64                                          `json:"processed_data"`
	PersistedData           int64                                          `json:"persisted_data"`
	NumSubtasks             int                                            `json:"num_subtasks"`
	NumAcknowledgedSubtasks int                                            `json:"num_acknowledged_subtasks"`
	CheckpointType          string                                         `json:"checkpoint_type"`
	Tasks                   map[string]checkpoint.TaskCheckpointStatistics `json:"tasks"`

	ExternalPath     *string `json:"external_path,omitempty"`     // completed only
	Discarded        *bool   `json:"discarded,omitempty"`         // completed only
	FailureTimestamp *int64  `json:"failure_timestamp,omitempty"` // failed only
	FailureMessage   *string `json:"failure_message,omitempty"`   // failed only
}

// CheckpointConfigInfo answers GET /jobs/{jobid}/checkpoints/config
// (Flink's CheckpointConfigInfo): times in ms, mode "exactly_once" or
// "at_least_once". flinklab has no unaligned checkpoints, no aligned
// checkpoint timeout, no checkpoints after tasks finished and no
// changelog state backend, so those say false or 0, and Flink's
// changelog_periodic_materialization_interval and changelog_storage are
// left out.
type CheckpointConfigInfo struct {
	Mode                        string                     `json:"mode"`
	Interval                    int64                      `json:"interval"`
	Timeout                     int64                      `json:"timeout"`
	MinPause                    int64                      `json:"min_pause"`
	MaxConcurrent               int64                      `json:"max_concurrent"`
	Externalization             ExternalizedCheckpointInfo `json:"externalization"`
	StateBackend                string                     `json:"state_backend"`
	CheckpointStorage           string                     `json:"checkpoint_storage"`
	UnalignedCheckpoints        bool                       `json:"unaligned_checkpoints"`
	TolerableFailedCheckpoints  int                        `json:"tolerable_failed_checkpoints"`
	AlignedCheckpointTimeout    int64                      `json:"aligned_checkpoint_timeout"`
	CheckpointsAfterTasksFinish bool                       `json:"checkpoints_after_tasks_finish"`
	StateChangelogEnabled       bool                       `json:"state_changelog_enabled"`
}

// ExternalizedCheckpointInfo says whether the job's checkpoints outlive it
// (execution.checkpointing.externalized-checkpoint-retention), and whether
// a cancel deletes them.
type ExternalizedCheckpointInfo struct {
	Enabled              bool `json:"enabled"`
	DeleteOnCancellation bool `json:"delete_on_cancellation"`
}

// SavepointTriggerRequestBody is the body of POST /jobs/{jobid}/savepoints
// (Flink's SavepointTriggerRequestBody); it may be empty. Without
// target-directory the savepoint goes to state.savepoints.dir; with
// cancel-job the job is cancelled once it completed. triggerId, if given,
// makes the request idempotent: a second request with it starts nothing.
type SavepointTriggerRequestBody struct {
	TargetDirectory *string `json:"target-directory,omitempty"`
	CancelJob       bool    `json:"cancel-job,omitempty"`
	FormatType      *string `json:"formatType,omitempty"`
	TriggerID       *string `json:"triggerId,omitempty"`
}

// StopWithSavepointRequestBody is the body of POST /jobs/{jobid}/stop
// (Flink's StopWithSavepointRequestBody); it may be empty.
type StopWithSavepointRequestBody struct {
	TargetDirectory *string `json:"targetDirectory,omitempty"`
	Drain           bool    `json:"drain,omitempty"`
	FormatType      *string `json:"formatType,omitempty"`
	TriggerID       *string `json:"triggerId,omitempty"`
}

// TriggerID names an asynchronous operation: 32 lower-case hex digits, as
// Flink's TriggerId writes them.
type TriggerID string

// TriggerResponse answers the trigger of an asynchronous operation with
// 202 (Flink's TriggerResponse): {"request-id": "<trigger id>"}.
type TriggerResponse struct {
	RequestID TriggerID `json:"request-id"`
}

// AsynchronousOperationResult answers GET
// /jobs/{jobid}/savepoints/{triggerid} (Flink's
// AsynchronousOperationResult of a SavepointInfo):
// {"status": {"id": "IN_PROGRESS"}, "operation": null} until the
// operation ended, then {"status": {"id": "COMPLETED"}, "operation": {…}}.
type AsynchronousOperationResult struct {
	Status    QueueStatus    `json:"status"`
	Operation *SavepointInfo `json:"operation"`
}

// SavepointInfo is how a savepoint operation ended (Flink's SavepointInfo):
// its location, or why it failed; the other is null.
type SavepointInfo struct {
	Location     *string              `json:"location"`
	FailureCause *SerializedThrowable `json:"failure-cause"`
}

// savepointOperationKey is Flink's AsynchronousJobOperationKey: a trigger
// ID is known only with its job.
type savepointOperationKey struct {
	triggerID TriggerID
	jobID     api.JobID
}
