package gatewaytest

import (
	"context"
	"errors"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// DispatcherGateway is a fake gateway.DispatcherGateway. Its methods call
// the function fields when they are set and otherwise succeed with zero
// values.
type DispatcherGateway struct {
	SubmitJobFunc        func(ctx context.Context, jobGraph *jobgraph.JobGraph) error
	CancelJobFunc        func(ctx context.Context, jobID api.JobID) error
	RequestJobStatusFunc func(ctx context.Context, jobID api.JobID) (api.JobStatus, error)
	RequestJobFunc       func(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error)
	ListJobsFunc         func(ctx context.Context) ([]api.JobID, error)
	// RequestMultipleJobDetailsFunc, when nil, summarizes the jobs
	// ListJobs lists as RequestJob answers them (JobDetailsOfListedJobs).
	RequestMultipleJobDetailsFunc func(ctx context.Context) ([]gateway.JobDetails, error)
	RequestJobResultFunc          func(ctx context.Context, jobID api.JobID) (api.JobResult, error)

	RequestJobResourceRequirementsFunc func(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error)
	UpdateJobResourceRequirementsFunc  func(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error

	TriggerSavepointAndGetLocationFunc func(ctx context.Context, jobID api.JobID, targetDirectory string,
		savepointMode gateway.TriggerSavepointMode) (string, error)
	StopWithSavepointAndGetLocationFunc func(ctx context.Context, jobID api.JobID, targetDirectory string,
		savepointMode gateway.TriggerSavepointMode) (string, error)
	RequestCheckpointStatsFunc func(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error)
}

var _ gateway.DispatcherGateway = (*DispatcherGateway)(nil)

// SubmitJob calls SubmitJobFunc, or accepts the job.
func (f *DispatcherGateway) SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph) error {
	if f.SubmitJobFunc != nil {
		return f.SubmitJobFunc(ctx, jobGraph)
	}
	return nil
}

// CancelJob calls CancelJobFunc, or succeeds.
func (f *DispatcherGateway) CancelJob(ctx context.Context, jobID api.JobID) error {
	if f.CancelJobFunc != nil {
		return f.CancelJobFunc(ctx, jobID)
	}
	return nil
}

// RequestJobStatus calls RequestJobStatusFunc, or answers RUNNING.
func (f *DispatcherGateway) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	if f.RequestJobStatusFunc != nil {
		return f.RequestJobStatusFunc(ctx, jobID)
	}
	return api.JobRunning, nil
}

// RequestJob calls RequestJobFunc, or answers an empty graph (never nil).
func (f *DispatcherGateway) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	if f.RequestJobFunc != nil {
		return f.RequestJobFunc(ctx, jobID)
	}
	return &gateway.ArchivedExecutionGraph{JobID: jobID}, nil
}

// ListJobs calls ListJobsFunc, or answers no jobs.
func (f *DispatcherGateway) ListJobs(ctx context.Context) ([]api.JobID, error) {
	if f.ListJobsFunc != nil {
		return f.ListJobsFunc(ctx)
	}
	return nil, nil
}

// RequestMultipleJobDetails calls RequestMultipleJobDetailsFunc, or
// summarizes the jobs ListJobs lists.
func (f *DispatcherGateway) RequestMultipleJobDetails(ctx context.Context) ([]gateway.JobDetails, error) {
	if f.RequestMultipleJobDetailsFunc != nil {
		return f.RequestMultipleJobDetailsFunc(ctx)
	}
	return JobDetailsOfListedJobs(ctx, f)
}

// JobDetailsOfListedJobs is what a fake Dispatcher answers
// RequestMultipleJobDetails with when a test gives it no answer: the
// JobDetails of every job d.ListJobs lists, as d.RequestJob answers it;
// a job not found between the two calls is left out.
func JobDetailsOfListedJobs(ctx context.Context, d gateway.DispatcherGateway) ([]gateway.JobDetails, error) {
	ids, err := d.ListJobs(ctx)
	if err != nil {
		return nil, err
	}
	details := make([]gateway.JobDetails, 0, len(ids))
	for _, id := range ids {
		g, err := d.RequestJob(ctx, id)
		if errors.Is(err, gateway.ErrJobNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		details = append(details, gateway.JobDetailsOf(g))
	}
	return details, nil
}

// RequestJobResult calls RequestJobResultFunc, or answers that the job
// FINISHED.
func (f *DispatcherGateway) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	if f.RequestJobResultFunc != nil {
		return f.RequestJobResultFunc(ctx, jobID)
	}
	return api.JobResult{JobID: jobID, JobStatus: api.JobFinished, ApplicationStatus: api.ApplicationSucceeded}, nil
}

// RequestJobResourceRequirements calls RequestJobResourceRequirementsFunc,
// or answers no requirements (an empty map, never nil).
func (f *DispatcherGateway) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	if f.RequestJobResourceRequirementsFunc != nil {
		return f.RequestJobResourceRequirementsFunc(ctx, jobID)
	}
	return jobgraph.JobResourceRequirements{}, nil
}

// UpdateJobResourceRequirements calls UpdateJobResourceRequirementsFunc, or
// succeeds.
func (f *DispatcherGateway) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error {
	if f.UpdateJobResourceRequirementsFunc != nil {
		return f.UpdateJobResourceRequirementsFunc(ctx, jobID, requirements)
	}
	return nil
}

// TriggerSavepointAndGetLocation calls TriggerSavepointAndGetLocationFunc,
// or fails with gateway.ErrCheckpointingDisabled: the fake's jobs are not
// checkpointed.
func (f *DispatcherGateway) TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	if f.TriggerSavepointAndGetLocationFunc != nil {
		return f.TriggerSavepointAndGetLocationFunc(ctx, jobID, targetDirectory, savepointMode)
	}
	return "", gateway.ErrCheckpointingDisabled
}

// StopWithSavepointAndGetLocation calls StopWithSavepointAndGetLocationFunc,
// or fails with gateway.ErrCheckpointingDisabled.
func (f *DispatcherGateway) StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	if f.StopWithSavepointAndGetLocationFunc != nil {
		return f.StopWithSavepointAndGetLocationFunc(ctx, jobID, targetDirectory, savepointMode)
	}
	return "", gateway.ErrCheckpointingDisabled
}

// RequestCheckpointStats calls RequestCheckpointStatsFunc, or answers nil:
// the fake's jobs are not checkpointed.
func (f *DispatcherGateway) RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	if f.RequestCheckpointStatsFunc != nil {
		return f.RequestCheckpointStatsFunc(ctx, jobID)
	}
	return nil, nil
}
