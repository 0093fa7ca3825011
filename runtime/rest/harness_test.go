package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/client"
	"flinklab/runtime/fault"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// idOpts lets cmp compare the ID types, whose fields are unexported.
var idOpts = cmpopts.EquateComparable(api.JobID{}, api.JobVertexID{})

// harness is a real Server on 127.0.0.1:0 with a fake Dispatcher, a fake
// ProgramRunner, a real BlobServer in the test's temp dirs, and a real
// trace.Recorder and fault.Injector.
type harness struct {
	t          testing.TB
	server     *rest.Server
	baseURL    string
	client     *http.Client
	dispatcher *fakeDispatcher
	rm         *fakeResourceManager
	programs   *fakeProgramRunner
	trace      *trace.Recorder
	faults     *fault.Injector
	blobServer *blob.BlobServer
	uploadDir  string
	jarDir     string
	blobDir    string
	logs       *logbuf.Buffer
}

func newHarness(t testing.TB, configure ...func(*rest.Config)) *harness {
	t.Helper()
	return newHarnessWithTrace(t, trace.NewRecorder(), configure...)
}

// newHarnessWithTrace is newHarness with the given recorder as Deps.Trace;
// nil runs the server without one.
func newHarnessWithTrace(t testing.TB, rec *trace.Recorder, configure ...func(*rest.Config)) *harness {
	t.Helper()
	return newHarnessWith(t, rec, true, configure...)
}

// newHarnessWith is newHarness with the given recorder as Deps.Trace (nil
// runs the server without one) and, if withFaults, a fault.Injector as
// Deps.Faults that logs to the harness's logs.
func newHarnessWith(t testing.TB, rec *trace.Recorder, withFaults bool, configure ...func(*rest.Config)) *harness {
	t.Helper()
	h := &harness{
		t:          t,
		dispatcher: &fakeDispatcher{},
		rm:         newFakeResourceManager(),
		programs:   &fakeProgramRunner{},
		trace:      rec,
		uploadDir:  filepath.Join(t.TempDir(), "web"),
		blobDir:    filepath.Join(t.TempDir(), "blobs"),
		logs:       &logbuf.Buffer{},
	}
	h.jarDir = filepath.Join(h.uploadDir, "flink-web-upload")
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if withFaults {
		h.faults = fault.NewInjector(logger)
	}
	blobServer, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: h.blobDir, Logger: logger})
	if err != nil {
		t.Fatalf("NewBlobServer: %v", err)
	}
	cfg := rest.Config{UploadDir: h.uploadDir, Logger: logger}
	for _, c := range configure {
		c(&cfg)
	}
	h.blobServer = blobServer
	h.server, err = rest.NewServer(cfg, rest.Deps{
		Dispatcher: h.dispatcher, ResourceManager: h.rm, BlobServer: blobServer, Programs: h.programs, Trace: h.trace, Faults: h.faults,
		Configuration: map[string]string{"taskmanager.numberOfTaskSlots": "2"},
	})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	if err := h.server.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	transport := &http.Transport{}
	h.client = &http.Client{Transport: transport}
	h.baseURL = "http://" + h.server.Address()
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		if err := h.server.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		_ = blobServer.Close()
	})
	return h
}

// response is a decoded answer: its status, raw body, and error messages
// (for an error body).
type response struct {
	status int
	body   []byte
	errors []string
}

func (h *harness) do(req *http.Request) response {
	h.t.Helper()
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("read the response: %v", err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		h.t.Errorf("%s %s: Content-Type %q, want application/json", req.Method, req.URL, ct)
	}
	r := response{status: resp.StatusCode, body: body}
	if resp.StatusCode >= 300 { // Flink's 308 for a removed mode is an error too
		var e rest.ErrorResponseBody
		if err := json.Unmarshal(body, &e); err != nil || len(e.Errors) == 0 {
			h.t.Errorf("%s %s: status %d with body %s, want {\"errors\": [...]}", req.Method, req.URL, resp.StatusCode, body)
		}
		r.errors = e.Errors
	}
	return r
}

func (h *harness) get(path string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.baseURL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(req)
}

func (h *harness) post(path, contentType string, body []byte) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.baseURL+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return h.do(req)
}

func (h *harness) delete(path string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodDelete, h.baseURL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(req)
}

// filePart is one file of a multipart upload.
type filePart struct {
	field, filename string
	content         []byte
}

// upload posts the files as multipart/form-data to /jars/upload.
func (h *harness) upload(files ...filePart) response {
	h.t.Helper()
	contentType, body := multipartBody(h.t, files...)
	return h.post("/jars/upload", contentType, body)
}

func multipartBody(t testing.TB, files ...filePart) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range files {
		var w io.Writer
		var err error
		if f.filename == "" {
			w, err = mw.CreateFormField(f.field)
		} else {
			w, err = mw.CreateFormFile(f.field, f.filename)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(f.content)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// uploadJar uploads a valid jar and returns its jar ID.
func (h *harness) uploadJar(name, programClass string) string {
	h.t.Helper()
	r := h.upload(filePart{"jarfile", name, jarBytes(h.t, programClass)})
	if r.status != http.StatusOK {
		h.t.Fatalf("upload %s: status %d, body %s", name, r.status, r.body)
	}
	var body rest.JarUploadResponseBody
	decode(h.t, r, &body)
	return filepath.Base(body.Filename)
}

func jarBytes(t testing.TB, programClass string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := client.WriteJar(&buf, programClass, map[string][]byte{"wordcount/hamlet.txt": []byte("To be, or not to be")}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decode(t testing.TB, r response, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// storedFiles lists every regular file under the upload and BLOB
// directories: what a request left on disk.
func (h *harness) storedFiles() []string {
	h.t.Helper()
	var files []string
	for _, root := range []string{h.uploadDir, h.blobDir} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			h.t.Fatalf("walk %s: %v", root, err)
		}
	}
	return files
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
