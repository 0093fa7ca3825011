package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// allJobStatuses lists every JobStatus in Flink's declaration order.
var allJobStatuses = []api.JobStatus{
	api.JobInitializing, api.JobCreated, api.JobRunning, api.JobFailing, api.JobFailed,
	api.JobCancelling, api.JobCanceled, api.JobFinished, api.JobRestarting,
	api.JobSuspended, api.JobReconciling,
}

func TestJobStatusNamesAndOrderAreFlinks(t *testing.T) {
	want := []string{"INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED",
		"CANCELLING", "CANCELED", "FINISHED", "RESTARTING", "SUSPENDED", "RECONCILING"}
	require.Len(t, allJobStatuses, len(want))
	for i, s := range allJobStatuses {
		assert.Equal(t, i, int(s), "%s is declared at position %d in Flink", want[i], i)
		assert.Equal(t, want[i], s.String())
	}
	assert.Equal(t, "JobStatus(42)", api.JobStatus(42).String())
	assert.Equal(t, "JobStatus(-1)", api.JobStatus(-1).String())
}

func TestJobStatusTextRoundTrip(t *testing.T) {
	for _, s := range allJobStatuses {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, `"`+s.String()+`"`, string(data))
		var got api.JobStatus
		require.NoError(t, json.Unmarshal(data, &got))
		assert.Equal(t, s, got)
	}
	var s api.JobStatus
	assert.Error(t, s.UnmarshalText([]byte("CANCELING")), "jobs spell it CANCELLING")
	assert.Error(t, s.UnmarshalText([]byte("running")), "names are upper case")
}

func TestJobStatusTerminalKinds(t *testing.T) {
	tests := []struct {
		status           api.JobStatus
		globallyTerminal bool
		terminal         bool
	}{
		{api.JobInitializing, false, false},
		{api.JobCreated, false, false},
		{api.JobRunning, false, false},
		{api.JobFailing, false, false},
		{api.JobFailed, true, true},
		{api.JobCancelling, false, false},
		{api.JobCanceled, true, true},
		{api.JobFinished, true, true},
		{api.JobRestarting, false, false},
		{api.JobSuspended, false, true}, // locally terminal only
		{api.JobReconciling, false, false},
	}
	require.Len(t, tests, len(allJobStatuses))
	for _, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			assert.Equal(t, tt.globallyTerminal, tt.status.IsGloballyTerminalState())
			assert.Equal(t, tt.terminal, tt.status.IsTerminalState())
		})
	}
}

func TestCheckJobTransitionAllowsFlinksMoves(t *testing.T) {
	tests := []struct {
		from, to api.JobStatus
		why      string
	}{
		// facts.md §2, the Default scheduler's moves.
		{api.JobInitializing, api.JobCreated, "the ExecutionGraph was created"},
		{api.JobCreated, api.JobRunning, "transitionToRunning"},
		{api.JobRunning, api.JobRestarting, "addVerticesToRestartPending"},
		{api.JobRestarting, api.JobRunning, "removeVerticesFromRestartPending"},
		{api.JobCreated, api.JobFailing, "failJob"},
		{api.JobRunning, api.JobFailing, "failJob"},
		{api.JobRestarting, api.JobFailing, "failJob"},
		{api.JobCancelling, api.JobFailing, "failJob"},
		{api.JobReconciling, api.JobFailing, "failJob"},
		{api.JobFailing, api.JobFailed, "failJob"},
		{api.JobRunning, api.JobCancelling, "cancel"},
		{api.JobCreated, api.JobCancelling, "cancel"},
		{api.JobRestarting, api.JobCancelling, "cancel"},
		{api.JobFailing, api.JobCancelling, "cancel while failJob cancels the tasks"},
		{api.JobCancelling, api.JobCanceled, "cancel"},
		{api.JobCancelling, api.JobFailed, "cancel: not all execution job vertices could be cancelled"},
		{api.JobRunning, api.JobFinished, "all vertices finished"},
		// What the JobManagerRunner reports while no JobMaster runs yet.
		{api.JobInitializing, api.JobFailed, "Could not start the JobMaster."},
		{api.JobInitializing, api.JobCancelling, "requestJob after cancel, before the JobMaster runs"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s→%s", tt.from, tt.to), func(t *testing.T) {
			assert.NoError(t, api.CheckJobTransition(tt.from, tt.to), tt.why)
		})
	}
}

func TestCheckJobTransitionAllowsSuspendFromEveryNonTerminalState(t *testing.T) {
	for _, from := range allJobStatuses {
		t.Run(from.String(), func(t *testing.T) {
			err := api.CheckJobTransition(from, api.JobSuspended)
			if from.IsTerminalState() {
				assert.ErrorIs(t, err, api.ErrIllegalTransition)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestCheckJobTransitionRejectsIllegalMoves(t *testing.T) {
	tests := []struct {
		from, to api.JobStatus
		wantMsg  string
	}{
		{api.JobFinished, api.JobRunning, "Job is trying to leave terminal state FINISHED."},
		{api.JobFailed, api.JobRestarting, "Job is trying to leave terminal state FAILED."},
		{api.JobCanceled, api.JobCancelling, "Job is trying to leave terminal state CANCELED."},
		{api.JobSuspended, api.JobRunning, "Job is trying to leave terminal state SUSPENDED."},
		{api.JobFinished, api.JobSuspended, "Job is trying to leave terminal state FINISHED."},
		{api.JobInitializing, api.JobRunning, "Job may not switch from state INITIALIZING to RUNNING."},
		{api.JobInitializing, api.JobCanceled, "Job may not switch from state INITIALIZING to CANCELED."},
		{api.JobCancelling, api.JobCreated, "Job may not switch from state CANCELLING to CREATED."},
		{api.JobCreated, api.JobFinished, "Job may not switch from state CREATED to FINISHED."},
		{api.JobRunning, api.JobFailed, "Job may not switch from state RUNNING to FAILED."},
		{api.JobRunning, api.JobCanceled, "Job may not switch from state RUNNING to CANCELED."},
		{api.JobRunning, api.JobCreated, "Job may not switch from state RUNNING to CREATED."},
		{api.JobCancelling, api.JobRunning, "Job may not switch from state CANCELLING to RUNNING."},
		{api.JobFailing, api.JobRunning, "Job may not switch from state FAILING to RUNNING."},
		{api.JobRunning, api.JobRunning, "Job may not switch from state RUNNING to RUNNING."},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s→%s", tt.from, tt.to), func(t *testing.T) {
			err := api.CheckJobTransition(tt.from, tt.to)
			require.ErrorIs(t, err, api.ErrIllegalTransition)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestNoJobStatusLeavesATerminalState(t *testing.T) {
	for _, from := range allJobStatuses {
		if !from.IsTerminalState() {
			continue
		}
		for _, to := range allJobStatuses {
			assert.ErrorIs(t, api.CheckJobTransition(from, to), api.ErrIllegalTransition, "%s → %s", from, to)
		}
	}
}

func TestExecutionStateNamesAndOrderAreFlinks(t *testing.T) {
	want := []string{"CREATED", "SCHEDULED", "DEPLOYING", "RUNNING", "FINISHED",
		"CANCELING", "CANCELED", "FAILED", "RECONCILING", "INITIALIZING"}
	states := api.ExecutionStates()
	require.Len(t, states, len(want))
	for i, s := range states {
		assert.Equal(t, api.ExecutionState(i), s)
		assert.Equal(t, want[i], s.String())
	}
	assert.Equal(t, "ExecutionState(10)", api.ExecutionState(10).String())
}

func TestCancelingIsSpelledDifferentlyForTasksAndJobs(t *testing.T) {
	assert.Equal(t, "CANCELING", api.ExecutionCanceling.String())
	assert.Equal(t, "CANCELLING", api.JobCancelling.String())

	var s api.ExecutionState
	assert.Error(t, s.UnmarshalText([]byte("CANCELLING")), "tasks spell it CANCELING")
	require.NoError(t, s.UnmarshalText([]byte("CANCELING")))
	assert.Equal(t, api.ExecutionCanceling, s)
}

func TestExecutionStateTextRoundTrip(t *testing.T) {
	for _, s := range api.ExecutionStates() {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, `"`+s.String()+`"`, string(data))
		var got api.ExecutionState
		require.NoError(t, json.Unmarshal(data, &got))
		assert.Equal(t, s, got)
	}
}

func TestExecutionStateIsTerminal(t *testing.T) {
	want := map[api.ExecutionState]bool{
		api.ExecutionFinished: true,
		api.ExecutionCanceled: true,
		api.ExecutionFailed:   true,
	}
	for _, s := range api.ExecutionStates() {
		assert.Equal(t, want[s], s.IsTerminal(), "%s", s)
	}
}

func TestCheckExecutionTransitionAllowsFlinksMoves(t *testing.T) {
	tests := []struct{ from, to api.ExecutionState }{
		// The happy path.
		{api.ExecutionCreated, api.ExecutionScheduled},
		{api.ExecutionScheduled, api.ExecutionDeploying},
		{api.ExecutionDeploying, api.ExecutionInitializing},
		{api.ExecutionInitializing, api.ExecutionRunning},
		{api.ExecutionRunning, api.ExecutionFinished},
		// Very fast tasks: Execution#markFinished from DEPLOYING or INITIALIZING.
		{api.ExecutionDeploying, api.ExecutionFinished},
		{api.ExecutionInitializing, api.ExecutionFinished},
		// Cancellation: Execution#cancel and Task#cancelExecution.
		{api.ExecutionCreated, api.ExecutionCanceling},
		{api.ExecutionScheduled, api.ExecutionCanceling},
		{api.ExecutionDeploying, api.ExecutionCanceling},
		{api.ExecutionInitializing, api.ExecutionCanceling},
		{api.ExecutionRunning, api.ExecutionCanceling},
		{api.ExecutionCanceling, api.ExecutionCanceled},
		// Cancelled without CANCELING: Execution#completeCancelling, and a
		// Task's CancelTaskException.
		{api.ExecutionDeploying, api.ExecutionCanceled},
		{api.ExecutionInitializing, api.ExecutionCanceled},
		{api.ExecutionRunning, api.ExecutionCanceled},
		// Drawn by the Javadoc only.
		{api.ExecutionScheduled, api.ExecutionCanceled},
		// Reconciliation after a JobManager failover.
		{api.ExecutionCreated, api.ExecutionReconciling},
		{api.ExecutionReconciling, api.ExecutionInitializing},
		{api.ExecutionReconciling, api.ExecutionRunning},
		{api.ExecutionReconciling, api.ExecutionFinished},
		{api.ExecutionReconciling, api.ExecutionCanceled},
		{api.ExecutionReconciling, api.ExecutionFailed},
	}
	// Every state that is not terminal may fail.
	for _, s := range api.ExecutionStates() {
		if !s.IsTerminal() {
			tests = append(tests, struct{ from, to api.ExecutionState }{s, api.ExecutionFailed})
		}
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s→%s", tt.from, tt.to), func(t *testing.T) {
			assert.NoError(t, api.CheckExecutionTransition(tt.from, tt.to))
		})
	}
}

func TestCheckExecutionTransitionRejectsIllegalMoves(t *testing.T) {
	tests := []struct {
		name     string
		from, to api.ExecutionState
		wantMsg  string
	}{
		{"skips SCHEDULED and DEPLOYING", api.ExecutionCreated, api.ExecutionRunning, "Cannot transition from CREATED to RUNNING."},
		{"skips SCHEDULED", api.ExecutionCreated, api.ExecutionDeploying, "Cannot transition from CREATED to DEPLOYING."},
		{"skips DEPLOYING", api.ExecutionScheduled, api.ExecutionRunning, "Cannot transition from SCHEDULED to RUNNING."},
		{"skips INITIALIZING", api.ExecutionDeploying, api.ExecutionRunning, "Cannot transition from DEPLOYING to RUNNING."},
		{"finishes before it was deployed", api.ExecutionScheduled, api.ExecutionFinished, "Cannot transition from SCHEDULED to FINISHED."},
		{"cancelled without CANCELING before a slot was asked for", api.ExecutionCreated, api.ExecutionCanceled, "Cannot transition from CREATED to CANCELED."},
		{"goes back", api.ExecutionRunning, api.ExecutionDeploying, "Cannot transition from RUNNING to DEPLOYING."},
		{"un-cancels", api.ExecutionCanceling, api.ExecutionRunning, "Cannot transition from CANCELING to RUNNING."},
		{"reconciles into a slot request", api.ExecutionReconciling, api.ExecutionScheduled, "Cannot transition from RECONCILING to SCHEDULED."},
		{"leaves FINISHED", api.ExecutionFinished, api.ExecutionRunning, "Cannot leave terminal state FINISHED to transition to RUNNING."},
		{"fails after finishing", api.ExecutionFinished, api.ExecutionFailed, "Cannot leave terminal state FINISHED to transition to FAILED."},
		{"fails after being cancelled", api.ExecutionCanceled, api.ExecutionFailed, "Cannot leave terminal state CANCELED to transition to FAILED."},
		{"fails twice", api.ExecutionFailed, api.ExecutionFailed, "Cannot leave terminal state FAILED to transition to FAILED."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := api.CheckExecutionTransition(tt.from, tt.to)
			require.ErrorIs(t, err, api.ErrIllegalTransition)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestNoExecutionStateLeavesATerminalState(t *testing.T) {
	for _, from := range api.ExecutionStates() {
		if !from.IsTerminal() {
			continue
		}
		for _, to := range api.ExecutionStates() {
			assert.ErrorIs(t, api.CheckExecutionTransition(from, to), api.ErrIllegalTransition, "%s → %s", from, to)
		}
	}
}

func TestApplicationStatusOf(t *testing.T) {
	tests := []struct {
		status api.JobStatus
		want   api.ApplicationStatus
	}{
		{api.JobFinished, api.ApplicationSucceeded},
		{api.JobFailed, api.ApplicationFailed},
		{api.JobCanceled, api.ApplicationCanceled},
		{api.JobSuspended, api.ApplicationUnknown},
		{api.JobRunning, api.ApplicationUnknown},
		{api.JobInitializing, api.ApplicationUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, api.ApplicationStatusOf(tt.status))
		})
	}
}

func TestJobResultJSONUsesFlinkNames(t *testing.T) {
	result := api.JobResult{
		JobID:             api.NewJobID(),
		JobName:           "WordCount",
		JobStatus:         api.JobFinished,
		ApplicationStatus: api.ApplicationStatusOf(api.JobFinished),
	}
	data, err := json.Marshal(result)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"jobStatus":"FINISHED"`)
	assert.Contains(t, string(data), `"applicationStatus":"SUCCEEDED"`)
	assert.NotContains(t, string(data), "failureCause")

	var got api.JobResult
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, result, got)
}

func TestCheckTaskTransitionAllowsATaskToSkipScheduled(t *testing.T) {
	assert.NoError(t, api.CheckTaskTransition(api.ExecutionCreated, api.ExecutionDeploying))
	assert.NoError(t, api.CheckTaskTransition(api.ExecutionDeploying, api.ExecutionInitializing))
	assert.ErrorIs(t, api.CheckTaskTransition(api.ExecutionCreated, api.ExecutionRunning), api.ErrIllegalTransition)
	assert.ErrorIs(t, api.CheckTaskTransition(api.ExecutionFinished, api.ExecutionFailed), api.ErrIllegalTransition)
}
