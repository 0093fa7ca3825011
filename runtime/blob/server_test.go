package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// newLogger returns a logger that writes every level, as text, into the
// returned buffer.
func newLogger() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newServer(t testing.TB) *blob.BlobServer {
	t.Helper()
	server, err := blob.NewBlobServer(blob.ServerConfig{
		StorageDir: t.TempDir(),
		Logger:     discardLogger(),
		Address:    "localhost:6124",
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return server
}

// listFiles returns the regular files under dir, relative to it.
func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

func readBlob(t testing.TB, server *blob.BlobServer, jobID api.JobID, key blob.PermanentBlobKey) []byte {
	t.Helper()
	content, err := server.Open(context.Background(), jobID, key)
	require.NoError(t, err)
	defer content.Close()
	got, err := io.ReadAll(content)
	require.NoError(t, err)
	return got
}

// failingReader returns some bytes, then an error, like a client connection
// that drops in the middle of an upload.
func failingReader(prefix []byte) io.Reader {
	return io.MultiReader(bytes.NewReader(prefix), errReader{errors.New("connection reset by peer")})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestBlobServer_PutThenOpenReturnsTheContent(t *testing.T) {
	tests := []struct {
		name    string
		content []byte
	}{
		{"empty", []byte{}},
		{"small jar", []byte("PK\x03\x04 wordcount.jar")},
		{"one MiB", bytes.Repeat([]byte{0xCA, 0xFE}, 1<<19)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger()})
			require.NoError(t, err)
			jobID := api.NewJobID()

			key, err := server.PutPermanentBytes(jobID, tt.content)
			require.NoError(t, err)

			assert.Equal(t, blob.KeyOf(tt.content), key, "the key is the SHA-256 of the content")
			assert.Equal(t, tt.content, readBlob(t, server, jobID, key))
			assert.Equal(t, []string{filepath.Join("job_"+jobID.String(), "blob_"+key.String())}, listFiles(t, dir))
		})
	}
}

func TestBlobServer_PutSameContentTwiceStoresOneFile(t *testing.T) {
	dir := t.TempDir()
	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger()})
	require.NoError(t, err)
	jobID := api.NewJobID()
	jar := []byte("the same jar")

	first, err := server.PutPermanent(jobID, bytes.NewReader(jar))
	require.NoError(t, err)
	second, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)

	assert.Equal(t, first, second)
	assert.Len(t, listFiles(t, dir), 1)
}

func TestBlobServer_FailedPutLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger()})
	require.NoError(t, err)

	_, err = server.PutPermanent(api.NewJobID(), failingReader(bytes.Repeat([]byte("x"), 100_000)))

	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection reset by peer")
	assert.Empty(t, listFiles(t, dir), "no BLOB and no temp file may be left")
}

func TestBlobServer_OpenMissingBlob(t *testing.T) {
	server := newServer(t)
	jobID := api.NewJobID()
	stored, err := server.PutPermanentBytes(jobID, []byte("stored for this job only"))
	require.NoError(t, err)

	tests := []struct {
		name  string
		jobID api.JobID
		key   blob.PermanentBlobKey
	}{
		{"key never stored", jobID, blob.KeyOf([]byte("never stored"))},
		{"stored for another job", api.NewJobID(), stored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content, err := server.Open(context.Background(), tt.jobID, tt.key)

			assert.Nil(t, content)
			assert.ErrorIs(t, err, fs.ErrNotExist)
			assert.Contains(t, err.Error(), "does not exist and failed to copy from blob store")
		})
	}
}

func TestBlobServer_RejectsZeroIDs(t *testing.T) {
	server := newServer(t)
	key := blob.KeyOf([]byte("jar"))

	tests := []struct {
		name string
		call func() error
	}{
		{"PutPermanent zero JobID", func() error {
			_, err := server.PutPermanentBytes(api.JobID{}, []byte("jar"))
			return err
		}},
		{"Open zero JobID", func() error {
			_, err := server.Open(context.Background(), api.JobID{}, key)
			return err
		}},
		{"Open zero key", func() error {
			_, err := server.Open(context.Background(), api.NewJobID(), blob.PermanentBlobKey{})
			return err
		}},
		{"CleanupJob zero JobID", func() error { return server.CleanupJob(api.JobID{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, tt.call(), blob.ErrInvalidID)
		})
	}
}

func TestBlobServer_CleanupJobRemovesOnlyThatJob(t *testing.T) {
	dir := t.TempDir()
	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger()})
	require.NoError(t, err)
	finished, running := api.NewJobID(), api.NewJobID()
	finishedKey, err := server.PutPermanentBytes(finished, []byte("jar of the finished job"))
	require.NoError(t, err)
	runningKey, err := server.PutPermanentBytes(running, []byte("jar of the running job"))
	require.NoError(t, err)

	require.NoError(t, server.CleanupJob(finished))

	_, err = server.Open(context.Background(), finished, finishedKey)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, []byte("jar of the running job"), readBlob(t, server, running, runningKey))
	_, err = os.Stat(filepath.Join(dir, "job_"+finished.String()))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the job directory is gone")
	assert.NoError(t, server.CleanupJob(finished), "cleaning up twice is not an error")
}

func TestBlobServer_LogsFlinksStartupLine(t *testing.T) {
	logger, logs := newLogger()

	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: logger, Address: "localhost:0"})
	require.NoError(t, err)
	defer server.Close()

	assert.Contains(t, logs.String(), "level=INFO")
	assert.Contains(t, logs.String(), "Started BLOB server at localhost:0 - max concurrent requests: 50 - max backlog: 1000")
	assert.Equal(t, "localhost:0", server.Address())
}

func TestBlobServer_ClearsLeftoverTempFilesOnStart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "incoming"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "incoming", "temp-crashed"), []byte("half a j"), 0o644))

	_, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger()})

	require.NoError(t, err)
	assert.Empty(t, listFiles(t, dir))
}

func TestBlobServer_RequiresStorageDir(t *testing.T) {
	_, err := blob.NewBlobServer(blob.ServerConfig{Logger: discardLogger()})

	assert.ErrorContains(t, err, "storage directory must be set")
}

func TestBlobServer_CallsAfterCloseFail(t *testing.T) {
	server := newServer(t)
	jobID := api.NewJobID()
	key, err := server.PutPermanentBytes(jobID, []byte("jar"))
	require.NoError(t, err)

	require.NoError(t, server.Close())
	require.NoError(t, server.Close(), "closing twice is allowed")

	_, err = server.PutPermanentBytes(jobID, []byte("jar"))
	assert.ErrorIs(t, err, blob.ErrClosed)
	_, err = server.Open(context.Background(), jobID, key)
	assert.ErrorIs(t, err, blob.ErrClosed)
	assert.ErrorIs(t, server.CleanupJob(jobID), blob.ErrClosed)
}

func TestBlobServer_StoragePathsAreBuiltFromParsedIDs(t *testing.T) {
	// Nothing from outside chooses a file name: a key or a JobID that is not
	// hex never parses, so it never reaches the file system.
	for _, s := range []string{"p-../../etc/passwd", "../" + strings.Repeat("a", 62), "p-" + strings.Repeat("g", 64)} {
		_, err := blob.ParsePermanentBlobKey(s)
		assert.Error(t, err, s)
	}
	_, err := api.ParseJobID("../../../../../../../../etc/pass")
	assert.Error(t, err)
}

func TestBlobServer_DeletePermanentRemovesOneBlob(t *testing.T) {
	server := newServer(t)
	jobID := api.NewJobID()
	keep, err := server.PutPermanentBytes(jobID, []byte("the job's own jar"))
	require.NoError(t, err)
	added, err := server.PutPermanentBytes(jobID, []byte("a jar added by a refused run"))
	require.NoError(t, err)

	require.NoError(t, server.DeletePermanent(jobID, added))
	_, err = server.Open(context.Background(), jobID, added)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	f, err := server.Open(context.Background(), jobID, keep)
	require.NoError(t, err, "the job's other BLOB stays")
	_ = f.Close()

	assert.NoError(t, server.DeletePermanent(jobID, added), "deleting a missing BLOB is not an error")
	assert.ErrorIs(t, server.DeletePermanent(api.JobID{}, keep), blob.ErrInvalidID)
}
