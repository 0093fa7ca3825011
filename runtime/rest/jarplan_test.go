package rest_test

import (
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
)

// TestJarPlan: GET and POST /jars/{jarid}/plan answer the plan of the job
// the program builds, with the settings resolved as for a run, and run
// nothing: no job reaches the Dispatcher, no BLOB is stored.
func TestJarPlan(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	jobID := api.NewJobID()

	requests := []struct {
		name     string
		send     func() response
		wantCall runCall
	}{
		{"POST with a body", func() response {
			return h.post("/jars/"+jarID+"/plan", "application/json",
				[]byte(`{"parallelism": 3, "programArgsList": ["--input", "hamlet.txt"], "jobId": "`+jobID.String()+`"}`))
		}, runCall{ProgramClass: "wordcount", EntryClass: "wordcount", Args: []string{"--input", "hamlet.txt"}, Parallelism: 3}},
		{"GET with query parameters, under /v1", func() response {
			return h.get("/v1/jars/" + jarID + "/plan?parallelism=3&entry-class=wordcount&programArg=--input,hamlet.txt")
		}, runCall{ProgramClass: "wordcount", EntryClass: "wordcount", Args: []string{"--input", "hamlet.txt"}, Parallelism: 3}},
		{"POST without a body: the defaults", func() response {
			return h.post("/jars/"+jarID+"/plan", "", nil)
		}, runCall{ProgramClass: "wordcount", EntryClass: "wordcount", Parallelism: client.ParallelismDefault}},
	}
	for _, tt := range requests {
		r := tt.send()
		require.Equal(t, http.StatusOK, r.status, "%s: %s", tt.name, r.body)
		var got rest.JobPlanInfo
		decode(t, r, &got)
		require.Len(t, got.Plan.Nodes, 2, tt.name)
		assert.Equal(t, "wordcount", got.Plan.Name, tt.name)
		assert.Equal(t, "Keyed Aggregation -&gt; Sink: print", got.Plan.Nodes[1].Description, tt.name)
		require.Len(t, got.Plan.Nodes[1].Inputs, 1, tt.name)
		assert.Equal(t, rest.JobPlanInput{ID: got.Plan.Nodes[0].ID, ShipStrategy: "HASH", Exchange: "pipelined_bounded"},
			got.Plan.Nodes[1].Inputs[0], tt.name)
		calls := h.programs.Calls()
		assert.Equal(t, tt.wantCall, calls[len(calls)-1], tt.name)
	}
	var withJobID rest.JobPlanInfo
	decode(t, h.post("/jars/"+jarID+"/plan", "application/json", []byte(`{"jobId": "`+jobID.String()+`"}`)), &withJobID)
	assert.Equal(t, jobID, withJobID.Plan.JobID, "the plan has the request's jobId")

	assert.Empty(t, h.dispatcher.Submitted(), "a plan runs nothing")
	for _, path := range h.storedFiles() {
		assert.Equal(t, h.jarDir, filepath.Dir(path), "only the uploaded jar is stored: %s", path)
	}
}

// TestJarPlanRejectsBadInput: bad requests get the run's answers, a
// program that fails Flink's 500 (its JarPlanHandler wraps nothing).
func TestJarPlanRejectsBadInput(t *testing.T) {
	programFails := func(*client.PackagedProgram, string, []string, int) (*jobgraph.JobGraph, error) {
		return nil, errors.New(`no program registered under "nope"`)
	}
	tests := []struct {
		name, jarID, query, body string
		program                  func(*client.PackagedProgram, string, []string, int) (*jobgraph.JobGraph, error)
		wantStatus               int
		wantErrors               []string // nil: not checked; "{jarDir}" is replaced
	}{
		{name: "unknown jar", jarID: "00000000-0000-4000-8000-000000000000_missing.jar", wantStatus: http.StatusNotFound,
			wantErrors: []string{"Jar file {jarDir}/00000000-0000-4000-8000-000000000000_missing.jar does not exist"}},
		{name: "a jar ID that climbs out", jarID: "..%2F..%2Fx.jar", wantStatus: http.StatusNotFound},
		{name: "unknown field", body: `{"savepointPath": "/tmp/sp"}`, wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JarPlanRequestBody.", `json: unknown field "savepointPath"`}},
		{name: "a body over 1 MiB", body: `{"programArgsList": ["` + strings.Repeat("x", 1<<20) + `"]}`, wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JarPlanRequestBody.", "The JSON body is larger than 1048576 bytes."}},
		{name: "parallelism not a number", query: "?parallelism=two", wantStatus: http.StatusBadRequest},
		{name: "the program fails", program: programFails, wantStatus: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.programs.JobGraphFunc = tt.program
			jarID := cmpOr(tt.jarID, h.uploadJar("wordcount.jar", "wordcount"))
			r := h.post("/jars/"+jarID+"/plan"+tt.query, "application/json", []byte(tt.body))
			assert.Equal(t, tt.wantStatus, r.status, string(r.body))
			if tt.wantErrors != nil {
				var want []string
				for _, e := range tt.wantErrors {
					want = append(want, strings.ReplaceAll(e, "{jarDir}", "<web.upload.dir>/flink-web-upload"))
				}
				assert.Equal(t, want, r.errors)
			}
			assert.Empty(t, h.dispatcher.Submitted())
		})
	}
}

// TestJarDelete: DELETE /jars/{jarid} removes the jar (200 {}); it is gone
// from the list and cannot be run. An unknown jar, or an ID that climbs
// out of the jar directory, is not found, and nothing is deleted.
func TestJarDelete(t *testing.T) {
	h := newHarness(t)
	kept := h.uploadJar("kept.jar", "wordcount")
	deleted := h.uploadJar("wordcount.jar", "wordcount")
	outside := filepath.Join(h.uploadDir, "outside.jar")
	writeFile(t, outside, "not in the jar directory")

	r := h.delete("/jars/" + deleted)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, "{}", strings.TrimSpace(string(r.body)))

	var list rest.JarListInfo
	decode(t, h.get("/jars"), &list)
	require.Len(t, list.Files, 1)
	assert.Equal(t, kept, list.Files[0].ID)
	r = h.post("/jars/"+deleted+"/run", "application/json", nil)
	assert.Equal(t, http.StatusNotFound, r.status)

	for _, jarID := range []string{deleted, "..%2Foutside.jar", "..%2F..%2F" + filepath.Base(h.uploadDir) + "%2Foutside.jar", "nope"} {
		for _, prefix := range []string{"", "/v1"} {
			r := h.delete(prefix + "/jars/" + jarID)
			assert.Equal(t, http.StatusNotFound, r.status, "%s%s: %s", prefix, jarID, r.body)
			require.Len(t, r.errors, 1)
			assert.True(t, strings.HasPrefix(r.errors[0], "File "), r.errors[0])
			assert.True(t, strings.HasSuffix(r.errors[0], " does not exist in <web.upload.dir>/flink-web-upload."), r.errors[0])
		}
	}
	assert.FileExists(t, outside)
	r = h.delete("/v1/jars/" + kept)
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
	decode(t, h.get("/jars"), &list)
	assert.Empty(t, list.Files)
}
