package gateway

import (
	"time"

	"flinklab/runtime/api"
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
}
