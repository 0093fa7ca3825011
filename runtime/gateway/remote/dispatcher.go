package remote

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

// dispatcherStub is a remote gateway.DispatcherGateway.
type dispatcherStub struct{ inv *rpc.Invoker }

var _ gateway.DispatcherGateway = dispatcherStub{}

func (s dispatcherStub) SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph) error {
	return s.inv.Call(ctx, "SubmitJob", jobGraph)
}

func (s dispatcherStub) CancelJob(ctx context.Context, jobID api.JobID) error {
	return s.inv.Call(ctx, "CancelJob", jobID)
}

func (s dispatcherStub) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	return rpc.CallRemote[api.JobStatus](ctx, s.inv, "RequestJobStatus", jobID)
}

func (s dispatcherStub) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	return rpc.CallRemote[*gateway.ArchivedExecutionGraph](ctx, s.inv, "RequestJob", jobID)
}

func (s dispatcherStub) ListJobs(ctx context.Context) ([]api.JobID, error) {
	return rpc.CallRemote[[]api.JobID](ctx, s.inv, "ListJobs")
}

func (s dispatcherStub) RequestMultipleJobDetails(ctx context.Context) ([]gateway.JobDetails, error) {
	return rpc.CallRemote[[]gateway.JobDetails](ctx, s.inv, "RequestMultipleJobDetails")
}

func (s dispatcherStub) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	return rpc.CallRemote[api.JobResult](ctx, s.inv, "RequestJobResult", jobID)
}

func (s dispatcherStub) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	return rpc.CallRemote[jobgraph.JobResourceRequirements](ctx, s.inv, "RequestJobResourceRequirements", jobID)
}

func (s dispatcherStub) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error {
	return s.inv.Call(ctx, "UpdateJobResourceRequirements", jobID, requirements)
}

func (s dispatcherStub) TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	return rpc.CallRemote[string](ctx, s.inv, "TriggerSavepointAndGetLocation", jobID, targetDirectory, savepointMode)
}

func (s dispatcherStub) StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	return rpc.CallRemote[string](ctx, s.inv, "StopWithSavepointAndGetLocation", jobID, targetDirectory, savepointMode)
}

func (s dispatcherStub) RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	return rpc.CallRemote[*checkpoint.CheckpointStatsSnapshot](ctx, s.inv, "RequestCheckpointStats", jobID)
}
