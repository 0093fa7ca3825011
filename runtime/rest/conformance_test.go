package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
)

// specEnv names the environment variable that points the conformance test
// at Flink's OpenAPI spec, rest_v1_dispatcher.yml. .ci/run sets it.
const specEnv = "FLINK_REST_SPEC"

// TestResponsesConformToFlinksSpec sends a representative request to every
// endpoint of Flink's that this one serves, for its success and for its
// main errors, and checks each answer against Flink's OpenAPI spec
// (rest_v1_dispatcher.yml, Flink 1.20) with kin-openapi: the status must
// be one the spec lists for the operation, the body must match its
// schema, and an object may have no field the spec does not name.
//
// The spec is adjusted first, as loadFlinkSpec and the package
// documentation explain: it gains error answers (it lists none), and it is
// corrected where it does not describe what Flink 1.20 itself sends.
// flinklab's own endpoints (/jobs/{jobid}/trace, /cluster/faults) are not
// Flink's, and GET /jobmanager/logs/{filename} answers a plain file that
// the spec does not list: they are not checked here.
func TestResponsesConformToFlinksSpec(t *testing.T) {
	specPath := os.Getenv(specEnv)
	if specPath == "" {
		t.Skipf("%s is not set: point it at Flink's rest_v1_dispatcher.yml (.ci/run uses ../shared/flink/rest_v1_dispatcher.yml) "+
			"to check the answers against Flink's REST spec", specEnv)
	}
	spec := loadFlinkSpec(t, specPath)

	// A cluster with one jar, one running job (run from the jar), one that
	// FINISHED, one that FAILED and one that was CANCELED.
	logDir := t.TempDir()
	writeFile(t, filepath.Join(logDir, "jobmanager.log"), "INFO Starting rest endpoint.\n")
	h := newHarness(t, func(c *rest.Config) { c.LogDir = logDir; c.MaxUploadSize = 64 << 10 })
	h.programs.JobGraphFunc = func(_ *client.PackagedProgram, entryClass string, _ []string, parallelism int) (*jobgraph.JobGraph, error) {
		if entryClass == "broken" {
			return nil, errors.New(`no program registered under "broken"`)
		}
		return smallJobGraph(entryClass, parallelism), nil
	}
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	running := runSmallJob(t, h)
	finished, failed, canceled, unknown := api.NewJobID(), api.NewJobID(), api.NewJobID(), api.NewJobID()
	canceledGraph := finishedGraph(canceled)
	canceledGraph.State = api.JobCanceled
	ended := map[api.JobID]*gateway.ArchivedExecutionGraph{
		finished: finishedGraph(finished), failed: failedGraph(failed), canceled: canceledGraph,
	}
	fakeEndedJobs(h, ended)
	checkpointed := runSmallJob(t, h)
	withCheckpointing(t, h, checkpointed, checkpointStats())
	vertexOf := func(jobID api.JobID) string {
		g, err := h.dispatcher.RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		return g.Vertices[0].ID.String()
	}
	_, graphJSON := encodedGraph(t, "submitted")
	submission := func(request string) func() *http.Request {
		return func() *http.Request {
			contentType, body := submitBody(t, requestPart(request),
				submitPart{"file_0", "job.json", graphJSON}, submitPart{"file_1", "wordcount.jar", "a jar"})
			return newRequest(t, http.MethodPost, h.baseURL+"/jobs", contentType, body)
		}
	}
	get := func(path string) func() *http.Request {
		return func() *http.Request { return newRequest(t, http.MethodGet, h.baseURL+path, "", nil) }
	}
	send := func(method, path, contentType, body string) func() *http.Request {
		return func() *http.Request { return newRequest(t, method, h.baseURL+path, contentType, []byte(body)) }
	}
	upload := func(name string, content []byte) func() *http.Request {
		return func() *http.Request {
			contentType, body := multipartBody(t, filePart{"jarfile", name, content})
			return newRequest(t, http.MethodPost, h.baseURL+"/jars/upload", contentType, body)
		}
	}
	job := func(jobID api.JobID) string { return "/jobs/" + jobID.String() }
	requirementsOf := func(jobID api.JobID) string {
		g, err := h.dispatcher.RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		var entries []string
		for _, v := range g.Vertices {
			entries = append(entries, fmt.Sprintf(`%q: {"parallelism": {"lowerBound": 1, "upperBound": %d}}`, v.ID, v.Parallelism))
		}
		return "{" + strings.Join(entries, ", ") + "}"
	}

	tests := []struct {
		name       string
		operation  string // "METHOD /path" of the operation in the spec
		request    func() *http.Request
		wantStatus int
	}{
		{"dashboard configuration", "GET /config", get("/config"), 200},
		{"cluster overview", "GET /overview", get("/overview"), 200},
		{"jar list", "GET /jars", get("/jars"), 200},
		{"jar upload", "POST /jars/upload", upload("other.jar", jarBytes(t, "wordcount")), 200},
		{"jar upload: not a jar", "POST /jars/upload", upload("notes.txt", []byte("hello")), 400},
		{"jar upload: too large", "POST /jars/upload", upload("big.jar", bytes.Repeat([]byte("x"), 128<<10)), 413},
		{"jar plan", "POST /jars/{jarid}/plan", send("POST", "/jars/"+jarID+"/plan", "application/json", `{"parallelism": 2}`), 200},
		// Flink serves GET too, with the same answer; the spec lists POST only.
		{"jar plan by GET", "POST /jars/{jarid}/plan", get("/jars/" + jarID + "/plan?parallelism=2"), 200},
		{"jar plan: unknown jar", "POST /jars/{jarid}/plan", send("POST", "/jars/x_nope.jar/plan", "application/json", ""), 404},
		{"jar plan: unknown field", "POST /jars/{jarid}/plan", send("POST", "/jars/"+jarID+"/plan", "application/json", `{"colour": 1}`), 400},
		{"jar plan: the program fails", "POST /jars/{jarid}/plan", get("/jars/" + jarID + "/plan?entry-class=broken"), 500},
		{"jar run", "POST /jars/{jarid}/run", send("POST", "/jars/"+jarID+"/run", "application/json", `{"parallelism": 2}`), 200},
		{"jar run: unknown jar", "POST /jars/{jarid}/run", send("POST", "/jars/x_nope.jar/run", "application/json", ""), 404},
		{"jar run: the program fails", "POST /jars/{jarid}/run", send("POST", "/jars/"+jarID+"/run?entry-class=broken", "", ""), 400},
		{"job list", "GET /jobs", get("/jobs"), 200},
		{"job submission", "POST /jobs", submission(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["wordcount.jar"]}`), 202},
		{"job submission: missing file", "POST /jobs", submission(`{"jobGraphFileName": "other.json"}`), 400},
		{"jobs overview", "GET /jobs/overview", get("/jobs/overview"), 200},
		{"job details: running", "GET /jobs/{jobid}", get(job(running)), 200},
		{"job details: finished", "GET /jobs/{jobid}", get(job(finished)), 200},
		{"job details: failed", "GET /jobs/{jobid}", get(job(failed)), 200},
		{"job details: unknown job", "GET /jobs/{jobid}", get(job(unknown)), 404},
		{"job details: malformed ID", "GET /jobs/{jobid}", get("/jobs/not-a-job"), 400},
		{"job status", "GET /jobs/{jobid}/status", get(job(running) + "/status"), 200},
		{"job status: unknown job", "GET /jobs/{jobid}/status", get(job(unknown) + "/status"), 404},
		{"job plan", "GET /jobs/{jobid}/plan", get(job(running) + "/plan"), 200},
		{"job plan: archived", "GET /jobs/{jobid}/plan", get(job(finished) + "/plan"), 200},
		{"job plan: unknown job", "GET /jobs/{jobid}/plan", get(job(unknown) + "/plan"), 404},
		{"vertex details", "GET /jobs/{jobid}/vertices/{vertexid}", get(job(failed) + "/vertices/" + vertexOf(failed)), 200},
		{"vertex details: running", "GET /jobs/{jobid}/vertices/{vertexid}", get(job(running) + "/vertices/" + vertexOf(running)), 200},
		{"vertex details: unknown vertex", "GET /jobs/{jobid}/vertices/{vertexid}", get(job(running) + "/vertices/" + api.NewJobVertexID().String()), 404},
		{"exceptions: failed job", "GET /jobs/{jobid}/exceptions", get(job(failed) + "/exceptions"), 200},
		{"exceptions: a job that never failed", "GET /jobs/{jobid}/exceptions", get(job(running) + "/exceptions"), 200},
		{"exceptions: bad maxExceptions", "GET /jobs/{jobid}/exceptions", get(job(failed) + "/exceptions?maxExceptions=x"), 400},
		{"exceptions: unknown job", "GET /jobs/{jobid}/exceptions", get(job(unknown) + "/exceptions"), 404},
		{"execution result: in progress", "GET /jobs/{jobid}/execution-result", get(job(running) + "/execution-result"), 200},
		{"execution result: finished", "GET /jobs/{jobid}/execution-result", get(job(finished) + "/execution-result"), 200},
		{"execution result: failed", "GET /jobs/{jobid}/execution-result", get(job(failed) + "/execution-result"), 200},
		{"execution result: unknown job", "GET /jobs/{jobid}/execution-result", get(job(unknown) + "/execution-result"), 404},
		{"resource requirements", "GET /jobs/{jobid}/resource-requirements", get(job(running) + "/resource-requirements"), 200},
		{"resource requirements: unknown job", "GET /jobs/{jobid}/resource-requirements", get(job(unknown) + "/resource-requirements"), 500},
		{"resource requirements update", "PUT /jobs/{jobid}/resource-requirements",
			send("PUT", job(running)+"/resource-requirements", "application/json", requirementsOf(running)), 200},
		{"resource requirements update: none", "PUT /jobs/{jobid}/resource-requirements",
			send("PUT", job(running)+"/resource-requirements", "application/json", "{}"), 400},
		{"cancel", "PATCH /jobs/{jobid}", send("PATCH", job(running)+"?mode=cancel", "", ""), 202},
		{"cancel: canceled already", "PATCH /jobs/{jobid}", send("PATCH", job(canceled), "", ""), 202},
		{"cancel: finished", "PATCH /jobs/{jobid}", send("PATCH", job(finished), "", ""), 409},
		{"cancel: unknown job", "PATCH /jobs/{jobid}", send("PATCH", job(unknown), "", ""), 404},
		{"cancel: unknown mode", "PATCH /jobs/{jobid}", send("PATCH", job(running)+"?mode=pause", "", ""), 400},
		{"checkpoint statistics", "GET /jobs/{jobid}/checkpoints", get(job(checkpointed) + "/checkpoints"), 200},
		{"checkpoint statistics: not checkpointed", "GET /jobs/{jobid}/checkpoints", get(job(running) + "/checkpoints"), 404},
		{"checkpoint statistics: unknown job", "GET /jobs/{jobid}/checkpoints", get(job(unknown) + "/checkpoints"), 404},
		{"checkpoint config", "GET /jobs/{jobid}/checkpoints/config", get(job(checkpointed) + "/checkpoints/config"), 200},
		{"checkpoint config: not checkpointed", "GET /jobs/{jobid}/checkpoints/config", get(job(running) + "/checkpoints/config"), 404},
		{"checkpoint details: completed", "GET /jobs/{jobid}/checkpoints/details/{checkpointid}", get(job(checkpointed) + "/checkpoints/details/3"), 200},
		{"checkpoint details: failed", "GET /jobs/{jobid}/checkpoints/details/{checkpointid}", get(job(checkpointed) + "/checkpoints/details/5"), 200},
		{"checkpoint details: in progress", "GET /jobs/{jobid}/checkpoints/details/{checkpointid}", get(job(checkpointed) + "/checkpoints/details/6"), 200},
		{"checkpoint details: unknown checkpoint", "GET /jobs/{jobid}/checkpoints/details/{checkpointid}", get(job(checkpointed) + "/checkpoints/details/99"), 404},
		{"checkpoint details: malformed ID", "GET /jobs/{jobid}/checkpoints/details/{checkpointid}", get(job(checkpointed) + "/checkpoints/details/x"), 400},
		{"savepoint trigger", "POST /jobs/{jobid}/savepoints", send("POST", job(checkpointed)+"/savepoints", "application/json", `{"target-directory": "/savepoints"}`), 202},
		{"savepoint trigger: unknown field", "POST /jobs/{jobid}/savepoints", send("POST", job(checkpointed)+"/savepoints", "application/json", `{"dir": "/x"}`), 400},
		{"savepoint status: unknown trigger", "GET /jobs/{jobid}/savepoints/{triggerid}", get(job(checkpointed) + "/savepoints/00112233445566778899aabbccddeeff"), 404},
		{"stop with savepoint", "POST /jobs/{jobid}/stop", send("POST", job(checkpointed)+"/stop", "application/json", `{"drain": false}`), 202},
		{"task managers", "GET /taskmanagers", get("/taskmanagers"), 200},
		{"task manager details", "GET /taskmanagers/{taskmanagerid}", get("/taskmanagers/taskexecutor-0"), 200},
		{"task manager details: unknown", "GET /taskmanagers/{taskmanagerid}", get("/taskmanagers/taskexecutor-9"), 404},
		{"cluster configuration", "GET /jobmanager/config", get("/jobmanager/config"), 200},
		{"log list", "GET /jobmanager/logs", get("/jobmanager/logs"), 200},
		{"jar delete", "DELETE /jars/{jarid}", send("DELETE", "/jars/"+jarID, "", ""), 200},
		{"jar delete: unknown jar", "DELETE /jars/{jarid}", send("DELETE", "/jars/"+jarID, "", ""), 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.request()
			resp, err := h.client.Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "%s", body)

			err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: specRoute(t, spec, tt.operation)},
				Status:                 resp.StatusCode,
				Header:                 resp.Header,
				Body:                   io.NopCloser(bytes.NewReader(body)),
				Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
			})
			assert.NoError(t, err, "%s %s answered %d %s", req.Method, req.URL.Path, resp.StatusCode, body)
		})
	}
}

// loadFlinkSpec loads Flink's spec, makes it stricter and adds what it
// lacks:
//
//   - Objects are closed: one whose schema declares properties may have
//     no others, so a misspelled field name fails. (The spec leaves
//     objects open.)
//   - Error answers. The spec lists only each operation's success; Flink
//     answers every failure with an ErrorResponseBody, {"errors": [...]}.
//     Each operation gets it as its 4XX and 5XX answer, so an error body
//     is checked too, and a success status the spec does not list (200
//     where it says 202) still fails.
//   - ResourceID loses its pattern, "[0-9a-f]{32}". Flink's TaskManager IDs
//     are not 32 hex digits either: a standalone TaskManager's is
//     "<host>:<port>-<6 hex>"; flinklab's are "taskexecutor-0".
//   - JobResult, the job-execution-result of GET
//     /jobs/{jobid}/execution-result, is the shape Flink's
//     JobResultSerializer writes: id, application-status,
//     accumulator-results, net-runtime and failure-cause, the last a
//     SerializedThrowable of class, stack-trace and serialized-throwable.
//     The spec describes the Java class's fields instead (jobId,
//     applicationStatus, …), which no Flink sends and which Flink's own
//     JobResultDeserializer refuses.
//   - Three fields may be null, as Flink 1.20 writes them and the spec
//     does not say: JarEntryInfo's description (always null: Flink's
//     JarListHandler has none to give), and the deprecated root-exception
//     and timestamp of JobExceptionsInfoWithHistory (null for a job that
//     never failed). Flink's REST mapper writes nulls; it does not leave
//     them out.
func loadFlinkSpec(t *testing.T, path string) *openapi3.T {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromFile(path)
	require.NoError(t, err, "load %s", path)
	require.NoError(t, spec.Validate(context.Background()), "%s is not a valid OpenAPI document", path)

	errorBody := openapi3.NewObjectSchema().WithProperty("errors", openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema()))
	errorBody.Required = []string{"errors"}
	errorBody.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.Ptr(false)}
	errorResponse := &openapi3.ResponseRef{Value: openapi3.NewResponse().
		WithDescription("Flink's ErrorResponseBody").WithJSONSchema(errorBody)}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			op.Responses.Set("4XX", errorResponse)
			op.Responses.Set("5XX", errorResponse)
		}
	}

	// Close every object that declares its properties.
	closed := make(map[*openapi3.Schema]bool)
	var closeObjects func(ref *openapi3.SchemaRef)
	closeObjects = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || closed[ref.Value] {
			return
		}
		schema := ref.Value
		closed[schema] = true
		if len(schema.Properties) > 0 && schema.AdditionalProperties.Has == nil && schema.AdditionalProperties.Schema == nil {
			schema.AdditionalProperties.Has = openapi3.Ptr(false)
		}
		for _, p := range schema.Properties {
			closeObjects(p)
		}
		closeObjects(schema.Items)
		closeObjects(schema.AdditionalProperties.Schema)
		for _, list := range [][]*openapi3.SchemaRef{schema.OneOf, schema.AnyOf, schema.AllOf} {
			for _, s := range list {
				closeObjects(s)
			}
		}
	}
	for _, ref := range spec.Components.Schemas {
		closeObjects(ref)
	}

	schemas := spec.Components.Schemas
	require.Contains(t, schemas, "JobResult")
	failureCause := openapi3.NewObjectSchema().
		WithProperty("class", openapi3.NewStringSchema()).
		WithProperty("stack-trace", openapi3.NewStringSchema()).
		WithProperty("serialized-throwable", openapi3.NewStringSchema().WithFormat("byte"))
	failureCause.Required = []string{"class", "stack-trace"}
	failureCause.AdditionalProperties.Has = openapi3.Ptr(false)
	jobResult := openapi3.NewObjectSchema().
		WithPropertyRef("id", &openapi3.SchemaRef{Ref: "#/components/schemas/JobID", Value: schemas["JobID"].Value}).
		WithPropertyRef("application-status", &openapi3.SchemaRef{Ref: "#/components/schemas/ApplicationStatus", Value: schemas["ApplicationStatus"].Value}).
		WithProperty("accumulator-results", openapi3.NewObjectSchema()).
		WithProperty("net-runtime", openapi3.NewInt64Schema()).
		WithProperty("failure-cause", failureCause)
	jobResult.Required = []string{"id", "application-status", "accumulator-results", "net-runtime"}
	jobResult.AdditionalProperties.Has = openapi3.Ptr(false)
	schemas["JobExecutionResultResponseBody"].Value.Properties["job-execution-result"] = openapi3.NewSchemaRef("", jobResult)

	correctCheckpointSchemas(t, schemas)

	resourceID := schemas["ResourceID"]
	require.NotNil(t, resourceID, "the spec has no ResourceID")
	resourceID.Value.Pattern = ""
	for _, field := range []struct{ schema, property string }{
		{"JarEntryInfo", "description"},
		{"JobExceptionsInfoWithHistory", "root-exception"},
		{"JobExceptionsInfoWithHistory", "timestamp"},
	} {
		schema := schemas[field.schema]
		require.NotNil(t, schema, "the spec has no %s", field.schema)
		require.Contains(t, schema.Value.Properties, field.property, field.schema)
		schema.Value.Properties[field.property].Value.Nullable = true
	}
	return spec
}

// specRoute returns the route of an operation of the spec, "GET /jobs/{jobid}".
func specRoute(t *testing.T, spec *openapi3.T, operation string) *routers.Route {
	t.Helper()
	method, path, _ := strings.Cut(operation, " ")
	item := spec.Paths.Value(path)
	require.NotNil(t, item, "the spec has no path %s", path)
	op := item.GetOperation(method)
	require.NotNil(t, op, "the spec has no operation %s", operation)
	return &routers.Route{Spec: spec, Path: path, PathItem: item, Method: method, Operation: op}
}

func newRequest(t *testing.T, method, url, contentType string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// fakeEndedJobs makes the fake Dispatcher know jobs that have ended, as
// their archived graphs, besides the ones submitted to it: it lists them,
// answers their graph, status and result, and refuses to cancel them as
// the Dispatcher does.
func fakeEndedJobs(h *harness, ended map[api.JobID]*gateway.ArchivedExecutionGraph) {
	d := h.dispatcher
	d.ListJobsFunc = func(context.Context) ([]api.JobID, error) {
		var ids []api.JobID
		for id := range ended {
			ids = append(ids, id)
		}
		for _, g := range d.Submitted() {
			ids = append(ids, g.JobID)
		}
		return ids, nil
	}
	d.RequestJobFunc = func(_ context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		if g, ok := ended[id]; ok {
			return g, nil
		}
		for _, g := range d.Submitted() {
			if g.JobID == id {
				return runningGraph(g), nil
			}
		}
		return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
	}
	d.CancelJobFunc = func(_ context.Context, id api.JobID) error {
		if g, ok := ended[id]; ok && g.State != api.JobCanceled {
			return &gateway.JobTerminatedWithoutCancellationException{JobID: id, JobStatus: g.State}
		} else if ok {
			return nil // as Flink's Dispatcher acknowledges a job CANCELED already
		}
		_, err := d.RequestJobFunc(context.Background(), id)
		return err
	}
	d.RequestJobResultFunc = func(_ context.Context, id api.JobID) (api.JobResult, error) {
		g, ok := ended[id]
		if !ok {
			return api.JobResult{}, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
		}
		return api.JobResult{JobID: id, JobName: g.JobName, JobStatus: g.State,
			ApplicationStatus: api.ApplicationStatusOf(g.State), FailureCause: g.FailureCause}, nil
	}
}
