package blob_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// fakeBlobStore is a BlobStore whose calls a test may replace one by one;
// every call it does not replace goes to the wrapped store.
type fakeBlobStore struct {
	blob.BlobStore
	put func(localFile string, jobID api.JobID, key blob.PermanentBlobKey) error
	get func(jobID api.JobID, key blob.PermanentBlobKey, localFile string) error
}

var _ blob.BlobStore = (*fakeBlobStore)(nil)

func (s *fakeBlobStore) Put(localFile string, jobID api.JobID, key blob.PermanentBlobKey) error {
	if s.put != nil {
		return s.put(localFile, jobID, key)
	}
	return s.BlobStore.Put(localFile, jobID, key)
}

func (s *fakeBlobStore) Get(jobID api.JobID, key blob.PermanentBlobKey, localFile string) error {
	if s.get != nil {
		return s.get(jobID, key, localFile)
	}
	return s.BlobStore.Get(jobID, key, localFile)
}

func newBlobStore(t testing.TB) (*blob.FileSystemBlobStore, string) {
	t.Helper()
	basePath := filepath.Join(t.TempDir(), "ha", "cluster-1", "blob")
	store, err := blob.NewFileSystemBlobStore(basePath)
	require.NoError(t, err)
	return store, basePath
}

// newHAServer starts a BlobServer with its own local storage directory and
// the given BlobStore, as one JobManager of an HA cluster.
func newHAServer(t testing.TB, store blob.BlobStore) (*blob.BlobServer, string) {
	t.Helper()
	dir := t.TempDir()
	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: dir, Logger: discardLogger(), BlobStore: store})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return server, dir
}

// writeLocalFile writes content to a new file and returns its path.
func writeLocalFile(t testing.TB, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "local.jar")
	require.NoError(t, os.WriteFile(path, content, 0o644))
	return path
}

// storedName is where a BLOB lives under a storage directory or a store's
// base path: the two share one layout.
func storedName(jobID api.JobID, key blob.PermanentBlobKey) string {
	return filepath.Join("job_"+jobID.String(), "blob_"+key.String())
}

func TestFileSystemBlobStore_PutGetDeleteAll(t *testing.T) {
	store, basePath := newBlobStore(t)
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 wordcount.jar")
	key := blob.KeyOf(jar)

	require.NoError(t, store.Put(writeLocalFile(t, jar), jobID, key))
	assert.Equal(t, []string{storedName(jobID, key)}, listFiles(t, basePath), "the layout of the local storage")

	localFile := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, store.Get(jobID, key, localFile))
	got, err := os.ReadFile(localFile)
	require.NoError(t, err)
	assert.Equal(t, jar, got)
	assert.Equal(t, []string{"copy"}, listFiles(t, filepath.Dir(localFile)), "no temp file is left next to localFile")

	require.NoError(t, store.DeleteAll(jobID))
	assert.Empty(t, listFiles(t, basePath))
	assert.ErrorIs(t, store.Get(jobID, key, filepath.Join(t.TempDir(), "gone")), fs.ErrNotExist)
	assert.NoError(t, store.DeleteAll(jobID), "deleting a job twice is not an error")
}

func TestFileSystemBlobStore_GetMissingBlob(t *testing.T) {
	store, _ := newBlobStore(t)
	jobID := api.NewJobID()
	jar := []byte("stored for this job only")
	require.NoError(t, store.Put(writeLocalFile(t, jar), jobID, blob.KeyOf(jar)))

	tests := []struct {
		name  string
		jobID api.JobID
		key   blob.PermanentBlobKey
	}{
		{"key never stored", jobID, blob.KeyOf([]byte("never stored"))},
		{"stored for another job", api.NewJobID(), blob.KeyOf(jar)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()

			err := store.Get(tt.jobID, tt.key, filepath.Join(dir, "copy"))

			assert.ErrorIs(t, err, fs.ErrNotExist)
			assert.Empty(t, listFiles(t, dir), "no localFile and no temp file")
		})
	}
}

func TestFileSystemBlobStore_PutSameKeyTwiceKeepsOneFile(t *testing.T) {
	store, basePath := newBlobStore(t)
	jobID := api.NewJobID()
	jar := []byte("the same jar")
	key := blob.KeyOf(jar)

	require.NoError(t, store.Put(writeLocalFile(t, jar), jobID, key))
	require.NoError(t, store.Put(writeLocalFile(t, jar), jobID, key))

	assert.Equal(t, []string{storedName(jobID, key)}, listFiles(t, basePath))
}

// The store is content-addressed like the local storage: a file that does
// not hash to its key is refused on the way in and on the way out, so the
// next leader never serves a damaged jar under a trusted name.
func TestFileSystemBlobStore_ChecksTheKey(t *testing.T) {
	jar := []byte("PK\x03\x04 wordcount.jar")
	key := blob.KeyOf(jar)

	t.Run("Put of a file that is not the key's content", func(t *testing.T) {
		store, basePath := newBlobStore(t)

		err := store.Put(writeLocalFile(t, []byte("another jar")), api.NewJobID(), key)

		assert.ErrorIs(t, err, blob.ErrChecksumMismatch)
		assert.Empty(t, listFiles(t, basePath), "nothing stored, no temp file left")
	})

	t.Run("Get of a BLOB damaged in the store", func(t *testing.T) {
		store, basePath := newBlobStore(t)
		jobID := api.NewJobID()
		require.NoError(t, store.Put(writeLocalFile(t, jar), jobID, key))
		damaged := append([]byte{jar[0] ^ 0xFF}, jar[1:]...)
		require.NoError(t, os.WriteFile(filepath.Join(basePath, storedName(jobID, key)), damaged, 0o644))
		dir := t.TempDir()

		err := store.Get(jobID, key, filepath.Join(dir, "copy"))

		assert.ErrorIs(t, err, blob.ErrChecksumMismatch)
		assert.ErrorContains(t, err, "Detected data corruption during transfer")
		assert.Empty(t, listFiles(t, dir), "the damaged bytes never reach localFile")
	})
}

func TestFileSystemBlobStore_RequiresBasePath(t *testing.T) {
	_, err := blob.NewFileSystemBlobStore("")

	assert.ErrorContains(t, err, "base path must be set")
}

// A JobManager stores the job's jar and dies; the next leader, whose local
// disk never had the jar, recovers the job and serves the jar to the
// TaskManagers from the BlobStore they share.
func TestBlobServer_NextLeaderServesTheJarFromTheBlobStore(t *testing.T) {
	store, basePath := newBlobStore(t)
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 wordcount.jar")

	// The first leader stores the jar (step m2): on its disk and in the store.
	firstLeader, _ := newHAServer(t, store)
	key, err := firstLeader.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)
	assert.Equal(t, []string{storedName(jobID, key)}, listFiles(t, basePath))

	// It loses its leadership; its disk is out of reach from now on.
	require.NoError(t, firstLeader.Close())

	// The next leader starts with an empty local storage directory.
	nextLeader, nextDir := newHAServer(t, store)
	assert.Empty(t, listFiles(t, nextDir))

	// A TaskManager of the recovered job downloads the jar (step m10)
	// through a PermanentBlobCache whose Source is the next leader.
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{StorageDir: t.TempDir(), Source: nextLeader, Logger: discardLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cache.Close() })
	path, err := cache.GetFile(context.Background(), jobID, key)
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, got)

	// The next leader kept the copy: it now serves the jar from its own disk.
	assert.Equal(t, []string{storedName(jobID, key)}, listFiles(t, nextDir), "the jar, and no temp file")
	assert.Equal(t, jar, readBlob(t, nextLeader, jobID, key))
}

func TestBlobServer_OpenMissingInBlobStoreToo(t *testing.T) {
	store, _ := newBlobStore(t)
	server, dir := newHAServer(t, store)

	content, err := server.Open(context.Background(), api.NewJobID(), blob.KeyOf([]byte("never stored")))

	assert.Nil(t, content)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, "does not exist and failed to copy from blob store")
	assert.Empty(t, listFiles(t, dir), "no temp file is left in incoming/")
}

func TestBlobServer_OpenFailsWhenTheBlobStoreFails(t *testing.T) {
	store, _ := newBlobStore(t)
	failing := &fakeBlobStore{BlobStore: store, get: func(api.JobID, blob.PermanentBlobKey, string) error {
		return errors.New("HA storage unreachable")
	}}
	server, dir := newHAServer(t, failing)

	_, err := server.Open(context.Background(), api.NewJobID(), blob.KeyOf([]byte("jar")))

	assert.ErrorContains(t, err, "HA storage unreachable")
	assert.NotErrorIs(t, err, fs.ErrNotExist, "the BLOB may well exist; the store could not say")
	assert.Empty(t, listFiles(t, dir), "no temp file is left in incoming/")
}

func TestBlobServer_CleanupJobRemovesTheJobFromTheBlobStore(t *testing.T) {
	store, basePath := newBlobStore(t)
	server, dir := newHAServer(t, store)
	finished, running := api.NewJobID(), api.NewJobID()
	_, err := server.PutPermanentBytes(finished, []byte("jar of the finished job"))
	require.NoError(t, err)
	runningKey, err := server.PutPermanentBytes(running, []byte("jar of the running job"))
	require.NoError(t, err)

	require.NoError(t, server.CleanupJob(finished))

	want := []string{storedName(running, runningKey)}
	assert.Equal(t, want, listFiles(t, dir), "the local disk keeps only the running job's jar")
	assert.Equal(t, want, listFiles(t, basePath), "so does the store")
	assert.NoError(t, server.CleanupJob(finished), "cleaning up twice is not an error")
}

func TestBlobServer_DeletePermanentRemovesTheBlobFromTheBlobStore(t *testing.T) {
	store, basePath := newBlobStore(t)
	server, _ := newHAServer(t, store)
	jobID := api.NewJobID()
	keep, err := server.PutPermanentBytes(jobID, []byte("the job's own jar"))
	require.NoError(t, err)
	added, err := server.PutPermanentBytes(jobID, []byte("a jar added by a refused run"))
	require.NoError(t, err)

	require.NoError(t, server.DeletePermanent(jobID, added))

	assert.Equal(t, []string{storedName(jobID, keep)}, listFiles(t, basePath))
	_, err = server.Open(context.Background(), jobID, added)
	assert.ErrorIs(t, err, fs.ErrNotExist, "neither the local disk nor the store has it")
}

// A jar that cannot reach the BlobStore must not be used: the job would run
// until the first failover and then never again.
func TestBlobServer_PutFailsWhenTheBlobStoreCannotBeWritten(t *testing.T) {
	tests := []struct {
		name       string
		breakStore func(t *testing.T, basePath string)
	}{
		{"base path replaced by a file", func(t *testing.T, basePath string) {
			require.NoError(t, os.RemoveAll(basePath))
			require.NoError(t, os.WriteFile(basePath, []byte("not a directory"), 0o644))
		}},
		{"base path without write permission", func(t *testing.T, basePath string) {
			if os.Geteuid() == 0 {
				t.Skip("root writes into any directory")
			}
			require.NoError(t, os.Chmod(basePath, 0o555))
			t.Cleanup(func() { _ = os.Chmod(basePath, 0o755) })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, basePath := newBlobStore(t)
			server, dir := newHAServer(t, store)
			tt.breakStore(t, basePath)

			_, err := server.PutPermanentBytes(api.NewJobID(), []byte("PK\x03\x04 wordcount.jar"))

			require.Error(t, err)
			assert.ErrorContains(t, err, "to the blob store")
			assert.Empty(t, listFiles(t, dir), "no local BLOB and no temp file is left")
		})
	}
}

// A BLOB that was on the local disk before the call is not this call's to
// remove when the store fails: it may be the jar of a job already running.
func TestBlobServer_FailedStoreCopyKeepsABlobThatWasThereBefore(t *testing.T) {
	store, _ := newBlobStore(t)
	storeFails := false
	fake := &fakeBlobStore{BlobStore: store, put: func(localFile string, jobID api.JobID, key blob.PermanentBlobKey) error {
		if storeFails {
			return errors.New("HA storage unreachable")
		}
		return store.Put(localFile, jobID, key)
	}}
	server, _ := newHAServer(t, fake)
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 wordcount.jar")
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)

	storeFails = true
	_, err = server.PutPermanentBytes(jobID, jar)

	assert.ErrorContains(t, err, "HA storage unreachable")
	assert.Equal(t, jar, readBlob(t, server, jobID, key), "the BLOB stored before stays")
}
