package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

func TestRestClusterClientSpeaksFlinksRestAPI(t *testing.T) {
	jobID := api.NewJobID()
	var gotJar []byte
	var gotRun JarRunRequest
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jars/upload", func(w http.ResponseWriter, r *http.Request) {
		file, header, err := r.FormFile("jarfile")
		require.NoError(t, err)
		assert.Equal(t, "wordcount.jar", header.Filename)
		gotJar, _ = io.ReadAll(file)
		_, _ = io.WriteString(w, `{"filename": "/tmp/flink-web-upload/1234_wordcount.jar", "status": "success"}`)
	})
	mux.HandleFunc("POST /jars/{jarid}/run", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "1234_wordcount.jar", r.PathValue("jarid"))
		require.NoError(t, json.NewDecoder(r.Body).Decode(&gotRun))
		_, _ = io.WriteString(w, `{"jobid": "`+jobID.String()+`"}`)
	})
	mux.HandleFunc("GET /jobs/{jobid}/status", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, jobID.String(), r.PathValue("jobid"))
		_, _ = io.WriteString(w, `{"status": "RUNNING"}`)
	})
	mux.HandleFunc("POST /jars/missing/run", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"errors": ["Jar file /tmp/missing does not exist"]}`)
	})
	server := httptest.NewServer(mux)
	defer server.Close()
	c := NewRestClusterClient(strings.TrimPrefix(server.URL, "http://"))
	ctx := context.Background()

	jarID, err := c.UploadJar(ctx, "wordcount.jar", []byte("PK jar bytes"))
	require.NoError(t, err)
	assert.Equal(t, "1234_wordcount.jar", jarID)
	assert.Equal(t, []byte("PK jar bytes"), gotJar)

	got, err := c.RunJar(ctx, jarID, JarRunRequest{ProgramArgsList: []string{"--output", "collect"}, Parallelism: 2})
	require.NoError(t, err)
	assert.Equal(t, jobID, got)
	assert.Equal(t, JarRunRequest{ProgramArgsList: []string{"--output", "collect"}, Parallelism: 2}, gotRun)

	status, err := c.JobStatus(ctx, jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobRunning, status)

	_, err = c.RunJar(ctx, "missing", JarRunRequest{})
	var restErr *RestError
	require.ErrorAs(t, err, &restErr)
	assert.Equal(t, http.StatusNotFound, restErr.Status)
	assert.Equal(t, []string{"Jar file /tmp/missing does not exist"}, restErr.Errors)
}

// TestRestClusterClientEscapesPathSegments: a jar ID is one path segment,
// whatever characters it holds, so it cannot reach another endpoint or turn
// into a query.
func TestRestClusterClientEscapesPathSegments(t *testing.T) {
	jobID := api.NewJobID()
	var gotPaths []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jars/{jarid}/run", func(w http.ResponseWriter, r *http.Request) {
		gotPaths = append(gotPaths, r.PathValue("jarid"))
		_, _ = io.WriteString(w, `{"jobid": "`+jobID.String()+`"}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request for %s reached no run endpoint", r.URL)
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"errors": ["Not found"]}`)
	})
	server := httptest.NewServer(mux)
	defer server.Close()
	c := NewRestClusterClient(strings.TrimPrefix(server.URL, "http://"))

	for _, jarID := range []string{"../x.jar", "a b?c=d#e.jar", "100%_x.jar"} {
		got, err := c.RunJar(context.Background(), jarID, JarRunRequest{})
		require.NoError(t, err, jarID)
		assert.Equal(t, jobID, got)
	}
	assert.Equal(t, []string{"../x.jar", "a b?c=d#e.jar", "100%_x.jar"}, gotPaths)
}

// TestRestClusterClientSendRequest: SendRequest reads any endpoint, with
// the errors of the other methods.
func TestRestClusterClientSendRequest(t *testing.T) {
	jobID := api.NewJobID()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jobs/{jobid}/trace", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("jobid") != jobID.String() {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"errors": ["Job `+r.PathValue("jobid")+` not found"]}`)
			return
		}
		_, _ = io.WriteString(w, `{"events": [{"step": "m3", "from": "REST", "to": "Dispatcher"}]}`)
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<html>`)
	})
	server := httptest.NewServer(mux)
	defer server.Close()
	c := NewRestClusterClient(strings.TrimPrefix(server.URL, "http://"))
	ctx := context.Background()

	var answer struct {
		Events []struct{ Step, From, To string } `json:"events"`
	}
	require.NoError(t, c.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/trace", &answer))
	assert.Equal(t, []struct{ Step, From, To string }{{"m3", "REST", "Dispatcher"}}, answer.Events)

	unknown := api.NewJobID()
	err := c.SendRequest(ctx, http.MethodGet, "/jobs/"+unknown.String()+"/trace", &answer)
	var restErr *RestError
	require.ErrorAs(t, err, &restErr)
	assert.Equal(t, http.StatusNotFound, restErr.Status)
	assert.Equal(t, []string{"Job " + unknown.String() + " not found"}, restErr.Errors)

	err = c.SendRequest(ctx, http.MethodGet, "/broken", &answer)
	assert.ErrorContains(t, err, "GET /broken: unexpected answer")

	err = c.SendRequest(ctx, http.MethodGet, "jobs/overview", &answer)
	assert.ErrorContains(t, err, `the path must start with "/"`)
}
