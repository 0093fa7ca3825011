package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

// TestUploadListRunInspect is the story of one job: a client uploads a
// jar, finds it in the list, runs it, and looks at the job.
func TestUploadListRunInspect(t *testing.T) {
	h := newHarness(t)
	jar := jarBytes(t, "wordcount")

	// 1. Upload: the jar is stored as <uuid>_wordcount.jar. No job exists
	//    yet, so nothing is traced.
	r := h.upload(filePart{"jarfile", "wordcount.jar", jar})
	if r.status != http.StatusOK {
		t.Fatalf("upload: status %d, body %s", r.status, r.body)
	}
	var uploaded rest.JarUploadResponseBody
	decode(t, r, &uploaded)
	jarID := filepath.Base(uploaded.Filename)
	if uploaded.Status != "success" || filepath.Dir(uploaded.Filename) != h.jarDir || !strings.HasSuffix(jarID, "_wordcount.jar") {
		t.Errorf("upload answered %+v, want status success and a file <uuid>_wordcount.jar in %s", uploaded, h.jarDir)
	}
	if got := h.trace.Events(); len(got) != 0 {
		t.Errorf("upload events %v, want none", got)
	}

	// 2. List: the jar and its program.
	var list rest.JarListInfo
	decode(t, h.get("/jars"), &list)
	wantList := rest.JarListInfo{
		Address: h.baseURL,
		Files:   []rest.JarFileInfo{{ID: jarID, Name: "wordcount.jar", Entry: []rest.JarEntryInfo{{Name: "wordcount"}}}},
	}
	if len(list.Files) == 1 {
		wantList.Files[0].Uploaded = list.Files[0].Uploaded
	}
	if diff := cmp.Diff(wantList, list, idOpts); diff != "" {
		t.Errorf("GET /jars (-want +got):\n%s", diff)
	}

	// 3. Run with a parallelism and arguments: they reach the program.
	r = h.post("/jars/"+jarID+"/run", "application/json",
		[]byte(`{"parallelism": 2, "programArgsList": ["--input", "hamlet.txt"]}`))
	if r.status != http.StatusOK {
		t.Fatalf("run: status %d, body %s", r.status, r.body)
	}
	var run rest.JarRunResponseBody
	decode(t, r, &run)
	wantCalls := []runCall{{ProgramClass: "wordcount", EntryClass: "wordcount", Args: []string{"--input", "hamlet.txt"}, Parallelism: 2}}
	if diff := cmp.Diff(wantCalls, h.programs.Calls(), idOpts); diff != "" {
		t.Errorf("ProgramRunner calls (-want +got):\n%s", diff)
	}

	// The Dispatcher got the job, naming the jar the BlobServer stored
	// under the job's ID.
	submitted := h.dispatcher.Submitted()
	if len(submitted) != 1 || submitted[0].JobID != run.JobID {
		t.Fatalf("submitted %v, want the job %s", submitted, run.JobID)
	}
	key := blob.KeyOf(jar)
	if !slices.Equal(submitted[0].UserJarBlobKeys, []blob.PermanentBlobKey{key}) {
		t.Errorf("UserJarBlobKeys = %v, want [%v]", submitted[0].UserJarBlobKeys, key)
	}
	stored, err := os.ReadFile(filepath.Join(h.blobDir, "job_"+run.JobID.String(), "blob_"+key.String()))
	if err != nil || string(stored) != string(jar) {
		t.Errorf("the BlobServer does not hold the jar under the job: %v", err)
	}

	// Steps m1 (the upload, recorded for the job) and m2.
	events := h.trace.JobEvents(run.JobID)
	if got := trace.Steps(events); !slices.Equal(got, []trace.Step{trace.M1, trace.M2}) {
		t.Fatalf("job events %v, want [m1 m2]", got)
	}
	for _, e := range events {
		if e.From != "Client" || e.To != "REST" {
			t.Errorf("event %v, want Client → REST", e)
		}
	}

	// 4. Overview, details and plan, also under /v1.
	for _, prefix := range []string{"", "/v1"} {
		var overview rest.MultipleJobsDetails
		decode(t, h.get(prefix+"/jobs/overview"), &overview)
		if len(overview.Jobs) != 1 {
			t.Fatalf("overview %+v, want one job", overview)
		}
		job := overview.Jobs[0]
		if job.JobID != run.JobID || job.State != api.JobRunning || job.EndTime != -1 ||
			job.StartTime != startTime.UnixMilli() || job.Tasks != (rest.TaskCounts{Total: 4, Running: 4}) {
			t.Errorf("overview job %+v, want the RUNNING job with 4 running tasks", job)
		}

		var details rest.JobDetailsInfo
		decode(t, h.get(prefix+"/jobs/"+run.JobID.String()), &details)
		if details.JobID != run.JobID || details.JobType != "STREAMING" || len(details.Vertices) != 2 ||
			details.StatusCounts[api.ExecutionRunning] != 4 || details.Plan == nil || len(details.Plan.Nodes) != 2 {
			t.Errorf("details %+v, want the job with 2 vertices, 4 running tasks and a plan", details)
		}

		var plan rest.JobPlanInfo
		decode(t, h.get(prefix+"/jobs/"+run.JobID.String()+"/plan"), &plan)
		source, sink := submitted[0].Vertices()[0], submitted[0].Vertices()[1]
		want := &rest.JobPlan{JobID: run.JobID, Name: "wordcount", Type: "STREAMING", Nodes: []rest.JobPlanNode{
			{ID: source.ID, Parallelism: 2, Description: "Source: words"},
			{ID: sink.ID, Parallelism: 2, Description: "Keyed Aggregation -&gt; Sink: print", Inputs: []rest.JobPlanInput{
				{Num: 0, ID: source.ID, ShipStrategy: "HASH", Exchange: "pipelined_bounded"},
			}},
		}}
		if diff := cmp.Diff(want, plan.Plan, idOpts); diff != "" {
			t.Errorf("GET %s/jobs/:jobid/plan (-want +got):\n%s", prefix, diff)
		}
	}
}

// TestResponseFieldNames checks the JSON field names against the OpenAPI
// spec (rest_v1_dispatcher.yml), so a client generated from it reads us.
func TestResponseFieldNames(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	var run rest.JarRunResponseBody
	decode(t, h.post("/jars/"+jarID+"/run", "", nil), &run)

	keysOf := func(v any) []string {
		var keys []string
		for k := range v.(map[string]any) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	get := func(path string) map[string]any {
		var m map[string]any
		decode(t, h.get(path), &m)
		return m
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }

	jars := get("/jars")
	details := get("/jobs/" + run.JobID.String())
	vertex := details["vertices"].([]any)[0]
	overview := get("/jobs/overview")["jobs"].([]any)[0]
	status := get("/jobs/" + run.JobID.String() + "/status")
	plan := get("/jobs/" + run.JobID.String() + "/plan")["plan"]
	source := plan.(map[string]any)["nodes"].([]any)[0]
	node := plan.(map[string]any)["nodes"].([]any)[1]
	input := node.(map[string]any)["inputs"].([]any)[0]
	vertexDetails := get("/jobs/" + run.JobID.String() + "/vertices/" + vertex.(map[string]any)["id"].(string))
	subtask := vertexDetails["subtasks"].([]any)[0]
	aggregated := vertexDetails["aggregated"].(map[string]any)
	event := get("/jobs/" + run.JobID.String() + "/trace")["events"].([]any)[0]
	durationStates := sorted("CREATED", "SCHEDULED", "DEPLOYING", "INITIALIZING", "RUNNING")

	tests := []struct {
		name string
		got  any
		want []string
	}{
		{"JarListInfo", jars, sorted("address", "files")},
		{"JarFileInfo", jars["files"].([]any)[0], sorted("id", "name", "uploaded", "entry")},
		{"JarEntryInfo", jars["files"].([]any)[0].(map[string]any)["entry"].([]any)[0], sorted("name", "description")},
		{"JobDetails", overview, sorted("jid", "name", "state", "start-time", "end-time", "duration", "last-modification", "tasks")},
		{"JobDetails.tasks", overview.(map[string]any)["tasks"], sorted("total", "created", "scheduled", "deploying", "running",
			"finished", "canceling", "canceled", "failed", "reconciling", "initializing")},
		{"JobDetailsInfo", details, sorted("jid", "name", "isStoppable", "state", "job-type", "start-time", "end-time", "duration",
			"maxParallelism", "now", "timestamps", "vertices", "status-counts", "plan")},
		{"JobDetailsInfo.timestamps", details["timestamps"], sorted("INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED",
			"CANCELLING", "CANCELED", "FINISHED", "RESTARTING", "SUSPENDED", "RECONCILING")},
		{"JobDetailsInfo.status-counts", details["status-counts"], sorted("CREATED", "SCHEDULED", "DEPLOYING", "RUNNING",
			"FINISHED", "CANCELING", "CANCELED", "FAILED", "RECONCILING", "INITIALIZING")},
		{"JobDetailsVertexInfo", vertex, sorted("id", "name", "maxParallelism", "parallelism", "status", "start-time",
			"end-time", "duration", "tasks", "metrics")},
		{"IOMetricsInfo", vertex.(map[string]any)["metrics"], sorted("read-bytes", "read-bytes-complete", "write-bytes",
			"write-bytes-complete", "read-records", "read-records-complete", "write-records", "write-records-complete",
			"accumulated-backpressured-time", "accumulated-idle-time", "accumulated-busy-time")},
		{"JobStatusInfo", status, sorted("status")},
		{"Plan", plan, sorted("jid", "name", "type", "nodes")},
		// An input vertex has no "inputs", as in Flink's JsonPlanGenerator.
		{"PlanNode of a source", source, sorted("id", "parallelism", "operator", "operator_strategy", "description", "optimizer_properties")},
		{"PlanNode", node, sorted("id", "parallelism", "operator", "operator_strategy", "description", "inputs", "optimizer_properties")},
		{"Input", input, sorted("num", "id", "ship_strategy", "exchange")},
		{"JobVertexDetailsInfo", vertexDetails, sorted("id", "name", "parallelism", "maxParallelism", "now", "subtasks", "aggregated")},
		// other-concurrent-attempts is left out when empty, as in Flink.
		{"SubtaskExecutionAttemptDetailsInfo", subtask, sorted("subtask", "status", "attempt", "endpoint", "host", "start-time",
			"end-time", "duration", "metrics", "taskmanager-id", "status-duration")},
		{"SubtaskExecutionAttemptDetailsInfo.status-duration", subtask.(map[string]any)["status-duration"], durationStates},
		{"AggregatedTaskDetailsInfo", aggregated, sorted("metrics", "status-duration")},
		{"AggregatedTaskDetailsInfo.metrics", aggregated["metrics"], sorted("read-bytes", "write-bytes", "read-records",
			"write-records", "accumulated-backpressured-time", "accumulated-busy-time", "accumulated-idle-time")},
		{"AggregatedTaskDetailsInfo.status-duration", aggregated["status-duration"], durationStates},
		{"MetricStatistics", aggregated["metrics"].(map[string]any)["read-bytes"], sorted("min", "max", "avg", "sum",
			"median", "p25", "p75", "p95")},
		{"trace.Event", event, sorted("step", "from", "to", "message", "jobId", "time")},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, keysOf(tt.got), idOpts); diff != "" {
			t.Errorf("%s field names (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := string(mustJSON(t, jars["files"].([]any)[0].(map[string]any)["entry"])); got != `[{"description":null,"name":"wordcount"}]` {
		t.Errorf("entry = %s, want a null description", got)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestServerBindsLoopbackAndLogsLikeFlink(t *testing.T) {
	h := newHarness(t)
	host, port, err := net.SplitHostPort(h.server.Address())
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("Address() = %q, want 127.0.0.1 and the bound port", h.server.Address())
	}
	logs := h.logs.String()
	for _, want := range []string{
		`msg="Starting rest endpoint." logger=DispatcherRestEndpoint`,
		fmt.Sprintf(`msg="Rest endpoint listening at 127.0.0.1:%s" logger=DispatcherRestEndpoint`, port),
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

func TestServerLifecycle(t *testing.T) {
	deps := rest.Deps{Dispatcher: &fakeDispatcher{}, Programs: &fakeProgramRunner{}}
	if _, err := rest.NewServer(rest.Config{}, deps); err == nil {
		t.Error("NewServer without a ResourceManager succeeded")
	}
	deps.ResourceManager = newFakeResourceManager()
	if _, err := rest.NewServer(rest.Config{}, deps); err == nil {
		t.Error("NewServer without a BlobServer succeeded")
	}
	blobServer, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer blobServer.Close()
	deps.BlobServer = blobServer

	// Without an UploadDir the server makes a temp dir and removes it.
	s, err := rest.NewServer(rest.Config{}, deps)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	if s.Address() != "" {
		t.Errorf("Address() before Start = %q, want \"\"", s.Address())
	}
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := s.Start(); err == nil {
		t.Error("a second Start succeeded")
	}
	resp, err := http.Post("http://"+s.Address()+"/jars/upload", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()

	var list rest.JarListInfo
	resp, err = http.Get("http://" + s.Address() + "/jars")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()

	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if list.Address == "" || len(list.Files) != 0 {
		t.Errorf("GET /jars = %+v, want the address and no files", list)
	}
}

func TestUnknownRoutesAnswerNotFound(t *testing.T) {
	h := newHarness(t)
	for _, tt := range []struct{ method, path string }{
		{http.MethodGet, "/nope"},
		{http.MethodGet, "/jars/upload"}, // known path, wrong method: Flink's router answers 404 too
		{http.MethodDelete, "/jobs/overview"},
		{http.MethodGet, "/jobs/../jobs/overview"}, // matched as sent, not cleaned and redirected
		{http.MethodGet, "/v1//jobs/overview"},
	} {
		req, _ := http.NewRequest(tt.method, h.baseURL+tt.path, nil)
		r := h.do(req)
		if r.status != http.StatusNotFound || !slices.Equal(r.errors, []string{"Not found: " + tt.path}) {
			t.Errorf("%s %s = %d %v, want 404 [Not found: %s]", tt.method, tt.path, r.status, r.errors, tt.path)
		}
	}
}

// TestCloseCutsAStuckRequest: a request that never ends cannot hold Close
// forever, even with context.Background() (as the MiniCluster calls it).
// After Config.ShutdownTimeout, Close cuts the connection, waits another
// ShutdownTimeout for the handler, and says the shutdown was not graceful.
func TestCloseCutsAStuckRequest(t *testing.T) {
	h := newHarness(t, func(cfg *rest.Config) { cfg.ShutdownTimeout = 50 * time.Millisecond })
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	entered, release := make(chan struct{}), make(chan struct{})
	h.dispatcher.SubmitJobFunc = func(context.Context, *jobgraph.JobGraph) error {
		close(entered)
		<-release // stuck, deaf to its ctx
		return nil
	}
	answered := make(chan error, 1)
	go func() {
		resp, err := h.client.Post(h.baseURL+"/jars/"+jarID+"/run", "application/json", nil)
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	<-entered

	closed := make(chan error, 1)
	go func() { closed <- h.server.Close(context.Background()) }()
	select {
	case err := <-closed:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Close = %v, want an error wrapping context.DeadlineExceeded", err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a wait
		t.Fatal("Close hangs on a stuck request")
	}
	if err := <-answered; err == nil {
		t.Error("the stuck request was answered, want its connection cut")
	}
	close(release)
}

// signalingHandler is a slog.Handler that closes seen when a record with
// the message msg is logged, and passes every record on.
type signalingHandler struct {
	slog.Handler
	msg  string
	once *sync.Once
	seen chan struct{}
}

func (h signalingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return h.Handler.Handle(ctx, r)
}

func (h signalingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return signalingHandler{h.Handler.WithAttrs(attrs), h.msg, h.once, h.seen}
}

func (h signalingHandler) WithGroup(name string) slog.Handler {
	return signalingHandler{h.Handler.WithGroup(name), h.msg, h.once, h.seen}
}

// TestCloseWaitsForTheHandlersOfCutConnections: Close cuts the connection
// of a request that outlived ShutdownTimeout. Its handler sees its ctx end
// and still writes into the upload directory on its way out; Close waits
// for it before it removes that directory (when it owns it), so the write
// lands and no handler outlives Close.
func TestCloseWaitsForTheHandlersOfCutConnections(t *testing.T) {
	waiting := make(chan struct{})
	h := newHarness(t, func(cfg *rest.Config) {
		cfg.ShutdownTimeout = 200 * time.Millisecond
		cfg.Logger = slog.New(signalingHandler{cfg.Logger.Handler(),
			"Waiting for the handlers of the closed connections to return.", &sync.Once{}, waiting})
	})
	jarID := h.uploadJar("wordcount.jar", "wordcount")

	entered, closeReturned := make(chan struct{}), make(chan struct{})
	lateWrite := make(chan error, 1)
	h.dispatcher.SubmitJobFunc = func(ctx context.Context, _ *jobgraph.JobGraph) error {
		close(entered)
		<-ctx.Done() // Close cut the connection
		select {
		case <-waiting: // Close waits for this handler
		case <-closeReturned:
			lateWrite <- errors.New("Close returned while a handler was still running")
			return ctx.Err()
		}
		lateWrite <- os.WriteFile(filepath.Join(h.jarDir, "late"), nil, 0o600)
		return ctx.Err()
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		if resp, err := h.client.Post(h.baseURL+"/jars/"+jarID+"/run", "application/json", nil); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered

	err := h.server.Close(context.Background())
	close(closeReturned)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if err := <-lateWrite; err != nil {
		t.Errorf("the handler's write into the upload directory: %v", err)
	}
	<-answered
}
