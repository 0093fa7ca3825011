package gateway

import (
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// ArchivedExecutionGraph is a snapshot of a job's ExecutionGraph that can be
// handed to other goroutines (Flink's ArchivedExecutionGraph). The JobMaster
// builds it on request; the Dispatcher keeps the last one of each ended job.
type ArchivedExecutionGraph struct {
	JobID            api.JobID                    `json:"jobId"`
	JobName          string                       `json:"jobName"`
	State            api.JobStatus                `json:"state"`
	StatusTimestamps map[api.JobStatus]time.Time  `json:"statusTimestamps"`
	FailureCause     string                       `json:"failureCause,omitempty"`
	Vertices         []ArchivedExecutionJobVertex `json:"vertices"`
	// ExceptionHistory holds the failures the job went through, newest
	// first: each failure that made it restart or fail (Flink:
	// ExecutionGraphInfo's exception history, RootExceptionHistoryEntry).
	ExceptionHistory []ExceptionHistoryEntry `json:"exceptionHistory,omitempty"`
	// CheckpointCoordinatorConfiguration is how the job is checkpointed,
	// and CheckpointStatsSnapshot how its checkpoints went; both nil for a
	// job that is not checkpointed (Flink's ArchivedExecutionGraph
	// getCheckpointCoordinatorConfiguration, getCheckpointStatsSnapshot).
	// GET /jobs/:jobid/checkpoints/config reads the first, and
	// GET /jobs/:jobid/checkpoints the second of a job that has ended.
	CheckpointCoordinatorConfiguration *checkpoint.CheckpointCoordinatorConfiguration `json:"checkpointCoordinatorConfiguration,omitempty"`
	CheckpointStatsSnapshot            *checkpoint.CheckpointStatsSnapshot            `json:"checkpointStatsSnapshot,omitempty"`
}

// ExceptionHistoryEntry is one failure of a job: what failed, when and
// where. A global failure names no task.
type ExceptionHistoryEntry struct {
	// Exception is the failure as text, its exception name first
	// ("JobException: Recovery is suppressed by …").
	Exception     string         `json:"exception"`
	Timestamp     time.Time      `json:"timestamp"`
	TaskName      string         `json:"taskName,omitempty"` // "Map (2/4)#1"; "" for a global failure
	TaskManagerID api.ResourceID `json:"taskManagerId,omitempty"`
	// ConcurrentExceptions are failures that happened while this one was
	// being handled (tasks failing during the same restart).
	ConcurrentExceptions []ExceptionHistoryEntry `json:"concurrentExceptions,omitempty"`
}

// ArchivedExecutionJobVertex is the snapshot of one JobVertex and its subtasks.
type ArchivedExecutionJobVertex struct {
	ID               api.JobVertexID     `json:"id"`
	Name             string              `json:"name"`
	Parallelism      int                 `json:"parallelism"`
	MaxParallelism   int                 `json:"maxParallelism"`
	SlotSharingGroup string              `json:"slotSharingGroup"`
	State            api.ExecutionState  `json:"state"`
	Subtasks         []ArchivedExecution `json:"subtasks"`
}

// ArchivedExecution is the snapshot of the current attempt of one subtask.
type ArchivedExecution struct {
	SubtaskIndex  int                    `json:"subtask"`
	AttemptNumber int                    `json:"attempt"`
	AttemptID     api.ExecutionAttemptID `json:"attemptId"`
	State         api.ExecutionState     `json:"status"`
	TaskManager   api.ResourceID         `json:"taskmanagerId,omitempty"`
	AllocationID  api.AllocationID       `json:"allocationId"`
	FailureCause  string                 `json:"failureCause,omitempty"`

	// StateTimestamps holds when the attempt entered each state it has
	// been in (Flink: ArchivedExecution.stateTimestamps); a state it never
	// entered is missing.
	StateTimestamps map[api.ExecutionState]time.Time `json:"stateTimestamps,omitempty"`
}
