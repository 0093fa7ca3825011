package adaptive

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
)

func fixedDelay(t *testing.T, attempts int, delay time.Duration) failover.RestartBackoffTimeStrategy {
	s, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: attempts, Delay: delay})
	require.NoError(t, err)
	return s
}

// With every slot it wants, the job runs at once, at full parallelism.
func TestTheDesiredSlotsStartTheJobAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		synctest.Wait()
		name, status := h.state()
		assert.Equal(t, "WaitingForResources", name)
		assert.Equal(t, api.JobCreated, status)

		h.offer("tm-0", 4)
		synctest.Wait()
		name, status = h.state()
		assert.Equal(t, "Executing", name)
		assert.Equal(t, api.JobRunning, status)
		assert.Len(t, h.deployed(0), 8)
		assert.Equal(t, "Source=4 Count=4", h.parallelism())
		assert.Equal(t, "Created → WaitingForResources → CreatingExecutionGraph → Executing", h.path())
		assert.Contains(t, h.logs.String(), "Transition from state WaitingForResources to CreatingExecutionGraph.")
	})
}

// With fewer slots than it wants, but enough for its minimum, the job
// waits for the resource-stabilization-timeout, then runs with them.
func TestSufficientSlotsStartTheJobOnceStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 2)
		synctest.Wait()
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		name, _ := h.state()
		assert.Equal(t, "WaitingForResources", name, "not before the stabilization timeout")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "Executing", name)
		assert.Equal(t, "Source=2 Count=2", h.parallelism())
		assert.Len(t, h.deployed(0), 4)
	})
}

// The stuck job: no slot comes. It waits in WaitingForResources, CREATED,
// until the resource-wait-timeout, and fails.
func TestAJobWithoutSlotsFailsAfterTheResourceWaitTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		time.Sleep(5*time.Minute - time.Millisecond)
		synctest.Wait()
		name, status := h.state()
		assert.Equal(t, "WaitingForResources", name)
		assert.Equal(t, api.JobCreated, status)
		assert.Nil(t, h.finalGraph())

		time.Sleep(time.Millisecond)
		synctest.Wait()
		final := h.finalGraph()
		require.NotNil(t, final)
		assert.Equal(t, api.JobFailed, final.State)
		assert.Equal(t, "NoResourceAvailableException: Not enough resources available for scheduling.", final.FailureCause)
		assert.Equal(t, "Created → WaitingForResources → CreatingExecutionGraph → Finished", h.path())
		assert.Contains(t, h.logs.String(), "Initial resource allocation timeout triggered: Creating ExecutionGraph with available resources.")
		assert.Contains(t, h.logs.String(), "Failed to go from CreatingExecutionGraph to Executing because the ExecutionGraph creation failed.")
	})
}

// Reactive mode waits for resources forever.
func TestAReactiveJobWaitsForever(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, ReactiveSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		name, _ := h.state()
		assert.Equal(t, "WaitingForResources", name)
		h.offer("tm-0", 1)
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "Executing", name, "no stabilization timeout in reactive mode")
		assert.Equal(t, "Source=1 Count=1", h.parallelism())
		h.onMain(h.scheduler.Cancel)
	})
}

// New slots make a running job restart at a higher parallelism, once it
// has run for scaling-interval.min.
func TestNewSlotsScaleTheJobUpAfterTheScalingInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 2)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		first := h.deployed(0)
		require.Len(t, first, 4)
		h.runAll(first)

		h.offer("tm-1", 2)
		time.Sleep(30*time.Second - time.Millisecond)
		synctest.Wait()
		name, _ := h.state()
		assert.Equal(t, "Executing", name, "within scaling-interval.min of its start")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		name, status := h.state()
		assert.Equal(t, "Restarting", name)
		assert.Equal(t, api.JobRestarting, status)
		assert.Contains(t, h.logs.String(), "Can change the parallelism of the job. Restarting the job.")
		for _, tdd := range first {
			h.report(tdd, api.ExecutionCanceled)
		}
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "Executing", name)
		assert.Equal(t, "Source=4 Count=4", h.parallelism())
		again := h.deployed(4)
		require.Len(t, again, 8)
		for _, tdd := range again {
			want := 0 // a new subtask
			if tdd.SubtaskIndex() < 2 {
				want = 1 // the attempt numbers count on across graphs
			}
			assert.Equal(t, want, tdd.AttemptNumber(), "%s (%d)", tdd.TaskInfo.TaskName, tdd.SubtaskIndex())
		}
		assert.Equal(t, "Created → WaitingForResources → CreatingExecutionGraph → Executing → Restarting → "+
			"WaitingForResources → CreatingExecutionGraph → Executing", h.path())
	})
}

// A lost TaskManager fails its tasks: the job restarts, and runs on with
// the slots that are left.
func TestALostTaskManagerScalesTheJobDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), fixedDelay(t, 3, time.Second))
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 2)
		h.offer("tm-1", 2)
		synctest.Wait()
		first := h.deployed(0)
		require.Len(t, first, 8)
		h.runAll(first)

		lost := errors.New("The TaskExecutor is shutting down.")
		h.onMain(func() { h.scheduler.ReleaseTaskManager("tm-1", h.pool.ReleaseTaskManager("tm-1"), lost) })
		synctest.Wait()
		name, _ := h.state()
		assert.Equal(t, "Restarting", name)
		assert.Contains(t, h.logs.String(), `msg="Restarting job." logger=AdaptiveScheduler cause="The TaskExecutor is shutting down."`)
		for _, tdd := range first {
			h.report(tdd, api.ExecutionCanceled) // those on tm-1 count as canceled already: their reports change nothing
		}
		time.Sleep(time.Second) // the restart delay
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "WaitingForResources", name)
		time.Sleep(10 * time.Second) // two slots are sufficient, not desired: stabilization
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "Executing", name)
		assert.Equal(t, "Source=2 Count=2", h.parallelism())
		h.onMain(func() {
			history := h.scheduler.RequestJob().ExceptionHistory
			require.Len(t, history, 1)
			assert.Equal(t, lost.Error(), history[0].Exception)
		})
	})
}

// Without a restart strategy a failure fails the job.
func TestAFailureWithoutRestartsFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 4)
		synctest.Wait()
		first := h.deployed(0)
		h.runAll(first)
		var err error
		h.onMain(func() {
			err = h.scheduler.UpdateTaskExecutionState(gatewayFailed(first[0], errors.New("processElement threw")))
		})
		require.NoError(t, err)
		for _, tdd := range first[1:] {
			h.report(tdd, api.ExecutionCanceled)
		}
		synctest.Wait()
		final := h.finalGraph()
		require.NotNil(t, final)
		assert.Equal(t, api.JobFailed, final.State)
		assert.Contains(t, final.FailureCause, "Recovery is suppressed by NoRestartBackoffTimeStrategy")
		assert.Equal(t, "Created → WaitingForResources → CreatingExecutionGraph → Executing → Failing → Finished", h.path())
	})
}

// A job cancelled while it waits ends CANCELED without a graph.
func TestCancelWhileWaitingForResources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		synctest.Wait()
		h.onMain(h.scheduler.Cancel)
		synctest.Wait()
		final := h.finalGraph()
		require.NotNil(t, final)
		assert.Equal(t, api.JobCanceled, final.State)
		assert.Equal(t, "Source=4 Count=4", h.parallelism(), "the JobGraph's vertices, without subtasks")
	})
}

// New bounds: a lower upper bound makes a running job rescale down; a job
// in reactive mode refuses them, as Flink's does; a finished job ignores
// them.
func TestNewResourceRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 4)
		synctest.Wait()
		first := h.deployed(0)
		h.runAll(first)
		var err error
		h.onMain(func() {
			requirements := h.scheduler.RequestJobResourceRequirements()
			for id, r := range requirements {
				r.Parallelism.UpperBound = 2
				requirements[id] = r
			}
			err = h.scheduler.UpdateJobResourceRequirements(requirements)
		})
		require.NoError(t, err)
		time.Sleep(30 * time.Second) // scaling-interval.min
		synctest.Wait()
		for _, tdd := range first {
			h.report(tdd, api.ExecutionCanceled)
		}
		synctest.Wait()
		assert.Equal(t, "Source=2 Count=2", h.parallelism())
		assert.Contains(t, h.logs.String(), "Can change the parallelism of the job. Restarting the job.")

		h.onMain(h.scheduler.Cancel)
		for _, tdd := range h.deployed(8) {
			h.report(tdd, api.ExecutionCanceled)
		}
		synctest.Wait()
		require.NotNil(t, h.finalGraph())
		h.onMain(func() { err = h.scheduler.UpdateJobResourceRequirements(h.scheduler.RequestJobResourceRequirements()) })
		assert.NoError(t, err)
		assert.Equal(t, 0, h.pool.PendingRequests(), "nothing is asked for a finished job")
	})
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, ReactiveSettings(), nil)
		var err error
		h.onMain(func() { err = h.scheduler.UpdateJobResourceRequirements(h.scheduler.RequestJobResourceRequirements()) })
		assert.EqualError(t, err, "UnsupportedOperationException: Cannot change the parallelism of a job running in reactive mode.")
	})
}
