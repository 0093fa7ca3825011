// Exercise h03: the fencing check.
//
// The first tests call a real ResourceManager, whose calls carry its
// ResourceManagerID as an argument, in one process. The others reach a
// leader's Dispatcher in another "process" (a TCP RPC service of its
// own), whose calls carry the DispatcherID in the message, as a standby's
// REST endpoint sends them. Both pass the same check.
package h03_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	_ "flinklab/runtime/gateway/remote" // the gateways' stubs, to call them over TCP
	"flinklab/runtime/highavailability"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rpc"
)

// A JobMaster that knows the ResourceManager's current leader session is
// registered; one that carries another session's ID is refused before
// anything happens, in Flink's words.
func TestTheResourceManagerAnswersOnlyItsLeaderSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := scenario.StartResourceManager(t, resourcemanager.Config{})
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})

		stale := api.NewResourceManagerID() // the session of a leader that is gone
		_, err := rm.RegisterJobMaster(context.Background(), stale, jm.ID, jm.ResourceID, jm.Address, jm.JobID)
		require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "a call of another leader session must be refused")
		assert.Contains(t, err.Error(), "Fencing token mismatch: Ignoring message for StandaloneResourceManager because the fencing token "+
			stale.String()+" did not match the expected fencing token "+rm.ID.String()+".")
		assert.NotContains(t, rm.Logs.String(), "Registering job manager", "a refused call must not reach the ResourceManager")

		_, err = rm.Register(jm)
		require.NoError(t, err, "a call with the current leader session must go through")
		assert.Contains(t, rm.Logs.String(), "Registering job manager "+jm.ID.String())
	})
}

// A ResourceManager that lost its leadership has no fencing token: it
// answers nobody, not even a caller with the session it had.
func TestAResourceManagerThatLostItsLeadershipAnswersNobody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := scenario.StartResourceManager(t, resourcemanager.Config{})
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})
		rm.RevokeLeadership()
		synctest.Wait()

		_, err := rm.Register(jm)
		require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "an endpoint that does not lead must refuse every call")
		assert.Contains(t, err.Error(), "Fencing token not set: Ignoring message for StandaloneResourceManager because the fencing token is null.")
		assert.NotContains(t, rm.Logs.String(), "Registering job manager")
	})
}

// leadingDispatcher is the Dispatcher of one leader session, as its
// JobManager's RPC service serves it.
type leadingDispatcher struct {
	*gatewaytest.DispatcherGateway
	id api.DispatcherID
}

func (d leadingDispatcher) ExpectedFencingToken() string { return d.id.String() }

// handRetrieval is a leader retrieval the test tells who leads.
type handRetrieval struct {
	listener highavailability.LeaderRetrievalListener
}

func (r *handRetrieval) Start(l highavailability.LeaderRetrievalListener) error {
	r.listener = l
	return nil
}
func (r *handRetrieval) Stop() error { return nil }

// twoProcesses starts the RPC services of a leader JobManager, which
// serves a Dispatcher of the given session, and of a standby.
func twoProcesses(t *testing.T, session api.LeaderSessionID, jobs []api.JobID) (leader, standby *rpc.TCPService, address string) {
	t.Helper()
	var err error
	quiet := slog.New(slog.DiscardHandler)
	leader, err = rpc.NewTCPService(rpc.TCPConfig{Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = leader.Close() })
	standby, err = rpc.NewTCPService(rpc.TCPConfig{Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = standby.Close() })
	address = leader.Address("dispatcher_0")
	serve(t, leader, address, session, jobs)
	return leader, standby, address
}

func serve(t *testing.T, process *rpc.TCPService, address string, session api.LeaderSessionID, jobs []api.JobID) {
	t.Helper()
	list := &gatewaytest.DispatcherGateway{ListJobsFunc: func(context.Context) ([]api.JobID, error) { return jobs, nil }}
	require.NoError(t, process.Register(address, leadingDispatcher{list, api.DispatcherID(session)}))
}

func withTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A standby's REST endpoint reaches the leader's Dispatcher with the
// session the leader published. When that process leads again under a
// new session, the old session's calls are refused until the standby
// learns the new one.
func TestTheLeadersDispatcherAnswersOnlyItsOwnSession(t *testing.T) {
	ctx := withTimeout(t)
	jobs := []api.JobID{api.NewJobID()}
	first := api.NewLeaderSessionID()
	leader, standby, address := twoProcesses(t, first, jobs)
	retrieval := &handRetrieval{}
	rest, err := dispatcher.NewLeaderGateway(standby, retrieval)
	require.NoError(t, err)

	retrieval.listener.NotifyLeaderAddress(address, first)
	got, err := rest.ListJobs(ctx)
	require.NoError(t, err, "a call with the leader's session must go through")
	assert.Equal(t, jobs, got)

	second := api.NewLeaderSessionID()
	leader.Unregister(address)
	serve(t, leader, address, second, jobs)
	_, err = rest.ListJobs(ctx)
	require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "a call of an old session must be refused")
	assert.Contains(t, err.Error(), "Fencing token mismatch: Ignoring message RemoteRpcInvocation(ListJobs) because the fencing token "+
		first.String()+" did not match the expected fencing token "+second.String()+".")

	retrieval.listener.NotifyLeaderAddress(address, second)
	got, err = rest.ListJobs(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs, got)
}

// A call that carries no token at all is refused by a fenced endpoint.
func TestACallWithoutAFencingTokenIsRefused(t *testing.T) {
	ctx := withTimeout(t)
	session := api.NewLeaderSessionID()
	_, standby, address := twoProcesses(t, session, nil)

	unfenced, err := rpc.Connect[gateway.DispatcherGateway](ctx, standby, address)
	require.NoError(t, err)
	_, err = unfenced.ListJobs(ctx)
	require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "a call without a token must be refused")
	assert.Contains(t, err.Error(), "because the fencing token null did not match the expected fencing token "+session.String()+".")
}
