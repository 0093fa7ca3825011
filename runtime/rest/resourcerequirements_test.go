package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// put sends PUT path with a JSON body.
func (h *harness) put(path, body string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPut, h.baseURL+path, strings.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	return h.do(req)
}

// serverSide is the second message of a 500: the error chain, framed as
// Flink frames its stack trace.
func serverSide(chain string) string {
	return "<Exception on server side:\n" + chain + "\nEnd of exception on server side>"
}

// GET /jobs/{jobid}/resource-requirements answers the Dispatcher's
// requirements as Flink's JobResourceRequirementsBody: by vertex ID, each
// with its parallelism bounds.
func TestGetJobResourceRequirements(t *testing.T) {
	h := newHarness(t)
	jobID := runSmallJob(t, h)
	g := h.dispatcher.Submitted()[0]
	source, sink := g.Vertices()[0].ID, g.Vertices()[1].ID
	h.dispatcher.RequestJobResourceRequirementsFunc = func(_ context.Context, id api.JobID) (jobgraph.JobResourceRequirements, error) {
		require.Equal(t, jobID, id)
		return jobgraph.JobResourceRequirements{
			source: {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 4}},
			sink:   {Parallelism: jobgraph.Parallelism{LowerBound: 2, UpperBound: 2}},
		}, nil
	}
	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/jobs/" + jobID.String() + "/resource-requirements")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.JSONEq(t, fmt.Sprintf(`{
			%q: {"parallelism": {"lowerBound": 1, "upperBound": 4}},
			%q: {"parallelism": {"lowerBound": 2, "upperBound": 2}}
		}`, source, sink), string(r.body))
	}

	h.dispatcher.RequestJobResourceRequirementsFunc = func(context.Context, api.JobID) (jobgraph.JobResourceRequirements, error) {
		return nil, nil
	}
	r := h.get("/jobs/" + jobID.String() + "/resource-requirements")
	assert.JSONEq(t, `{}`, string(r.body), "no requirements: {}, not null")
}

// Flink's JobResourceRequirementsHandler maps no failure: a job the
// Dispatcher does not run is a 500 with its FlinkJobNotFoundException
// (where GET /jobs/{jobid} answers 404), and so is a job still
// initializing. Only a malformed job ID is the router's 400.
func TestGetJobResourceRequirementsFailures(t *testing.T) {
	h := newHarness(t)
	unknown := api.NewJobID()
	r := h.get("/jobs/" + unknown.String() + "/resource-requirements")
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, []string{"Internal server error.", serverSide(fmt.Sprintf(
		"request the resource requirements of job %s: FlinkJobNotFoundException: Could not find Flink job (%s)", unknown, unknown))}, r.errors)

	h.dispatcher.RequestJobResourceRequirementsFunc = func(context.Context, api.JobID) (jobgraph.JobResourceRequirements, error) {
		return nil, fmt.Errorf("%w: Unable to get JobMasterGateway for initializing job.", gateway.ErrUnavailableDispatcherOperation)
	}
	r = h.get("/jobs/" + unknown.String() + "/resource-requirements")
	assert.Equal(t, http.StatusInternalServerError, r.status)
	require.Len(t, r.errors, 2)
	assert.Contains(t, r.errors[1], "UnavailableDispatcherOperationException: Unable to get JobMasterGateway for initializing job.")

	r = h.get("/jobs/not-a-job/resource-requirements")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, `Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "not-a-job".`, r.errors[0])
}

// PUT /jobs/{jobid}/resource-requirements hands the body's requirements to
// the Dispatcher as they are, -1 and all, and answers 200 {}.
func TestPutJobResourceRequirements(t *testing.T) {
	h := newHarness(t)
	jobID := runSmallJob(t, h)
	g := h.dispatcher.Submitted()[0]
	source, sink := g.Vertices()[0].ID, g.Vertices()[1].ID
	var got []any
	h.dispatcher.UpdateJobResourceRequirementsFunc = func(_ context.Context, id api.JobID, r jobgraph.JobResourceRequirements) error {
		got = []any{id, r}
		return nil
	}

	r := h.put("/jobs/"+jobID.String()+"/resource-requirements", fmt.Sprintf(`{
		%q: {"parallelism": {"lowerBound": 1, "upperBound": 4}},
		%q: {"parallelism": {"lowerBound": -1, "upperBound": -1}}
	}`, source, sink))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, `{}`, string(r.body))
	assert.Equal(t, []any{jobID, jobgraph.JobResourceRequirements{
		source: {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 4}},
		sink:   {Parallelism: jobgraph.Parallelism{LowerBound: -1, UpperBound: -1}},
	}}, got)

	r = h.put("/v1/jobs/"+jobID.String()+"/resource-requirements", fmt.Sprintf(`{%q: {"parallelism": {"lowerBound": 2, "upperBound": 2}}}`, source))
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}

// Every way an update fails gets the status and message Flink's
// JobResourceRequirementsUpdateHandler and Dispatcher give it, in Flink's
// order: the body, the path, the handler's own check, the Dispatcher.
func TestPutJobResourceRequirementsAnswersLikeFlink(t *testing.T) {
	jobID := api.NewJobID()
	vertex := api.NewJobVertexID()
	valid := fmt.Sprintf(`{%q: {"parallelism": {"lowerBound": 1, "upperBound": 2}}}`, vertex)
	notTheFormat := "Request did not match expected format JobResourceRequirementsBody."
	tests := []struct {
		name       string
		path       string // "" means /jobs/<jobID>/resource-requirements
		body       string
		dispatcher error // what the Dispatcher answers
		wantStatus int
		wantErrors []string // the first only, when it has one element and wantFirst is set
		wantFirst  bool
		wantCalled bool
	}{
		{name: "malformed JSON", body: `{"x": `, wantStatus: 400, wantErrors: []string{notTheFormat, "unexpected EOF"}},
		{
			name: "a field Flink's body does not have", wantStatus: 400,
			body:       fmt.Sprintf(`{%q: {"parallelism": {"lowerBound": 1, "upperBound": 2}, "cpuCores": 1}}`, vertex),
			wantErrors: []string{notTheFormat, `json: unknown field "cpuCores"`},
		},
		{
			name: "a key that is no vertex ID", wantStatus: 400, wantFirst: true,
			body:       `{"Map": {"parallelism": {"lowerBound": 1, "upperBound": 2}}}`,
			wantErrors: []string{notTheFormat},
		},
		{
			name: "a vertex without parallelism", wantStatus: 400,
			body:       fmt.Sprintf(`{%q: {}}`, vertex),
			wantErrors: []string{notTheFormat, fmt.Sprintf("the requirements of job vertex %s have no parallelism", vertex)},
		},
		{
			name: "the body comes before the path", path: "/jobs/not-a-job/resource-requirements", body: `[`,
			wantStatus: 400, wantFirst: true, wantErrors: []string{notTheFormat},
		},
		{
			name: "a malformed job ID", path: "/jobs/not-a-job/resource-requirements", body: valid, wantStatus: 400, wantFirst: true,
			wantErrors: []string{`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "not-a-job".`},
		},
		{name: "no body", wantStatus: 400, wantErrors: []string{"Request body does not specify resource requirements."}},
		{name: "no requirements", body: `{}`, wantStatus: 400, wantErrors: []string{"Request body does not specify resource requirements."}},
		{
			name: "requirements that do not fit the job", body: valid, wantCalled: true,
			dispatcher: &gateway.InvalidJobResourceRequirementsError{JobID: jobID, Errors: []string{
				"The newly requested parallelism 2 for the job vertex " + vertex.String() + " exceeds its maximum parallelism 1.",
				"The request is incomplete, missing job vertex [ea632d67b7d595e5b851708ae9ad79d6] resource requirements.",
			}},
			wantStatus: 400,
			wantErrors: []string{"The newly requested parallelism 2 for the job vertex " + vertex.String() + " exceeds its maximum parallelism 1.\n" +
				"The request is incomplete, missing job vertex [ea632d67b7d595e5b851708ae9ad79d6] resource requirements."},
		},
		{
			name: "another update in progress", body: valid, wantCalled: true,
			dispatcher: gateway.ErrJobResourceRequirementsUpdateInProgress,
			wantStatus: 409, wantErrors: []string{"Another update to the job [%s] resource requirements is in progress."},
		},
		{
			name: "a job the Dispatcher does not run", body: valid, wantCalled: true,
			dispatcher: fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, jobID),
			wantStatus: 500, wantErrors: []string{"Internal server error.", serverSide(fmt.Sprintf(
				"update the resource requirements of job %s: FlinkJobNotFoundException: Could not find Flink job (%s)", jobID, jobID))},
		},
		{
			name: "the DefaultScheduler refuses", body: valid, wantCalled: true,
			dispatcher: fmt.Errorf("%w: The DefaultScheduler does not support changing the parallelism without a job restart. "+
				"This feature is currently only expected to work with the AdaptiveScheduler.", gateway.ErrUnsupportedOperation),
			wantStatus: 500, wantErrors: []string{"Internal server error.", serverSide(fmt.Sprintf(
				"update the resource requirements of job %s: UnsupportedOperationException: The DefaultScheduler does not support "+
					"changing the parallelism without a job restart. This feature is currently only expected to work with the AdaptiveScheduler.", jobID))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.dispatcher.UpdateJobResourceRequirementsFunc = func(context.Context, api.JobID, jobgraph.JobResourceRequirements) error {
				return tt.dispatcher
			}
			path := tt.path
			if path == "" {
				path = "/jobs/" + jobID.String() + "/resource-requirements"
			}
			r := h.put(path, tt.body)
			assert.Equal(t, tt.wantStatus, r.status, string(r.body))
			if tt.wantFirst {
				require.NotEmpty(t, r.errors)
				assert.Equal(t, tt.wantErrors[0], r.errors[0])
			} else {
				assert.Equal(t, tt.wantErrors, r.errors)
			}
			assert.Equal(t, tt.wantCalled, len(h.dispatcher.Updates()) == 1, "whether the Dispatcher was asked")
		})
	}
}
