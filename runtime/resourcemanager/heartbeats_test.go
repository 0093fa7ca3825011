package resourcemanager

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

// The ResourceManager asks every registered TaskExecutor and JobMaster for
// heartbeats. The fakes of cluster.addTaskExecutor and cluster.newJobMaster
// never answer (they are dead, as far as heartbeats go); the ones below
// answer every request.

// fast are short heartbeat options: a silent peer is lost after 5 s.
var fast = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second}

// addLiveTaskExecutor is addTaskExecutor for a TaskExecutor that answers
// every heartbeat request; it returns the count of its answers.
func (c *cluster) addLiveTaskExecutor(name string, n int) *atomic.Int32 {
	c.t.Helper()
	var answers atomic.Int32
	te := c.requests.gateway()
	te.HeartbeatFromResourceManagerFunc = func(ctx context.Context, _ api.ResourceID) error {
		answers.Add(1)
		return c.rm.HeartbeatFromTaskManager(ctx, api.ResourceID(name), gateway.TaskExecutorHeartbeatPayload{})
	}
	c.registerTaskExecutor(name, n, te)
	return &answers
}

// newLiveJobMaster is newJobMaster for a JobMaster that answers every
// heartbeat request; it returns the count of its answers.
func (c *cluster) newLiveJobMaster(name string) (jobMaster, *atomic.Int32) {
	c.t.Helper()
	var answers atomic.Int32
	jm := jobMaster{jobID: api.NewJobID(), id: api.NewJobMasterID(), address: c.svc.Address(name)}
	require.NoError(c.t, c.svc.Register(jm.address, &gatewaytest.JobMasterGateway{
		HeartbeatFromResourceManagerFunc: func(ctx context.Context, _ api.ResourceID) error {
			answers.Add(1)
			return c.rm.HeartbeatFromJobManager(ctx, "jobmanager-test") // registerJobMaster's ResourceID
		},
	}))
	return jm, &answers
}

// atTheTimeout lets fake time run to just before the heartbeat timeout of
// a target monitored since start and checks that the log has no line
// starting with lost yet, then to the timeout itself, where it must have
// exactly one.
func (c *cluster) atTheTimeout(start time.Time, lost string) {
	c.t.Helper()
	time.Sleep(time.Until(start.Add(fast.Timeout - time.Millisecond)))
	synctest.Wait()
	require.Empty(c.t, c.logs.Messages(lost), "lost before the heartbeat timeout")
	time.Sleep(time.Millisecond)
	synctest.Wait()
	require.Equal(c.t, []string{lost}, c.logs.Messages(lost), "not lost at the heartbeat timeout")
}

// A TaskExecutor that stops answering (it died) is lost after
// heartbeat.timeout: its connection is closed as if it had left, its slots
// are gone from the SlotManager, and the job that held one is served by
// another TaskExecutor.
func TestASilentTaskExecutorIsLostAfterTheHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startClusterWith(t, Config{Heartbeat: fast})
		defer c.rm.Close()
		start := time.Now()
		c.addTaskExecutor("tm-1", 1) // never answers
		c.addLiveTaskExecutor("tm-2", 1)
		jm, _ := c.newLiveJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(jm))
		require.NoError(t, c.declare(jm, 1))
		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 1)
		require.Equal(t, api.ResourceID("tm-1"), requests[0].SlotID.ResourceID, "the first TaskExecutor is filled first")

		timedOut := "The heartbeat of TaskManager with id tm-1 timed out."
		c.atTheTimeout(start, timedOut)
		assert.Equal(t, []string{"Closing TaskExecutor connection tm-1 because: " + timedOut},
			c.logs.Messages("Closing TaskExecutor connection"))
		assert.Equal(t, gateway.ResourceOverview{NumberTaskManagers: 1, NumberRegisteredSlots: 1, NumberFreeSlots: 1}, c.overview())

		// The job still needs its slot: the next check asks tm-2 for it.
		advance(DefaultRequirementCheckDelay)
		requests = c.requests.all()
		require.Len(t, requests, 2)
		assert.Equal(t, api.DynamicSlotID("tm-2"), requests[1].SlotID)
		assert.Equal(t, jm.jobID, requests[1].JobID)
		assert.Empty(t, c.logs.Messages("The heartbeat of TaskManager with id tm-2"))
	})
}

// A JobMaster that stops answering is lost after heartbeat.timeout: it is
// disconnected with the usual line, and its job's requirements stay, for
// it to find when it registers again (or for the job's next JobMaster).
func TestASilentJobMasterIsLostAfterTheHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startClusterWith(t, Config{Heartbeat: fast})
		defer c.rm.Close()
		start := time.Now()
		jm := c.newJobMaster("jobmanager_1") // never answers
		require.NoError(t, c.registerJobMaster(jm))
		require.NoError(t, c.declare(jm, 1))

		c.atTheTimeout(start, "The heartbeat of JobManager with id jobmanager-test timed out.")
		assert.Equal(t, []string{fmt.Sprintf("Disconnect job manager %s@%s for job %s from the resource manager.", jm.id, jm.address, jm.jobID)},
			c.logs.Messages("Disconnect job manager"))
		assert.ErrorIs(t, c.declare(jm, 1), gateway.ErrUnknownJobManager, "the JobMaster must register again")

		// The requirements stayed: a TaskExecutor that comes now is asked
		// for a slot for the job.
		assert.Empty(t, c.logs.Messages("Clearing resource requirements"))
		c.addLiveTaskExecutor("tm-1", 1)
		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 1)
		assert.Equal(t, jm.jobID, requests[0].JobID)
	})
}

// TaskExecutors and JobMasters that keep answering are never lost, and
// are asked once per heartbeat.interval.
func TestLivePeersAreNeverLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startClusterWith(t, Config{Heartbeat: fast})
		defer c.rm.Close()
		teAnswers := c.addLiveTaskExecutor("tm-1", 2)
		jm, jmAnswers := c.newLiveJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(jm))

		advance(12 * fast.Timeout)

		assert.EqualValues(t, 60, teAnswers.Load())
		assert.EqualValues(t, 60, jmAnswers.Load())
		assert.Empty(t, c.logs.Messages("The heartbeat of"))
		assert.Equal(t, gateway.ResourceOverview{NumberTaskManagers: 1, NumberRegisteredSlots: 2, NumberFreeSlots: 2}, c.overview())
		assert.NoError(t, c.declare(jm, 1), "the JobMaster is still registered")
	})
}

// Heartbeats stop with the leadership: a ResourceManager that lost it asks
// nobody, and times nobody out.
func TestHeartbeatsStopWithTheLeadership(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startClusterWith(t, Config{Heartbeat: fast})
		defer c.rm.Close()
		answers := c.addLiveTaskExecutor("tm-1", 1)
		c.addTaskExecutor("tm-2", 1) // never answers
		advance(fast.Interval)
		require.EqualValues(t, 1, answers.Load())

		c.rm.RevokeLeadership()
		advance(2 * fast.Timeout)
		assert.EqualValues(t, 1, answers.Load(), "asked after the leadership was revoked")
		assert.Empty(t, c.logs.Messages("The heartbeat of"))
	})
}

// A TaskExecutor whose heartbeat requests cannot even be delivered (its
// process is gone and its RPC service says so) is lost without waiting
// for the timeout: after heartbeat.rpc-failure-threshold (2) failed
// requests in a row.
func TestAnUnreachableTaskExecutorIsLostAfterTwoFailedRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startClusterWith(t, Config{Heartbeat: fast})
		defer c.rm.Close()
		te := c.requests.gateway()
		te.HeartbeatFromResourceManagerFunc = func(context.Context, api.ResourceID) error {
			return fmt.Errorf("%w: the TaskExecutor's RPC service is gone", rpc.ErrRecipientUnreachable)
		}
		c.registerTaskExecutor("tm-1", 1, te)

		unreachable := "TaskManager with id tm-1 is no longer reachable."
		advance(fast.Interval) // the first request fails
		assert.Empty(t, c.logs.Messages(unreachable))
		advance(fast.Interval) // the second one too
		assert.Equal(t, []string{unreachable}, c.logs.Messages(unreachable))
		assert.Equal(t, []string{"Closing TaskExecutor connection tm-1 because: " + unreachable},
			c.logs.Messages("Closing TaskExecutor connection"))
		assert.Equal(t, gateway.ResourceOverview{}, c.overview())
		assert.Empty(t, c.logs.Messages("The heartbeat of"), "no timeout on top")
	})
}
