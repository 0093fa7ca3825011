package scheduler

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
)

func fixedDelay(t *testing.T, attempts int, delay time.Duration) failover.RestartBackoffTimeStrategy {
	s, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: attempts, Delay: delay})
	require.NoError(t, err)
	return s
}

// attempts returns the attempt number of every subtask, in graph order.
func (h *harness) attempts() []int {
	var attempts []int
	h.onMain(func() {
		for ev := range h.graph.AllExecutionVertices() {
			attempts = append(attempts, ev.CurrentExecution().AttemptNumber())
		}
	})
	return attempts
}

// runAll reports every given deployment RUNNING.
func (h *harness) runAll(tdds []gateway.TaskDeploymentDescriptor) {
	for _, tdd := range tdds {
		h.report(tdd, api.ExecutionInitializing, nil)
		h.report(tdd, api.ExecutionRunning, nil)
	}
}

func TestAFailedTaskRestartsTheJobAfterTheBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 1, 1, fixedDelay(t, 3, time.Second))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		first := h.tm.deployed()
		require.Len(t, first, 2)
		h.runAll(first)

		if first[0].TaskInfo.TaskName != "Source" {
			first[0], first[1] = first[1], first[0]
		}
		h.report(first[0], api.ExecutionFailed, errors.New("open() threw"))
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		assert.Equal(t, []api.ExecutionAttemptID{first[1].ExecutionAttemptID}, h.tm.cancelled, "the other task is cancelled")

		h.report(first[1], api.ExecutionCanceled, nil)
		time.Sleep(time.Second - time.Millisecond)
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus(), "the backoff has not passed")
		assert.Len(t, h.tm.deployed(), 2)

		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		again := h.tm.deployed()[2:]
		require.Len(t, again, 2, "both tasks deployed again, into the slot the job kept")
		assert.Equal(t, []int{1, 1}, h.attempts())
		for _, tdd := range again {
			assert.Equal(t, 1, tdd.AttemptNumber())
			assert.Equal(t, first[0].AllocationID, tdd.AllocationID)
		}
		// The sink reads the new attempt of the source, not the old one.
		source, sink := again[0], again[1]
		if source.TaskInfo.TaskName != "Source" {
			source, sink = sink, source
		}
		require.Len(t, sink.InputGates, 1)
		assert.Equal(t, source.ExecutionAttemptID, sink.InputGates[0].ShuffleDescriptors[0].ResultPartitionID.ProducerID)

		h.runAll(again)
		for _, tdd := range again {
			h.report(tdd, api.ExecutionFinished, nil)
		}
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFinished, state)
		require.Len(t, h.final.ExceptionHistory, 1)
		assert.Equal(t, "open() threw", h.final.ExceptionHistory[0].Exception)
		assert.Equal(t, "Source (1/1)#0", h.final.ExceptionHistory[0].TaskName)
	})
}

func TestAnExhaustedRestartStrategyFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 1, 1, fixedDelay(t, 2, 10*time.Millisecond))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()

		for attempt := range 3 {
			deployed := h.tm.deployed()[2*attempt:]
			require.Len(t, deployed, 2, "attempt #%d", attempt)
			h.runAll(deployed)
			h.report(deployed[1], api.ExecutionFailed, errors.New("processElement threw"))
			h.report(deployed[0], api.ExecutionCanceled, nil)
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}

		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFailed, state)
		assert.Equal(t, "JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=10): processElement threw",
			h.final.FailureCause)
		assert.Equal(t, []int{2, 2}, h.attempts(), "two restarts, then no more")
		assert.Len(t, h.final.ExceptionHistory, 3)
	})
}

func TestALostTaskExecutorFailsItsTasksAndTheJobRestartsInNewSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 2, 2, fixedDelay(t, 1, 0))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(2)
		synctest.Wait()
		first := h.tm.deployed()
		require.Len(t, first, 4)
		h.runAll(first)

		// The TaskExecutor is gone: its slots leave the pool, and its tasks
		// cannot be asked to cancel.
		lost := errors.New("Heartbeat of TaskManager with id tm-0 timed out.")
		h.onMain(func() {
			h.gone["tm-0"] = true
			h.scheduler.ReleaseTaskManager("tm-0", h.pool.ReleaseTaskManager("tm-0"), lost)
		})
		synctest.Wait()

		// The other tasks ran in the lost slots too, so they count as
		// canceled without waiting for an answer, and the restart (without
		// delay) happened at once; the new attempts wait for new slots.
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Len(t, h.tm.deployed(), 4)
		assert.Equal(t, 2, h.declared[len(h.declared)-1].TotalSlots())
		h.offerFrom("tm-1", 2)
		synctest.Wait()
		assert.Len(t, h.tm.deployed(), 8)
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		h.onMain(func() {
			require.NotEmpty(t, h.scheduler.exceptionHistory)
			assert.Contains(t, h.scheduler.exceptionHistory[0].Exception, "Heartbeat of TaskManager with id tm-0 timed out.")
		})
	})
}

func TestCancelWhileRestartingCancelsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 1, 1, fixedDelay(t, 1, time.Minute))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		first := h.tm.deployed()
		h.runAll(first)
		h.report(first[0], api.ExecutionFailed, errors.New("boom"))
		h.report(first[1], api.ExecutionCanceled, nil)
		synctest.Wait()
		require.Equal(t, api.JobRestarting, h.jobStatus())

		h.onMain(h.scheduler.Cancel)
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state)
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Len(t, h.tm.deployed(), 2, "the restart that was due never happens")
	})
}

func TestNotEnoughResourcesFailsTheWaitingTasksAndTheJobRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 2, 2, fixedDelay(t, 1, time.Second))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		assert.Empty(t, h.tm.deployed(), "half the slots: nothing deployed")

		h.onMain(func() { h.pool.NotifyNotEnoughResourcesAvailable(1) })
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		h.onMain(func() {
			require.NotEmpty(t, h.scheduler.exceptionHistory)
			assert.Equal(t, "NoResourceAvailableException: Could not acquire the minimum required resources.",
				h.scheduler.exceptionHistory[0].Exception)
		})

		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		h.offer(1)
		synctest.Wait()
		assert.Len(t, h.tm.deployed(), 4, "the held slot and the new one: all four tasks deployed")
	})
}

// failCurrentAttempt runs the two tasks of the current attempt, fails the
// source, and reports the sink CANCELED, as its TaskExecutor would.
func (h *harness) failCurrentAttempt(attempt int) {
	h.t.Helper()
	deployed := h.tm.deployed()
	require.Len(h.t, deployed, 2*(attempt+1), "attempt #%d deployed", attempt)
	current := deployed[2*attempt:]
	h.runAll(current)
	for _, tdd := range current {
		require.Equal(h.t, attempt, tdd.AttemptNumber())
	}
	h.report(current[0], api.ExecutionFailed, errors.New("processElement threw"))
	h.report(current[1], api.ExecutionCanceled, nil)
}

// assertRestartsAfter checks that the job stays RESTARTING for just under
// delay (fake time) and then runs again.
func (h *harness) assertRestartsAfter(delay time.Duration) {
	h.t.Helper()
	synctest.Wait()
	require.Equal(h.t, api.JobRestarting, h.jobStatus())
	time.Sleep(delay - time.Millisecond)
	synctest.Wait()
	assert.Equal(h.t, api.JobRestarting, h.jobStatus(), "restarted before its backoff of %s", delay)
	time.Sleep(time.Millisecond)
	synctest.Wait()
	assert.Equal(h.t, api.JobRunning, h.jobStatus(), "not restarted after its backoff of %s", delay)
}

func TestExponentialDelayRestartsLaterEachTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		strategy, err := failover.NewExponentialDelayRestartBackoffTimeStrategy(failover.ExponentialDelayConfig{
			InitialBackoff: time.Second, MaxBackoff: 5 * time.Second, BackoffMultiplier: 2,
			ResetBackoffThreshold: time.Hour, JitterFactor: 0, AttemptsBeforeResetBackoff: failover.InfiniteAttempts,
		}, nil)
		require.NoError(t, err)
		h := newHarnessWithRestarts(t, 1, 1, strategy)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()

		for attempt, backoff := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second} {
			// Each attempt runs a moment before it fails: a failure at the
			// very instant its restart was due would be merged into that
			// restart (Flink 1.19+), not counted as a new one.
			time.Sleep(10 * time.Millisecond)
			h.failCurrentAttempt(attempt)
			h.assertRestartsAfter(backoff)
		}
		assert.Equal(t, []int{4, 4}, h.attempts())
	})
}

func TestFailureRateGivesUpWhenFailuresComeTooFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		strategy, err := failover.NewFailureRateRestartBackoffTimeStrategy(failover.FailureRateConfig{
			MaxFailuresPerInterval: 2, FailureRateInterval: time.Minute, Delay: time.Second,
		})
		require.NoError(t, err)
		h := newHarnessWithRestarts(t, 1, 1, strategy)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()

		h.failCurrentAttempt(0) // 1st failure in the minute
		h.assertRestartsAfter(time.Second)
		time.Sleep(time.Minute) // the first failure leaves the interval
		h.failCurrentAttempt(1) // 1 failure in the last minute
		h.assertRestartsAfter(time.Second)
		h.failCurrentAttempt(2) // 2 failures in the last minute
		h.assertRestartsAfter(time.Second)
		h.failCurrentAttempt(3) // 3 failures within a minute: too many

		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFailed, state)
		assert.Equal(t, "JobException: Recovery is suppressed by FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy(failuresIntervalMS=60000,backoffTimeMS=1000,maxFailuresPerInterval=2): processElement threw",
			h.final.FailureCause)
		assert.Len(t, h.final.ExceptionHistory, 4)
	})
}

// A slot lost after it arrived but before the region was deployed (the
// region waits for all its slots) fails the tasks it was meant for, and the
// job restarts; it does not deploy into a slot that is gone.
func TestASlotLostBeforeDeploymentFailsItsTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 2, 2, fixedDelay(t, 1, 0))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1) // one of the two slots: nothing is deployed yet
		synctest.Wait()
		require.Empty(t, h.tm.deployed())

		lost := errors.New("TaskManager with id tm-0 is no longer reachable.")
		h.onMain(func() { h.scheduler.ReleaseTaskManager("tm-0", h.pool.ReleaseTaskManager("tm-0"), lost) })
		synctest.Wait()
		h.onMain(func() {
			require.NotEmpty(t, h.scheduler.exceptionHistory)
			assert.Equal(t, lost.Error(), h.scheduler.exceptionHistory[0].Exception)
		})
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts(), "restarted")

		h.offer(2)
		synctest.Wait()
		deployed := h.tm.deployed()
		require.Len(t, deployed, 4, "deployed into the two new slots")
		for _, tdd := range deployed {
			assert.Equal(t, 1, tdd.AttemptNumber())
		}
	})
}

func TestTheExceptionHistoryKeepsTheNewestFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithRestarts(t, 1, 1, fixedDelay(t, 100, time.Millisecond))
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		for attempt := range ExceptionHistorySize + 4 {
			h.failCurrentAttempt(attempt)
			h.assertRestartsAfter(time.Millisecond)
		}
		h.onMain(func() {
			history := h.scheduler.RequestJob().ExceptionHistory
			require.Len(t, history, ExceptionHistorySize, "Flink's web.exception-history-size")
			assert.Contains(t, history[0].TaskName, fmt.Sprintf("(1/1)#%d", ExceptionHistorySize+3), "newest first")
		})
	})
}
