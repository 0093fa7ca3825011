package dispatcher

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"flinklab/runtime/api"
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
	rpc       rpc.Service
	retrieval highavailability.LeaderRetrievalService
	log       *slog.Logger

	mu      sync.Mutex
	address string // "" while no leader is known
	session api.LeaderSessionID
	leader  gateway.DispatcherGateway // connected on first use; nil until then
}

var _ gateway.DispatcherGateway = (*LeaderGateway)(nil)

// NewLeaderGateway starts following the Dispatcher's leader with
// retrieval. Close stops it.
func NewLeaderGateway(rpcService rpc.Service, retrieval highavailability.LeaderRetrievalService, logger *slog.Logger) (*LeaderGateway, error) {
	if logger == nil {
		logger = slog.Default()
	}
	g := &LeaderGateway{rpc: rpcService, retrieval: retrieval, log: logger.With("logger", "LeaderGatewayRetriever")}
	if err := retrieval.Start(g); err != nil {
		return nil, fmt.Errorf("start the retrieval of the Dispatcher's leader: %w", err)
	}
	return g, nil
}

// NotifyLeaderAddress is told each new leader, and "" when none is known.
func (g *LeaderGateway) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if address == g.address && session == g.session {
		return
	}
	g.address, g.session, g.leader = address, session, nil
	if address != "" {
		g.log.Debug(fmt.Sprintf("New leader of the Dispatcher: %s with session %s.", address, session))
	}
}

// gateway returns the Dispatcher that leads now, connecting to it the
// first time it is asked for.
func (g *LeaderGateway) gateway(ctx context.Context) (gateway.DispatcherGateway, error) {
	g.mu.Lock()
	address, session, leader := g.address, g.session, g.leader
	g.mu.Unlock()
	if address == "" {
		return nil, gateway.ErrNoLeader
	}
	if leader != nil {
		return leader, nil
	}
	leader, err := rpc.ConnectFenced[gateway.DispatcherGateway](ctx, g.rpc, address, api.DispatcherID(session))
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.address == address && g.session == session {
		g.leader = leader
	}
	g.mu.Unlock()
	return leader, nil
}

// Close stops following the leader.
func (g *LeaderGateway) Close() error { return g.retrieval.Stop() }

// The calls of the DispatcherGateway, each sent to the leader.

func (g *LeaderGateway) SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph) error {
	d, err := g.gateway(ctx)
	if err != nil {
		return err
	}
	return d.SubmitJob(ctx, jobGraph)
}

func (g *LeaderGateway) CancelJob(ctx context.Context, jobID api.JobID) error {
	d, err := g.gateway(ctx)
	if err != nil {
		return err
	}
	return d.CancelJob(ctx, jobID)
}

func (g *LeaderGateway) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	d, err := g.gateway(ctx)
	if err != nil {
		var none api.JobStatus
		return none, err
	}
	return d.RequestJobStatus(ctx, jobID)
}

func (g *LeaderGateway) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	d, err := g.gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.RequestJob(ctx, jobID)
}

func (g *LeaderGateway) ListJobs(ctx context.Context) ([]api.JobID, error) {
	d, err := g.gateway(ctx)
	if err != nil {
		return nil, err
	}
	return d.ListJobs(ctx)
}

func (g *LeaderGateway) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	d, err := g.gateway(ctx)
	if err != nil {
		return api.JobResult{}, err
	}
	return d.RequestJobResult(ctx, jobID)
}

func (g *LeaderGateway) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	d, err := g.gateway(ctx)
	if err != nil {
		return jobgraph.JobResourceRequirements{}, err
	}
	return d.RequestJobResourceRequirements(ctx, jobID)
}

func (g *LeaderGateway) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error {
	d, err := g.gateway(ctx)
	if err != nil {
		return err
	}
	return d.UpdateJobResourceRequirements(ctx, jobID, requirements)
}
