// Exercise m05: the ResourceManager registers a job's JobMaster.
//
// Each test starts a real ResourceManager, with an in-process RPC service
// and embedded leader election, and fake JobMasters served next to it. It
// calls the ResourceManager's gateway as a JobMaster's
// ResourceManagerConnection would, and looks at what a JobMaster and an
// operator can see: the registration's answer, whether the JobMaster may
// then declare resources (only a registered JobMaster may), the
// ResourceManager's heartbeat requests, and its log.
package m05_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rpc"
)

// fast are short heartbeat options: asked every second, a silent
// JobMaster is lost after 5 s (Flink's defaults are 10 s and 50 s).
var fast = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second}

func startResourceManager(t *testing.T) *scenario.ResourceManager {
	return scenario.StartResourceManager(t, resourcemanager.Config{Heartbeat: fast})
}

// elapse lets d of fake time pass inside the synctest bubble (at once in
// real time) and waits until the bubble is idle again.
func elapse(d time.Duration) {
	<-time.After(d)
	synctest.Wait()
}

func TestAReachableJobMasterIsRegistered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})

		success, err := rm.Register(jm)
		require.NoError(t, err, "a JobMaster the ResourceManager can reach must be registered")
		assert.Equal(t, rm.ID, success.ResourceManagerID,
			"the answer carries the ResourceManagerID the registration was made under")
		assert.Equal(t, rm.ResourceID(), success.ResourceManagerResourceID,
			"the answer carries the ResourceManager's ResourceID: the JobMaster expects its heartbeat requests under it")

		logs := rm.Logs.String()
		assert.Contains(t, logs, fmt.Sprintf("Registering job manager %s@%s for job %s.", jm.ID, jm.Address, jm.JobID))
		assert.Contains(t, logs, fmt.Sprintf("Registered job manager %s@%s for job %s.", jm.ID, jm.Address, jm.JobID))
		assert.NoError(t, rm.Declare(jm, 1), "a registered JobMaster may declare its job's resource requirements")
	})
}

func TestAJobMasterTheResourceManagerCannotReachIsNotRegistered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		jm := scenario.FakeJobMaster{
			JobID:      api.NewJobID(),
			ID:         api.NewJobMasterID(),
			ResourceID: "jobmanager_gone",
			Address:    rm.RPC.Address("jobmanager_gone"), // nobody serves here
		}

		_, err := rm.Register(jm)
		require.ErrorIs(t, err, gateway.ErrRegistrationFailure,
			"a JobMaster the ResourceManager cannot connect back to gets a registration failure, and tries again later")
		assert.Contains(t, rm.Logs.String(), fmt.Sprintf("Registration of job manager %s@%s failed.", jm.ID, jm.Address))
		assert.ErrorIs(t, rm.Declare(jm, 1), gateway.ErrUnknownJobManager,
			"a JobMaster whose registration failed may not declare requirements")
	})
}

// A JobMaster registers only at the leader it knows: a registration that
// carries an old ResourceManagerID is refused before the ResourceManager
// looks at it (fencing).
func TestARegistrationForAnotherLeadershipIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})

		_, err := rm.RegisterJobMaster(context.Background(), api.NewResourceManagerID(), jm.ID, jm.ResourceID, jm.Address, jm.JobID)
		require.ErrorIs(t, err, rpc.ErrFencingTokenMismatch)
		assert.NotContains(t, rm.Logs.String(), "Registering job manager")
		assert.ErrorIs(t, rm.Declare(jm, 1), gateway.ErrUnknownJobManager)
	})
}

// When a job's leadership moves to a new JobMaster (a JobManager failover,
// or leadership lost and regained), the new JobMaster registers with a new
// JobMasterID. It replaces the old one: the old JobMaster is disconnected
// and may not declare any more, but the job's requirements stay, for the
// new JobMaster to take over.
func TestANewLeaderOfTheJobReplacesTheOldJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		old := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})
		_, err := rm.Register(old)
		require.NoError(t, err, "a JobMaster the ResourceManager can reach must be registered")
		require.NoError(t, rm.Declare(old, 2))

		next := rm.NewLeader(t, old, "jobmanager_2", &gatewaytest.JobMasterGateway{})
		_, err = rm.Register(next)
		require.NoError(t, err, "the job's new leader must be registered")

		logs := rm.Logs.String()
		assert.Contains(t, logs, fmt.Sprintf("Disconnect job manager %s@%s for job %s from the resource manager.", old.ID, old.Address, old.JobID),
			"the old JobMaster must be disconnected")
		assert.Contains(t, logs, fmt.Sprintf("New job leader for job %s found.", old.JobID))
		assert.NotContains(t, logs, "Clearing resource requirements of job",
			"the job's requirements must stay for its new JobMaster")
		assert.ErrorIs(t, rm.Declare(old, 3), gateway.ErrJobLeaderIDMismatch,
			"the old JobMaster may no longer declare the job's requirements")
		assert.NoError(t, rm.Declare(next, 3), "the new JobMaster declares them now")
	})
}

// A JobMaster's registration may be retried after a timeout even though
// the first attempt arrived; the second registration of the same JobMaster
// (same JobMasterID) must leave it registered.
func TestTheSameJobMasterMayRegisterAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{})
		_, err := rm.Register(jm)
		require.NoError(t, err, "a JobMaster the ResourceManager can reach must be registered")

		_, err = rm.Register(jm)
		require.NoError(t, err, "registering again must succeed")
		logs := rm.Logs.String()
		assert.Contains(t, logs, fmt.Sprintf("Job manager %s@%s was already registered.", jm.ID, jm.Address))
		assert.NotContains(t, logs, "Disconnect job manager", "registering again must not disconnect the JobMaster")
		assert.NoError(t, rm.Declare(jm, 1), "the JobMaster is still registered")
	})
}

// From its registration on, the ResourceManager asks the JobMaster for a
// heartbeat every heartbeat.interval. A JobMaster that answers, under its
// own ResourceID, stays registered however long it runs.
func TestARegisteredJobMasterIsAskedForHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		var jm scenario.FakeJobMaster
		var requests atomic.Int32
		var askedBy atomic.Value // the ResourceID the last request came from
		jm = rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{
			HeartbeatFromResourceManagerFunc: func(ctx context.Context, from api.ResourceID) error {
				requests.Add(1)
				askedBy.Store(from)
				return rm.HeartbeatFromJobManager(ctx, jm.ResourceID) // the JobMaster answers
			},
		})
		_, err := rm.Register(jm)
		require.NoError(t, err, "a JobMaster the ResourceManager can reach must be registered")

		elapse(fast.Interval + time.Millisecond)
		require.NotZero(t, requests.Load(), "a registered JobMaster must be asked for a heartbeat within heartbeat.interval")
		assert.Equal(t, rm.ResourceID(), askedBy.Load(),
			"a heartbeat request must come from the ResourceManager's ResourceID: a JobMaster answers only the ResourceManager it registered at")

		elapse(3 * fast.Timeout)
		assert.NotContains(t, rm.Logs.String(), "timed out", "a JobMaster that answers must not time out")
		assert.NoError(t, rm.Declare(jm, 1), "a JobMaster that answers its heartbeat requests stays registered")
	})
}

// A JobMaster that stops answering (its process died, the network is cut)
// is disconnected after heartbeat.timeout, as in Flink's log:
//
//	The heartbeat of JobManager with id jobmanager_1 timed out.
//	Disconnect job manager <JobMasterID>@<address> for job <JobID> from the resource manager.
func TestASilentJobMasterIsDisconnectedAfterTheHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{}) // never answers
		_, err := rm.Register(jm)
		require.NoError(t, err, "a JobMaster the ResourceManager can reach must be registered")

		elapse(fast.Timeout + fast.Interval)
		logs := rm.Logs.String()
		assert.Contains(t, logs, fmt.Sprintf(heartbeat.JobManagerTimedOut, jm.ResourceID),
			"the JobMaster's heartbeat must be watched under the JobMaster's ResourceID")
		assert.Contains(t, logs, fmt.Sprintf("Disconnect job manager %s@%s for job %s from the resource manager.", jm.ID, jm.Address, jm.JobID))
		assert.ErrorIs(t, rm.Declare(jm, 1), gateway.ErrUnknownJobManager,
			"a JobMaster that was disconnected must register again before it may declare")
	})
}
