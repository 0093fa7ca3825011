// Exercise m02: the run request, POST /jars/{jarid}/run.
//
// Each test uploads the WordCount jar to the REST endpoint of a real
// MiniCluster (two TaskManagers, two slots each) and sends run requests
// over HTTP, as curl, the Web UI or a deployment script does. It looks at
// what a client and an operator can see: the status and Flink's messages,
// the plan of the job that was built (GET /jobs/{jobid}/plan), the jobs the
// cluster knows (GET /jobs), and whether the job runs to FINISHED.
//
// The endpoint listens on a real socket, which a synctest bubble cannot
// hold, so these tests run on real time (scenario.RESTCluster). They never
// sleep and set no timers: every wait is for an answer.
package m02_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// endpoint is a cluster's REST endpoint with the WordCount jar uploaded.
type endpoint struct {
	cluster *minicluster.MiniCluster
	logs    *scenario.Logs
	rest    *scenario.RESTClient
	jarID   string
}

func startClusterWithJar(t *testing.T) *endpoint {
	t.Helper()
	cluster, logs := scenario.RESTCluster(t, minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2})
	e := &endpoint{cluster: cluster, logs: logs, rest: scenario.NewRESTClient(t, cluster.RESTAddress())}
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	r := e.rest.UploadJar("WordCount.jar", jar)
	require.Equal(t, http.StatusOK, r.Status, "upload the WordCount jar (step m1): %s", r)
	var uploaded rest.JarUploadResponseBody
	scenario.Decode(t, r, &uploaded)
	e.jarID = filepath.Base(uploaded.Filename)
	return e
}

// run sends POST /jars/{jarid}/run with the query (""; or "?…") and the
// JSON body, as it is written.
func (e *endpoint) run(query, body string) scenario.Response {
	return e.rest.PostJSON("/jars/"+e.jarID+"/run"+query, body)
}

// jobOf reads the JobID of an accepted run.
func jobOf(t *testing.T, r scenario.Response) api.JobID {
	t.Helper()
	var accepted rest.JarRunResponseBody
	scenario.Decode(t, r, &accepted)
	return accepted.JobID
}

// parallelismOf returns the parallelism of each vertex of the job's plan,
// as the Web UI shows it.
func (e *endpoint) parallelismOf(t *testing.T, jobID api.JobID) []int {
	t.Helper()
	r := e.rest.Get("/jobs/" + jobID.String() + "/plan")
	require.Equal(t, http.StatusOK, r.Status, "GET /jobs/%s/plan: %s", jobID, r)
	var info rest.JobPlanInfo
	scenario.Decode(t, r, &info)
	var parallelism []int
	for _, node := range info.Plan.Nodes {
		parallelism = append(parallelism, node.Parallelism)
	}
	return parallelism
}

// jobs lists the jobs the cluster knows (GET /jobs).
func (e *endpoint) jobs(t *testing.T) []rest.JobIDWithStatus {
	t.Helper()
	r := e.rest.Get("/jobs")
	require.Equal(t, http.StatusOK, r.Status, "GET /jobs: %s", r)
	var overview rest.JobIdsWithStatusOverview
	scenario.Decode(t, r, &overview)
	return overview.Jobs
}

// assertFinishes waits for the job's result.
func (e *endpoint) assertFinishes(t *testing.T, jobID api.JobID) {
	t.Helper()
	result, err := e.cluster.RequestJobResult(t.Context(), jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobFinished, result.JobStatus, "the job must run to the end: %v", result.FailureCause)
}

// Flink's curl examples and older clients put everything in the query
// string and send no body at all.
func TestAnEmptyBodyTakesTheQueryParameters(t *testing.T) {
	e := startClusterWithJar(t)

	r := e.run("?parallelism=3&programArg=--output,collect", "")
	require.Equal(t, http.StatusOK, r.Status, "a run request with an empty body must run the jar: %s", r)
	jobID := jobOf(t, r)
	assert.Equal(t, []int{3, 3}, e.parallelismOf(t, jobID), "the query's parallelism applies when the body does not set one")
	e.assertFinishes(t, jobID) // silently: --output collect came from the query too

	// A client that sends a line break, or a few spaces, sends no settings
	// either.
	r = e.run("?parallelism=1&programArg=--output,collect", " \n")
	require.Equal(t, http.StatusOK, r.Status, "a body of white space only must count as an empty one: %s", r)
	jobID = jobOf(t, r)
	assert.Equal(t, []int{1, 1}, e.parallelismOf(t, jobID), "the query's parallelism applies when the body is white space")
	e.assertFinishes(t, jobID)
}

// The JSON body is how Flink wants a job configured; a query parameter
// only fills in what the body leaves out. Here every query parameter is
// one that would break the run, had it been used.
func TestTheBodyWinsOverTheQuery(t *testing.T) {
	e := startClusterWithJar(t)

	r := e.run("?parallelism=1&programArg=--output,bogus&entry-class=no.such.Program",
		`{"entryClass": "wordcount", "parallelism": 2, "programArgsList": ["--output", "collect"]}`)
	require.Equal(t, http.StatusOK, r.Status, "the body's entryClass, parallelism and programArgsList must win over the query's: %s", r)
	jobID := jobOf(t, r)
	assert.Equal(t, []int{2, 2}, e.parallelismOf(t, jobID), "the body's parallelism, not the query's")
	e.assertFinishes(t, jobID)
}

// A query parameter the body does not set is used, even when it is
// wrong: here it names a program the jar does not hold.
func TestAQueryParameterTheBodyLeavesOutIsUsed(t *testing.T) {
	e := startClusterWithJar(t)

	r := e.run("?entry-class=no.such.Program", `{"parallelism": 2, "programArgsList": ["--output", "collect"]}`)
	assert.Equal(t, http.StatusBadRequest, r.Status, "the query's entry-class must be used when the body has none: %s", r)
	require.NotEmpty(t, r.Errors, "Flink's error body: %s", r)
	assert.Equal(t, "Could not execute application.", r.Errors[0])
	assert.Contains(t, strings.Join(r.Errors, " "), "no.such.Program", "the reason names the entry class asked for")
	assert.Empty(t, e.jobs(t), "no job may be submitted")

	// An empty entryClass is one the body leaves out, as in Flink.
	r = e.run("?entry-class=no.such.Program", `{"entryClass": "", "parallelism": 2, "programArgsList": ["--output", "collect"]}`)
	assert.Equal(t, http.StatusBadRequest, r.Status, "an empty entryClass in the body must leave the query's entry-class in force: %s", r)
	assert.Contains(t, strings.Join(r.Errors, " "), "no.such.Program", "the reason names the entry class the query asked for")
	assert.Empty(t, e.jobs(t), "no job may be submitted")
}

func TestProgramArgsAndProgramArgsListTogetherAreRefused(t *testing.T) {
	e := startClusterWithJar(t)

	r := e.run("", `{"programArgs": "--output collect", "programArgsList": ["--output", "collect"]}`)
	assert.Equal(t, http.StatusBadRequest, r.Status, "programArgs and programArgsList together must be refused: %s", r)
	assert.Equal(t, []string{"Confusing request: programArgs and programArgsList are specified, please, use only programArgsList"}, r.Errors)
	assert.Empty(t, e.jobs(t), "no job may be submitted")

	// The deprecated string alone is split like a shell would.
	r = e.run("", `{"programArgs": "--output 'collect'"}`)
	require.Equal(t, http.StatusOK, r.Status, "the deprecated programArgs string alone must still work: %s", r)
	e.assertFinishes(t, jobOf(t, r))
}

func TestAParallelismBelowOneIsRefused(t *testing.T) {
	e := startClusterWithJar(t)
	belowOne := "Parallelism must be at least one, or ExecutionConfig.PARALLELISM_DEFAULT (use system default)."

	r := e.run("", `{"parallelism": 0}`)
	assert.Equal(t, http.StatusBadRequest, r.Status, "parallelism 0 in the body must be refused: %s", r)
	assert.Equal(t, []string{belowOne, "The request asks for parallelism 0."}, r.Errors)

	r = e.run("?parallelism=-3", "")
	assert.Equal(t, http.StatusBadRequest, r.Status, "parallelism -3 in the query must be refused: %s", r)
	assert.Equal(t, []string{belowOne, "The request asks for parallelism -3."}, r.Errors)

	r = e.run("?parallelism=two", "")
	assert.Equal(t, http.StatusBadRequest, r.Status, "a parallelism that is no number must be refused: %s", r)
	assert.Equal(t, []string{`Bad request, could not parse parameters: Cannot resolve query parameter (parallelism) from value "two".`}, r.Errors)

	assert.Empty(t, e.jobs(t), "no job may be submitted")

	// -1 is not below one in this sense: it is
	// ExecutionConfig.PARALLELISM_DEFAULT, the cluster's parallelism.default.
	r = e.run("", `{"parallelism": -1, "programArgsList": ["--output", "collect"]}`)
	require.Equal(t, http.StatusOK, r.Status, "parallelism -1 asks for the default parallelism and must be accepted: %s", r)
	jobID := jobOf(t, r)
	assert.Equal(t, []int{1, 1}, e.parallelismOf(t, jobID), "the job runs at parallelism.default")
	e.assertFinishes(t, jobID)
}

// Flink reads request bodies with a strict JSON mapper: a field its
// request type does not have is an error, not silently ignored. A typo
// such as "parallelizm" would otherwise run the job at the wrong
// parallelism without a word.
func TestTheRunRequestIsReadStrictly(t *testing.T) {
	e := startClusterWithJar(t)
	notTheFormat := "Request did not match expected format JarRunRequestBody."

	for _, tt := range []struct {
		what, body, reason string
	}{
		{"a field JarRunRequestBody does not have", `{"parallelizm": 2}`, `json: unknown field "parallelizm"`},
		{"a body over 1 MiB", `{"programArgsList": ["--output", "collect", "` + strings.Repeat("x", 1<<20) + `"]}`,
			"The JSON body is larger than 1048576 bytes."},
		{"something after the object", `{"parallelism": 2} {"parallelism": 3}`, "unexpected data after the JSON object"},
		{"a field of the wrong type", `{"parallelism": "two"}`, ""}, // the reason is encoding/json's own words
	} {
		r := e.run("", tt.body)
		assert.Equal(t, http.StatusBadRequest, r.Status, "%s must be refused: %.200s", tt.what, r)
		if tt.reason == "" {
			require.Len(t, r.Errors, 2, "%s: Flink's message, then the reason", tt.what)
			assert.Equal(t, notTheFormat, r.Errors[0], "%s", tt.what)
			continue
		}
		assert.Equal(t, []string{notTheFormat, tt.reason}, r.Errors, "%s", tt.what)
	}
	assert.Empty(t, e.jobs(t), "no job may be submitted")

	// 1 MiB is the limit, not over it: a body of exactly that size is read.
	settings := `{"parallelism": 2, "programArgsList": ["--output", "collect"]}`
	r := e.run("", settings+strings.Repeat(" ", 1<<20-len(settings)))
	require.Equal(t, http.StatusOK, r.Status, "a body of exactly 1048576 bytes is within the limit and must be read: %.200s", r)
	e.assertFinishes(t, jobOf(t, r))

	// POST /jobs reads the JSON part of its request the same way.
	contentType, body := scenario.Multipart(t, scenario.Part{Field: "request", Content: []byte(`{"jobGraphFileName": "job.json", "colour": "red"}`)})
	r = e.rest.Post("/jobs", contentType, body)
	assert.Equal(t, http.StatusBadRequest, r.Status, "POST /jobs with an unknown field in its request must be refused: %s", r)
	assert.Equal(t, []string{"Request did not match expected format JobSubmitRequestBody.", `json: unknown field "colour"`}, r.Errors)
}
