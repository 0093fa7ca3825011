package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

// TestClusterFaults: a learner on the cluster's machine arms faults, sees
// them fire, and clears them, through flinklab's own /cluster/faults.
func TestClusterFaults(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()

	// 1. Arm a fault: the answer lists what is armed.
	r := h.post("/cluster/faults", "application/json", []byte(`{"fault": "m10:jar-corrupted,times=2"}`))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t,
		`{"armed":[{"step":"m10","kind":"jar-corrupted","times":2,"after":0,"jobId":null,"spec":"m10:jar-corrupted,times=2"}]}`,
		strings.TrimSpace(string(r.body)))
	assert.Contains(t, h.logs.String(), `level=INFO msg="Armed fault m10:jar-corrupted,times=2."`)

	// 2. Two more, under /v1: one for a single job, one for every upload.
	r = h.post("/v1/cluster/faults", "application/json", []byte(`{"fault": "m11,times=always,job=`+jobID.String()+`"}`))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	r = h.post("/v1/cluster/faults", "application/json; charset=UTF-8", []byte(`{"fault": "m1"}`))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Contains(t, h.logs.String(), `msg="Armed fault m11:operator-open-throws,times=always,job=`+jobID.String()+`."`)

	// 3. They fire: the upload at m1 (no job yet), a TaskExecutor at m10.
	before := time.Now()
	r = h.upload(filePart{"jarfile", "wordcount.jar", jarBytes(t, "wordcount")})
	assert.Equal(t, http.StatusInternalServerError, r.status, "the upload with an m1 fault")
	_, fired := h.faults.Fire(trace.M10, jobID)
	require.True(t, fired)

	// 4. GET lists what is armed, with the passes left, and what fired.
	var got rest.ClusterFaultsInfo
	decode(t, h.get("/cluster/faults"), &got)
	wantArmed := []rest.ArmedFaultInfo{
		{Step: trace.M10, Kind: fault.JarCorrupted, Times: 1, Spec: "m10:jar-corrupted"},
		{Step: trace.M11, Kind: fault.OperatorOpenThrows, Times: fault.Always, JobID: &jobID,
			Spec: "m11:operator-open-throws,times=always,job=" + jobID.String()},
	}
	assert.Equal(t, wantArmed, got.Armed)
	require.Len(t, got.Fired, 2)
	assert.Equal(t, rest.FiredFaultInfo{Step: trace.M1, Kind: fault.UploadRejected, Time: got.Fired[0].Time}, got.Fired[0])
	assert.Equal(t, rest.FiredFaultInfo{Step: trace.M10, Kind: fault.JarCorrupted, JobID: &jobID, Time: got.Fired[1].Time}, got.Fired[1])
	for _, f := range got.Fired {
		assert.WithinRange(t, f.Time, before, time.Now())
	}

	// 5. DELETE disarms them all; what fired stays listed.
	r = h.delete("/v1/cluster/faults")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, `{"armed":[]}`, strings.TrimSpace(string(r.body)))
	r = h.get("/v1/cluster/faults")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	decode(t, r, &got)
	assert.Empty(t, got.Armed)
	assert.NotNil(t, got.Armed, "armed is [], not null")
	assert.Len(t, got.Fired, 2)
	assert.Empty(t, h.faults.Armed())
}

// TestClusterFaultsWithNothingArmed: empty lists, not null.
func TestClusterFaultsWithNothingArmed(t *testing.T) {
	h := newHarness(t)
	r := h.get("/cluster/faults")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, `{"armed":[],"fired":[]}`, strings.TrimSpace(string(r.body)))
}

// TestClusterFaultsRejectsBadInput: a fault that does not parse is a 400
// with fault.Parse's message; a body that is not a FaultInjectionRequestBody
// is a 400 as with the other JSON bodies. Nothing is armed.
func TestClusterFaultsRejectsBadInput(t *testing.T) {
	h := newHarness(t)
	notTheFormat := "Request did not match expected format FaultInjectionRequestBody."
	tests := []struct {
		name, body string
		wantErrors []string
	}{
		{"no such step", `{"fault": "m12"}`, []string{`fault: no injection point "m12" (want one of m1 … m11, k1, k2, k4, k5, k6)`}},
		{"a kind of another step", `{"fault": "m3:slot-offer-timeout"}`,
			[]string{`fault: step m3 has no fault "slot-offer-timeout" (want one of invalid-jobgraph, duplicate-job-id)`}},
		{"bad times", `{"fault": "m9,times=0"}`, []string{`fault "m9,times=0": times="0": want a positive number or always`}},
		{"an empty body: no fault", ``, []string{`fault: no injection point "" (want one of m1 … m11, k1, k2, k4, k5, k6)`}},
		{"an unknown field", `{"fault": "m9", "times": 2}`, []string{notTheFormat, `json: unknown field "times"`}},
		{"not JSON", `m9`, []string{notTheFormat, "invalid character 'm' looking for beginning of value"}},
		{"two objects", `{"fault": "m9"} {}`, []string{notTheFormat, "unexpected data after the JSON object"}},
	}
	for _, tt := range tests {
		for _, prefix := range []string{"", "/v1"} {
			r := h.post(prefix+"/cluster/faults", "application/json", []byte(tt.body))
			assert.Equal(t, http.StatusBadRequest, r.status, "%s%s: %s", prefix, tt.name, r.body)
			assert.Equal(t, tt.wantErrors, r.errors, "%s %s", prefix, tt.name)
		}
	}
	assert.Empty(t, h.faults.Armed())
	assert.NotContains(t, h.logs.String(), "Armed fault")
}

// TestClusterFaultsNotEnabled: a cluster without a fault.Injector refuses
// every method of /cluster/faults with 403.
func TestClusterFaultsNotEnabled(t *testing.T) {
	h := newHarnessWith(t, trace.NewRecorder(), false)
	for _, prefix := range []string{"", "/v1"} {
		for _, r := range []response{
			h.get(prefix + "/cluster/faults"),
			h.post(prefix+"/cluster/faults", "application/json", []byte(`{"fault": "m9"}`)),
			h.delete(prefix + "/cluster/faults"),
		} {
			assert.Equal(t, http.StatusForbidden, r.status, string(r.body))
			assert.Equal(t, []string{"Fault injection is not enabled on this cluster."}, r.errors)
		}
	}
}

// TestClusterFaultsOtherMethods: like Flink's router, a known path with
// another method is not found.
func TestClusterFaultsOtherMethods(t *testing.T) {
	h := newHarness(t)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		req, err := http.NewRequest(method, h.baseURL+"/cluster/faults", nil)
		require.NoError(t, err)
		r := h.do(req)
		assert.Equal(t, http.StatusNotFound, r.status, method)
		assert.Equal(t, []string{"Not found: /cluster/faults"}, r.errors, method)
	}
}

func TestFaultsAtStepsM1AndM2RefuseTheRequestAndKeepNothing(t *testing.T) {
	t.Run("m1: the upload is refused", func(t *testing.T) {
		h := newHarness(t)
		require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M1}))
		r := h.upload(filePart{"jarfile", "wordcount.jar", jarBytes(t, "wordcount")})

		assert.Equal(t, http.StatusInternalServerError, r.status)
		require.Len(t, r.errors, 2)
		assert.Equal(t, "Internal server error.", r.errors[0])
		assert.Contains(t, r.errors[1], "Could not move uploaded jar file [wordcount.jar]")
		assert.Contains(t, r.errors[1], "fault injected at step m1 (upload-rejected)")
		assert.Empty(t, h.storedFiles(), "nothing stored")
		d, ok := fault.Diagnose(h.trace.JobEvents(api.JobID{}))
		require.True(t, ok, "the broken step is traced, under no job")
		assert.Equal(t, "REST", d.Component, "the REST endpoint stores uploaded jars (web.upload.dir)")

		h.uploadJar("wordcount.jar", "wordcount") // once only
	})
	t.Run("m2: the run request is refused", func(t *testing.T) {
		h := newHarness(t)
		jarID := h.uploadJar("wordcount.jar", "wordcount")
		require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M2}))
		r := h.post("/jars/"+jarID+"/run", "application/json", []byte(`{"parallelism": 2}`))

		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, []string{"Request did not match expected format JarRunRequestBody.",
			"fault injected at step m2 (malformed-run-request)"}, r.errors)
		assert.Empty(t, h.dispatcher.Submitted(), "no job was made")
		d, ok := fault.Diagnose(h.trace.JobEvents(api.JobID{}))
		require.True(t, ok)
		assert.Equal(t, trace.M2, d.Step)
		assert.Equal(t, "REST", d.Component)
	})
}
