package rest_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

// submitPart is one part of a multipart POST /jobs: a form field when
// filename is "", a file otherwise.
type submitPart struct {
	field, filename, content string
}

// requestPart is the JSON "request" part.
func requestPart(json string) submitPart { return submitPart{field: "request", content: json} }

// submitBody builds a multipart POST /jobs as Flink's RestClusterClient
// sends it. The file name is written into the header as given, so that a
// test can send one with directories.
func submitBody(t testing.TB, parts ...submitPart) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		header := textproto.MIMEHeader{}
		if p.filename == "" {
			header.Set("Content-Disposition", `form-data; name="`+p.field+`"`)
			header.Set("Content-Type", "application/json")
		} else {
			header.Set("Content-Disposition", `form-data; name="`+p.field+`"; filename="`+p.filename+`"`)
			header.Set("Content-Type", "application/octet-stream")
		}
		w, err := mw.CreatePart(header)
		require.NoError(t, err)
		_, _ = io.WriteString(w, p.content)
	}
	require.NoError(t, mw.Close())
	return mw.FormDataContentType(), buf.Bytes()
}

// encodedGraph is smallJobGraph in flinklab's JSON form.
func encodedGraph(t *testing.T, name string) (*jobgraph.JobGraph, string) {
	t.Helper()
	g := smallJobGraph(name, 2)
	data, err := jobgraph.Encode(g)
	require.NoError(t, err)
	return g, string(data)
}

// TestSubmitJob is the way Flink's CLI submits: the JobGraph file, a jar
// and the request in one multipart POST /jobs. The jar goes to the
// BlobServer under the job's ID and into the JobGraph; the Dispatcher gets
// the job; the answer is 202 with the job's URL. The plan has the edges,
// and the trace reads m1, m2.
func TestSubmitJob(t *testing.T) {
	h := newHarness(t)
	sent, graphJSON := encodedGraph(t, "wordcount")
	jar := string(jarBytes(t, "wordcount"))

	contentType, body := submitBody(t,
		requestPart(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["wordcount.jar"], "jobArtifactFileNames": []}`),
		submitPart{"file_0", "job.json", graphJSON},
		submitPart{"file_1", "wordcount.jar", jar},
	)
	r := h.post("/jobs", contentType, body)
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))
	assert.JSONEq(t, `{"jobUrl": "/jobs/`+sent.JobID.String()+`"}`, string(r.body))

	submitted := h.dispatcher.Submitted()
	require.Len(t, submitted, 1)
	g := submitted[0]
	assert.Equal(t, sent.JobID, g.JobID)
	assert.Equal(t, "wordcount", g.Name)
	key := blob.KeyOf([]byte(jar))
	assert.Equal(t, []blob.PermanentBlobKey{key}, g.UserJarBlobKeys)
	f, err := h.blobServer.Open(context.Background(), g.JobID, key)
	require.NoError(t, err, "the jar is stored under the job's ID")
	stored, _ := io.ReadAll(f)
	_ = f.Close()
	assert.Equal(t, jar, string(stored))

	var plan rest.JobPlanInfo
	decode(t, h.get("/jobs/"+g.JobID.String()+"/plan"), &plan)
	require.Len(t, plan.Plan.Nodes, 2)
	assert.Len(t, plan.Plan.Nodes[1].Inputs, 1, "the plan of a submitted job has its edges")

	assert.Equal(t, []trace.Step{trace.M1, trace.M2}, trace.Steps(h.trace.JobEvents(g.JobID)))
	assert.Contains(t, h.logs.String(), "Job 'wordcount' ("+g.JobID.String()+") submitted with 1 jar(s).")
}

// TestSubmitJobUnderV1WithoutJars: a job without jars is fine (its
// invokables need none), and the route answers under /v1 too.
func TestSubmitJobUnderV1WithoutJars(t *testing.T) {
	h := newHarness(t)
	sent, graphJSON := encodedGraph(t, "nojars")
	contentType, body := submitBody(t, requestPart(`{"jobGraphFileName": "g"}`), submitPart{"file_0", "g", graphJSON})
	r := h.post("/v1/jobs", contentType, body)
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))
	require.Len(t, h.dispatcher.Submitted(), 1)
	assert.Equal(t, sent.JobID, h.dispatcher.Submitted()[0].JobID)
	assert.Empty(t, h.dispatcher.Submitted()[0].UserJarBlobKeys)
}

// TestSubmitJobFromASavepoint: flink run -s sends the savepoint in the
// JobGraph, as Flink's JobGraph carries its SavepointRestoreSettings; the
// Dispatcher gets it.
func TestSubmitJobFromASavepoint(t *testing.T) {
	h := newHarness(t)
	sent := smallJobGraph("restored", 2)
	sent.SavepointRestoreSettings = jobgraph.SavepointRestoreSettingsForPath("/savepoints/savepoint-8d4f2a-0123456789ab", true)
	data, err := jobgraph.Encode(sent)
	require.NoError(t, err)
	contentType, body := submitBody(t, requestPart(`{"jobGraphFileName": "g"}`), submitPart{"file_0", "g", string(data)})
	r := h.post("/jobs", contentType, body)
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))
	require.Len(t, h.dispatcher.Submitted(), 1)
	assert.Equal(t, sent.SavepointRestoreSettings, h.dispatcher.Submitted()[0].SavepointRestoreSettings)
}

// TestSubmitJobMatchesFilesByTheirLastElement: a file sent as
// "../../../../tmp/job.json" (CVE-2020-17518's trick) is the file "job.json":
// nothing is written anywhere under the name the client chose.
func TestSubmitJobMatchesFilesByTheirLastElement(t *testing.T) {
	h := newHarness(t)
	_, graphJSON := encodedGraph(t, "climber")
	contentType, body := submitBody(t,
		requestPart(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["success.jar"]}`),
		submitPart{"file_0", "../../../../tmp/job.json", graphJSON},
		submitPart{"file_1", "../../../../../../tmp/success.jar", "success"},
	)
	r := h.post("/jobs", contentType, body)
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))
	for _, path := range h.storedFiles() {
		assert.NotContains(t, path, "success.jar")
		assert.NotContains(t, path, "job.json")
	}
}

// TestSubmitJobRejectsBadInput: each bad submission gets Flink's answer,
// never reaches the Dispatcher (or is refused by it), and leaves no file
// and no BLOB behind.
func TestSubmitJobRejectsBadInput(t *testing.T) {
	_, graphJSON := encodedGraph(t, "bad")
	graph := submitPart{"file_0", "job.json", graphJSON}
	jar := submitPart{"file_1", "wordcount.jar", "a jar"}
	goodRequest := requestPart(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["wordcount.jar"]}`)
	refused := func(context.Context, *jobgraph.JobGraph) error {
		return &dispatcher.JobSubmissionError{Message: "Failed to submit job.", Cause: errors.New("disk full")}
	}
	multipartOf := func(parts ...submitPart) func(t *testing.T) (string, []byte) {
		return func(t *testing.T) (string, []byte) { return submitBody(t, parts...) }
	}

	tests := []struct {
		name       string
		request    func(t *testing.T) (string, []byte)
		submit     func(context.Context, *jobgraph.JobGraph) error
		maxUpload  int64 // Config.MaxUploadSize; 0: 32 KiB
		wantStatus int
		wantErrors []string // nil: not checked
	}{
		{
			name:       "no request part",
			request:    multipartOf(graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The jobGraphFileName field must not be omitted or be null."},
		},
		{
			name:       "not multipart: an empty JSON request",
			request:    func(*testing.T) (string, []byte) { return "application/json", []byte(`{}`) },
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The jobGraphFileName field must not be omitted or be null."},
		},
		{
			name:       "a null jobGraphFileName",
			request:    multipartOf(requestPart(`{"jobGraphFileName": null}`), graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The jobGraphFileName field must not be omitted or be null."},
		},
		{
			name:       "the JobGraph file is missing",
			request:    multipartOf(requestPart(`{"jobGraphFileName": "other.json"}`), graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"JobGraph file other.json could not be found on the server."},
		},
		{
			name:       "a jar file is missing",
			request:    multipartOf(goodRequest, graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Jar file wordcount.jar could not be found on the server."},
		},
		{
			name: "an artifact file is missing",
			request: multipartOf(requestPart(`{"jobGraphFileName": "job.json",
				"jobArtifactFileNames": [{"entryName": "words", "fileName": "words.txt"}]}`), graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Artifact file words.txt could not be found on the server."},
		},
		{
			name:       "two files of the same name",
			request:    multipartOf(goodRequest, graph, jar, submitPart{"file_2", "dir/wordcount.jar", "another jar"}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The number of uploaded files was higher than the expected count. Expected: 2 Actual 3"},
		},
		{
			name:       "a JobGraph that is not flinklab's JSON",
			request:    multipartOf(goodRequest, submitPart{"file_0", "job.json", "\xac\xed\x00\x05sr\x00"}, jar),
			wantStatus: http.StatusBadRequest,
		},
		{
			name:       "a JobGraph with an unknown field",
			request:    multipartOf(goodRequest, submitPart{"file_0", "job.json", `{"jobId": "` + api.NewJobID().String() + `", "colour": "red"}`}, jar),
			wantStatus: http.StatusBadRequest,
		},
		{
			name:       "a request with an unknown field",
			request:    multipartOf(requestPart(`{"jobGraphFileName": "job.json", "jobName": "wordcount"}`), graph),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JobSubmitRequestBody.", `json: unknown field "jobName"`},
		},
		{
			name:       "a request that is not JSON",
			request:    multipartOf(requestPart(`jobGraphFileName=job.json`), graph),
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "a request part over 1 MiB",
			request: multipartOf(requestPart(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["`+strings.Repeat("x", 1<<20)+`"]}`),
				graph),
			maxUpload:  2 << 20,
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Request did not match expected format JobSubmitRequestBody.", "The JSON body is larger than 1048576 bytes."},
		},
		{
			name:       "larger than MaxUploadSize",
			request:    multipartOf(goodRequest, graph, submitPart{"file_1", "wordcount.jar", strings.Repeat("x", 64<<10)}),
			wantStatus: http.StatusRequestEntityTooLarge,
			wantErrors: []string{"content length exceeded 32768 bytes. Try to raise [rest.server.max-content-length]"},
		},
		{
			name:       "a malformed multipart body",
			request:    func(*testing.T) (string, []byte) { return "multipart/form-data; boundary=X", []byte("--X\r\nbroken") },
			wantStatus: http.StatusBadRequest,
		},
		{
			name:       "the Dispatcher refuses the job",
			request:    multipartOf(goodRequest, graph, jar),
			submit:     refused,
			wantStatus: http.StatusInternalServerError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *rest.Config) { c.MaxUploadSize = cmp.Or(tt.maxUpload, 32<<10) })
			h.dispatcher.SubmitJobFunc = tt.submit
			contentType, body := tt.request(t)
			r := h.post("/jobs", contentType, body)
			assert.Equal(t, tt.wantStatus, r.status, string(r.body))
			if tt.wantErrors != nil {
				assert.Equal(t, tt.wantErrors, r.errors)
			}
			if tt.submit == nil {
				assert.Empty(t, h.dispatcher.Submitted(), "the Dispatcher got the job")
			}
			assert.Empty(t, h.storedFiles(), "a refused submission stored files")
			assert.Empty(t, h.trace.Events(), "a refused submission traced steps")
		})
	}
}

// TestRefusedSubmissionKeepsTheBlobsOfTheRunningJob: a second submission
// under the JobID of a running job is refused as a duplicate. It takes
// back the jar it added, and not the one the running job stored, even
// when both sent the same jar.
func TestRefusedSubmissionKeepsTheBlobsOfTheRunningJob(t *testing.T) {
	h := newHarness(t)
	sent, graphJSON := encodedGraph(t, "twice")
	request := requestPart(`{"jobGraphFileName": "job.json", "jobJarFileNames": ["a.jar", "b.jar"]}`)
	contentType, body := submitBody(t, request, submitPart{"f0", "job.json", graphJSON},
		submitPart{"f1", "a.jar", "jar a"}, submitPart{"f2", "b.jar", "jar b"})
	r := h.post("/jobs", contentType, body)
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))

	h.dispatcher.SubmitJobFunc = func(context.Context, *jobgraph.JobGraph) error {
		return &dispatcher.DuplicateJobSubmissionError{JobID: sent.JobID}
	}
	contentType, body = submitBody(t, request, submitPart{"f0", "job.json", graphJSON},
		submitPart{"f1", "a.jar", "jar a"}, submitPart{"f2", "b.jar", "jar b, changed"})
	r = h.post("/jobs", contentType, body)
	require.Equal(t, http.StatusInternalServerError, r.status, string(r.body))

	for _, tt := range []struct {
		jar  string
		want bool
	}{{"jar a", true}, {"jar b", true}, {"jar b, changed", false}} {
		f, err := h.blobServer.Open(context.Background(), sent.JobID, blob.KeyOf([]byte(tt.jar)))
		if err == nil {
			_ = f.Close()
		}
		assert.Equal(t, tt.want, err == nil, "%q stored: %v", tt.jar, err)
	}
}
