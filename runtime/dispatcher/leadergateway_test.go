package dispatcher

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	_ "flinklab/runtime/gateway/remote" // the stubs of the gateways, to call them over TCP
	"flinklab/runtime/highavailability"
	"flinklab/runtime/rpc"
)

// handRetrieval is a leader retrieval the test tells who leads.
type handRetrieval struct {
	listener highavailability.LeaderRetrievalListener
}

func (r *handRetrieval) Start(l highavailability.LeaderRetrievalListener) error {
	r.listener = l
	return nil
}
func (r *handRetrieval) Stop() error { return nil }

// leadingDispatcher is a Dispatcher of one leader session, as the
// TCPService of its JobManager serves it.
type leadingDispatcher struct {
	*gatewaytest.DispatcherGateway
	id api.DispatcherID
}

func (d leadingDispatcher) ExpectedFencingToken() string { return d.id.String() }

// A standby's REST endpoint reaches the leader's Dispatcher in another
// process, fenced with the session the leader published: once the leader
// leads anew under another session, a call with the old one is refused
// until the retrieval tells the new one. With no leader known, the answer
// is ErrNoLeader (503).
func TestTheLeaderGatewayCallsTheLeaderOfTheSessionItKnows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leaderProcess, err := rpc.NewTCPService(rpc.TCPConfig{})
	require.NoError(t, err)
	defer leaderProcess.Close()
	standbyProcess, err := rpc.NewTCPService(rpc.TCPConfig{})
	require.NoError(t, err)
	defer standbyProcess.Close()

	job := api.NewJobID()
	address := leaderProcess.Address("dispatcher_0")
	first := api.NewLeaderSessionID()
	serve := &gatewaytest.DispatcherGateway{ListJobsFunc: func(context.Context) ([]api.JobID, error) { return []api.JobID{job}, nil }}
	require.NoError(t, leaderProcess.Register(address, leadingDispatcher{serve, api.DispatcherID(first)}))

	retrieval := &handRetrieval{}
	g, err := NewLeaderGateway(standbyProcess, retrieval)
	require.NoError(t, err)
	_, err = g.ListJobs(ctx)
	require.ErrorIs(t, err, gateway.ErrNoLeader, "no leader known yet")

	retrieval.listener.NotifyLeaderAddress(address, first)
	jobs, err := g.ListJobs(ctx)
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{job}, jobs)

	// The process leads again, under a new session, with a new Dispatcher.
	second := api.NewLeaderSessionID()
	leaderProcess.Unregister(address)
	require.NoError(t, leaderProcess.Register(address, leadingDispatcher{serve, api.DispatcherID(second)}))
	_, err = g.ListJobs(ctx)
	require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "a call of the old session is refused")
	assert.Contains(t, err.Error(), "because the fencing token "+first.String()+" did not match the expected fencing token "+second.String()+".")

	retrieval.listener.NotifyLeaderAddress(address, second)
	jobs, err = g.ListJobs(ctx)
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{job}, jobs)

	retrieval.listener.NotifyLeaderAddress("", api.LeaderSessionID{})
	_, err = g.ListJobs(ctx)
	require.ErrorIs(t, err, gateway.ErrNoLeader)
}
