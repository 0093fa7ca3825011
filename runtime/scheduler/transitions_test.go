package scheduler

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// executionState returns the state of the attempt a descriptor deployed.
func (h *harness) executionState(tdd gateway.TaskDeploymentDescriptor) (s api.ExecutionState) {
	h.onMain(func() {
		e, ok := h.graph.Execution(tdd.ExecutionAttemptID)
		require.True(h.t, ok)
		s = e.State()
	})
	return s
}

// The JobMaster takes a TaskExecutor's report the way Flink's Execution
// does, which allows more than ExecutionState's Javadoc diagram draws: a
// very fast task reports FINISHED before RUNNING (Execution#markFinished),
// and a task that cancelled itself reports CANCELED without CANCELING
// (Execution#completeCancelling).
func TestTheJobMasterTakesTheReportsFlinksExecutionTakes(t *testing.T) {
	tests := []struct {
		name    string
		reports []api.ExecutionState
		line    string
	}{
		{"a very fast task finishes from DEPLOYING",
			[]api.ExecutionState{api.ExecutionFinished}, "switched from DEPLOYING to FINISHED."},
		{"a very fast task finishes from INITIALIZING",
			[]api.ExecutionState{api.ExecutionInitializing, api.ExecutionFinished}, "switched from INITIALIZING to FINISHED."},
		{"a task cancels itself while DEPLOYING",
			[]api.ExecutionState{api.ExecutionCanceled}, "switched from DEPLOYING to CANCELED."},
		{"a task cancels itself while INITIALIZING",
			[]api.ExecutionState{api.ExecutionInitializing, api.ExecutionCanceled}, "switched from INITIALIZING to CANCELED."},
		{"a task cancels itself while RUNNING (a CancelTaskException)",
			[]api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionCanceled},
			"switched from RUNNING to CANCELED."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, 1, 1)
				h.onMain(h.scheduler.StartScheduling)
				h.offer(1)
				synctest.Wait()
				tdd := h.tm.deployed()[0]

				for _, state := range tt.reports {
					h.report(tdd, state, nil)
				}

				final := tt.reports[len(tt.reports)-1]
				assert.Equal(t, final, h.executionState(tdd))
				assert.Contains(t, h.logs.String(), tdd.TaskInfo.TaskName+" (1/1) ("+tdd.ExecutionAttemptID.String()+") "+tt.line)
				// Flink's SchedulerBase reacts to FINISHED and FAILED only:
				// a task that cancelled itself does not end a running job.
				assert.Equal(t, api.JobRunning, h.jobStatus())
			})
		})
	}
}

// A cancel while the job is FAILING is not ignored (Flink:
// DefaultExecutionGraph#cancel moves FAILING to CANCELLING): the tasks are
// being cancelled already, and when the last one stops the job ends
// CANCELED, as failJob's completion ends a job it finds CANCELLING.
func TestCancelWhileFailingEndsTheJobCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		h.report(deployed[0], api.ExecutionInitializing, nil)
		h.report(deployed[0], api.ExecutionFailed, errors.New("open() threw"))
		synctest.Wait()
		require.Equal(t, api.JobFailing, h.jobStatus(), "the other task is being cancelled")
		require.Len(t, h.tm.cancelled, 1)

		h.onMain(h.scheduler.Cancel)
		synctest.Wait()
		assert.Equal(t, api.JobCancelling, h.jobStatus())
		assert.Len(t, h.tm.cancelled, 1, "the task is not cancelled a second time")
		_, done := h.finalState()
		assert.False(t, done, "one task still runs")

		h.report(deployed[1], api.ExecutionCanceled, nil)
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state)
		logs := h.logs.String()
		for _, line := range []string{
			"switched from state RUNNING to FAILING.",
			"switched from state FAILING to CANCELLING.",
			"switched from state CANCELLING to CANCELED.",
		} {
			assert.Contains(t, logs, line)
		}
		assert.NotContains(t, logs, "to FAILED.")
	})
}

// A cancelTask call that fails on every try does not fail the job's
// cancellation: Flink's Execution#sendCancelRpcCall fails the attempt
// ("Task could not be canceled."), and processFail completes the
// cancellation of a CANCELING attempt, so it ends CANCELED and so does the
// job. (Flink's CANCELLING → FAILED is for a vertex whose slot cannot be
// released, which cannot happen here.)
func TestACancelCallThatGivesUpCountsTheTaskCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.tm.cancelErr = errors.New("the TaskExecutor does not answer")
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()

		h.onMain(h.scheduler.Cancel)
		synctest.Wait()

		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state)
		assert.Len(t, h.tm.cancelled, 2*cancelCallTries, "each task's cancel call was tried cancelCallTries times")
		for _, tdd := range h.tm.deployed() {
			assert.Equal(t, api.ExecutionCanceled, h.executionState(tdd))
		}
	})
}

// The ExecutionGraph's lines are Flink's Execution#transitionState's: the
// subtask's name without "#<attempt>", the attempt ID, and for a move with
// a cause the location, "[unassigned resource]" for an attempt without a
// slot. An attempt cancelled before it was deployed passes through
// CANCELING (Execution#cancelAtomically).
func TestExecutionStateLinesAreFlinks(t *testing.T) {
	t.Run("cancelled before its slot came", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, 1, 1)
			h.onMain(h.scheduler.StartScheduling)
			synctest.Wait()
			h.onMain(h.scheduler.Cancel)
			synctest.Wait()

			var id api.ExecutionAttemptID
			h.onMain(func() {
				for ev := range h.graph.AllExecutionVertices() {
					id = ev.CurrentExecution().AttemptID()
					break
				}
			})
			logs := h.logs.String()
			assert.Contains(t, logs, "Source (1/1) ("+id.String()+") switched from SCHEDULED to CANCELING.")
			assert.Contains(t, logs, "Source (1/1) ("+id.String()+") switched from CANCELING to CANCELED.")
			assert.NotContains(t, logs, "SCHEDULED to CANCELED")
			assert.NotContains(t, logs, "#0 (", "the JobMaster's lines carry no attempt number")
		})
	})

	t.Run("failed without a slot", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, 1, 1)
			h.onMain(h.scheduler.StartScheduling)
			time.Sleep(slotRequestTimeout) // fake time: the slot never comes
			synctest.Wait()

			state, done := h.finalState()
			require.True(t, done)
			assert.Equal(t, api.JobFailed, state)
			assert.Contains(t, h.logs.String(), ") switched from SCHEDULED to FAILED on [unassigned resource].")
			assert.NotContains(t, h.logs.String(), "(unassigned)")
		})
	})
}
