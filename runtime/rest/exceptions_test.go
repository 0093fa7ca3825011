package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rest"
)

// The failures of failedGraph, as the scheduler words them.
const (
	firstOpenFailure   = "RuntimeException: open() of an operator of Map (2/2)#0 threw: fault injected at step m11 (operator-open-throws)"
	secondOpenFailure  = "RuntimeException: open() of an operator of Map (2/2)#1 threw: fault injected at step m11 (operator-open-throws)"
	recoverySuppressed = "JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=1, backoffTimeMS=1000): " +
		secondOpenFailure
	slotLost = "JobException: Target slot (TaskManager) for deployment is no longer alive."
)

// failedGraph is a job whose Map (2/2) threw in open() at 4 s, restarted,
// threw again at 20 s and, out of restarts, FAILED at 21 s; while it was
// failing, Map (1/2), whose TaskExecutor was gone, failed too.
func failedGraph(jobID api.JobID) *gateway.ArchivedExecutionGraph {
	failed := api.ExecutionFailed
	return &gateway.ArchivedExecutionGraph{
		JobID:   jobID,
		JobName: "numbers",
		State:   api.JobFailed,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: at(0), api.JobCreated: at(0), api.JobRunning: at(5000),
			api.JobRestarting: at(4000), api.JobFailing: at(20_000), api.JobFailed: at(21_000),
		},
		FailureCause: recoverySuppressed,
		Vertices: []gateway.ArchivedExecutionJobVertex{
			{ID: api.NewJobVertexID(), Name: "Source: numbers", Parallelism: 1, MaxParallelism: 128, State: api.ExecutionCanceled,
				Subtasks: []gateway.ArchivedExecution{{AttemptNumber: 1, State: api.ExecutionCanceled, TaskManager: "taskexecutor-a"}}},
			{ID: api.NewJobVertexID(), Name: "Map", Parallelism: 2, MaxParallelism: 128, State: failed,
				Subtasks: []gateway.ArchivedExecution{ // out of order: listed by subtask
					{SubtaskIndex: 1, AttemptNumber: 1, State: failed, TaskManager: "taskexecutor-b", FailureCause: secondOpenFailure,
						StateTimestamps: timeline(failed, 20_000)},
					{SubtaskIndex: 0, AttemptNumber: 1, State: failed, FailureCause: slotLost,
						StateTimestamps: timeline(failed, 20_500)},
				}},
		},
		ExceptionHistory: []gateway.ExceptionHistoryEntry{ // newest first
			{Exception: recoverySuppressed, Timestamp: at(20_000), TaskName: "Map (2/2)#1", TaskManagerID: "taskexecutor-b",
				ConcurrentExceptions: []gateway.ExceptionHistoryEntry{
					{Exception: slotLost, Timestamp: at(20_500), TaskName: "Map (1/2)#1"},
				}},
			{Exception: firstOpenFailure, Timestamp: at(4000), TaskName: "Map (2/2)#0", TaskManagerID: "taskexecutor-b"},
		},
	}
}

// exceptionsPath is the exceptions endpoint of a job, with a query.
func exceptionsPath(jobID api.JobID, query string) string {
	return "/jobs/" + jobID.String() + "/exceptions" + query
}

// TestJobExceptionsOfAFailedJob: Flink 1.20's JobExceptionsInfoWithHistory,
// field by field, also under /v1.
func TestJobExceptionsOfAFailedJob(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	serve(h, failedGraph(jobID))

	want := fmt.Sprintf(`{
		"root-exception": %[4]q,
		"timestamp": %[2]d,
		"all-exceptions": [
			{"exception": %[6]q, "task": "Map (1/2)", "location": "(unassigned)", "endpoint": "(unassigned)",
			 "timestamp": %[3]d, "taskManagerId": "(unassigned)"},
			{"exception": %[5]q, "task": "Map (2/2)", "location": "(unassigned)", "endpoint": "(unassigned)",
			 "timestamp": %[2]d, "taskManagerId": "taskexecutor-b"}
		],
		"truncated": false,
		"exceptionHistory": {
			"entries": [
				{"exceptionName": "org.apache.flink.runtime.JobException", "stacktrace": %[4]q, "timestamp": %[2]d,
				 "failureLabels": {}, "taskName": "Map (2/2)#1", "location": "(unassigned)", "endpoint": "(unassigned)",
				 "taskManagerId": "taskexecutor-b",
				 "concurrentExceptions": [
					{"exceptionName": "org.apache.flink.runtime.JobException", "stacktrace": %[6]q, "timestamp": %[3]d,
					 "failureLabels": {}, "taskName": "Map (1/2)#1"}
				 ]},
				{"exceptionName": "java.lang.RuntimeException", "stacktrace": %[7]q, "timestamp": %[1]d,
				 "failureLabels": {}, "taskName": "Map (2/2)#0", "location": "(unassigned)", "endpoint": "(unassigned)",
				 "taskManagerId": "taskexecutor-b", "concurrentExceptions": []}
			],
			"truncated": false
		}
	}`, at(4000).UnixMilli(), at(20_000).UnixMilli(), at(20_500).UnixMilli(),
		recoverySuppressed, secondOpenFailure, slotLost, firstOpenFailure)

	for _, path := range []string{exceptionsPath(jobID, ""), "/v1" + exceptionsPath(jobID, "")} {
		r := h.get(path)
		require.Equal(t, http.StatusOK, r.status, "GET %s: %s", path, r.body)
		assert.JSONEq(t, want, string(r.body), "GET %s", path)
	}
}

// TestJobExceptionsOfAJobThatNeverFailed: an empty history, and the
// deprecated root-exception and timestamp null, not left out, as in Flink.
func TestJobExceptionsOfAJobThatNeverFailed(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	serve(h, finishedGraph(jobID))

	r := h.get(exceptionsPath(jobID, ""))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t,
		`{"root-exception":null,"timestamp":null,"all-exceptions":[],"truncated":false,"exceptionHistory":{"entries":[],"truncated":false}}`,
		strings.TrimSpace(string(r.body)))
}

// TestJobExceptionsOfAJobThatFailedToInitialize: a job whose JobMaster did
// not start has a FailureCause and no history. Its root cause is reported
// anyway, as a global failure (no task, no TaskExecutor) at the time the
// job FAILED, as Flink's ExecutionGraphInfo does for a graph without a
// history.
func TestJobExceptionsOfAJobThatFailedToInitialize(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	cause := "JobInitializationException: Could not start the JobMaster.: fault injected at step m4 (jobmaster-start-failure)"
	serve(h, &gateway.ArchivedExecutionGraph{
		JobID: jobID, JobName: "numbers", State: api.JobFailed, FailureCause: cause,
		StatusTimestamps: map[api.JobStatus]time.Time{api.JobInitializing: at(0), api.JobFailed: at(300)},
		Vertices: []gateway.ArchivedExecutionJobVertex{{ID: api.NewJobVertexID(), Name: "Source: numbers", Parallelism: 1,
			MaxParallelism: 128, State: api.ExecutionCreated, Subtasks: []gateway.ArchivedExecution{{State: api.ExecutionCreated}}}},
	})

	r := h.get(exceptionsPath(jobID, ""))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, fmt.Sprintf(`{
		"root-exception": %[1]q, "timestamp": %[2]d, "all-exceptions": [], "truncated": false,
		"exceptionHistory": {"entries": [
			{"exceptionName": "org.apache.flink.runtime.client.JobInitializationException", "stacktrace": %[1]q,
			 "timestamp": %[2]d, "failureLabels": {}, "concurrentExceptions": []}
		], "truncated": false}
	}`, cause, at(300).UnixMilli()), string(r.body))
}

// TestJobExceptionsReportsAFailureCauseMissingFromTheHistory: a job the
// scheduler failed without a task failure (here, after one restart) has
// its cause in front of the history, at the time it FAILED.
func TestJobExceptionsReportsAFailureCauseMissingFromTheHistory(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	g := failedGraph(jobID)
	g.FailureCause = "could not assign a slot to Map (1/2)#1: the slot pool is closed"
	g.ExceptionHistory = g.ExceptionHistory[1:] // only the first open() failure
	serve(h, g)

	var got rest.JobExceptionsInfoWithHistory
	decode(t, h.get(exceptionsPath(jobID, "")), &got)
	require.Len(t, got.ExceptionHistory.Entries, 2)
	newest := got.ExceptionHistory.Entries[0]
	assert.Equal(t, rest.ExceptionInfo{
		ExceptionName: "error", // a Go error: no Java class to name
		Stacktrace:    g.FailureCause,
		Timestamp:     at(21_000).UnixMilli(),
		FailureLabels: map[string]string{},
	}, newest.ExceptionInfo)
	assert.Equal(t, firstOpenFailure, got.ExceptionHistory.Entries[1].Stacktrace)
	require.NotNil(t, got.RootException)
	assert.Equal(t, g.FailureCause, *got.RootException)
	assert.Equal(t, at(21_000).UnixMilli(), *got.Timestamp)
}

// manyFailuresGraph is a RUNNING job that restarted n times: n history
// entries, the newest failing at n seconds, and 3 attempts whose failure
// is still current.
func manyFailuresGraph(jobID api.JobID, n int) *gateway.ArchivedExecutionGraph {
	g := &gateway.ArchivedExecutionGraph{JobID: jobID, JobName: "flaky", State: api.JobRunning}
	for i := n; i >= 1; i-- {
		g.ExceptionHistory = append(g.ExceptionHistory, gateway.ExceptionHistoryEntry{
			Exception: fmt.Sprintf("RuntimeException: failure %d", i), Timestamp: at(i * 1000), TaskName: "Map (1/3)#" + fmt.Sprint(i-1),
		})
	}
	v := gateway.ArchivedExecutionJobVertex{ID: api.NewJobVertexID(), Name: "Map", Parallelism: 3, MaxParallelism: 128}
	for i := range 3 {
		v.Subtasks = append(v.Subtasks, gateway.ArchivedExecution{SubtaskIndex: i, State: api.ExecutionFailed,
			FailureCause: fmt.Sprintf("RuntimeException: subtask %d", i)})
	}
	g.Vertices = []gateway.ArchivedExecutionJobVertex{v}
	return g
}

// TestJobExceptionsQueryParameters: maxExceptions bounds both lists (20 by
// default, Flink's MAX_NUMBER_EXCEPTION_TO_REPORT), and a failureLabelFilter
// lets no entry through: flinklab's failures have no labels.
func TestJobExceptionsQueryParameters(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	serve(h, manyFailuresGraph(jobID, 25))

	tests := []struct {
		name              string
		query             string
		wantNewest        []string // the first entries' stack traces, newest first
		wantEntries       int
		wantTruncated     bool
		wantAll           int
		wantAllTruncated  bool
		wantRootException string
	}{
		{"default: 20", "", []string{"RuntimeException: failure 25", "RuntimeException: failure 24"}, 20, true, 3, false, "RuntimeException: failure 25"},
		{"fewer", "?maxExceptions=2", []string{"RuntimeException: failure 25", "RuntimeException: failure 24"}, 2, true, 2, true, "RuntimeException: failure 25"},
		{"none", "?maxExceptions=0", nil, 0, true, 0, true, "RuntimeException: failure 25"},
		{"more than there are", "?maxExceptions=30", nil, 25, false, 3, false, "RuntimeException: failure 25"},
		{"exactly all", "?maxExceptions=25", nil, 25, false, 3, false, "RuntimeException: failure 25"},
		{"a list: the first counts", "?maxExceptions=1,7", []string{"RuntimeException: failure 25"}, 1, true, 1, true, "RuntimeException: failure 25"},
		{"twice: joined, the first counts", "?maxExceptions=1&maxExceptions=7", nil, 1, true, 1, true, "RuntimeException: failure 25"},
		{"a trailing comma, as Java splits", "?maxExceptions=4,", nil, 4, true, 3, false, "RuntimeException: failure 25"},
		{"a label filter matches nothing", "?failureLabelFilter=type:user", nil, 0, false, 3, false, "RuntimeException: failure 25"},
		{"nor do two labels", "?failureLabelFilter=type:user,cause:oom", nil, 0, false, 3, false, "RuntimeException: failure 25"},
		{"a:b: is the label a:b, as Java splits", "?failureLabelFilter=a:b:", nil, 0, false, 3, false, "RuntimeException: failure 25"},
		{"',' splits into no label at all: no filter", "?failureLabelFilter=,", nil, 20, true, 3, false, "RuntimeException: failure 25"},
		{"both", "?maxExceptions=1&failureLabelFilter=type:user", nil, 0, false, 1, true, "RuntimeException: failure 25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got rest.JobExceptionsInfoWithHistory
			r := h.get("/v1" + exceptionsPath(jobID, tt.query))
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			decode(t, r, &got)
			assert.Len(t, got.ExceptionHistory.Entries, tt.wantEntries)
			assert.Equal(t, tt.wantTruncated, got.ExceptionHistory.Truncated, "exceptionHistory.truncated")
			for i, want := range tt.wantNewest {
				assert.Equal(t, want, got.ExceptionHistory.Entries[i].Stacktrace, "entry %d", i)
			}
			assert.Len(t, got.AllExceptions, tt.wantAll)
			assert.Equal(t, tt.wantAllTruncated, got.Truncated, "truncated")
			require.NotNil(t, got.RootException, "the root exception is not filtered")
			assert.Equal(t, tt.wantRootException, *got.RootException)
		})
	}
}

// TestJobExceptionsRejectsBadInput: Flink resolves the path and query
// parameters before it asks for the job, with its messages.
func TestJobExceptionsRejectsBadInput(t *testing.T) {
	h := newHarness(t)
	jobID, unknown := api.NewJobID(), api.NewJobID()
	serve(h, failedGraph(jobID))
	badQuery := func(key, value, reason string) []string {
		return []string{
			fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve query parameter (%s) from value %q.", key, value),
			reason,
		}
	}
	badLabel := func(value, entry string) []string {
		return badQuery("failureLabelFilter", value, "failureLabelFilter may be a `key:value` entry only ("+entry+")")
	}
	tests := []struct {
		path       string
		wantStatus int
		wantErrors []string
	}{
		{exceptionsPath(jobID, "?maxExceptions=many"), http.StatusBadRequest,
			badQuery("maxExceptions", "many", `strconv.ParseInt: parsing "many": invalid syntax`)},
		{exceptionsPath(jobID, "?maxExceptions="), http.StatusBadRequest,
			badQuery("maxExceptions", "", `strconv.ParseInt: parsing "": invalid syntax`)},
		{exceptionsPath(jobID, "?maxExceptions=2147483648"), http.StatusBadRequest, // over Java's int
			badQuery("maxExceptions", "2147483648", `strconv.ParseInt: parsing "2147483648": value out of range`)},
		{exceptionsPath(jobID, "?maxExceptions=-1"), http.StatusBadRequest,
			badQuery("maxExceptions", "-1", "maxExceptions must not be negative, got -1")},
		{"/v1" + exceptionsPath(jobID, "?failureLabelFilter=oom"), http.StatusBadRequest, badLabel("oom", "oom")},
		{exceptionsPath(jobID, "?failureLabelFilter=type:user,oom"), http.StatusBadRequest, badLabel("type:user,oom", "oom")},
		{exceptionsPath(jobID, "?failureLabelFilter=type:"), http.StatusBadRequest, badLabel("type:", "type:")},
		{exceptionsPath(jobID, "?failureLabelFilter=a:b:c"), http.StatusBadRequest, badLabel("a:b:c", "a:b:c")},
		{exceptionsPath(jobID, "?failureLabelFilter="), http.StatusBadRequest, badLabel("", "")},
		// The query is checked before the Dispatcher is asked.
		{exceptionsPath(unknown, "?maxExceptions=many"), http.StatusBadRequest,
			badQuery("maxExceptions", "many", `strconv.ParseInt: parsing "many": invalid syntax`)},
		{exceptionsPath(unknown, ""), http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
		{"/v1" + exceptionsPath(unknown, "?maxExceptions=3"), http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
		{"/jobs/nope/exceptions", http.StatusBadRequest, []string{
			`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "nope".`,
			`Cannot parse JobID from "nope". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
		}},
	}
	for _, tt := range tests {
		r := h.get(tt.path)
		assert.Equal(t, tt.wantStatus, r.status, "GET %s: %s", tt.path, r.body)
		assert.Equal(t, tt.wantErrors, r.errors, "GET %s", tt.path)
	}

	// The Dispatcher failing is an internal server error.
	h.dispatcher.RequestJobFunc = func(context.Context, api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		return nil, errors.New("dispatcher stopped")
	}
	r := h.get(exceptionsPath(jobID, ""))
	require.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, "Internal server error.", r.errors[0])
	assert.Contains(t, r.errors[1], "dispatcher stopped")
}
