package scheduler

import (
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
)

// SchedulerNG is what the JobMaster asks of its scheduler (Flink's
// SchedulerNG). Every method runs on the JobMaster's main thread.
type SchedulerNG interface {
	// StartScheduling moves the job to RUNNING and schedules its tasks.
	StartScheduling()
	// UpdateTaskExecutionState applies a task's state report; it fails for
	// an attempt the scheduler does not know.
	UpdateTaskExecutionState(state gateway.TaskExecutionState) error
	// Cancel cancels the job.
	Cancel()
	// ReleaseTaskManager fails the tasks that ran in slots the JobMaster
	// lost with their TaskExecutor, and forgets the partitions it held.
	// (Flink reaches the tasks through the slots' payloads when the slot
	// pool releases a TaskManager, and tells its partition tracker.)
	ReleaseTaskManager(taskManager api.ResourceID, slots []slotpool.PhysicalSlot, cause error)
	// RequestJobStatus returns the job's status.
	RequestJobStatus() api.JobStatus
	// RequestJob returns a snapshot of the ExecutionGraph.
	RequestJob() *gateway.ArchivedExecutionGraph
	// RequestJobResourceRequirements returns the parallelism bounds of the
	// job's vertices.
	RequestJobResourceRequirements() jobgraph.JobResourceRequirements
	// UpdateJobResourceRequirements applies new, validated parallelism
	// bounds, or refuses them with gateway.ErrUnsupportedOperation if the
	// scheduler cannot rescale a running job. (Flink's SchedulerNG refuses
	// both methods by default; the AdaptiveScheduler implements them.)
	UpdateJobResourceRequirements(requirements jobgraph.JobResourceRequirements) error
	// AcknowledgeCheckpoint and DeclineCheckpoint hand a task's answer to
	// a checkpoint to the job's CheckpointCoordinator.
	AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint) error
	DeclineCheckpoint(decline checkpoint.DeclineCheckpoint) error
	// TriggerSavepoint takes a savepoint, and with cancelJob cancels the
	// job after it; StopWithSavepoint stops the job with one. Each calls
	// done once, on the main thread, with the savepoint's path or the
	// failure (Flink's SchedulerNG answers with a future of the path).
	TriggerSavepoint(targetDirectory string, cancelJob bool, done func(path string, err error))
	StopWithSavepoint(targetDirectory string, terminate bool, done func(path string, err error))
	// RequestCheckpointStats returns the statistics of the job's
	// checkpoints, nil when it is not checkpointed.
	RequestCheckpointStats() *checkpoint.CheckpointStatsSnapshot
}
