// Exercise m01: the jar upload, POST /jars/upload.
//
// Each test talks to the REST endpoint of a real MiniCluster over HTTP, as
// curl or the Web UI's "Submit New Job" page does, and looks at what a
// client and an operator can see: the status and Flink's messages, the
// files in the upload directory, GET /jars, and the endpoint's log.
//
// The endpoint listens on a real socket, which a synctest bubble cannot
// hold, so these tests run on real time (scenario.RESTCluster). They never
// sleep and set no timers: every wait is for an answer.
package m01_test

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
)

// maxUploadSize is the endpoint's rest.server.max-content-length in these
// tests: 64 KiB, well above the WordCount jar.
const maxUploadSize = 64 << 10

// endpoint is a cluster's REST endpoint as a test sees it.
type endpoint struct {
	cluster *minicluster.MiniCluster
	rest    *scenario.RESTClient
	logs    *scenario.Logs
	jarDir  string // <web.upload.dir>/flink-web-upload: where jars are stored
	// outside is a directory next to the upload directory, which no
	// upload may write to.
	outside string
}

func startCluster(t *testing.T) *endpoint {
	t.Helper()
	dir := t.TempDir()
	uploadDir := filepath.Join(dir, "web")
	cluster, logs := scenario.RESTCluster(t, minicluster.Config{
		REST: &rest.Config{UploadDir: uploadDir, MaxUploadSize: maxUploadSize},
	})
	e := &endpoint{
		cluster: cluster,
		rest:    scenario.NewRESTClient(t, cluster.RESTAddress()),
		logs:    logs,
		jarDir:  filepath.Join(uploadDir, "flink-web-upload"),
		outside: filepath.Join(dir, "outside"),
	}
	require.NoError(t, os.Mkdir(e.outside, 0o700))
	return e
}

func wordCountJar(t *testing.T) []byte {
	t.Helper()
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	return jar
}

// filesIn lists the names of the files in dir, hidden ones (an upload's
// temp file) included.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// listedJars asks GET /jars for the jar IDs it lists.
func (e *endpoint) listedJars(t *testing.T) []string {
	t.Helper()
	r := e.rest.Get("/jars")
	require.Equal(t, http.StatusOK, r.Status, "GET /jars: %s", r)
	var list rest.JarListInfo
	scenario.Decode(t, r, &list)
	ids := []string{}
	for _, f := range list.Files {
		ids = append(ids, f.ID)
	}
	return ids
}

// assertNothingStored checks that a refused upload left no file behind:
// not the jar, not a half-written temp file, nothing for GET /jars to list.
func (e *endpoint) assertNothingStored(t *testing.T) {
	t.Helper()
	assert.Empty(t, filesIn(t, e.jarDir), "a refused upload must leave nothing in the jar directory")
	assert.Empty(t, e.listedJars(t), "GET /jars must list nothing after a refused upload")
}

var uuidJarID = `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_`

func TestAJarIsStoredUnderAFreshIDAndListed(t *testing.T) {
	e := startCluster(t)
	jar := wordCountJar(t)

	r := e.rest.UploadJar("WordCount.jar", jar)
	require.Equal(t, http.StatusOK, r.Status, "a valid jar must be stored: %s", r)
	var first rest.JarUploadResponseBody
	scenario.Decode(t, r, &first)
	assert.Equal(t, "success", first.Status, "Flink's JarUploadResponseBody says success")
	assert.Equal(t, e.jarDir, filepath.Dir(first.Filename), "the jar is stored in <web.upload.dir>/flink-web-upload")
	firstID := filepath.Base(first.Filename)
	assert.Regexp(t, uuidJarID+`WordCount\.jar$`, firstID, "the jar ID is <uuid>_<the name sent>")
	stored, err := os.ReadFile(first.Filename)
	require.NoError(t, err, "the answer names the stored file")
	assert.True(t, bytes.Equal(jar, stored), "the stored file is the jar, byte for byte")

	// The same name again is another jar: the UUID keeps them apart.
	r = e.rest.UploadJar("WordCount.jar", jar)
	require.Equal(t, http.StatusOK, r.Status, "a valid jar must be stored: %s", r)
	var second rest.JarUploadResponseBody
	scenario.Decode(t, r, &second)
	secondID := filepath.Base(second.Filename)
	assert.NotEqual(t, firstID, secondID, "two uploads of one name must be two jars, not one overwriting the other")

	assert.ElementsMatch(t, []string{firstID, secondID}, filesIn(t, e.jarDir),
		"the jar directory holds the two jars and nothing else (no temp file)")
	assert.ElementsMatch(t, []string{firstID, secondID}, e.listedJars(t), "GET /jars lists both")
	assert.Contains(t, e.logs.String(), "Uploaded jar "+first.Filename+" (Program-Class wordcount).")
}

func TestOnlyJarFilesAreAllowed(t *testing.T) {
	e := startCluster(t)
	jar := wordCountJar(t)
	for _, name := range []string{
		"WordCount.zip",
		"WordCount.JAR", // the check is Flink's endsWith(".jar"): case matters
		".jar",          // nothing before the suffix
	} {
		r := e.rest.UploadJar(name, jar)
		assert.Equal(t, http.StatusBadRequest, r.Status, "a file named %q must be refused: %s", name, r)
		assert.Equal(t, []string{"Only Jar files are allowed."}, r.Errors, "Flink's message for %q", name)
		e.assertNothingStored(t)
	}
}

func TestExactlyOneFileMustBeSent(t *testing.T) {
	e := startCluster(t)
	jar := wordCountJar(t)

	contentType, body := scenario.Multipart(t, scenario.Part{Field: "comment", Content: []byte("no file here")})
	r := e.rest.Post("/jars/upload", contentType, body)
	assert.Equal(t, http.StatusBadRequest, r.Status, "a form without a file must be refused: %s", r)
	assert.Equal(t, []string{"Exactly 1 file must be sent, received 0."}, r.Errors)
	e.assertNothingStored(t)

	r = e.rest.Post("/jars/upload", "application/java-archive", jar)
	assert.Equal(t, http.StatusBadRequest, r.Status, "a jar sent as the raw body, not as a form's file, must be refused: %s", r)
	assert.Equal(t, []string{"Exactly 1 file must be sent, received 0."}, r.Errors)
	e.assertNothingStored(t)

	contentType, body = scenario.Multipart(t,
		scenario.Part{Field: "jarfile", FileName: "a.jar", Content: jar},
		scenario.Part{Field: "jarfile", FileName: "b.jar", Content: jar})
	r = e.rest.Post("/jars/upload", contentType, body)
	assert.Equal(t, http.StatusBadRequest, r.Status, "two files must be refused, the first as well: %s", r)
	assert.Equal(t, []string{"Exactly 1 file must be sent, received 2."}, r.Errors)
	e.assertNothingStored(t)
}

func TestAnUploadOverTheLimitIsRefusedWith413(t *testing.T) {
	e := startCluster(t)
	// A valid jar of 96 KiB: a resource of random bytes, which deflate
	// cannot shrink.
	random := make([]byte, 96<<10)
	_, _ = rand.NewChaCha8([32]byte{}).Read(random)
	var big bytes.Buffer
	require.NoError(t, client.WriteJar(&big, wordcount.ProgramClass, map[string][]byte{"random.bin": random}))

	r := e.rest.UploadJar("Big.jar", big.Bytes())
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.Status, "an upload over rest.server.max-content-length must be refused with 413: %s", r)
	assert.Equal(t, []string{"content length exceeded 65536 bytes. Try to raise [rest.server.max-content-length]"}, r.Errors)
	e.assertNothingStored(t)
}

func TestACorruptJarIsRefusedAndLeavesNothingBehind(t *testing.T) {
	e := startCluster(t)

	r := e.rest.UploadJar("corrupt.jar", []byte("this is not a zip"))
	assert.Equal(t, http.StatusBadRequest, r.Status, "a file named .jar that is no jar must be refused: %s", r)
	require.NotEmpty(t, r.Errors, "Flink's error body: %s", r)
	assert.Equal(t, "The uploaded file is not a valid job jar.", r.Errors[0])
	e.assertNothingStored(t)
}

// Step m1's fault (`make run INJECT=m1`): the jar cannot be moved to its
// final name, as when the upload directory is full or gone. The upload is
// refused with a 500 and nothing of it stays: a client that was told "no"
// must not find its jar listed.
func TestAJarThatCannotBeStoredIsRefusedAndNotListed(t *testing.T) {
	e := startCluster(t)
	require.NoError(t, e.cluster.Faults().Inject(fault.Fault{Step: trace.M1}))

	r := e.rest.UploadJar("WordCount.jar", wordCountJar(t))
	assert.Equal(t, http.StatusInternalServerError, r.Status, "an upload that could not be stored must be refused: %s", r)
	if assert.Len(t, r.Errors, 2, "Flink's 500: %s", r) {
		assert.Equal(t, "Internal server error.", r.Errors[0])
		assert.Contains(t, r.Errors[1], "Could not move uploaded jar file [WordCount.jar]")
	}
	e.assertNothingStored(t)
	assert.NotContains(t, e.logs.String(), "Uploaded jar", "a jar that was not stored is not logged as uploaded")
	failures := trace.Failures(e.cluster.Trace().Events())
	if assert.Len(t, failures, 1, "the refused upload is one broken step m1 in the trace") {
		assert.Equal(t, trace.M1, failures[0].Step)
	}
}

// CVE-2020-17518: Flink 1.5.1 to 1.11.2 stored an upload under the file
// name the client sent, directories included. The public replay sends
// "../../../../../../tmp/success"; these requests climb the same way to a
// directory of this test instead of /tmp.
func TestAHostileFileNameCannotWriteOutsideTheJarDirectory(t *testing.T) {
	e := startCluster(t)
	climb := strings.Repeat("../", 32) + strings.TrimPrefix(filepath.ToSlash(e.outside), "/") // to the root, then down

	// The replay itself: not a jar, so refused, and nothing written.
	r := e.rest.UploadJar(climb+"/success", []byte("success"))
	assert.Equal(t, http.StatusBadRequest, r.Status, "the CVE's replay must be refused: %s", r)
	assert.Equal(t, []string{"Only Jar files are allowed."}, r.Errors)
	e.assertNothingStored(t)

	// The same climb with a real jar: stored, but in the jar directory,
	// under the last element of the name only.
	r = e.rest.UploadJar(climb+"/success.jar", wordCountJar(t))
	require.Equal(t, http.StatusOK, r.Status, "a valid jar must be stored, whatever directories its name claims: %s", r)
	var stored rest.JarUploadResponseBody
	scenario.Decode(t, r, &stored)
	assert.Equal(t, e.jarDir, filepath.Dir(stored.Filename), "the jar must be stored in the jar directory")
	assert.Regexp(t, uuidJarID+`success\.jar$`, filepath.Base(stored.Filename), "only the last element of the sent name is kept")

	assert.Empty(t, filesIn(t, e.outside), "an upload must never write outside the jar directory")
	assert.Contains(t, e.logs.String(), "Ignoring the directories of the uploaded file name",
		"the endpoint warns that it dropped the directories")
}
