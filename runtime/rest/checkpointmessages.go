package rest

import "flinklab/runtime/api"

// The bodies of the checkpoint and savepoint endpoints, with Flink 1.20's
// field names (org.apache.flink.runtime.rest.messages.checkpoints and
// ….job.savepoints).

// GET /jobs/{jobid}/checkpoints and /checkpoints/details/{checkpointid}
// answer checkpoint.CheckpointStatsSnapshot and
// checkpoint.CheckpointStatistics, which have Flink's REST shape
// (CheckpointingStatistics, CheckpointStatistics).

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
