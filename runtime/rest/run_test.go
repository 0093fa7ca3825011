package rest_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/client"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// TestRunRejectsBadInput sends bad run requests. None of them may reach
// the Dispatcher or leave a BLOB behind.
func TestRunRejectsBadInput(t *testing.T) {
	programFails := func(*client.PackagedProgram, string, []string, int) (*jobgraph.JobGraph, error) {
		return nil, errors.New(`no program registered under "wordcount"`)
	}
	noJob := func(*client.PackagedProgram, string, []string, int) (*jobgraph.JobGraph, error) { return nil, nil }
	dispatcherFails := func(context.Context, *jobgraph.JobGraph) error {
		return &dispatcher.JobSubmissionError{Message: "Failed to submit job.", Cause: errors.New("disk full")}
	}

	tests := []struct {
		name       string
		jarID      string // "" means the uploaded jar
		query      string
		body       string
		program    func(*client.PackagedProgram, string, []string, int) (*jobgraph.JobGraph, error)
		submit     func(context.Context, *jobgraph.JobGraph) error
		wantStatus int
		wantErrors []string // nil: not checked; "{jarDir}" is replaced
	}{
		{
			name: "unknown jar", jarID: "00000000-0000-4000-8000-000000000000_missing.jar",
			wantStatus: http.StatusNotFound,
			wantErrors: []string{"Jar file {jarDir}/00000000-0000-4000-8000-000000000000_missing.jar does not exist"},
		},
		{
			name: "a jar ID that climbs out of the jar directory", jarID: "..%2F..%2Fx.jar",
			wantStatus: http.StatusNotFound,
			wantErrors: []string{"Jar file {jarDir}/../../x.jar does not exist"},
		},
		{
			name: "malformed JSON", body: `{"parallelism": `,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JarRunRequestBody.", "unexpected EOF"},
		},
		{
			name: "unknown field", body: `{"parallelism": 2, "colour": "red"}`,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JarRunRequestBody.", `json: unknown field "colour"`},
		},
		{
			name: "wrong type", body: `{"parallelism": "two"}`,
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "malformed jobId", body: `{"jobId": "not-hex"}`,
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "data after the object", body: `{} {}`,
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "a body over 1 MiB", body: `{"programArgsList": ["` + strings.Repeat("x", 1<<20) + `"]}`,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JarRunRequestBody.", "The JSON body is larger than 1048576 bytes."},
		},
		{
			name: "parallelism query parameter not a number", query: "?parallelism=two",
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{`Bad request, could not parse parameters: Cannot resolve query parameter (parallelism) from value "two".`},
		},
		{
			name: "parallelism zero", body: `{"parallelism": 0}`,
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "programArgs and programArgsList", body: `{"programArgs": "--a 1", "programArgsList": ["--b"]}`,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Confusing request: programArgs and programArgsList are specified, please, use only programArgsList"},
		},
		{
			name: "the program fails", program: programFails,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Could not execute application.", `no program registered under "wordcount"`},
		},
		{
			name: "the program builds no job", program: noJob,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Could not execute application.", "No jobs included in application."},
		},
		{
			name: "the Dispatcher refuses the job", submit: dispatcherFails,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Could not execute application.", "JobSubmissionException: Failed to submit job.: disk full"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.programs.JobGraphFunc = tt.program
			var submitted atomic.Int32
			h.dispatcher.SubmitJobFunc = func(ctx context.Context, g *jobgraph.JobGraph) error {
				submitted.Add(1)
				if tt.submit != nil {
					return tt.submit(ctx, g)
				}
				return nil
			}
			uploaded := h.uploadJar("wordcount.jar", "wordcount")
			jarID := cmpOr(tt.jarID, uploaded)
			eventsBefore := h.trace.Events()

			r := h.post("/jars/"+jarID+"/run"+tt.query, "application/json", []byte(tt.body))

			if r.status != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", r.status, tt.wantStatus, r.body)
			}
			if tt.wantErrors != nil {
				var want []string
				for _, e := range tt.wantErrors {
					want = append(want, strings.ReplaceAll(e, "{jarDir}", "<web.upload.dir>/flink-web-upload"))
				}
				if diff := cmp.Diff(want, r.errors, idOpts); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			}
			if tt.submit == nil && submitted.Load() != 0 {
				t.Errorf("a rejected run reached the Dispatcher")
			}
			if diff := cmp.Diff(eventsBefore, h.trace.Events(), idOpts); diff != "" {
				t.Errorf("a rejected run changed the trace (-before +after):\n%s", diff)
			}
			// Only the uploaded jar is on disk: no BLOB, no second jar.
			if files := h.storedFiles(); !slices.Equal(files, []string{filepath.Join(h.jarDir, uploaded)}) {
				t.Errorf("stored files %v, want only the uploaded jar", files)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestRunDispatcherRefusalsAreBadRequests: a run the Dispatcher refuses is
// answered as Flink's JarRunHandler answers any failure of the
// application: 400 "Could not execute application.", with the
// Dispatcher's refusal as the second message.
func TestRunDispatcherRefusalsAreBadRequests(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	jobID := api.NewJobID()
	h.dispatcher.SubmitJobFunc = func(context.Context, *jobgraph.JobGraph) error {
		return &dispatcher.DuplicateJobSubmissionError{JobID: jobID}
	}
	r := h.post("/jars/"+jarID+"/run", "application/json", []byte(`{"jobId": "`+jobID.String()+`"}`))
	want := []string{"Could not execute application.", "DuplicateJobSubmissionException: Job has already been submitted."}
	if r.status != http.StatusBadRequest || !slices.Equal(r.errors, want) {
		t.Errorf("got %d %q, want 400 %q", r.status, r.errors, want)
	}
}

// TestRunParameters: the body wins over the query; the query over the
// defaults; programArgs is split like a shell would.
func TestRunParameters(t *testing.T) {
	fixedJobID := api.NewJobID()
	tests := []struct {
		name       string
		query      string
		body       string
		want       runCall
		wantJobID  api.JobID
		wantWarned string
		// wantNoWarned must not be in the warning; wantRestore is the
		// JobGraph's SavepointRestoreSettings.
		wantNoWarned string
		wantRestore  jobgraph.SavepointRestoreSettings
		// deprecated: a setting came from the query, which Flink warns
		// about (HandlerRequestUtils#fromRequestBodyOrQueryParameter).
		deprecated bool
	}{
		{
			name: "defaults",
			want: runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
		},
		{
			name:       "query parameters",
			query:      "?parallelism=3&programArg=--input,a.txt&programArg=--n&entry-class=other",
			want:       runCall{EntryClass: "other", Args: []string{"--input", "a.txt", "--n"}, Parallelism: 3},
			deprecated: true,
		},
		{
			name:  "the body wins over the query",
			query: "?parallelism=3&programArg=--q&entry-class=fromquery",
			body:  `{"parallelism": 4, "programArgsList": ["--b"], "entryClass": "frombody"}`,
			want:  runCall{EntryClass: "frombody", Args: []string{"--b"}, Parallelism: 4},
		},
		{
			name: "an empty entryClass falls back",
			body: `{"entryClass": ""}`,
			want: runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
		},
		{
			name: "deprecated programArgs is tokenized",
			body: `{"programArgs": "--input 'a b.txt' --title \"Hamlet, Prince\"  --n 3"}`,
			want: runCall{EntryClass: "wordcount", Args: []string{"--input", "a b.txt", "--title", "Hamlet, Prince", "--n", "3"}, Parallelism: client.ParallelismDefault},
		},
		{
			name:       "deprecated program-args query parameter",
			query:      "?program-args=--x%201",
			want:       runCall{EntryClass: "wordcount", Args: []string{"--x", "1"}, Parallelism: client.ParallelismDefault},
			deprecated: true,
		},
		{
			name:      "jobId names the job",
			body:      `{"jobId": "` + fixedJobID.String() + `"}`,
			want:      runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantJobID: fixedJobID,
		},
		{
			name:         "the savepoint to start from",
			query:        "?allowNonRestoredState=true",
			body:         `{"savepointPath": "/tmp/sp", "claimMode": "CLAIM", "flinkConfiguration": {"a": "b"}}`,
			want:         runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantRestore:  jobgraph.SavepointRestoreSettingsForPath("/tmp/sp", true),
			wantWarned:   "Ignoring claimMode, flinkConfiguration: flinklab restores a savepoint in NO_CLAIM mode only",
			wantNoWarned: "savepointPath",
		},
		{
			name:        "the savepoint to start from, by query parameters",
			query:       "?savepointPath=/tmp/sp2&allowNonRestoredState=false",
			want:        runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantRestore: jobgraph.SavepointRestoreSettingsForPath("/tmp/sp2", false),
		},
		{
			name:        "the body's allowNonRestoredState wins over the query's",
			query:       "?allowNonRestoredState=true",
			body:        `{"savepointPath": "/tmp/sp", "allowNonRestoredState": false}`,
			want:        runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantRestore: jobgraph.SavepointRestoreSettingsForPath("/tmp/sp", false),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			jarID := h.uploadJar("wordcount.jar", "wordcount")
			r := h.post("/jars/"+jarID+"/run"+tt.query, "application/json", []byte(tt.body))
			if r.status != http.StatusOK {
				t.Fatalf("status %d, body %s", r.status, r.body)
			}
			tt.want.ProgramClass = "wordcount"
			if diff := cmp.Diff([]runCall{tt.want}, h.programs.Calls(), idOpts); diff != "" {
				t.Errorf("ProgramRunner calls (-want +got):\n%s", diff)
			}
			if !tt.wantJobID.IsZero() {
				if got := h.dispatcher.Submitted()[0].JobID; got != tt.wantJobID {
					t.Errorf("JobID %s, want %s", got, tt.wantJobID)
				}
			}
			if tt.wantWarned != "" && !strings.Contains(h.logs.String(), tt.wantWarned) {
				t.Errorf("logs lack %q", tt.wantWarned)
			}
			if tt.wantNoWarned != "" && strings.Contains(h.logs.String(), "Ignoring "+tt.wantNoWarned) {
				t.Errorf("logs say %q is ignored", tt.wantNoWarned)
			}
			if got := h.dispatcher.Submitted()[0].SavepointRestoreSettings; got != tt.wantRestore {
				t.Errorf("SavepointRestoreSettings %v, want %v", got, tt.wantRestore)
			}
			const deprecation = "Configuring the job submission via query parameters is deprecated. Please migrate to submitting a JSON request instead."
			if got := strings.Contains(h.logs.String(), deprecation); got != tt.deprecated {
				t.Errorf("deprecation warning logged: %t, want %t", got, tt.deprecated)
			}
		})
	}
}

// TestRunTwiceRecordsTheUploadForEachJob: every job run from a jar starts
// its trace with the upload (m1, at the upload's time), then the run
// request (m2). The upload alone records nothing: no event piles up under
// the zero JobID.
func TestRunTwiceRecordsTheUploadForEachJob(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	uploadedBefore := time.Now()
	for range 2 {
		if r := h.post("/jars/"+jarID+"/run", "", nil); r.status != http.StatusOK {
			t.Fatalf("run: status %d, body %s", r.status, r.body)
		}
	}
	jobs := h.dispatcher.Submitted()
	if len(jobs) != 2 || jobs[0].JobID == jobs[1].JobID {
		t.Fatalf("submitted %d jobs, want 2 with different IDs", len(jobs))
	}
	var uploadTimes []time.Time
	for _, g := range jobs {
		events := h.trace.JobEvents(g.JobID)
		if got := trace.Steps(events); !slices.Equal(got, []trace.Step{trace.M1, trace.M2}) {
			t.Errorf("job %s events %v, want [m1 m2]", g.JobID, got)
			continue
		}
		if !strings.Contains(events[0].Message, jarID) || !strings.Contains(events[1].Message, "/jars/"+jarID+"/run") {
			t.Errorf("events %v do not name the jar", events)
		}
		if !events[0].Time.Before(uploadedBefore) || events[1].Time.Before(uploadedBefore) {
			t.Errorf("m1 at %v, m2 at %v: want m1 at the upload, before %v, and m2 at the run, after it",
				events[0].Time, events[1].Time, uploadedBefore)
		}
		uploadTimes = append(uploadTimes, events[0].Time)
	}
	if len(uploadTimes) == 2 && !uploadTimes[0].Equal(uploadTimes[1]) {
		t.Errorf("m1 times %v, want the same upload for both jobs", uploadTimes)
	}
	if n := len(h.trace.JobEvents(api.JobID{})); n != 0 {
		t.Errorf("%d events without a JobID, want none", n)
	}
}

// TestRunTraceReadsM1M2M3: the Dispatcher records m3 while it accepts the
// job, before the endpoint records m1 and m2; the job's trace still tells
// the story in order.
func TestRunTraceReadsM1M2M3(t *testing.T) {
	h := newHarness(t)
	h.dispatcher.SubmitJobFunc = func(_ context.Context, g *jobgraph.JobGraph) error {
		h.trace.Emit(trace.M3, "Client", "Dispatcher", g.JobID, "submitJob '%s'", g.Name)
		return nil
	}
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	var run struct{ JobID api.JobID }
	decode(t, h.post("/jars/"+jarID+"/run", "", nil), &run)
	if got := trace.Steps(h.trace.JobEvents(run.JobID)); !slices.Equal(got, []trace.Step{trace.M1, trace.M2, trace.M3}) {
		t.Errorf("job events %v, want [m1 m2 m3]", got)
	}
}

// TestRefusedRunLeavesNothingBehind: the Dispatcher refuses a run whose
// jobId names a job that runs or has ended. The refusal must not add a BLOB
// (nor delete one the existing job needs), a trace event or a plan.
func TestRefusedRunLeavesNothingBehind(t *testing.T) {
	jobID := api.NewJobID()
	runBody := []byte(`{"jobId": "` + jobID.String() + `"}`)
	blobPath := func(h *harness, jar []byte) string {
		return filepath.Join(h.blobDir, "job_"+jobID.String(), "blob_"+blob.KeyOf(jar).String())
	}
	// refuseKnownJobs makes the fake Dispatcher refuse a JobID it has, as
	// the real one does.
	refuseKnownJobs := func(h *harness) {
		h.dispatcher.SubmitJobFunc = func(_ context.Context, g *jobgraph.JobGraph) error {
			for _, known := range h.dispatcher.Submitted() {
				if known.JobID == g.JobID {
					return &dispatcher.DuplicateJobSubmissionError{JobID: g.JobID}
				}
			}
			return nil
		}
	}
	// refuseAsGloballyTerminated: the job ended in an earlier execution;
	// the Dispatcher knows it only from its JobResultStore.
	refuseAsGloballyTerminated := func(h *harness) {
		h.dispatcher.SubmitJobFunc = func(_ context.Context, g *jobgraph.JobGraph) error {
			return &dispatcher.DuplicateJobSubmissionError{JobID: g.JobID, GloballyTerminated: true}
		}
	}

	tests := []struct {
		name string
		// setUp prepares the cluster and returns the jar to run; what is
		// stored and traced after it must stay as it is.
		setUp func(t *testing.T, h *harness) (jarID string)
	}{
		{
			name: "a running job, the same jar",
			setUp: func(t *testing.T, h *harness) string {
				refuseKnownJobs(h)
				jarID := h.uploadJar("wordcount.jar", "wordcount")
				if r := h.post("/jars/"+jarID+"/run", "application/json", runBody); r.status != http.StatusOK {
					t.Fatalf("first run: %d %s", r.status, r.body)
				}
				return jarID
			},
		},
		{
			name: "a running job, another jar",
			setUp: func(t *testing.T, h *harness) string {
				refuseKnownJobs(h)
				first := h.uploadJar("wordcount.jar", "wordcount")
				if r := h.post("/jars/"+first+"/run", "application/json", runBody); r.status != http.StatusOK {
					t.Fatalf("first run: %d %s", r.status, r.body)
				}
				return h.uploadJar("ticker.jar", "ticker")
			},
		},
		{
			name: "a globally terminated job",
			setUp: func(t *testing.T, h *harness) string {
				refuseAsGloballyTerminated(h)
				return h.uploadJar("wordcount.jar", "wordcount")
			},
		},
		{
			name: "a globally terminated job whose jar is still stored",
			setUp: func(t *testing.T, h *harness) string {
				refuseAsGloballyTerminated(h)
				if _, err := h.blobServer.PutPermanentBytes(jobID, jarBytes(t, "wordcount")); err != nil {
					t.Fatal(err)
				}
				return h.uploadJar("wordcount.jar", "wordcount")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			jarID := tt.setUp(t, h)
			filesBefore, eventsBefore := h.storedFiles(), h.trace.Events()
			planBefore := h.get("/jobs/" + jobID.String() + "/plan")

			r := h.post("/jars/"+jarID+"/run", "application/json", runBody)

			if r.status != http.StatusBadRequest || !strings.Contains(strings.Join(r.errors, " "), "DuplicateJobSubmissionException") {
				t.Errorf("got %d %q, want 400 with DuplicateJobSubmissionException", r.status, r.errors)
			}
			if diff := cmp.Diff(filesBefore, h.storedFiles()); diff != "" {
				t.Errorf("stored files changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(eventsBefore, h.trace.Events(), idOpts); diff != "" {
				t.Errorf("trace changed (-before +after):\n%s", diff)
			}
			if planAfter := h.get("/jobs/" + jobID.String() + "/plan"); !bytes.Equal(planBefore.body, planAfter.body) {
				t.Errorf("plan changed from %s to %s", planBefore.body, planAfter.body)
			}
		})
	}

	// The existing job still has its jar, byte for byte.
	t.Run("the running job keeps its jar", func(t *testing.T) {
		h := newHarness(t)
		refuseKnownJobs(h)
		first := h.uploadJar("wordcount.jar", "wordcount")
		if r := h.post("/jars/"+first+"/run", "application/json", runBody); r.status != http.StatusOK {
			t.Fatalf("first run: %d %s", r.status, r.body)
		}
		for _, jarID := range []string{first, h.uploadJar("ticker.jar", "ticker")} {
			if r := h.post("/jars/"+jarID+"/run", "application/json", runBody); r.status != http.StatusBadRequest {
				t.Fatalf("duplicate run: %d %s", r.status, r.body)
			}
		}
		if stored, err := os.ReadFile(blobPath(h, jarBytes(t, "wordcount"))); err != nil || !bytes.Equal(stored, jarBytes(t, "wordcount")) {
			t.Errorf("the running job lost its jar (%v)", err)
		}
		if _, err := os.Stat(blobPath(h, jarBytes(t, "ticker"))); err == nil {
			t.Error("the refused run's jar was stored under the running job")
		}
	})
}

// TestRunReadsTheJarAsUploaded: the ProgramRunner gets the jar's
// resources, and the BLOB is the uploaded jar byte for byte.
func TestRunReadsTheJarAsUploaded(t *testing.T) {
	h := newHarness(t)
	var jar bytes.Buffer
	text := []byte(strings.Repeat("To be, or not to be, that is the question. ", 500))
	if err := client.WriteJar(&jar, "wordcount", map[string][]byte{"wordcount/hamlet.txt": text}); err != nil {
		t.Fatal(err)
	}
	r := h.upload(filePart{"jarfile", "wordcount.jar", jar.Bytes()})
	if r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var uploaded struct{ Filename string }
	decode(t, r, &uploaded)

	resources := make(chan []byte, 1)
	h.programs.JobGraphFunc = func(p *client.PackagedProgram, entry string, _ []string, parallelism int) (*jobgraph.JobGraph, error) {
		resource, err := p.Resource("wordcount/hamlet.txt")
		resources <- resource
		return smallJobGraph(entry, parallelism), err
	}
	if r := h.post("/jars/"+filepath.Base(uploaded.Filename)+"/run", "", nil); r.status != http.StatusOK {
		t.Fatalf("run: %d %s", r.status, r.body)
	}
	if !bytes.Equal(<-resources, text) {
		t.Error("the program did not read the jar's resource")
	}
	g := h.dispatcher.Submitted()[0]
	stored, err := os.ReadFile(filepath.Join(h.blobDir, "job_"+g.JobID.String(), "blob_"+g.UserJarBlobKeys[0].String()))
	if err != nil || !bytes.Equal(stored, jar.Bytes()) {
		t.Errorf("the BLOB is not the uploaded jar (%v)", err)
	}
}
