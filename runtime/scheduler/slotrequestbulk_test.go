package scheduler

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/jobmaster/slotpool"
)

// slotRequestTimeout is the harness's slot.request.timeout: Flink's
// default, since the harness sets none.
const slotRequestTimeout = slotpool.DefaultSlotRequestTimeout

const bulkNotFulfillable = "NoResourceAvailableException: Slot request bulk is not fulfillable! " +
	"Could not allocate the required slot within slot request timeout Caused by: TimeoutException: Timeout has occurred: PT5M"

func (h *harness) pendingRequests() (n int) {
	h.onMain(func() { n = h.pool.PendingRequests() })
	return n
}

// A round that got one of its two slots, and never the other, fails after
// slot.request.timeout: the task that waited for the missing slot fails
// with Flink's NoResourceAvailableException, and without restarts the
// job fails.
func TestSlotRequestsUnfulfilledForTheTimeoutFailTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		time.Sleep(slotRequestTimeout - time.Millisecond) // fake time
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus(), "still waiting for the second slot")
		assert.Equal(t, 1, h.pendingRequests())

		time.Sleep(time.Millisecond)
		synctest.Wait()
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFailed, state)
		assert.Equal(t, "JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy: "+bulkNotFulfillable, h.final.FailureCause)
		require.Len(t, h.final.ExceptionHistory, 1)
		assert.Equal(t, h.final.FailureCause, h.final.ExceptionHistory[0].Exception)
		assert.Contains(t, h.final.ExceptionHistory[0].TaskName, "(2/2)#0", "a task of the shared slot that did not come")
		assert.Equal(t, 0, h.pendingRequests(), "the requests are withdrawn")
		assert.Empty(t, h.tm.deployed())
	})
}

// With restarts the job goes RESTARTING and asks for its slots again; the
// new round has a timeout of its own.
func TestSlotRequestsUnfulfilledForTheTimeoutRestartTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 1, 1, fixedDelay(t, 1, time.Second))
		h.onMain(h.scheduler.StartScheduling)
		time.Sleep(slotRequestTimeout)
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		assert.Equal(t, 0, h.pendingRequests())

		time.Sleep(time.Second) // the backoff
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Equal(t, []int{1, 1}, h.attempts())
		assert.Equal(t, 1, h.pendingRequests(), "the new attempts ask again")
		h.onMain(func() { assert.Equal(t, 1, h.declared[len(h.declared)-1].TotalSlots(), "declared again") })

		time.Sleep(slotRequestTimeout)
		synctest.Wait()
		state, done := h.finalState()
		require.True(t, done, "the one restart is used up")
		assert.Equal(t, api.JobFailed, state)
		assert.Contains(t, h.final.FailureCause, "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy")
		assert.Contains(t, h.final.FailureCause, bulkNotFulfillable)
	})
}

// A round that got all its slots is never failed, however long it runs.
func TestABulkThatGotAllItsSlotsDoesNotFire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		h.onMain(h.scheduler.StartScheduling)
		time.Sleep(slotRequestTimeout - time.Second)
		h.offer(2)
		synctest.Wait()
		h.runAll(h.tm.deployed())

		time.Sleep(3 * slotRequestTimeout)
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		h.onMain(func() { assert.Empty(t, h.scheduler.exceptionHistory) })
	})
}

func TestABulkOfACancelledJobDoesNotFire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		h.onMain(h.scheduler.StartScheduling)
		time.Sleep(time.Minute)
		h.onMain(h.scheduler.Cancel)
		time.Sleep(2 * slotRequestTimeout)
		synctest.Wait()

		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state)
		assert.Empty(t, h.final.ExceptionHistory)
	})
}

// A round whose job restarted meanwhile does not fire: its requests were
// withdrawn, and only the new round's timeout counts, from its own start.
func TestABulkOfAnEarlierAttemptDoesNotFire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 2, 2, fixedDelay(t, 2, time.Second))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1) // one of two slots: the first round waits for the second

		time.Sleep(time.Minute) // the slot's TaskExecutor is lost: restart
		lost := errors.New("TaskManager with id tm-0 is no longer reachable.")
		h.onMain(func() { h.scheduler.ReleaseTaskManager("tm-0", h.pool.ReleaseTaskManager("tm-0"), lost) })
		time.Sleep(time.Second) // the backoff; the second round starts
		synctest.Wait()
		require.Equal(t, []int{1, 1, 1, 1}, h.attempts())

		time.Sleep(slotRequestTimeout - time.Minute) // the first round's timeout passes
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus(), "the first round's timeout is not the second's")
		h.onMain(func() {
			require.Len(t, h.scheduler.exceptionHistory, 1)
			assert.Equal(t, lost.Error(), h.scheduler.exceptionHistory[0].Exception)
		})

		time.Sleep(time.Minute) // the second round's timeout
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		h.onMain(func() {
			require.Len(t, h.scheduler.exceptionHistory, 2)
			assert.Equal(t, bulkNotFulfillable, h.scheduler.exceptionHistory[0].Exception)
		})
	})
}
