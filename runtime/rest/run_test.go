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

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/api"
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
			wantStatus: http.StatusRequestEntityTooLarge,
			wantErrors: []string{"Request entity too large: the limit is 1048576 bytes."},
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
			wantStatus: http.StatusInternalServerError,
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

			r := h.post("/jars/"+jarID+"/run"+tt.query, "application/json", []byte(tt.body))

			if r.status != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", r.status, tt.wantStatus, r.body)
			}
			if tt.wantErrors != nil {
				var want []string
				for _, e := range tt.wantErrors {
					want = append(want, strings.ReplaceAll(e, "{jarDir}", h.jarDir))
				}
				if diff := cmp.Diff(want, r.errors, idOpts); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			}
			if tt.submit == nil && submitted.Load() != 0 {
				t.Errorf("a rejected run reached the Dispatcher")
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

// TestRunDispatcherErrorsAreInternalServerErrors: the Dispatcher's errors
// come back in Flink's 500 shape.
func TestRunDispatcherErrorsAreInternalServerErrors(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	jobID := api.NewJobID()
	h.dispatcher.SubmitJobFunc = func(context.Context, *jobgraph.JobGraph) error {
		return &dispatcher.DuplicateJobSubmissionError{JobID: jobID}
	}
	r := h.post("/jars/"+jarID+"/run", "application/json", []byte(`{"jobId": "`+jobID.String()+`"}`))
	if r.status != http.StatusInternalServerError || len(r.errors) != 2 || r.errors[0] != "Internal server error." ||
		!strings.HasPrefix(r.errors[1], "<Exception on server side:\n") ||
		!strings.Contains(r.errors[1], "DuplicateJobSubmissionException: Job has already been submitted.") ||
		!strings.HasSuffix(r.errors[1], "\nEnd of exception on server side>") {
		t.Errorf("got %d %q, want 500 [Internal server error., <Exception on server side: …DuplicateJobSubmissionException…>]", r.status, r.errors)
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
	}{
		{
			name: "defaults",
			want: runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
		},
		{
			name:  "query parameters",
			query: "?parallelism=3&programArg=--input,a.txt&programArg=--n&entry-class=other",
			want:  runCall{EntryClass: "other", Args: []string{"--input", "a.txt", "--n"}, Parallelism: 3},
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
			name:  "deprecated program-args query parameter",
			query: "?program-args=--x%201",
			want:  runCall{EntryClass: "wordcount", Args: []string{"--x", "1"}, Parallelism: client.ParallelismDefault},
		},
		{
			name:      "jobId names the job",
			body:      `{"jobId": "` + fixedJobID.String() + `"}`,
			want:      runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantJobID: fixedJobID,
		},
		{
			name:       "savepoint settings are accepted and ignored",
			query:      "?allowNonRestoredState=true",
			body:       `{"savepointPath": "/tmp/sp", "claimMode": "CLAIM", "flinkConfiguration": {"a": "b"}}`,
			want:       runCall{EntryClass: "wordcount", Parallelism: client.ParallelismDefault},
			wantWarned: "Ignoring allowNonRestoredState, savepointPath, claimMode, flinkConfiguration",
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
		})
	}
}

// TestRunTwiceRecordsTheUploadForEachJob: every job run from a jar starts
// its trace with the upload (m1), then the run request (m2).
func TestRunTwiceRecordsTheUploadForEachJob(t *testing.T) {
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	for range 2 {
		if r := h.post("/jars/"+jarID+"/run", "", nil); r.status != http.StatusOK {
			t.Fatalf("run: status %d, body %s", r.status, r.body)
		}
	}
	jobs := h.dispatcher.Submitted()
	if len(jobs) != 2 || jobs[0].JobID == jobs[1].JobID {
		t.Fatalf("submitted %d jobs, want 2 with different IDs", len(jobs))
	}
	for _, g := range jobs {
		events := h.trace.JobEvents(g.JobID)
		if got := trace.Steps(events); !slices.Equal(got, []trace.Step{trace.M1, trace.M2}) {
			t.Errorf("job %s events %v, want [m1 m2]", g.JobID, got)
			continue
		}
		if !strings.Contains(events[0].Message, jarID) || !strings.Contains(events[1].Message, "/jars/"+jarID+"/run") {
			t.Errorf("events %v do not name the jar", events)
		}
	}
	if n := len(h.trace.JobEvents(api.JobID{})); n != 1 {
		t.Errorf("%d events without a JobID, want the one upload", n)
	}
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
