package rest_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/client"
	"flinklab/runtime/rest"
)

// TestUploadRejectsBadInput sends every kind of bad upload, and checks the
// status, Flink's message, and that nothing was stored.
func TestUploadRejectsBadInput(t *testing.T) {
	jar := jarBytes(t, "wordcount")
	multipartOf := func(files ...filePart) func(t *testing.T) (string, []byte) {
		return func(t *testing.T) (string, []byte) { return multipartBody(t, files...) }
	}
	tests := []struct {
		name       string
		request    func(t *testing.T) (contentType string, body []byte)
		wantStatus int
		wantErrors []string
	}{
		{
			name:       "not a jar",
			request:    multipartOf(filePart{"jarfile", "wordcount.zip", jar}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Only Jar files are allowed."},
		},
		{
			name:       "only the suffix",
			request:    multipartOf(filePart{"jarfile", ".jar", jar}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Only Jar files are allowed."},
		},
		{
			name:       "zero files, a form field only",
			request:    multipartOf(filePart{field: "comment", content: []byte("hello")}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Exactly 1 file must be sent, received 0."},
		},
		{
			name:       "zero files, not multipart",
			request:    func(*testing.T) (string, []byte) { return "application/x-java-archive", jar },
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Exactly 1 file must be sent, received 0."},
		},
		{
			name:       "two files",
			request:    multipartOf(filePart{"jarfile", "a.jar", jar}, filePart{"jarfile", "b.jar", jar}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"Exactly 1 file must be sent, received 2."},
		},
		{
			name:       "a corrupt jar",
			request:    multipartOf(filePart{"jarfile", "corrupt.jar", []byte("this is not a zip")}),
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The uploaded file is not a valid job jar.", "Error while opening jar file 'corrupt.jar': zip: not a valid zip file"},
		},
		{
			name:       "a truncated jar",
			request:    multipartOf(filePart{"jarfile", "truncated.jar", jar[:len(jar)-30]}),
			wantStatus: http.StatusBadRequest,
		},
		{
			name: "a jar without Program-Class",
			request: func(t *testing.T) (string, []byte) {
				return multipartBody(t, filePart{"jarfile", "noprogram.jar", zipWith(t, client.ManifestPath, "Manifest-Version: 1.0\r\n")})
			},
			wantStatus: http.StatusBadRequest,
			wantErrors: []string{"The uploaded file is not a valid job jar.", "No 'Program-Class' entry was found in the jar file."},
		},
		{
			name:       "a malformed multipart body",
			request:    func(*testing.T) (string, []byte) { return "multipart/form-data; boundary=X", []byte("--X\r\nbroken") },
			wantStatus: http.StatusBadRequest,
		},
		{
			name:       "larger than MaxUploadSize",
			request:    multipartOf(filePart{"jarfile", "big.jar", bytes.Repeat([]byte("x"), 8<<10)}),
			wantStatus: http.StatusRequestEntityTooLarge,
			wantErrors: []string{"content length exceeded 4096 bytes. Try to raise [rest.server.max-content-length]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *rest.Config) { c.MaxUploadSize = 4 << 10 })
			contentType, body := tt.request(t)
			r := h.post("/jars/upload", contentType, body)
			if r.status != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", r.status, tt.wantStatus, r.body)
			}
			if tt.wantErrors != nil {
				if diff := cmp.Diff(tt.wantErrors, r.errors, idOpts); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			}
			if files := h.storedFiles(); len(files) != 0 {
				t.Errorf("a rejected upload stored %v", files)
			}
			var list rest.JarListInfo
			decode(t, h.get("/jars"), &list)
			if len(list.Files) != 0 {
				t.Errorf("GET /jars lists %+v after a rejected upload", list.Files)
			}
		})
	}
}

// zipWith returns a zip holding one entry.
func zipWith(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(content))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUploadReplaysCVE202017518 sends the request of the published exploit
// (vulhub flink/CVE-2020-17518) byte for byte. A vulnerable server writes
// <jarDir>/../../../../../../tmp/success; we put the upload directory six
// levels below a temp root, so that the file would land in <root>/tmp.
func TestUploadReplaysCVE202017518(t *testing.T) {
	root := t.TempDir()
	uploadDir := filepath.Join(root, "1", "2", "3", "4", "5") // jarDir is 6 levels below root
	h := newHarness(t, func(c *rest.Config) { c.UploadDir = uploadDir })
	h.uploadDir, h.jarDir = uploadDir, filepath.Join(uploadDir, "flink-web-upload")

	body := "------X\r\n" +
		`Content-Disposition: form-data; name="jarfile"; filename="../../../../../../tmp/success"` + "\r\n" +
		"\r\n" +
		"success\r\n" +
		"------X--\r\n"
	r := h.post("/jars/upload", "multipart/form-data; boundary=----X", []byte(body))

	if r.status != http.StatusBadRequest || !slices.Equal(r.errors, []string{"Only Jar files are allowed."}) {
		t.Errorf("got %d %v, want 400 [Only Jar files are allowed.]", r.status, r.errors)
	}
	if _, err := os.Stat(filepath.Join(root, "tmp", "success")); !os.IsNotExist(err) {
		t.Errorf("the traversal wrote %s", filepath.Join(root, "tmp", "success"))
	}
	var written []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, path)
		}
		return nil
	})
	if len(written) != 0 {
		t.Errorf("files under the temp root after the replay: %v", written)
	}
}

// TestUploadKeepsOnlyTheBaseName: a jar sent as "../../x.jar" is stored
// inside the jar directory as <uuid>_x.jar (the CVE-2020-17518 fix).
func TestUploadKeepsOnlyTheBaseName(t *testing.T) {
	root := t.TempDir()
	uploadDir := filepath.Join(root, "a", "b")
	h := newHarness(t, func(c *rest.Config) { c.UploadDir = uploadDir })
	h.uploadDir, h.jarDir = uploadDir, filepath.Join(uploadDir, "flink-web-upload")

	r := h.upload(filePart{"jarfile", "../../x.jar", jarBytes(t, "wordcount")})
	if r.status != http.StatusOK {
		t.Fatalf("status %d, body %s", r.status, r.body)
	}
	var body rest.JarUploadResponseBody
	decode(t, r, &body)
	if filepath.Dir(body.Filename) != h.jarDir || !strings.HasSuffix(body.Filename, "_x.jar") {
		t.Errorf("stored as %s, want <uuid>_x.jar in %s", body.Filename, h.jarDir)
	}
	files := h.storedFiles()
	if !slices.Equal(files, []string{body.Filename}) {
		t.Errorf("stored files %v, want only %s", files, body.Filename)
	}
	if _, err := os.Stat(filepath.Join(root, "x.jar")); !os.IsNotExist(err) {
		t.Errorf("the traversal wrote %s", filepath.Join(root, "x.jar"))
	}
}

// TestJarListShowsJarsOnDisk: GET /jars lists the jar directory, as Flink
// does, so jars left by an earlier server are listed, newest first; an
// unreadable jar has no entries, and other files are not jars.
func TestJarListShowsJarsOnDisk(t *testing.T) {
	h := newHarness(t)
	older := filepath.Join(h.jarDir, "11111111-1111-4111-8111-111111111111_old.jar")
	broken := filepath.Join(h.jarDir, "22222222-2222-4222-8222-222222222222_broken.jar")
	mustMkdir(t, h.jarDir)
	for path, content := range map[string][]byte{
		older:                                  jarBytes(t, "numbers"),
		broken:                                 []byte("not a zip"),
		filepath.Join(h.jarDir, "notes.txt"):   []byte("x"),
		filepath.Join(h.jarDir, "nounder.jar"): jarBytes(t, "x"),
	} {
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	_ = os.Chtimes(older, past, past)
	_ = os.Chtimes(broken, past.Add(time.Minute), past.Add(time.Minute))
	newest := h.uploadJar("wordcount.jar", "wordcount")

	var list rest.JarListInfo
	decode(t, h.get("/jars"), &list)
	var got []string
	for _, f := range list.Files {
		got = append(got, f.ID+" "+f.Name+" "+strings.Join(entryNames(f.Entry), ","))
	}
	want := []string{
		newest + " wordcount.jar wordcount",
		filepath.Base(broken) + " broken.jar ",
		filepath.Base(older) + " old.jar numbers",
	}
	if diff := cmp.Diff(want, got, idOpts); diff != "" {
		t.Errorf("GET /jars (-want +got):\n%s", diff)
	}
	if list.Files[2].Uploaded != past.UnixMilli() {
		t.Errorf("uploaded = %d, want the file's modification time %d", list.Files[2].Uploaded, past.UnixMilli())
	}

	// A jar deleted by hand disappears from the list.
	if err := os.Remove(older); err != nil {
		t.Fatal(err)
	}
	decode(t, h.get("/v1/jars"), &list)
	if len(list.Files) != 2 {
		t.Errorf("after deleting a jar, GET /jars lists %d jars, want 2", len(list.Files))
	}
}

func entryNames(entries []rest.JarEntryInfo) []string {
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	return names
}
