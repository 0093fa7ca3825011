// Exercise m06: the ResourceManager takes a job's resource requirements.
//
// Each test starts a real ResourceManager, with an in-process RPC service
// and embedded leader election, a fake TaskExecutor with free slots and
// fake JobMasters served next to it. A JobMaster registers (step m5) and
// declares what its job needs (step m6), as its slot pool would. The tests
// look at what the JobMaster and an operator can see: the answer to the
// declaration, the SlotManager's log, and, after
// slotmanager.requirement-check.delay, the slots the SlotManager asks the
// TaskExecutor for (step m7), for which job and for which JobMaster.
package m06_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/resourcemanager"
)

func startResourceManager(t *testing.T) *scenario.ResourceManager {
	return scenario.StartResourceManager(t, resourcemanager.Config{})
}

// registeredJobMaster serves a fake JobMaster of a new job under name and
// registers it at rm (step m5).
func registeredJobMaster(t *testing.T, rm *scenario.ResourceManager, name string) scenario.FakeJobMaster {
	t.Helper()
	jm := rm.AddJobMaster(t, name, &gatewaytest.JobMasterGateway{})
	_, err := rm.Register(jm)
	require.NoError(t, err)
	return jm
}

// afterTheCheckDelay lets slotmanager.requirement-check.delay of fake time
// pass inside the synctest bubble (at once in real time): the SlotManager
// has then matched the requirements it received to free slots.
func afterTheCheckDelay() {
	<-time.After(resourcemanager.DefaultRequirementCheckDelay)
	synctest.Wait()
}

// received is the SlotManager's log line for a declaration of n slots of
// any profile, as Flink's FineGrainedSlotManager writes it.
func received(jm scenario.FakeJobMaster, n int) string {
	return fmt.Sprintf("Received resource requirements from job %s: "+
		"[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=%d}]", jm.JobID, n)
}

func TestTheRegisteredJobMastersRequirementsAreTakenAndServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 2)
		jm := registeredJobMaster(t, rm, "jobmanager_1")

		require.NoError(t, rm.Declare(jm, 2), "the job's registered JobMaster must be able to declare its requirements")
		assert.Contains(t, rm.Logs.String(), received(jm, 2), "the SlotManager logs what it received, as Flink's does")
		synctest.Wait()
		assert.Empty(t, slots.All(), "the SlotManager matches only after slotmanager.requirement-check.delay, "+
			"so that declarations that come close together are matched once")

		afterTheCheckDelay()
		requests := slots.All()
		require.Len(t, requests, 2, "after its check delay the SlotManager must ask for the two slots the job needs")
		for _, r := range requests {
			assert.Equal(t, jm.JobID, r.JobID)
			assert.Equal(t, jm.Address, r.JobMasterAddress, "the TaskExecutor offers the slot to the JobMaster that declared")
		}
	})
}

func TestRequirementsOfAJobWithoutARegisteredJobMasterAreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 1)
		jm := rm.AddJobMaster(t, "jobmanager_1", &gatewaytest.JobMasterGateway{}) // not registered

		err := rm.Declare(jm, 1)
		require.ErrorIs(t, err, gateway.ErrUnknownJobManager,
			"requirements of a job without a registered JobMaster must be refused")
		assert.ErrorContains(t, err, fmt.Sprintf("Could not find registered job manager for job %s.", jm.JobID))

		afterTheCheckDelay()
		assert.NotContains(t, rm.Logs.String(), "Received resource requirements", "refused requirements must not reach the SlotManager")
		assert.Empty(t, slots.All(), "no slot may be requested for a refused declaration")
	})
}

// After a JobManager failover the job has a new JobMaster, with a new
// JobMasterID; the old one may still be alive, still declaring. Only the
// job's registered JobMaster speaks for the job.
func TestRequirementsFromAnOldLeaderOfTheJobAreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 2)
		old := registeredJobMaster(t, rm, "jobmanager_1")
		next := rm.NewLeader(t, old, "jobmanager_2", &gatewaytest.JobMasterGateway{})
		_, err := rm.Register(next)
		require.NoError(t, err)

		err = rm.Declare(old, 2)
		require.ErrorIs(t, err, gateway.ErrJobLeaderIDMismatch,
			"requirements from a JobMaster that is not the job's registered one must be refused")
		assert.ErrorContains(t, err, fmt.Sprintf("The job leader's id %s does not match the received id %s.", next.ID, old.ID))
		afterTheCheckDelay()
		assert.Empty(t, slots.All(), "no slot may be requested for a refused declaration")

		require.NoError(t, rm.Declare(next, 1), "the job's registered JobMaster must be able to declare its requirements")
		afterTheCheckDelay()
		requests := slots.All()
		require.Len(t, requests, 1)
		assert.Equal(t, next.Address, requests[0].JobMasterAddress, "the slot goes to the job's new JobMaster")
	})
}

// A declaration is the job's complete requirements, not a delta: a job
// that asked for three slots and then for one needs one.
func TestADeclarationReplacesTheJobsPreviousRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 3)
		jm := registeredJobMaster(t, rm, "jobmanager_1")

		require.NoError(t, rm.Declare(jm, 3), "the job's registered JobMaster must be able to declare its requirements")
		require.NoError(t, rm.Declare(jm, 1))
		logs := rm.Logs.String()
		assert.Contains(t, logs, received(jm, 3))
		assert.Contains(t, logs, received(jm, 1))

		afterTheCheckDelay()
		assert.Len(t, slots.All(), 1, "the job needs one slot now, not three, nor four")
	})
}

// Declaring nothing withdraws the job's claim (Flink logs "Clearing
// resource requirements of job …"); for a job that needed nothing, it
// changes nothing and logs nothing.
func TestAnEmptyDeclarationClearsTheJobsRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 1)
		jm := registeredJobMaster(t, rm, "jobmanager_1")
		idle := registeredJobMaster(t, rm, "jobmanager_2")

		require.NoError(t, rm.Declare(jm, 1), "the job's registered JobMaster must be able to declare its requirements")
		require.NoError(t, rm.Declare(jm, 0))
		require.NoError(t, rm.Declare(idle, 0))

		logs := rm.Logs.String()
		assert.Contains(t, logs, fmt.Sprintf("Clearing resource requirements of job %s", jm.JobID))
		assert.NotContains(t, logs, fmt.Sprintf("resource requirements of job %s", idle.JobID),
			"a job that needed nothing has nothing to clear")
		afterTheCheckDelay()
		assert.Empty(t, slots.All(), "a job that needs nothing must get no slot")
	})
}

// The slots go to where the job's JobMaster serves. A declaration that
// names no target address is for the registered JobMaster.
func TestSlotsAreForTheRegisteredJobMasterWhenTheDeclarationNamesNoAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startResourceManager(t)
		slots := rm.AddTaskExecutor(t, "tm-1", 1)
		jm := registeredJobMaster(t, rm, "jobmanager_1")

		err := rm.DeclareRequiredResources(context.Background(), rm.ID, jm.ID, gateway.ResourceRequirements{
			JobID:        jm.JobID,
			Requirements: []gateway.ResourceRequirement{{NumberOfRequiredSlots: 1}},
		})
		require.NoError(t, err, "the job's registered JobMaster must be able to declare its requirements")

		afterTheCheckDelay()
		requests := slots.All()
		require.Len(t, requests, 1)
		assert.Equal(t, jm.Address, requests[0].JobMasterAddress,
			"the TaskExecutor must offer the slot to the job's registered JobMaster")
	})
}
