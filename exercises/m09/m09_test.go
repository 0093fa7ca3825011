// Exercise m09: the TaskExecutor's checks on a deployed task.
//
// Each test starts a real TaskExecutor with two slots next to a fake
// ResourceManager and fake JobMasters, and plays the JobMaster itself: it
// calls SubmitTask as the scheduler's deployment does (step m9). It looks
// at what the JobMaster and an operator can see: the answer to the call,
// the task states the JobMaster receives, the slots, the TaskManager's log
// and the trace.
package m09_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/trace"
)

func startTaskExecutor(t *testing.T) *scenario.TaskManager {
	return scenario.StartTaskExecutor(t, taskexecutor.Config{})
}

func submit(tm *scenario.TaskManager, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	return tm.TaskExecutor.SubmitTask(context.Background(), tdd, jobMasterID)
}

// requireRejected checks that a deployment was refused with Flink's
// TaskSubmissionException and message, and that nothing of it is left:
// no task, no "Received task" line, one broken step m9 in the trace.
func requireRejected(t *testing.T, tm *scenario.TaskManager, err error, message string) {
	t.Helper()
	require.ErrorIs(t, err, gateway.ErrTaskSubmission, "the deployment must be refused with a TaskSubmissionException")
	assert.EqualError(t, err, "TaskSubmissionException: "+message)
	assert.Empty(t, tm.Tasks(), "a refused deployment must not create a task")
	assert.NotContains(t, tm.Logs.String(), "Received task", "a refused task is not received")
	events := tm.Trace.Events()
	if assert.Len(t, events, 1, "a refused task is one broken step m9, nothing more") {
		assert.Equal(t, trace.M9, events[0].Step)
		assert.True(t, events[0].Failed)
		assert.Equal(t, "submitTask rejected: "+message, events[0].Message)
	}
}

func TestATaskDeployedIntoItsJobsSlotRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, allocationID := tm.JobWithActiveSlot(0)
		tdd := tm.TDD(jm.JobID, allocationID, scenario.FinishingTask)

		require.NoError(t, submit(tm, tdd, jm.JobMasterID), "a deployment into the job's active slot must be accepted")
		synctest.Wait()

		assert.Contains(t, tm.Logs.String(), "Received task Source (1/1)#0 ("+tdd.ExecutionAttemptID.String()+
			"), deploy into slot with allocation id "+allocationID.String()+".", "the TaskExecutor logs the task as Flink's does")
		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished}, jm.States(),
			"the task must be started: the JobMaster hears it initialize, run and finish")
		assert.Equal(t, []trace.Step{trace.M9, trace.M10, trace.M11}, trace.Steps(tm.Trace.JobEvents(jm.JobID)),
			"the trace shows the deployment (m9), then the task fetching its jar (m10) and running (m11)")
		assert.Empty(t, trace.Failures(tm.Trace.Events()))
		assert.Equal(t, taskexecutor.SlotActive, tm.SlotState(0), "the finished task's slot stays with the job")
	})
}

func TestATaskForAJobWithoutAJobManagerConnectionIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, allocationID := tm.JobWithActiveSlot(0)
		tdd := tm.TDD(jm.JobID, allocationID, scenario.FinishingTask)
		tdd.JobID = api.NewJobID() // a job this TaskExecutor never heard of

		err := submit(tm, tdd, jm.JobMasterID)
		requireRejected(t, tm, err, "Could not submit task because there is no JobManager associated for the job "+tdd.JobID.String()+".")
	})
}

// The TaskExecutor knows the job (it holds a slot for it) but has no
// connection to its JobMaster any more: the JobMaster lost its leadership
// while its deployment was on the way. The slot stays the job's, for the
// next leader, so the job is in the TaskExecutor's job table without a
// connection.
func TestATaskForAKnownJobWhoseJobMasterConnectionIsClosedIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, allocationID := tm.JobWithActiveSlot(0)
		jm.LoseLeadership()
		require.Equal(t, taskexecutor.SlotAllocated, tm.SlotState(0), "the job keeps its slot, waiting for its next leader")

		tdd := tm.TDD(jm.JobID, allocationID, scenario.FinishingTask)
		err := submit(tm, tdd, jm.JobMasterID)
		requireRejected(t, tm, err, "Could not submit task because there is no JobManager associated for the job "+jm.JobID.String()+".")
		assert.Equal(t, taskexecutor.SlotAllocated, tm.SlotState(0), "a refused deployment must leave the slot as it was, not take it")
		synctest.Wait()
		assert.Empty(t, jm.Reports(), "no task ran, so the JobMaster hears of none")
	})
}

func TestATaskFromAJobMasterThatIsNoLongerLeaderIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, allocationID := tm.JobWithActiveSlot(0)
		tdd := tm.TDD(jm.JobID, allocationID, scenario.FinishingTask)
		formerLeader := api.NewJobMasterID()

		err := submit(tm, tdd, formerLeader)
		requireRejected(t, tm, err, "Rejecting the task submission because the job manager leader id "+formerLeader.String()+
			" does not match the expected job manager leader id "+jm.JobMasterID.String()+".")
		synctest.Wait()
		assert.Empty(t, jm.Reports(), "no task ran, so the JobMaster hears of none")
	})
}

func TestATaskForASlotItsJobDoesNotHoldIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, _ := tm.JobWithActiveSlot(0)
		other, othersAllocation := tm.JobWithActiveSlot(1)

		// The slot of another job: the allocation exists, but not for this job.
		tdd := tm.TDD(jm.JobID, othersAllocation, scenario.BlockingTask)
		err := submit(tm, tdd, jm.JobMasterID)
		requireRejected(t, tm, err, "No task slot allocated for job ID "+jm.JobID.String()+" and allocation ID "+othersAllocation.String()+".")
		assert.Equal(t, taskexecutor.SlotActive, tm.SlotState(1), "the other job keeps its slot")
		synctest.Wait()
		assert.Empty(t, other.Reports(), "nothing runs in the other job's slot")
	})
}

func TestATaskForAnUnknownAllocationIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, _ := tm.JobWithActiveSlot(0)
		unknown := api.NewAllocationID()

		err := submit(tm, tm.TDD(jm.JobID, unknown, scenario.FinishingTask), jm.JobMasterID)
		requireRejected(t, tm, err, "No task slot allocated for job ID "+jm.JobID.String()+" and allocation ID "+unknown.String()+".")
	})
}

func TestTheSameAttemptDeployedTwiceRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, allocationID := tm.JobWithActiveSlot(0)
		tdd := tm.TDD(jm.JobID, allocationID, scenario.BlockingTask)
		require.NoError(t, submit(tm, tdd, jm.JobMasterID), "a deployment into the job's active slot must be accepted")
		synctest.Wait()

		err := submit(tm, tdd, jm.JobMasterID) // a retried deployment RPC, say
		require.ErrorIs(t, err, gateway.ErrTaskSubmission, "the second deployment of one attempt must be refused")
		assert.EqualError(t, err, "TaskSubmissionException: TaskManager already contains a task for id "+tdd.ExecutionAttemptID.String()+".")
		synctest.Wait()

		assert.Equal(t, map[api.ExecutionAttemptID]api.ExecutionState{tdd.ExecutionAttemptID: api.ExecutionRunning}, tm.Tasks(),
			"the first task runs on, alone")
		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning}, jm.States(),
			"the JobMaster hears of one task, not two")
	})
}

// The JobMaster may deploy into a slot before the TaskExecutor has its
// answer to the slot offer: the answer is late, or lost. The deployment
// itself says the slot is taken, so the slot becomes ACTIVE and must no
// longer be freed by taskmanager.slot.timeout.
func TestADeploymentTakesASlotWhoseOfferIsStillUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm := tm.StartJobMaster(api.NewJobID(), func(jm *gatewaytest.JobMasterGateway) {
			jm.OfferSlotsFunc = func(ctx context.Context, _ api.JobMasterID, _ api.ResourceID, _ []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
				<-ctx.Done() // the answer never arrives in time
				return nil, ctx.Err()
			}
		})
		allocationID, err := tm.RequestSlot(0, jm.JobID)
		require.NoError(t, err)

		// Fake time: the first offer times out and is sent again; the
		// slot, still only ALLOCATED, runs its timeout again meanwhile.
		time.Sleep(taskexecutor.DefaultRPCTimeout + time.Second)
		synctest.Wait()
		require.Equal(t, taskexecutor.SlotAllocated, tm.SlotState(0))

		tdd := tm.TDD(jm.JobID, allocationID, scenario.BlockingTask)
		require.NoError(t, submit(tm, tdd, jm.JobMasterID), "a deployment into a slot allocated to the job must be accepted")
		synctest.Wait()
		assert.Equal(t, taskexecutor.SlotActive, tm.SlotState(0), "the deployed task makes its slot ACTIVE")

		time.Sleep(2 * taskexecutor.DefaultRPCTimeout) // fake time: past the slot's timeout
		synctest.Wait()
		assert.Equal(t, map[api.ExecutionAttemptID]api.ExecutionState{tdd.ExecutionAttemptID: api.ExecutionRunning}, tm.Tasks(),
			"a slot with a task in it must not time out")
		assert.NotContains(t, tm.Logs.String(), "has timed out.")
		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning}, jm.States())
	})
}

// The checks run in Flink's order, and a refused deployment changes
// nothing: a JobMaster that lost its leadership gets the leader-id refusal
// even for a slot that is wrong too.
func TestTheChecksRunInFlinksOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := startTaskExecutor(t)
		jm, _ := tm.JobWithActiveSlot(0)
		formerLeader := api.NewJobMasterID()
		unknown := api.NewAllocationID()

		err := submit(tm, tm.TDD(jm.JobID, unknown, scenario.FinishingTask), formerLeader)
		requireRejected(t, tm, err, "Rejecting the task submission because the job manager leader id "+formerLeader.String()+
			" does not match the expected job manager leader id "+jm.JobMasterID.String()+".")
	})
}
