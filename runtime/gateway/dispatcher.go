package gateway

import (
	"context"
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/jobgraph"
)

// Errors the Dispatcher answers its callers with; the REST layer maps them
// to HTTP statuses. Flink keeps them outside the Dispatcher too
// (org.apache.flink.runtime.messages), so the REST handlers need not know
// the Dispatcher to understand its answers. They may cross processes
// (errors.go).
var (
	// ErrJobNotFound: no job with that ID is known (Flink's
	// FlinkJobNotFoundException).
	ErrJobNotFound = errors.New("FlinkJobNotFoundException")
	// ErrNoLeader: no Dispatcher leads now (an election is under way);
	// the REST endpoint answers 503, as Flink's LeaderRetrievalHandler
	// does while it knows no leader.
	ErrNoLeader = errors.New("Service temporarily unavailable due to an ongoing leader election. Please refresh.")
)

// JobTerminatedWithoutCancellationException answers CancelJob of a job
// that has ended otherwise than CANCELED (Flink's
// FlinkJobTerminatedWithoutCancellationException): FINISHED, FAILED.
// Cancelling a job that is CANCELED already is acknowledged, as Flink's
// Dispatcher does. Find it with errors.As; the REST endpoint answers it
// 409 Conflict with the job's status.
type JobTerminatedWithoutCancellationException struct {
	JobID     api.JobID
	JobStatus api.JobStatus
}

func (e *JobTerminatedWithoutCancellationException) Error() string {
	return fmt.Sprintf("Flink job (%s) was not canceled, but instead %s.", e.JobID, e.JobStatus)
}

// DispatcherGateway is the cluster's front door (Flink's DispatcherGateway):
// the REST endpoint and the MiniCluster submit and manage jobs through it.
//
// The Dispatcher is fenced with its DispatcherID in the message, not as
// an argument (rpc.FencedGateway): a caller in another process connects
// with rpc.ConnectFenced and the leader session it retrieved.
type DispatcherGateway interface {
	// SubmitJob accepts a job (step m3). It returns once the job is
	// persisted and its JobManagerRunner started, before the JobMaster runs.
	SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph) error
	// CancelJob cancels a job that is not yet globally terminal.
	CancelJob(ctx context.Context, jobID api.JobID) error
	// RequestJobStatus returns a job's current status, also for jobs that
	// have ended while this Dispatcher ran.
	RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error)
	// RequestJob returns a snapshot of the job's ExecutionGraph.
	RequestJob(ctx context.Context, jobID api.JobID) (*ArchivedExecutionGraph, error)
	// ListJobs returns the IDs of the jobs this Dispatcher knows.
	ListJobs(ctx context.Context) ([]api.JobID, error)
	// RequestMultipleJobDetails summarizes every job this Dispatcher
	// knows, for the jobs overview: those that run, as their JobMasters
	// have them, and those that ended, as the job store keeps them in
	// memory, without reading their graphs (Flink's
	// requestMultipleJobDetails).
	RequestMultipleJobDetails(ctx context.Context) ([]JobDetails, error)
	// RequestJobResult waits until the job is globally terminal and returns
	// its result.
	RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error)
	// RequestJobResourceRequirements returns the parallelism bounds of a
	// running job's vertices, as its JobMaster's scheduler has them.
	RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error)
	// UpdateJobResourceRequirements validates new parallelism bounds for a
	// running job's vertices and hands them to its JobMaster, one update
	// per job at a time.
	UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error

	// TriggerSavepointAndGetLocation asks the running job's JobMaster for
	// a savepoint (ModeSavepoint or ModeCancelWithSavepoint) and returns
	// its path once it completed (Flink's triggerSavepointAndGetLocation).
	// A job that is not running is not found.
	TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
		savepointMode TriggerSavepointMode) (string, error)
	// StopWithSavepointAndGetLocation stops the running job with a
	// savepoint (ModeSuspendWithSavepoint or ModeTerminateWithSavepoint)
	// and returns its path once the job ended (Flink's
	// stopWithSavepointAndGetLocation).
	StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
		savepointMode TriggerSavepointMode) (string, error)
	// RequestCheckpointStats returns the statistics of a job's checkpoints:
	// a running job's from its JobMaster, an ended job's as its final
	// ExecutionGraph kept them. nil, and no error, for a job that is not
	// checkpointed (Flink's requestCheckpointStats).
	RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error)
}
