package rest_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
)

// TestOwnEndpointsRefuseOtherSites: /cluster/faults and
// /jobs/{jobid}/trace answer only requests of the endpoint itself. A
// cross-site POST with Content-Type text/plain, sent by a page of
// evil.example through a name that resolves to 127.0.0.1 (DNS rebinding),
// is refused with 403 and arms nothing; so is each of its parts alone, and
// so is a page of any other host or port, an IP address included. The
// endpoint's own page, whose Origin names the host and port the request
// was sent to, and clients without an Origin (curl, the flink CLI) are
// served.
func TestOwnEndpointsRefuseOtherSites(t *testing.T) {
	h := newHarness(t)
	_, port, err := net.SplitHostPort(h.server.Address())
	require.NoError(t, err)
	self := "127.0.0.1:" + port
	fault := []byte(`{"fault": "m9"}`)

	tests := []struct {
		name                      string
		host, origin, contentType string // "" leaves the header out (Host: the address dialled)
		wantStatus                int
		wantMessage               string // a part of the first message
	}{
		{"DNS rebinding: another site's page, its own name, text/plain", "evil.example:" + port, "http://evil.example:" + port, "text/plain",
			http.StatusForbidden, `The Host "evil.example:` + port + `" does not name this rest endpoint`},
		{"DNS rebinding: a foreign name, no Origin", "evil.example:" + port, "", "application/json",
			http.StatusForbidden, "does not name this rest endpoint"},
		{"a cross-site form: our Host, another site's Origin", self, "http://evil.example", "application/x-www-form-urlencoded",
			http.StatusForbidden, `The Origin "http://evil.example" is not this rest endpoint`},
		{"another site's JSON", self, "http://evil.example", "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a sandboxed page: Origin null", self, "null", "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a page of another port of this machine", self, "http://127.0.0.1:1", "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a page of another IP address, the same port", self, "http://203.0.113.5:" + port, "application/json",
			http.StatusForbidden, `The Origin "http://203.0.113.5:` + port + `" is not this rest endpoint`},
		{"a page of another IP address, no port", "127.0.0.1", "http://203.0.113.5", "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a page at localhost asking 127.0.0.1", self, "http://localhost:" + port, "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a page at 127.0.0.1 asking localhost", "localhost:" + port, "http://" + self, "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"a page at port 80 asking another port", self, "http://127.0.0.1", "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"https is not this endpoint", self, "https://" + self, "application/json",
			http.StatusForbidden, "is not this rest endpoint"},
		{"no Origin, but text/plain", self, "", "text/plain",
			http.StatusUnsupportedMediaType, `The request body must be sent as application/json, not "text/plain".`},
		{"no Origin, no Content-Type", self, "", "",
			http.StatusUnsupportedMediaType, "must be sent as application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(ownRequest(t, h, http.MethodPost, "/cluster/faults", tt.host, tt.origin, tt.contentType, fault))
			assert.Equal(t, tt.wantStatus, r.status, "%s", r.body)
			require.NotEmpty(t, r.errors)
			assert.Contains(t, r.errors[0], tt.wantMessage)
			assert.Empty(t, h.faults.Armed(), "a refused request armed a fault")
		})
	}

	// The trace is read with GET: no body, but the same Host and Origin.
	jobID := api.NewJobID()
	r := h.do(ownRequest(t, h, http.MethodGet, "/jobs/"+jobID.String()+"/trace", self, "http://evil.example", "", nil))
	assert.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
	r = h.do(ownRequest(t, h, http.MethodGet, "/v1/jobs/"+jobID.String()+"/trace", "rebound.example:"+port, "", "", nil))
	assert.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
	r = h.do(ownRequest(t, h, http.MethodDelete, "/cluster/faults", self, "http://evil.example", "", nil))
	assert.Equal(t, http.StatusForbidden, r.status, "%s", r.body)

	// Served: curl, and the endpoint's own page, at whichever of its names
	// and ports the request was sent to.
	served := []struct{ name, host, origin, contentType string }{
		{"curl: no Origin", "", "", "application/json"},
		{"its own page at 127.0.0.1", self, "http://" + self, "application/json; charset=UTF-8"},
		{"its own page at localhost, in any case", "LocalHost:" + port, "http://localhost:" + port, "application/json"},
		{"its own page at ::1", "[::1]:" + port, "http://[::1]:" + port, "application/json"},
		{"its own page on the default port", "127.0.0.1", "http://127.0.0.1", "application/json"},
		{"its own page on the default port, written out", "127.0.0.1:80", "http://127.0.0.1", "application/json"},
	}
	for _, tt := range served {
		r := h.do(ownRequest(t, h, http.MethodPost, "/cluster/faults", tt.host, tt.origin, tt.contentType, fault))
		assert.Equal(t, http.StatusOK, r.status, "%s: %s", tt.name, r.body)
	}
	assert.Len(t, h.faults.Armed(), len(served))
	r = h.do(ownRequest(t, h, http.MethodDelete, "/cluster/faults", self, "http://"+self, "", nil))
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Empty(t, h.faults.Armed())
}

// TestFlinksEndpointsKeepFlinksCORS: Flink's endpoints answer any origin,
// as Flink's do, and every answer carries Flink's
// Access-Control-Allow-Origin: "*" by default, the value of
// web.access-control-allow-origin (Config.AccessControlAllowOrigin) when
// set; errors and unknown paths too.
func TestFlinksEndpointsKeepFlinksCORS(t *testing.T) {
	for _, tt := range []struct{ configured, want string }{
		{"", "*"},
		{"https://dashboard.example", "https://dashboard.example"},
	} {
		h := newHarness(t, func(c *rest.Config) { c.AccessControlAllowOrigin = tt.configured })
		for _, path := range []string{"/config", "/jars", "/no/such/path", "/jobs/" + api.NewJobID().String()} {
			req := ownRequest(t, h, http.MethodGet, path, "evil.example", "http://evil.example", "", nil)
			resp, err := h.client.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, tt.want, resp.Header.Get("Access-Control-Allow-Origin"), path)
			if path == "/config" || path == "/jars" {
				assert.Equal(t, http.StatusOK, resp.StatusCode, "Flink's %s answers any site", path)
			}
		}
		// A jar upload from another site's form works, as in Flink.
		contentType, body := multipartBody(t, filePart{"jarfile", "wordcount.jar", jarBytes(t, "wordcount")})
		r := h.do(ownRequest(t, h, http.MethodPost, "/jars/upload", "evil.example", "http://evil.example", contentType, body))
		assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	}
}

// TestOwnEndpointsLetNoOtherSiteRead: flinklab's own endpoints send no
// Access-Control-Allow-Origin, whatever web.access-control-allow-origin
// says, so a browser shows their answers to no page of another site: not
// the faults armed, not a job's trace. The endpoint's own page needs none
// to read them, and curl ignores it.
func TestOwnEndpointsLetNoOtherSiteRead(t *testing.T) {
	for _, configured := range []string{"", "*", "https://dashboard.example"} {
		h := newHarness(t, func(c *rest.Config) { c.AccessControlAllowOrigin = configured })
		_, port, err := net.SplitHostPort(h.server.Address())
		require.NoError(t, err)
		self := "127.0.0.1:" + port
		trace := "/jobs/" + api.NewJobID().String() + "/trace"
		for _, tt := range []struct {
			name, method, path, origin string
			wantStatus                 int
		}{
			{"curl lists the faults", http.MethodGet, "/cluster/faults", "", http.StatusOK},
			{"its own page lists the faults", http.MethodGet, "/v1/cluster/faults", "http://" + self, http.StatusOK},
			{"another site's page is refused", http.MethodGet, "/cluster/faults", "http://evil.example", http.StatusForbidden},
			{"curl clears the faults", http.MethodDelete, "/cluster/faults", "", http.StatusOK},
			{"a trace of a job nobody knows", http.MethodGet, trace, "", http.StatusNotFound},
			{"another site's page asks for a trace", http.MethodGet, trace, "http://evil.example", http.StatusForbidden},
		} {
			resp, err := h.client.Do(ownRequest(t, h, tt.method, tt.path, self, tt.origin, "", nil))
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, tt.wantStatus, resp.StatusCode, "%s (web.access-control-allow-origin %q)", tt.name, configured)
			assert.Empty(t, resp.Header.Values("Access-Control-Allow-Origin"), "%s (web.access-control-allow-origin %q)", tt.name, configured)
		}
	}
}

// ownRequest is a request with the given Host ("" keeps the address
// dialled), Origin and Content-Type ("" leaves them out).
func ownRequest(t *testing.T, h *harness, method, path, host, origin, contentType string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, h.baseURL+path, bytes.NewReader(body))
	require.NoError(t, err)
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// TestBadRequestsGetFlinksAnswers: requests a client may send to break the
// endpoint (a jar name with backslashes or of 219 bytes, a jobId of all
// zeros or one already taken, a jar that does not exist) each get Flink's
// answer, and no error answer shows where the server keeps its files.
func TestBadRequestsGetFlinksAnswers(t *testing.T) {
	t.Run("a jar name with backslashes is stored, listed, run and deleted under that name", func(t *testing.T) {
		h := newHarness(t)
		name := `C:\jobs\wordcount.jar` // as an old Windows browser sends it
		jarID := h.uploadJar(name, "wordcount")
		assert.True(t, strings.HasSuffix(jarID, "_"+name), jarID)
		var list rest.JarListInfo
		decode(t, h.get("/jars"), &list)
		require.Len(t, list.Files, 1)
		assert.Equal(t, name, list.Files[0].Name)
		r := h.post("/jars/"+urlPathEscape(jarID)+"/run", "application/json", nil)
		assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
		r = h.delete("/jars/" + urlPathEscape(jarID))
		assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.NoFileExists(t, filepath.Join(h.jarDir, jarID))
	})

	t.Run("a name too long to be stored is refused before it is written", func(t *testing.T) {
		h := newHarness(t)
		longest := strings.Repeat("n", 218-len(".jar")) + ".jar"
		jarID := h.uploadJar(longest, "wordcount")
		assert.Len(t, jarID, 255)
		r := h.post("/jars/"+jarID+"/run", "application/json", nil)
		assert.Equal(t, http.StatusOK, r.status, "the longest name runs: %s", r.body)

		before := h.storedFiles()
		r = h.upload(filePart{"jarfile", "n" + longest, jarBytes(t, "wordcount")})
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, []string{"The file name is too long.",
			"A jar is stored as <uuid>_<name>, and a file name has at most 255 bytes, so a jar's name may have at most 218; this one has 219."}, r.errors)
		assert.Equal(t, before, h.storedFiles(), "nothing was stored")
		r = h.post("/jars/"+strings.Repeat("x", 300)+".jar/run", "application/json", nil)
		assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)
		assertNoServerPath(t, h, r)
	})

	t.Run("a jobId of all zeros is refused", func(t *testing.T) {
		h := newHarness(t)
		jarID := h.uploadJar("wordcount.jar", "wordcount")
		r := h.post("/jars/"+jarID+"/run", "application/json", []byte(`{"jobId": "00000000000000000000000000000000"}`))
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, []string{"Request did not match expected format JarRunRequestBody.",
			"The jobId 00000000000000000000000000000000 is reserved: it stands for no job. Leave jobId out for a random one."}, r.errors)
		assert.Empty(t, h.dispatcher.Submitted())
		assert.Empty(t, h.programs.Calls(), "no program ran")
	})

	t.Run("a duplicate jobId is Flink's 400", func(t *testing.T) {
		h := newHarness(t)
		h.dispatcher.SubmitJobFunc = func(_ context.Context, g *jobgraph.JobGraph) error {
			if slices.ContainsFunc(h.dispatcher.Submitted(), func(known *jobgraph.JobGraph) bool { return known.JobID == g.JobID }) {
				return &dispatcher.DuplicateJobSubmissionError{JobID: g.JobID}
			}
			return nil
		}
		jarID := h.uploadJar("wordcount.jar", "wordcount")
		body := []byte(`{"jobId": "` + api.NewJobID().String() + `"}`)
		r := h.post("/jars/"+jarID+"/run", "application/json", body)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		r = h.post("/jars/"+jarID+"/run", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, []string{"Could not execute application.", "DuplicateJobSubmissionException: Job has already been submitted."}, r.errors)
	})

	t.Run("no error answer shows a server path", func(t *testing.T) {
		h := newHarness(t)
		missing := "00000000-0000-4000-8000-000000000000_missing.jar"
		for _, r := range []response{
			h.post("/jars/"+missing+"/run", "application/json", nil),
			h.get("/jars/" + missing + "/plan"),
			h.delete("/jars/" + missing),
		} {
			assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)
			assertNoServerPath(t, h, r)
		}
		r := h.post("/jars/"+missing+"/run", "application/json", nil)
		assert.Equal(t, []string{"Jar file <web.upload.dir>/flink-web-upload/" + missing + " does not exist"}, r.errors)
	})
}

func assertNoServerPath(t *testing.T, h *harness, r response) {
	t.Helper()
	assert.NotContains(t, string(r.body), h.uploadDir, "an answer shows the upload directory")
	assert.NotContains(t, string(r.body), os.TempDir()+"/", "an answer shows a path of the server")
}

func urlPathEscape(s string) string {
	return strings.NewReplacer(`\`, "%5C").Replace(s)
}

// TestJarsThatCostTooMuchToOpenAreRefused: a jar is checked from its temp
// file with bounded memory; one with too many entries, too large a
// central directory or too large a manifest is refused with a clear
// message, and nothing is stored or listed.
func TestJarsThatCostTooMuchToOpenAreRefused(t *testing.T) {
	manifest := "Manifest-Version: 1.0\r\nProgram-Class: wordcount\r\n\r\n"
	tests := []struct {
		name       string
		jar        []byte
		wantReason string
	}{
		{"one entry too many", zipOf(t, manifest, client.MaxJarEntries, 4),
			"'many.jar' has too many entries: a job jar may have at most 10000 entries, listed in a central directory of at most 1048576 bytes"},
		{"300,000 empty entries: a central directory over its bound", zipOf(t, manifest, 300_000, 4),
			"'many.jar' has too many entries: a job jar may have at most 10000 entries, listed in a central directory of at most 1048576 bytes"},
		{"a manifest over 64 KiB", zipOf(t, manifest+strings.Repeat("X-Padding: 0123456789abcdef\r\n", 3000)+"\r\n", 0, 4),
			"The manifest of jar file 'many.jar' is larger than 65536 bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.upload(filePart{"jarfile", "many.jar", tt.jar})
			assert.Equal(t, http.StatusBadRequest, r.status, "%.300s", r.body)
			assert.Equal(t, []string{"The uploaded file is not a valid job jar.", tt.wantReason}, r.errors)
			assert.Empty(t, h.storedFiles(), "a refused jar left a file")
			var list rest.JarListInfo
			decode(t, h.get("/jars"), &list)
			assert.Empty(t, list.Files)
		})
	}

	t.Run("the most entries a jar may have", func(t *testing.T) {
		h := newHarness(t)
		r := h.upload(filePart{"jarfile", "many.jar", zipOf(t, manifest, client.MaxJarEntries-1, 4)})
		assert.Equal(t, http.StatusOK, r.status, "%.300s", r.body)
	})
}

// zipOf is a jar with the given manifest and n more empty entries, each
// named by nameLen bytes of a counter.
func zipOf(t *testing.T, manifest string, n, nameLen int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := newZipWriter(&buf)
	zw.add(t, client.ManifestPath, []byte(manifest))
	for i := range n {
		zw.add(t, zipEntryName(i, nameLen), nil)
	}
	zw.close(t)
	return buf.Bytes()
}
