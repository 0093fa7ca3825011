package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

// finishedGraph is a job that ran from startTime for 90 seconds and
// FINISHED; it was not run through the REST endpoint.
func finishedGraph(jobID api.JobID) *gateway.ArchivedExecutionGraph {
	source, sink := api.NewJobVertexID(), api.NewJobVertexID()
	return &gateway.ArchivedExecutionGraph{
		JobID:   jobID,
		JobName: "numbers",
		State:   api.JobFinished,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: startTime,
			api.JobCreated:      startTime.Add(time.Second),
			api.JobRunning:      startTime.Add(2 * time.Second),
			api.JobFinished:     startTime.Add(90 * time.Second),
		},
		Vertices: []gateway.ArchivedExecutionJobVertex{
			{ID: source, Name: "Source: numbers", Parallelism: 2, MaxParallelism: 128, State: api.ExecutionFinished,
				Subtasks: []gateway.ArchivedExecution{{State: api.ExecutionFinished}, {SubtaskIndex: 1, State: api.ExecutionFinished}}},
			{ID: sink, Name: "Sink: collect", Parallelism: 1, MaxParallelism: 256, State: api.ExecutionFinished,
				Subtasks: []gateway.ArchivedExecution{{State: api.ExecutionFinished}}},
		},
	}
}

func TestJobDetailsOfAFinishedJob(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	g := finishedGraph(jobID)
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return []api.JobID{jobID}, nil }
	h.dispatcher.RequestJobFunc = func(_ context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		if id != jobID {
			t.Errorf("RequestJob(%s), want %s", id, jobID)
		}
		return g, nil
	}
	start, end := startTime.UnixMilli(), startTime.Add(90*time.Second).UnixMilli()

	var overview rest.MultipleJobsDetails
	decode(t, h.get("/jobs/overview"), &overview)
	wantOverview := rest.MultipleJobsDetails{Jobs: []rest.JobDetails{{
		JobID: jobID, Name: "numbers", State: api.JobFinished,
		StartTime: start, EndTime: end, Duration: 90_000, LastModification: end,
		Tasks: rest.TaskCounts{Total: 3, Finished: 3},
	}}}
	if diff := cmp.Diff(wantOverview, overview, idOpts); diff != "" {
		t.Errorf("GET /jobs/overview (-want +got):\n%s", diff)
	}

	var details rest.JobDetailsInfo
	decode(t, h.get("/jobs/"+jobID.String()), &details)
	counts := func(state api.ExecutionState, n int) map[api.ExecutionState]int {
		m := map[api.ExecutionState]int{}
		for _, s := range api.ExecutionStates() {
			m[s] = 0
		}
		m[state] = n
		return m
	}
	want := rest.JobDetailsInfo{
		JobID: jobID, Name: "numbers", State: api.JobFinished, JobType: "STREAMING",
		StartTime: start, EndTime: end, Duration: 90_000, MaxParallelism: 256, Now: details.Now,
		Timestamps: map[api.JobStatus]int64{
			api.JobInitializing: start, api.JobCreated: start + 1000, api.JobRunning: start + 2000, api.JobFinished: end,
			api.JobFailing: 0, api.JobFailed: 0, api.JobCancelling: 0, api.JobCanceled: 0,
			api.JobRestarting: 0, api.JobSuspended: 0, api.JobReconciling: 0,
		},
		Vertices: []rest.JobDetailsVertexInfo{
			{ID: g.Vertices[0].ID, Name: "Source: numbers", MaxParallelism: 128, Parallelism: 2, Status: api.ExecutionFinished,
				StartTime: -1, EndTime: -1, Duration: -1, Tasks: counts(api.ExecutionFinished, 2)},
			{ID: g.Vertices[1].ID, Name: "Sink: collect", MaxParallelism: 256, Parallelism: 1, Status: api.ExecutionFinished,
				StartTime: -1, EndTime: -1, Duration: -1, Tasks: counts(api.ExecutionFinished, 1)},
		},
		StatusCounts: counts(api.ExecutionFinished, 3),
		// Not run through this endpoint: the plan has the vertices, not the edges.
		Plan: &rest.JobPlan{JobID: jobID, Name: "numbers", Type: "STREAMING", Nodes: []rest.JobPlanNode{
			{ID: g.Vertices[0].ID, Parallelism: 2, Description: "Source: numbers"},
			{ID: g.Vertices[1].ID, Parallelism: 1, Description: "Sink: collect"},
		}},
	}
	if diff := cmp.Diff(want, details, idOpts); diff != "" {
		t.Errorf("GET /jobs/:jobid (-want +got):\n%s", diff)
	}
	if details.Now < time.Now().Add(-time.Minute).UnixMilli() {
		t.Errorf("now = %d, want the current time", details.Now)
	}
}

func TestJobEndpointsRejectBadInput(t *testing.T) {
	h := newHarness(t)
	unknown := api.NewJobID()
	tests := []struct {
		path       string
		wantStatus int
		wantErrors []string
	}{
		{"/jobs/not-a-job-id", http.StatusBadRequest, []string{
			`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "not-a-job-id".`,
			`Cannot parse JobID from "not-a-job-id". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
		}},
		{"/jobs/" + strings.Repeat("g", 32) + "/plan", http.StatusBadRequest, nil},
		{"/jobs/" + unknown.String(), http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
		{"/v1/jobs/" + unknown.String() + "/plan", http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
	}
	for _, tt := range tests {
		r := h.get(tt.path)
		if r.status != tt.wantStatus {
			t.Errorf("GET %s: status %d, want %d", tt.path, r.status, tt.wantStatus)
		}
		if tt.wantErrors != nil && !slices.Equal(r.errors, tt.wantErrors) {
			t.Errorf("GET %s: errors %q, want %q", tt.path, r.errors, tt.wantErrors)
		}
	}
}

func TestJobsOverview(t *testing.T) {
	h := newHarness(t)

	// No jobs: an empty list, not null.
	r := h.get("/jobs/overview")
	if got := strings.TrimSpace(string(r.body)); got != `{"jobs":[]}` {
		t.Errorf("GET /jobs/overview = %s, want {\"jobs\":[]}", got)
	}

	// A job that vanishes between ListJobs and RequestJob is left out.
	gone := api.NewJobID()
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return []api.JobID{gone}, nil }
	var overview rest.MultipleJobsDetails
	decode(t, h.get("/jobs/overview"), &overview)
	if len(overview.Jobs) != 0 {
		t.Errorf("overview %+v, want no jobs", overview)
	}

	// The Dispatcher failing is an internal server error.
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return nil, errors.New("dispatcher stopped") }
	r = h.get("/jobs/overview")
	if r.status != http.StatusInternalServerError || r.errors[0] != "Internal server error." ||
		!strings.Contains(r.errors[1], "dispatcher stopped") {
		t.Errorf("got %d %q, want 500 with the cause", r.status, r.errors)
	}
}

// TestJobStatus: GET /jobs/{jobid}/status answers Flink's JobStatusInfo,
// also under /v1.
func TestJobStatus(t *testing.T) {
	h := newHarness(t)
	jobID, unknown := api.NewJobID(), api.NewJobID()
	h.dispatcher.RequestJobFunc = func(_ context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		if id == jobID {
			return finishedGraph(jobID), nil
		}
		return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
	}
	tests := []struct {
		path       string
		wantStatus int
		wantBody   string   // for 200
		wantErrors []string // otherwise
	}{
		{"/jobs/" + jobID.String() + "/status", http.StatusOK, `{"status":"FINISHED"}`, nil},
		{"/v1/jobs/" + jobID.String() + "/status", http.StatusOK, `{"status":"FINISHED"}`, nil},
		{"/jobs/" + unknown.String() + "/status", http.StatusNotFound, "", []string{"Job " + unknown.String() + " not found"}},
		{"/jobs/nope/status", http.StatusBadRequest, "", []string{
			`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "nope".`,
			`Cannot parse JobID from "nope". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
		}},
	}
	for _, tt := range tests {
		r := h.get(tt.path)
		if r.status != tt.wantStatus {
			t.Errorf("GET %s: status %d, want %d (body %s)", tt.path, r.status, tt.wantStatus, r.body)
		}
		if tt.wantStatus == http.StatusOK {
			if got := strings.TrimSpace(string(r.body)); got != tt.wantBody {
				t.Errorf("GET %s = %s, want %s", tt.path, got, tt.wantBody)
			}
		} else if !slices.Equal(r.errors, tt.wantErrors) {
			t.Errorf("GET %s: errors %q, want %q", tt.path, r.errors, tt.wantErrors)
		}
	}
}

// TestJobPlansAreBounded: the endpoint keeps the plans of the jobs it ran,
// but not forever. A job whose plan was dropped shows the plan its archived
// graph allows: its vertices, no inputs.
func TestJobPlansAreBounded(t *testing.T) {
	h := newHarness(t, func(cfg *rest.Config) { cfg.MaxJobPlans = 2 })
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	run := func() api.JobID {
		t.Helper()
		var answer rest.JarRunResponseBody
		decode(t, h.post("/jars/"+jarID+"/run", "", nil), &answer)
		return answer.JobID
	}
	// hasFullPlan reports whether the job's plan still has its edge.
	hasFullPlan := func(jobID api.JobID) bool {
		t.Helper()
		var plan rest.JobPlanInfo
		decode(t, h.get("/jobs/"+jobID.String()+"/plan"), &plan)
		if plan.Plan == nil || len(plan.Plan.Nodes) != 2 {
			t.Fatalf("plan of %s = %+v, want two nodes", jobID, plan.Plan)
		}
		return len(plan.Plan.Nodes[1].Inputs) == 1
	}

	// 1. Three jobs, room for two plans: the oldest plan goes.
	first, second, third := run(), run(), run()
	if hasFullPlan(first) || !hasFullPlan(second) || !hasFullPlan(third) {
		t.Errorf("full plans: first %v, second %v, third %v; want only the two newest", hasFullPlan(first), hasFullPlan(second), hasFullPlan(third))
	}

	// 2. The Dispatcher no longer lists the second job: the overview drops
	//    its plan. A job accepted while the Dispatcher was being asked is
	//    missing from its answer only because it is new: its plan stays.
	var fourth api.JobID
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) {
		// Runs on the server's goroutine: no t.Fatal here.
		resp, err := h.client.Post(h.baseURL+"/jars/"+jarID+"/run", "application/json", nil)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var answer rest.JarRunResponseBody
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			return nil, err
		}
		fourth = answer.JobID // accepted after the list was taken
		return []api.JobID{third}, nil
	}
	h.get("/jobs/overview")
	h.dispatcher.ListJobsFunc = nil
	if hasFullPlan(second) || !hasFullPlan(fourth) {
		t.Errorf("full plans: second %v, fourth %v; want the fourth's only", hasFullPlan(second), hasFullPlan(fourth))
	}
}

// TestJobTrace: GET /jobs/{jobid}/trace, flinklab's own endpoint, answers
// the job's events from the trace.Recorder as they are, in time order.
func TestJobTrace(t *testing.T) {
	h := newHarness(t)
	jobID, other, unknown := api.NewJobID(), api.NewJobID(), api.NewJobID()
	serve(h, finishedGraph(jobID), finishedGraph(other))
	// Recorded out of order; the trace reads in time order.
	h.trace.EmitAt(trace.At(startTime.Add(time.Second)), trace.M4, "JobManagerRunner", "JobMaster", jobID, "JobMaster created")
	h.trace.EmitAt(trace.At(startTime), trace.M3, "REST", "Dispatcher", jobID, "submitJob '%s'", "numbers")
	h.trace.EmitAt(trace.At(startTime), trace.M3, "REST", "Dispatcher", other, "submitJob '%s'", "other")
	h.trace.EmitAt(trace.At(startTime), trace.M3, "REST", "Dispatcher", unknown, "submitJob '%s'", "gone")

	want := `{"events":[` +
		`{"step":"m3","from":"REST","to":"Dispatcher","message":"submitJob 'numbers'","jobId":"` + jobID.String() + `","time":"2025-01-02T03:04:05Z"},` +
		`{"step":"m4","from":"JobManagerRunner","to":"JobMaster","message":"JobMaster created","jobId":"` + jobID.String() + `","time":"2025-01-02T03:04:06Z"}]}`
	for _, path := range []string{"/jobs/" + jobID.String() + "/trace", "/v1/jobs/" + jobID.String() + "/trace"} {
		r := h.get(path)
		if got := strings.TrimSpace(string(r.body)); r.status != http.StatusOK || got != want {
			t.Errorf("GET %s = %d %s\nwant 200 %s", path, r.status, got, want)
		}
	}

	// A job the Dispatcher does not know is not found, whatever the
	// recorder still holds of it.
	tests := []struct {
		path       string
		wantStatus int
		wantErrors []string
	}{
		{"/jobs/" + unknown.String() + "/trace", http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
		{"/v1/jobs/" + unknown.String() + "/trace", http.StatusNotFound, []string{"Job " + unknown.String() + " not found"}},
		{"/jobs/nope/trace", http.StatusBadRequest, []string{
			`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "nope".`,
			`Cannot parse JobID from "nope". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
		}},
	}
	for _, tt := range tests {
		r := h.get(tt.path)
		if r.status != tt.wantStatus || !slices.Equal(r.errors, tt.wantErrors) {
			t.Errorf("GET %s = %d %q, want %d %q", tt.path, r.status, r.errors, tt.wantStatus, tt.wantErrors)
		}
	}

	// The Dispatcher failing is an internal server error.
	h.dispatcher.RequestJobStatusFunc = func(context.Context, api.JobID) (api.JobStatus, error) {
		return 0, errors.New("dispatcher stopped")
	}
	r := h.get("/jobs/" + jobID.String() + "/trace")
	if r.status != http.StatusInternalServerError || !strings.Contains(r.errors[1], "dispatcher stopped") {
		t.Errorf("got %d %q, want 500 with the cause", r.status, r.errors)
	}
}

// TestJobTraceWithoutRecorder: a known job of a server without a
// trace.Recorder has an empty trace, not null.
func TestJobTraceWithoutRecorder(t *testing.T) {
	h := newHarnessWithTrace(t, nil)
	jobID := api.NewJobID()
	serve(h, finishedGraph(jobID))
	r := h.get("/jobs/" + jobID.String() + "/trace")
	if got := strings.TrimSpace(string(r.body)); r.status != http.StatusOK || got != `{"events":[]}` {
		t.Errorf("GET /jobs/:jobid/trace = %d %s, want 200 {\"events\":[]}", r.status, got)
	}
}
