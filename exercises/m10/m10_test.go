// Exercise m10: the TaskExecutor's BlobCache fetches and verifies a jar.
//
// Each test gives a real PermanentBlobCache a stand-in for the BlobServer
// that serves one job's jar and counts how often it is asked, and can
// damage the bytes, cut them short or lose the jar. The tests look at what
// a task and an operator can see: the path GetFile returns and what is in
// it, the error and its message, how many downloads were tried, the
// TaskManager's log, and the files in the cache's storage directory.
package m10_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// fetchRetries is blob.fetch.retries in these tests: 1 + 2 attempts.
const fetchRetries = 2

// blobServer stands in for the BlobServer: it serves one job's jar and
// counts the downloads. serve, when set, decides what download n (1, 2, …)
// gets.
type blobServer struct {
	jobID api.JobID
	jar   []byte
	key   blob.PermanentBlobKey
	serve func(n int, jar []byte) (io.ReadCloser, error)

	mu        sync.Mutex
	downloads int
	opened    int // streams handed out
	closed    int // of those, closed
	lost      bool
}

func newBlobServer() *blobServer {
	jar := []byte("PK\x03\x04 WordCount.jar: the job's classes")
	return &blobServer{jobID: api.NewJobID(), jar: jar, key: blob.KeyOf(jar)}
}

func (s *blobServer) Open(_ context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
	s.mu.Lock()
	s.downloads++
	n, lost := s.downloads, s.lost
	s.mu.Unlock()
	if lost || jobID != s.jobID || key != s.key {
		return nil, fmt.Errorf("GET operation failed: BLOB %s/%s: %w", jobID, key, fs.ErrNotExist)
	}
	content := io.NopCloser(bytes.NewReader(s.jar))
	if s.serve != nil {
		var err error
		if content, err = s.serve(n, s.jar); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.opened++
	s.mu.Unlock()
	return &counted{ReadCloser: content, server: s}, nil
}

// counted is a download's stream, which counts its Close.
type counted struct {
	io.ReadCloser
	server *blobServer
	once   sync.Once
}

func (c *counted) Close() error {
	c.once.Do(func() {
		c.server.mu.Lock()
		defer c.server.mu.Unlock()
		c.server.closed++
	})
	return c.ReadCloser.Close()
}

// Unclosed returns how many downloads were opened and never closed: each
// one a connection to the BlobServer left open.
func (s *blobServer) Unclosed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened - s.closed
}

// Downloads returns how many downloads were asked for.
func (s *blobServer) Downloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downloads
}

// lose makes the server forget the jar.
func (s *blobServer) lose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost = true
}

// damaged is the jar with one byte flipped on the way.
func damaged(jar []byte) io.ReadCloser {
	b := bytes.Clone(jar)
	b[len(b)/2] ^= 0xff
	return io.NopCloser(bytes.NewReader(b))
}

// cutShort is the first half of the jar, then a broken connection.
func cutShort(jar []byte) io.ReadCloser {
	return io.NopCloser(io.MultiReader(bytes.NewReader(jar[:len(jar)/2]), errReader{io.ErrUnexpectedEOF}))
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// cache is a PermanentBlobCache on a storage directory of its own.
type cache struct {
	*blob.PermanentBlobCache
	dir  string
	logs *scenario.Logs
}

func newCache(t *testing.T, server *blobServer) *cache {
	t.Helper()
	c := &cache{dir: t.TempDir(), logs: &scenario.Logs{}}
	var err error
	c.PermanentBlobCache, err = blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir:   c.dir,
		Source:       server,
		FetchRetries: fetchRetries,
		Logger:       slog.New(slog.NewTextHandler(c.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// getFile is GetFile as a task calls it. A panic becomes an error, so that
// a test fails on what it expects instead of crashing.
func (c *cache) getFile(ctx context.Context, server *blobServer) (path string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("GetFile panicked: %v", r)
		}
	}()
	return c.GetFile(ctx, server.jobID, server.key)
}

// files returns every file in the storage directory, relative to it.
func (c *cache) files(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(c.dir, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	require.NoError(t, err)
	return files
}

// stored is where a cache keeps the server's jar, relative to its
// storage directory (see the package doc of runtime/blob).
func stored(server *blobServer) string {
	return "job_" + server.jobID.String() + "/blob_" + server.key.String()
}

func TestAJarIsDownloadedVerifiedAndKept(t *testing.T) {
	server := newBlobServer()
	c := newCache(t, server)

	path, err := c.getFile(context.Background(), server)
	require.NoError(t, err, "a jar on the BlobServer must be fetched")
	content, err := os.ReadFile(path)
	require.NoError(t, err, "GetFile must return the path of a file")
	assert.Equal(t, string(server.jar), string(content), "the file holds the jar, byte for byte")
	assert.Equal(t, filepath.Join(c.dir, filepath.FromSlash(stored(server))), path, "the jar is kept under the job's directory, named by its key")
	assert.Equal(t, []string{stored(server)}, c.files(t), "nothing else is left in the storage directory: no temp file")
	assert.Equal(t, 1, server.Downloads())
	assert.Zero(t, server.Unclosed(), "a download must close the stream it opened at the BlobServer")
}

func TestACachedJarIsUsedWithoutAskingTheBlobServer(t *testing.T) {
	server := newBlobServer()
	c := newCache(t, server)
	first, err := c.getFile(context.Background(), server)
	require.NoError(t, err, "a jar on the BlobServer must be fetched")

	server.lose() // the BlobServer is gone, say: the jar is here already
	second, err := c.getFile(context.Background(), server)
	require.NoError(t, err, "the second task of the job finds the jar in the cache")
	assert.Equal(t, first, second)
	assert.Equal(t, 1, server.Downloads(), "a cached jar is not downloaded again")
}

func TestADamagedDownloadIsThrownAwayAndTriedAgain(t *testing.T) {
	server := newBlobServer()
	server.serve = func(n int, jar []byte) (io.ReadCloser, error) {
		switch n {
		case 1:
			return damaged(jar), nil
		case 2:
			return cutShort(jar), nil
		}
		return io.NopCloser(bytes.NewReader(jar)), nil
	}
	c := newCache(t, server)

	path, err := c.getFile(context.Background(), server)
	require.NoError(t, err, "the last retry succeeds, so the jar is fetched")
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(server.jar), string(content), "only verified bytes are ever served")
	assert.Equal(t, 1+fetchRetries, server.Downloads())
	assert.Equal(t, []string{stored(server)}, c.files(t), "the failed attempts left nothing behind")

	failed := "Failed to fetch BLOB " + server.jobID.String() + "/" + server.key.String() + " from in-process and store it under " + path + " Retrying..."
	assert.Equal(t, 2, strings.Count(c.logs.String(), failed), "each failed attempt logs Flink's ERROR line")
	assert.Contains(t, c.logs.String(), "Detected data corruption during transfer (SHA-256): expected "+server.key.String(),
		"the damaged jar is caught by its checksum")
}

func TestAJarDamagedOnEveryAttemptFailsTheDownload(t *testing.T) {
	server := newBlobServer()
	server.serve = func(_ int, jar []byte) (io.ReadCloser, error) { return damaged(jar), nil }
	c := newCache(t, server)

	_, err := c.getFile(context.Background(), server)
	require.ErrorIs(t, err, blob.ErrChecksumMismatch, "a jar that never matches its key must not be served")
	path := filepath.Join(c.dir, filepath.FromSlash(stored(server)))
	assert.EqualError(t, err, "Failed to fetch BLOB "+server.jobID.String()+"/"+server.key.String()+
		" from in-process and store it under "+path+" No retries left.", "the error is Flink's")
	assert.Equal(t, 1+fetchRetries, server.Downloads(), "one attempt and blob.fetch.retries retries")
	assert.Empty(t, c.files(t), "no damaged jar and no temp file may be left behind")
	assert.Equal(t, fetchRetries, strings.Count(c.logs.String(), " Retrying..."),
		"each failed attempt but the last logs Flink's ERROR line")
	assert.Equal(t, fetchRetries, strings.Count(c.logs.String(), " from in-process (retry "),
		"each retry is announced, as Flink's BlobClient does: \"Downloading … (retry n)\"")
	assert.Contains(t, c.logs.String(), `No retries left." logger=BlobClient cause="Detected data corruption during transfer`,
		"the last failed attempt logs Flink's ERROR line with its cause: the one line of the log that says why")
	assert.Zero(t, server.Unclosed(), "a failed download must close the stream it opened at the BlobServer too")
}

func TestAJarMissingOnTheBlobServerFailsTheDownload(t *testing.T) {
	server := newBlobServer()
	server.lose()
	c := newCache(t, server)

	_, err := c.getFile(context.Background(), server)
	require.ErrorIs(t, err, fs.ErrNotExist, "a jar the BlobServer does not have cannot be fetched")
	assert.ErrorContains(t, err, "No retries left.")
	assert.Equal(t, 1+fetchRetries, server.Downloads())
	assert.Empty(t, c.files(t))
}

// A task that is cancelled while its jar downloads stops at once: it does
// not try again.
func TestACancelledDownloadIsNotRetried(t *testing.T) {
	server := newBlobServer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server.serve = func(_ int, jar []byte) (io.ReadCloser, error) {
		cancel() // the task is cancelled while the bytes arrive
		return io.NopCloser(bytes.NewReader(jar)), nil
	}
	c := newCache(t, server)

	_, err := c.getFile(ctx, server)
	require.ErrorIs(t, err, context.Canceled, "the download ends with the task's cancellation")
	assert.Equal(t, 1, server.Downloads(), "a cancelled download is not tried again")
	assert.Empty(t, c.files(t))
}

// A TaskExecutor that shuts down while a jar downloads: the download must
// not store the jar after the cache is closed.
func TestADownloadThatEndsAfterCloseStoresNothing(t *testing.T) {
	server := newBlobServer()
	var c *cache
	server.serve = func(_ int, jar []byte) (io.ReadCloser, error) {
		require.NoError(t, c.Close())
		return io.NopCloser(bytes.NewReader(jar)), nil
	}
	c = newCache(t, server)

	_, err := c.getFile(context.Background(), server)
	require.ErrorIs(t, err, blob.ErrClosed, "a cache closed during the download stores nothing")
	assert.Equal(t, 1, server.Downloads(), "a closed cache does not try again")
	assert.Empty(t, c.files(t))
}
