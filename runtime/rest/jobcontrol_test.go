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
	"flinklab/runtime/rpc"
)

// patch sends PATCH path with no body.
func (h *harness) patch(path string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPatch, h.baseURL+path, nil)
	require.NoError(h.t, err)
	return h.do(req)
}

// runSmallJob runs an uploaded jar and returns the job's ID.
func runSmallJob(t *testing.T, h *harness) api.JobID {
	t.Helper()
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	r := h.post("/jars/"+jarID+"/run", "application/json", nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	return h.dispatcher.Submitted()[len(h.dispatcher.Submitted())-1].JobID
}

// TestJobIDsOverview lists every job with its status, in the Dispatcher's
// order; a job forgotten between the two questions is left out.
func TestJobIDsOverview(t *testing.T) {
	h := newHarness(t)
	running, finished, gone := api.NewJobID(), api.NewJobID(), api.NewJobID()
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return []api.JobID{running, gone, finished}, nil }
	h.dispatcher.RequestJobStatusFunc = func(_ context.Context, id api.JobID) (api.JobStatus, error) {
		switch id {
		case running:
			return api.JobRunning, nil
		case finished:
			return api.JobFinished, nil
		}
		return 0, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
	}
	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/jobs")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.JSONEq(t, fmt.Sprintf(`{"jobs": [{"id": %q, "status": "RUNNING"}, {"id": %q, "status": "FINISHED"}]}`, running, finished),
			string(r.body))
	}

	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return nil, nil }
	r := h.get("/jobs")
	assert.JSONEq(t, `{"jobs": []}`, string(r.body), "no jobs: [], not null")
}

// TestCancelJob: PATCH /jobs/{jobid} (mode=cancel, the default) passes the
// cancellation to the Dispatcher and answers 202 {}.
func TestCancelJob(t *testing.T) {
	h := newHarness(t)
	jobID := runSmallJob(t, h)
	for _, path := range []string{"/jobs/" + jobID.String(), "/v1/jobs/" + jobID.String() + "?mode=cancel", "/jobs/" + jobID.String() + "?mode=CANCEL,stop"} {
		r := h.patch(path)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", path, r.body)
		assert.Equal(t, "{}", strings.TrimSpace(string(r.body)), path)
	}
	assert.Equal(t, []api.JobID{jobID, jobID, jobID}, h.dispatcher.Cancelled())
}

// TestCancelJobAnswersLikeFlink: every way a cancellation can fail gets
// the status and message of Flink's JobCancellationHandler. (A job that is
// CANCELED already is acknowledged by the Dispatcher itself.)
func TestCancelJobAnswersLikeFlink(t *testing.T) {
	jobID := api.NewJobID()
	terminated := func(state api.JobStatus) func(context.Context, api.JobID) error {
		return func(_ context.Context, id api.JobID) error {
			return &gateway.JobTerminatedWithoutCancellationException{JobID: id, JobStatus: state}
		}
	}
	tests := []struct {
		name       string
		query      string
		jobID      string // "" means jobID
		cancel     func(context.Context, api.JobID) error
		wantStatus int
		wantErrors []string // nil: not checked
		wantCalled bool     // whether the Dispatcher was asked to cancel
	}{
		{
			name: "a job that FINISHED", cancel: terminated(api.JobFinished),
			wantStatus: http.StatusConflict, wantCalled: true,
			wantErrors: []string{"Job cancellation failed because the job has already reached another terminal state (FINISHED)."},
		},
		{
			name: "a job that FAILED", cancel: terminated(api.JobFailed),
			wantStatus: http.StatusConflict, wantCalled: true,
			wantErrors: []string{"Job cancellation failed because the job has already reached another terminal state (FAILED)."},
		},
		{
			name: "an unknown job",
			cancel: func(_ context.Context, id api.JobID) error {
				return fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
			},
			wantStatus: http.StatusNotFound, wantCalled: true,
			wantErrors: []string{"Job could not be found."},
		},
		{
			name: "the Dispatcher does not answer in time",
			cancel: func(context.Context, api.JobID) error {
				return fmt.Errorf("%w: invocation at recipient [dispatcher] timed out: %w", rpc.ErrTimeout, context.DeadlineExceeded)
			},
			wantStatus: http.StatusRequestTimeout, wantCalled: true,
		},
		{
			name:       "the Dispatcher fails otherwise",
			cancel:     func(context.Context, api.JobID) error { return errors.New("the JobMaster is gone") },
			wantStatus: http.StatusInternalServerError, wantCalled: true,
		},
		{
			name: "mode=stop", query: "?mode=stop",
			wantStatus: http.StatusPermanentRedirect,
			wantErrors: []string{`The termination mode "stop" has been removed. For an ungraceful shutdown, please use "cancel" instead. ` +
				`For a graceful shutdown, please use "jobs/:jobId/stop" instead.`},
		},
		{
			name: "an unknown mode", query: "?mode=cancel,pause",
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{`Bad request, could not parse parameters: Cannot resolve query parameter (mode) from value "cancel,pause".`,
				"No enum constant TerminationMode.PAUSE (want cancel)"},
		},
		{
			name: "a malformed job ID", jobID: "not-a-job",
			wantStatus: http.StatusBadRequest,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.dispatcher.CancelJobFunc = tt.cancel
			r := h.patch("/jobs/" + cmpOr(tt.jobID, jobID.String()) + tt.query)
			assert.Equal(t, tt.wantStatus, r.status, string(r.body))
			if tt.wantErrors != nil {
				assert.Equal(t, tt.wantErrors, r.errors)
			}
			assert.Equal(t, tt.wantCalled, len(h.dispatcher.Cancelled()) == 1, "Dispatcher.CancelJob called")
		})
	}
}

// TestJobExecutionResult: IN_PROGRESS while the job runs, then COMPLETED
// with its JobResult as Flink's JobResultSerializer writes it.
func TestJobExecutionResult(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	status := api.JobRunning
	var result api.JobResult
	h.dispatcher.RequestJobStatusFunc = func(context.Context, api.JobID) (api.JobStatus, error) { return status, nil }
	h.dispatcher.RequestJobResultFunc = func(_ context.Context, id api.JobID) (api.JobResult, error) {
		if !status.IsGloballyTerminalState() {
			t.Error("RequestJobResult of a job that has not ended: it would wait")
		}
		return result, nil
	}
	path := "/jobs/" + jobID.String() + "/execution-result"

	for _, s := range []api.JobStatus{api.JobInitializing, api.JobRunning, api.JobRestarting, api.JobCancelling, api.JobSuspended} {
		status = s
		r := h.get(path)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.JSONEq(t, `{"status": {"id": "IN_PROGRESS"}}`, string(r.body), "%s", s)
	}

	status = api.JobFinished
	result = api.JobResult{JobID: jobID, JobName: "wordcount", JobStatus: api.JobFinished,
		ApplicationStatus: api.ApplicationSucceeded, NetRuntime: 1500 * time.Millisecond}
	r := h.get("/v1" + path)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, fmt.Sprintf(`{"status": {"id": "COMPLETED"}, "job-execution-result": {
		"id": %q, "application-status": "SUCCEEDED", "accumulator-results": {}, "net-runtime": 1500}}`, jobID), string(r.body))

	status = api.JobFailed
	result = api.JobResult{JobID: jobID, JobName: "wordcount", JobStatus: api.JobFailed,
		ApplicationStatus: api.ApplicationFailed, NetRuntime: 21 * time.Second, FailureCause: recoverySuppressed}
	r = h.get(path)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, fmt.Sprintf(`{"status": {"id": "COMPLETED"}, "job-execution-result": {
		"id": %q, "application-status": "FAILED", "accumulator-results": {}, "net-runtime": 21000,
		"failure-cause": {"class": "org.apache.flink.runtime.JobException", "stack-trace": %q}}}`, jobID, recoverySuppressed), string(r.body))
}

// TestJobExecutionResultRejectsBadInput: Flink's 400 for a malformed ID,
// and its 404, with the FlinkJobNotFoundException's text, for an unknown
// job.
func TestJobExecutionResultRejectsBadInput(t *testing.T) {
	h := newHarness(t)
	r := h.get("/jobs/not-a-job/execution-result")
	assert.Equal(t, http.StatusBadRequest, r.status)

	jobID := api.NewJobID()
	r = h.get("/jobs/" + jobID.String() + "/execution-result")
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, []string{"org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job (" + jobID.String() + ")"}, r.errors)
}
