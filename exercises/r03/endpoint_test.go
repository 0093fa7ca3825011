package r03

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
)

// endpoint is the cluster's REST endpoint, served in-process: the
// handlers of a real rest.Server, called without a socket. The scenario
// runs in a synctest bubble, to let the ResourceManager's five-minute
// start-up period pass in no time, and a goroutine waiting on a socket
// would hold the bubble's clock still.
type endpoint struct {
	t       *testing.T
	handler http.Handler
}

// startEndpoint creates a REST endpoint for cluster, logging to logs, and
// closes it when the test ends.
func startEndpoint(t *testing.T, cluster *minicluster.MiniCluster, logs *scenario.Logs) *endpoint {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return &endpoint{t: t, handler: scenario.InProcessREST(t, cluster, filepath.Join(t.TempDir(), "web"), logger)}
}

// do sends one request and reads the answer's JSON into answer.
func (e *endpoint) do(method, path, contentType string, body []byte, answer any) {
	e.t.Helper()
	req := httptest.NewRequestWithContext(e.t.Context(), method, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	require.Equal(e.t, http.StatusOK, rec.Code, "%s %s: %s", method, path, rec.Body)
	require.NoError(e.t, json.Unmarshal(rec.Body.Bytes(), answer), "%s %s: %s", method, path, rec.Body)
}

// uploadJar is POST /jars/upload with the jar in the form field "jarfile"
// (step m1); it returns the jar ID.
func (e *endpoint) uploadJar(fileName string, jar []byte) string {
	e.t.Helper()
	contentType, body := scenario.Multipart(e.t, scenario.Part{Field: "jarfile", FileName: fileName, Content: jar})
	var answer rest.JarUploadResponseBody
	e.do(http.MethodPost, "/jars/upload", contentType, body, &answer)
	return filepath.Base(answer.Filename)
}

// runJar is POST /jars/{jarid}/run (step m2); it returns the JobID the
// Dispatcher accepted (step m3).
func (e *endpoint) runJar(jarID string, parallelism int) api.JobID {
	e.t.Helper()
	body, err := json.Marshal(client.JarRunRequest{Parallelism: parallelism})
	require.NoError(e.t, err)
	var answer rest.JarRunResponseBody
	e.do(http.MethodPost, "/jars/"+jarID+"/run", "application/json", body, &answer)
	return answer.JobID
}
