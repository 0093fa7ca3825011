package rest_test

import (
	"context"
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
)

// at returns the moment ms milliseconds after startTime.
func at(ms int) time.Time { return startTime.Add(time.Duration(ms) * time.Millisecond) }

// timeline returns the state timestamps of an attempt that entered the
// states in the given order at the given times (ms after startTime).
func timeline(steps ...any) map[api.ExecutionState]time.Time {
	m := make(map[api.ExecutionState]time.Time)
	for i := 0; i < len(steps); i += 2 {
		m[steps[i].(api.ExecutionState)] = at(steps[i+1].(int))
	}
	return m
}

// vertexGraph is a RUNNING job of two vertices whose attempts carry their
// state timestamps: a source whose two subtasks FINISHED (listed out of
// order), and a sink whose subtask 0 runs in its second attempt and whose
// subtask 1 still waits for a slot.
func vertexGraph(jobID api.JobID) *gateway.ArchivedExecutionGraph {
	const (
		created, scheduled, deploying = api.ExecutionCreated, api.ExecutionScheduled, api.ExecutionDeploying
		initializing, running         = api.ExecutionInitializing, api.ExecutionRunning
		finished                      = api.ExecutionFinished
	)
	return &gateway.ArchivedExecutionGraph{
		JobID:   jobID,
		JobName: "numbers",
		State:   api.JobRunning,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: startTime, api.JobCreated: startTime, api.JobRunning: startTime,
		},
		Vertices: []gateway.ArchivedExecutionJobVertex{
			{ID: api.NewJobVertexID(), Name: "Source: numbers", Parallelism: 2, MaxParallelism: 128, State: finished,
				Subtasks: []gateway.ArchivedExecution{
					{SubtaskIndex: 1, State: finished, TaskManager: "taskexecutor-a",
						StateTimestamps: timeline(created, 0, scheduled, 1000, deploying, 2000, initializing, 2500, running, 3000, finished, 90_000)},
					{SubtaskIndex: 0, State: finished, TaskManager: "taskexecutor-b",
						StateTimestamps: timeline(created, 0, scheduled, 1000, deploying, 1500, initializing, 2000, running, 4000, finished, 60_000)},
				}},
			{ID: api.NewJobVertexID(), Name: "Sink: collect", Parallelism: 2, MaxParallelism: 128, State: running,
				Subtasks: []gateway.ArchivedExecution{
					{SubtaskIndex: 0, AttemptNumber: 1, State: running, TaskManager: "taskexecutor-a",
						StateTimestamps: timeline(created, 10_000, scheduled, 11_000, deploying, 12_000, initializing, 13_000, running, 14_000)},
					{SubtaskIndex: 1, State: scheduled,
						StateTimestamps: timeline(created, 10_000, scheduled, 11_000)},
				}},
		},
	}
}

// serve makes the harness's Dispatcher know exactly the given jobs.
func serve(h *harness, graphs ...*gateway.ArchivedExecutionGraph) {
	h.dispatcher.RequestJobFunc = func(_ context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		for _, g := range graphs {
			if g.JobID == id {
				return g, nil
			}
		}
		return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
	}
}

// stats is the MetricStatistics of a value that is the same on every
// subtask.
func stats(v int64, n int) rest.MetricStatistics {
	return rest.MetricStatistics{Min: v, Max: v, Avg: v, Sum: v * int64(n), Median: v, P25: v, P75: v, P95: v}
}

func TestJobVertexDetails(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	g := vertexGraph(jobID)
	serve(h, g)
	source, sink := g.Vertices[0], g.Vertices[1]
	ms := func(t time.Time) int64 { return t.UnixMilli() }

	// A finished vertex: everything is fixed, including the statistics.
	var got rest.JobVertexDetailsInfo
	decode(t, h.get("/jobs/"+jobID.String()+"/vertices/"+source.ID.String()), &got)
	zeroMetrics := map[string]rest.MetricStatistics{}
	for _, name := range []string{"read-bytes", "write-bytes", "read-records", "write-records",
		"accumulated-backpressured-time", "accumulated-busy-time", "accumulated-idle-time"} {
		zeroMetrics[name] = stats(0, 2)
	}
	want := rest.JobVertexDetailsInfo{
		ID: source.ID, Name: "Source: numbers", Parallelism: 2, MaxParallelism: 128, Now: got.Now,
		Subtasks: []rest.SubtaskExecutionAttemptDetailsInfo{
			{Subtask: 0, Status: api.ExecutionFinished, Attempt: 0, Endpoint: "(unassigned)", Host: "(unassigned)",
				StartTime: ms(at(1500)), EndTime: ms(at(60_000)), Duration: 58_500, TaskManagerID: "taskexecutor-b",
				StatusDuration: map[api.ExecutionState]int64{
					api.ExecutionCreated: 1000, api.ExecutionScheduled: 500, api.ExecutionDeploying: 500,
					api.ExecutionInitializing: 2000, api.ExecutionRunning: 56_000,
				}},
			{Subtask: 1, Status: api.ExecutionFinished, Attempt: 0, Endpoint: "(unassigned)", Host: "(unassigned)",
				StartTime: ms(at(2000)), EndTime: ms(at(90_000)), Duration: 88_000, TaskManagerID: "taskexecutor-a",
				StatusDuration: map[api.ExecutionState]int64{
					api.ExecutionCreated: 1000, api.ExecutionScheduled: 1000, api.ExecutionDeploying: 500,
					api.ExecutionInitializing: 500, api.ExecutionRunning: 87_000,
				}},
		},
		Aggregated: rest.AggregatedTaskDetailsInfo{
			Metrics: zeroMetrics,
			StatusDuration: map[api.ExecutionState]rest.MetricStatistics{
				api.ExecutionCreated:      stats(1000, 2),
				api.ExecutionScheduled:    {Min: 500, Max: 1000, Avg: 750, Sum: 1500, Median: 750, P25: 500, P75: 1000, P95: 1000},
				api.ExecutionDeploying:    stats(500, 2),
				api.ExecutionInitializing: {Min: 500, Max: 2000, Avg: 1250, Sum: 2500, Median: 1250, P25: 500, P75: 2000, P95: 2000},
				api.ExecutionRunning:      {Min: 56_000, Max: 87_000, Avg: 71_500, Sum: 143_000, Median: 71_500, P25: 56_000, P75: 87_000, P95: 87_000},
			},
		},
	}
	if diff := cmp.Diff(want, got, idOpts); diff != "" {
		t.Errorf("GET /jobs/:jobid/vertices/:vertexid of the source (-want +got):\n%s", diff)
	}
	if got.Now < time.Now().Add(-time.Minute).UnixMilli() {
		t.Errorf("now = %d, want the current time", got.Now)
	}

	// A running vertex, under /v1: what is still going on runs until now.
	decode(t, h.get("/v1/jobs/"+jobID.String()+"/vertices/"+sink.ID.String()), &got)
	now := got.Now
	wantSubtasks := []rest.SubtaskExecutionAttemptDetailsInfo{
		{Subtask: 0, Status: api.ExecutionRunning, Attempt: 1, Endpoint: "(unassigned)", Host: "(unassigned)",
			StartTime: ms(at(12_000)), EndTime: -1, Duration: now - ms(at(12_000)), TaskManagerID: "taskexecutor-a",
			StatusDuration: map[api.ExecutionState]int64{
				api.ExecutionCreated: 1000, api.ExecutionScheduled: 1000, api.ExecutionDeploying: 1000,
				api.ExecutionInitializing: 1000, api.ExecutionRunning: now - ms(at(14_000)),
			}},
		{Subtask: 1, Status: api.ExecutionScheduled, Attempt: 0, Endpoint: "(unassigned)", Host: "(unassigned)",
			StartTime: -1, EndTime: -1, Duration: -1, TaskManagerID: "(unassigned)",
			StatusDuration: map[api.ExecutionState]int64{
				api.ExecutionCreated: 1000, api.ExecutionScheduled: now - ms(at(11_000)), api.ExecutionDeploying: -1,
				api.ExecutionInitializing: -1, api.ExecutionRunning: -1,
			}},
	}
	if diff := cmp.Diff(wantSubtasks, got.Subtasks, idOpts); diff != "" {
		t.Errorf("subtasks of the sink (-want +got):\n%s", diff)
	}
	// A state never entered counts as -1 in the statistics, as in Flink.
	if got, want := got.Aggregated.StatusDuration[api.ExecutionRunning].Min, int64(-1); got != want {
		t.Errorf("aggregated RUNNING min = %d, want %d", got, want)
	}

	// GET /jobs/{jobid} times its vertices from the same timestamps.
	var details rest.JobDetailsInfo
	decode(t, h.get("/jobs/"+jobID.String()), &details)
	type times struct{ Start, End, Duration int64 }
	var gotTimes []times
	for _, v := range details.Vertices {
		gotTimes = append(gotTimes, times{v.StartTime, v.EndTime, v.Duration})
	}
	wantTimes := []times{
		{ms(at(1500)), ms(at(90_000)), 88_500},             // from the first deployment to the last end
		{ms(at(12_000)), -1, details.Now - ms(at(12_000))}, // not every subtask has ended
	}
	if diff := cmp.Diff(wantTimes, gotTimes); diff != "" {
		t.Errorf("vertex times in GET /jobs/:jobid (-want +got):\n%s", diff)
	}
}

// TestJobVertexDetailsAggregatesLikeFlink: the percentiles are Apache
// Commons Math's (LEGACY estimation), interpolated at p(n+1)/100.
func TestJobVertexDetailsAggregatesLikeFlink(t *testing.T) {
	h := newHarness(t)
	jobID, vertexID := api.NewJobID(), api.NewJobVertexID()
	v := gateway.ArchivedExecutionJobVertex{ID: vertexID, Name: "Map", Parallelism: 4, MaxParallelism: 128, State: api.ExecutionFinished}
	for i, ran := range []int{8000, 1000, 4000, 2000} { // ms RUNNING
		v.Subtasks = append(v.Subtasks, gateway.ArchivedExecution{SubtaskIndex: i, State: api.ExecutionFinished,
			StateTimestamps: timeline(api.ExecutionRunning, 0, api.ExecutionFinished, ran)})
	}
	serve(h, &gateway.ArchivedExecutionGraph{JobID: jobID, JobName: "map", State: api.JobFinished,
		Vertices: []gateway.ArchivedExecutionJobVertex{v}})

	var got rest.JobVertexDetailsInfo
	decode(t, h.get("/jobs/"+jobID.String()+"/vertices/"+vertexID.String()), &got)
	want := rest.MetricStatistics{
		Min: 1000, Max: 8000, Avg: 3750, Sum: 15_000,
		Median: 3000, // 2000 + 0.5 × (4000 − 2000), at position 2.5
		P25:    1250, // 1000 + 0.25 × (2000 − 1000), at position 1.25
		P75:    7000, // 4000 + 0.75 × (8000 − 4000), at position 3.75
		P95:    8000, // position 4.75 is past the last value
	}
	if diff := cmp.Diff(want, got.Aggregated.StatusDuration[api.ExecutionRunning]); diff != "" {
		t.Errorf("aggregated RUNNING durations (-want +got):\n%s", diff)
	}
	// CREATED was never entered: -1 on every subtask.
	if diff := cmp.Diff(stats(-1, 4), got.Aggregated.StatusDuration[api.ExecutionCreated]); diff != "" {
		t.Errorf("aggregated CREATED durations (-want +got):\n%s", diff)
	}
}

// TestJobVertexDetailsOfARunJob: a job run through the endpoint, as the
// fake Dispatcher archives it (no timestamps, no slots).
func TestJobVertexDetailsOfARunJob(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	var run rest.JarRunResponseBody
	decode(t, h.post("/jars/"+jarID+"/run?parallelism=3", "", nil), &run)
	sink := h.dispatcher.Submitted()[0].Vertices()[1]

	var got rest.JobVertexDetailsInfo
	decode(t, h.get("/jobs/"+run.JobID.String()+"/vertices/"+sink.ID.String()), &got)
	if got.ID != sink.ID || got.Name != "Keyed Aggregation -> Sink: print" || got.Parallelism != 3 || len(got.Subtasks) != 3 {
		t.Fatalf("got %+v, want the sink with 3 subtasks", got)
	}
	for i, st := range got.Subtasks {
		if st.Subtask != i || st.Status != api.ExecutionRunning || st.StartTime != -1 || st.Duration != -1 ||
			st.TaskManagerID != rest.Unassigned || st.StatusDuration[api.ExecutionRunning] != -1 {
			t.Errorf("subtask %d = %+v, want RUNNING with unknown times and no TaskManager", i, st)
		}
	}
}

func TestJobVertexDetailsRejectsBadInput(t *testing.T) {
	h := newHarness(t)
	jobID, unknownJob := api.NewJobID(), api.NewJobID()
	g := finishedGraph(jobID)
	serve(h, g)
	vertex, unknownVertex := g.Vertices[0].ID.String(), api.NewJobVertexID().String()
	badVertex := []string{
		`Bad request, could not parse parameters: Cannot resolve path parameter (vertexid) from value "not-a-vertex".`,
		`Cannot parse JobVertexID from "not-a-vertex". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
	}
	tests := []struct {
		path       string
		wantStatus int
		wantErrors []string
	}{
		{"/jobs/not-a-job-id/vertices/" + vertex, http.StatusBadRequest, []string{
			`Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value "not-a-job-id".`,
			`Cannot parse JobID from "not-a-job-id". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`,
		}},
		{"/jobs/" + jobID.String() + "/vertices/not-a-vertex", http.StatusBadRequest, badVertex},
		// The path parameters are checked before the Dispatcher is asked.
		{"/v1/jobs/" + unknownJob.String() + "/vertices/not-a-vertex", http.StatusBadRequest, badVertex},
		{"/jobs/" + unknownJob.String() + "/vertices/" + vertex, http.StatusNotFound, []string{"Job " + unknownJob.String() + " not found"}},
		{"/jobs/" + jobID.String() + "/vertices/" + unknownVertex, http.StatusNotFound, []string{"JobVertex " + unknownVertex + " not found"}},
		{"/v1/jobs/" + jobID.String() + "/vertices/" + unknownVertex, http.StatusNotFound, []string{"JobVertex " + unknownVertex + " not found"}},
	}
	for _, tt := range tests {
		r := h.get(tt.path)
		if r.status != tt.wantStatus || !slices.Equal(r.errors, tt.wantErrors) {
			t.Errorf("GET %s = %d %q, want %d %q", tt.path, r.status, r.errors, tt.wantStatus, tt.wantErrors)
		}
	}

	// The Dispatcher failing is an internal server error.
	h.dispatcher.RequestJobFunc = func(context.Context, api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		return nil, errors.New("dispatcher stopped")
	}
	r := h.get("/jobs/" + jobID.String() + "/vertices/" + vertex)
	if r.status != http.StatusInternalServerError || r.errors[0] != "Internal server error." ||
		!strings.Contains(r.errors[1], "dispatcher stopped") {
		t.Errorf("got %d %q, want 500 with the cause", r.status, r.errors)
	}
}
