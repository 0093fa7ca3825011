package dispatcher

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

// LeaderGateway is the Dispatcher as the REST endpoint of a highly
// available JobManager sees it: Flink's LeaderGatewayRetriever, which
// every LeaderRetrievalHandler asks for the gateway of the leader. It
// follows the Dispatcher's leader through the leader retrieval service
// and sends each call to the Dispatcher that leads now, in this process or
// in another JobManager's over RPC. So a standby's REST endpoint answers
// as the leader's does.
//
// Every call is fenced with the leader session the leader published
// (rpc.ConnectFenced, with api.DispatcherID(session)): a JobManager that
// has lost the leadership, or leads again under a new session, refuses it
// (rpc.ErrFencingTokenMismatch) instead of answering for a term that is
// over. While no leader is known, every call fails with
// gateway.ErrNoLeader, which the REST endpoint answers 503 ("Service
// temporarily unavailable due to an ongoing leader election. Please
// refresh.").
type LeaderGateway struct {
	*gateway.LeaderGatewayRetriever[gateway.DispatcherGateway]
}

var _ gateway.DispatcherGateway = (*LeaderGateway)(nil)

// NewLeaderGateway starts following the Dispatcher's leader with
// retrieval, connecting through rpcService. Close stops it.
func NewLeaderGateway(rpcService rpc.Service, retrieval highavailability.LeaderRetrievalService) (*LeaderGateway, error) {
	retriever, err := gateway.NewLeaderGatewayRetriever(retrieval,
		func(ctx context.Context, address string, session api.LeaderSessionID) (gateway.DispatcherGateway, error) {
			return rpc.ConnectFenced[gateway.DispatcherGateway](ctx, rpcService, address, api.DispatcherID(session))
		})
	if err != nil {
		return nil, fmt.Errorf("follow the Dispatcher's leader: %w", err)
	}
	return &LeaderGateway{retriever}, nil
}

// The calls of the DispatcherGateway, each sent to the leader.

func (g *LeaderGateway) SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph) error {
	d, err := g.Gateway(ctx)
	if err != nil {
		return err
	}
	return d.SubmitJob(ctx, jobGraph)
}

func (g *LeaderGateway) CancelJob(ctx context.Context, jobID api.JobID) error {
	d, err := g.Gateway(ctx)
	if err != nil {
		return err
	}
	return d.CancelJob(ctx, jobID)
}

func (g *LeaderGateway) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		var none api.JobStatus
		return none, err
	}
	return d.RequestJobStatus(ctx, jobID)
}

func (g *LeaderGateway) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.RequestJob(ctx, jobID)
}

func (g *LeaderGateway) ListJobs(ctx context.Context) ([]api.JobID, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.ListJobs(ctx)
}

func (g *LeaderGateway) RequestMultipleJobDetails(ctx context.Context) ([]gateway.JobDetails, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.RequestMultipleJobDetails(ctx)
}

func (g *LeaderGateway) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return api.JobResult{}, err
	}
	return d.RequestJobResult(ctx, jobID)
}

func (g *LeaderGateway) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return jobgraph.JobResourceRequirements{}, err
	}
	return d.RequestJobResourceRequirements(ctx, jobID)
}

func (g *LeaderGateway) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error {
	d, err := g.Gateway(ctx)
	if err != nil {
		return err
	}
	return d.UpdateJobResourceRequirements(ctx, jobID, requirements)
}

func (g *LeaderGateway) TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return "", err
	}
	return d.TriggerSavepointAndGetLocation(ctx, jobID, targetDirectory, savepointMode)
}

func (g *LeaderGateway) StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return "", err
	}
	return d.StopWithSavepointAndGetLocation(ctx, jobID, targetDirectory, savepointMode)
}

func (g *LeaderGateway) RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	d, err := g.Gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.RequestCheckpointStats(ctx, jobID)
}
