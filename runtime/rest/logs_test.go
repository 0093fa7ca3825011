package rest_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/rest"
)

// logHarness is a harness whose Config.LogDir is <tmp>/log holding two
// log files and a subdirectory, next to <tmp>/secret.txt, a file outside
// the log directory that no request may read, and a symbolic link in the
// log directory that points to it.
func logHarness(t *testing.T) *harness {
	t.Helper()
	base := t.TempDir()
	logDir := filepath.Join(base, "log")
	mustMkdir(t, filepath.Join(logDir, "archive"))
	writeFile(t, filepath.Join(logDir, "jobmanager.log"), "INFO Starting rest endpoint.\n")
	writeFile(t, filepath.Join(logDir, "jobmanager.out"), "")
	writeFile(t, filepath.Join(base, "secret.txt"), "the secret\n")
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(logDir, "secret.log")))
	mtime := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(logDir, "jobmanager.log"), mtime, mtime))
	require.NoError(t, os.Chtimes(filepath.Join(logDir, "jobmanager.out"), mtime, mtime))
	return newHarness(t, func(c *rest.Config) { c.LogDir = logDir })
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

// TestJobManagerLogs: the list shows the regular files of the log
// directory, by name; each can be read as text/plain.
func TestJobManagerLogs(t *testing.T) {
	h := logHarness(t)
	mtime := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()
	for _, prefix := range []string{"", "/v1"} {
		var list rest.LogListInfo
		decode(t, h.get(prefix+"/jobmanager/logs"), &list)
		assert.Equal(t, rest.LogListInfo{Logs: []rest.LogInfo{
			{Name: "jobmanager.log", Size: 29, MTime: mtime},
			{Name: "jobmanager.out", Size: 0, MTime: mtime},
		}}, list, "no subdirectory, no symbolic link")

		status, contentType, body := rawGet(t, h, prefix+"/jobmanager/logs/jobmanager.log")
		assert.Equal(t, http.StatusOK, status)
		assert.Equal(t, "text/plain", contentType)
		assert.Equal(t, "INFO Starting rest endpoint.\n", body)
	}
}

// TestJobManagerLogsWithoutALogDirectory: an empty list, and no file.
func TestJobManagerLogsWithoutALogDirectory(t *testing.T) {
	h := newHarness(t)
	r := h.get("/jobmanager/logs")
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"logs": []}`, string(r.body))

	status, _, body := rawGet(t, h, "/jobmanager/logs/jobmanager.log")
	assert.Equal(t, http.StatusNotFound, status)
	assert.JSONEq(t, `{"errors": ["This file does not exist in JobManager log dir."]}`, body)
}

// TestJobManagerLogsReplaysCVE202017519 sends the requests of
// CVE-2020-17519, byte for byte as on the wire, and others that try to
// climb out of the log directory. Each is Flink's 404 and none returns a
// byte of a file outside the directory: the endpoint keeps only the last
// element of the name, as Flink's fix does, and opens it inside the log
// directory only.
func TestJobManagerLogsReplaysCVE202017519(t *testing.T) {
	h := logHarness(t)
	notFoundBody := `{"errors":["This file does not exist in JobManager log dir."]}`
	tests := []struct {
		name, path string
		wantBody   string
	}{
		// vulhub's request: "../" written as the double-encoded "..%252f".
		{"double-encoded, to /etc/passwd",
			"/jobmanager/logs/..%252f..%252f..%252f..%252f..%252f..%252f..%252f..%252f..%252f..%252f..%252fetc%252fpasswd", notFoundBody},
		{"double-encoded, to the file next to the log directory", "/jobmanager/logs/..%252fsecret.txt", notFoundBody},
		{"single-encoded, to /etc/passwd", "/jobmanager/logs/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd", notFoundBody},
		{"single-encoded, to the file next to the log directory", "/jobmanager/logs/..%2fsecret.txt", notFoundBody},
		{"encoded absolute path", "/jobmanager/logs/%2fetc%2fpasswd", notFoundBody},
		{"plain ../, to /etc/passwd", "/jobmanager/logs/../../../../../../etc/passwd",
			`{"errors":["Not found: /jobmanager/logs/../../../../../../etc/passwd"]}`},
		{"plain ../, to the file next to the log directory", "/jobmanager/logs/../secret.txt",
			`{"errors":["Not found: /jobmanager/logs/../secret.txt"]}`},
		{"..", "/jobmanager/logs/..%2f..", notFoundBody},
		{"a symbolic link out of the log directory", "/jobmanager/logs/secret.log", notFoundBody},
		{"a subdirectory", "/jobmanager/logs/archive", notFoundBody},
		{"no such file", "/jobmanager/logs/taskmanager.log", notFoundBody},
	}
	for _, tt := range tests {
		for _, prefix := range []string{"", "/v1"} {
			status, contentType, body := rawGet(t, h, prefix+tt.path)
			assert.Equal(t, http.StatusNotFound, status, "%s%s", prefix, tt.name)
			assert.Equal(t, "application/json; charset=UTF-8", contentType, tt.name)
			want := tt.wantBody
			if prefix != "" && want != notFoundBody {
				want = `{"errors":["Not found: /v1` + want[len(`{"errors":["Not found: `):]
			}
			assert.JSONEq(t, want, body, "%s%s", prefix, tt.name)
			assert.NotContains(t, body, "the secret", tt.name)
			assert.NotContains(t, body, "root:", tt.name)
		}
	}
	// The name is the last element: "..%2fjobmanager.log" is the log file.
	status, _, body := rawGet(t, h, "/jobmanager/logs/..%2fjobmanager.log")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "INFO Starting rest endpoint.\n", body)
}

// rawGet sends "GET <path> HTTP/1.1" with the path exactly as given, on a
// connection of its own, so that no client cleans or re-encodes it, and
// returns the status, Content-Type and body.
func rawGet(t *testing.T, h *harness, path string) (int, string, string) {
	t.Helper()
	conn, err := net.Dial("tcp", h.server.Address())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, h.server.Address())
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}
