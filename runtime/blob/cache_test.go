package blob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

const serverAddress = "localhost:6124"

// fakeSource counts downloads and lets a test decide what each one returns.
// The zero open function serves from the wrapped BlobServer.
type fakeSource struct {
	server *blob.BlobServer
	open   func(call int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error)
	calls  atomic.Int32
}

var _ blob.Source = (*fakeSource)(nil)

func (s *fakeSource) Open(ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
	call := s.calls.Add(1)
	if s.open != nil {
		return s.open(call, ctx, jobID, key)
	}
	return s.server.Open(ctx, jobID, key)
}

// corrupted serves the BLOB with its first byte flipped, like a jar damaged
// on the JobManager's disk.
func (s *fakeSource) corrupted(ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
	content, err := s.server.Open(ctx, jobID, key)
	if err != nil {
		return nil, err
	}
	defer content.Close()
	data, err := io.ReadAll(content)
	if err != nil {
		return nil, err
	}
	data[0] ^= 0xFF
	return io.NopCloser(bytes.NewReader(data)), nil
}

type fixture struct {
	server   *blob.BlobServer
	source   *fakeSource
	cache    *blob.PermanentBlobCache
	cacheDir string
	logs     *bytes.Buffer
	jobID    api.JobID
	key      blob.PermanentBlobKey
	jar      []byte
}

// newFixture starts a BlobServer holding one jar and a cache that downloads
// from it through a fakeSource.
func newFixture(t testing.TB, fetchRetries int) *fixture {
	return newFixtureWithFaults(t, fetchRetries, nil)
}

// newFixtureWithFaults is newFixture with a fault injector in the cache.
func newFixtureWithFaults(t testing.TB, fetchRetries int, faults *fault.Injector) *fixture {
	t.Helper()
	f := &fixture{server: newServer(t), cacheDir: t.TempDir(), jobID: api.NewJobID(), jar: []byte("PK\x03\x04 wordcount.jar")}
	var err error
	f.key, err = f.server.PutPermanentBytes(f.jobID, f.jar)
	require.NoError(t, err)

	f.source = &fakeSource{server: f.server}
	var logger *slog.Logger
	logger, f.logs = newLogger()
	f.cache, err = blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir:    f.cacheDir,
		Source:        f.source,
		FetchRetries:  fetchRetries,
		Logger:        logger,
		ServerAddress: serverAddress,
		Faults:        faults,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.cache.Close() })
	return f
}

func (f *fixture) cachedPath() string {
	return filepath.Join(f.cacheDir, "job_"+f.jobID.String(), "blob_"+f.key.String())
}

func TestGetFile_DownloadsVerifiesAndStoresTheJar(t *testing.T) {
	f := newFixture(t, 0)

	path, err := f.cache.GetFile(context.Background(), f.jobID, f.key)

	require.NoError(t, err)
	assert.Equal(t, f.cachedPath(), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, f.jar, got)
	assert.Equal(t, []string{filepath.Join("job_"+f.jobID.String(), "blob_"+f.key.String())}, listFiles(t, f.cacheDir))
	assert.Contains(t, f.logs.String(), fmt.Sprintf("level=INFO msg=\"Downloading %s/%s from %s\" logger=BlobClient", f.jobID, f.key, serverAddress),
		"Flink's BlobClient announces every download at INFO")
}

func TestGetFile_CacheHitDoesNotCallTheSourceAgain(t *testing.T) {
	f := newFixture(t, 0)

	first, err := f.cache.GetFile(context.Background(), f.jobID, f.key)
	require.NoError(t, err)
	second, err := f.cache.GetFile(context.Background(), f.jobID, f.key)
	require.NoError(t, err)

	assert.Equal(t, first, second)
	assert.Equal(t, int32(1), f.source.calls.Load())
}

// A corrupted BLOB fails with the text of Flink's BlobInputStream#read,
// IOException("Detected data corruption during transfer").
func TestErrChecksumMismatchIsFlinksText(t *testing.T) {
	assert.Equal(t, "Detected data corruption during transfer", blob.ErrChecksumMismatch.Error())
}

func TestGetFile_CorruptedDownloadFailsAfterAllRetries(t *testing.T) {
	tests := []struct {
		name         string
		fetchRetries int
		wantAttempts int
	}{
		{"0 means Flink's default of 5 retries", 0, 1 + blob.DefaultFetchRetries},
		{"2 retries", 2, 3},
		{"negative means no retries", -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.fetchRetries)
			f.source.open = func(_ int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
				return f.source.corrupted(ctx, jobID, key)
			}

			path, err := f.cache.GetFile(context.Background(), f.jobID, f.key)

			assert.Empty(t, path)
			failed := fmt.Sprintf("Failed to fetch BLOB %s/%s from %s and store it under %s",
				f.jobID, f.key, serverAddress, f.cachedPath())
			assert.EqualError(t, err, failed+" No retries left.")
			assert.ErrorIs(t, err, blob.ErrChecksumMismatch)
			cause := errors.Unwrap(err)
			require.NotNil(t, cause)
			corrupted := append([]byte{f.jar[0] ^ 0xFF}, f.jar[1:]...)
			assert.Equal(t, "Detected data corruption during transfer (SHA-256): expected "+f.key.String()+
				", actual "+blob.KeyOf(corrupted).String(), cause.Error(), "Flink's text, then both checksums")

			assert.Equal(t, int32(tt.wantAttempts), f.source.calls.Load(), "attempts")
			assert.Equal(t, tt.wantAttempts-1, strings.Count(f.logs.String(), failed+" Retrying..."), "ERROR lines")
			assert.Empty(t, listFiles(t, f.cacheDir), "nothing corrupted may stay in the cache")
		})
	}
}

// The download's lines are Flink's BlobClient's: at INFO a failed attempt
// says "Retrying..." without its cause and the next one "(retry N)"; the
// cause is logged, at ERROR, only when no retries are left.
func TestGetFile_LogsTheRetriesAsFlinksBlobClient(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, 2)
	dir := t.TempDir()
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir: dir, Source: f.source, FetchRetries: 2, ServerAddress: serverAddress,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cache.Close() })
	f.source.open = func(_ int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
		return f.source.corrupted(ctx, jobID, key)
	}

	_, err = cache.GetFile(context.Background(), f.jobID, f.key)
	require.Error(t, err)

	storedAt := " store it under " + filepath.Join(dir, "job_"+f.jobID.String(), "blob_"+f.key.String())
	var lines []string
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		line = strings.ReplaceAll(line[strings.Index(line, "level="):], storedAt, " store it")
		lines = append(lines, line)
	}
	download := fmt.Sprintf("Downloading %s/%s from %s", f.jobID, f.key, serverAddress)
	failed := fmt.Sprintf("Failed to fetch BLOB %s/%s from %s and store it", f.jobID, f.key, serverAddress)
	assert.Equal(t, []string{
		`level=INFO msg="` + download + `" logger=BlobClient`,
		`level=ERROR msg="` + failed + ` Retrying..." logger=BlobClient`,
		`level=INFO msg="` + download + ` (retry 1)" logger=BlobClient`,
		`level=ERROR msg="` + failed + ` Retrying..." logger=BlobClient`,
		`level=INFO msg="` + download + ` (retry 2)" logger=BlobClient`,
		`level=ERROR msg="` + failed + ` No retries left." logger=BlobClient cause="Detected data corruption during transfer (SHA-256): expected ` +
			f.key.String() + `, actual ` + blob.KeyOf(append([]byte{f.jar[0] ^ 0xFF}, f.jar[1:]...)).String() + `"`,
	}, lines)
}

func TestGetFile_RecoversWhenARetrySucceeds(t *testing.T) {
	f := newFixture(t, 0)
	f.source.open = func(call int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
		if call <= 2 {
			return nil, errors.New("connection reset by peer")
		}
		return f.server.Open(ctx, jobID, key)
	}

	path, err := f.cache.GetFile(context.Background(), f.jobID, f.key)

	require.NoError(t, err)
	assert.Equal(t, f.cachedPath(), path)
	assert.Equal(t, int32(3), f.source.calls.Load())
	assert.Equal(t, 2, strings.Count(f.logs.String(), "Retrying..."))
	assert.Contains(t, f.logs.String(), "level=ERROR", "Flink logs a failed attempt at ERROR")
}

func TestGetFile_BlobMissingOnTheServer(t *testing.T) {
	f := newFixture(t, 1)

	_, err := f.cache.GetFile(context.Background(), f.jobID, blob.KeyOf([]byte("never uploaded")))

	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, "No retries left.")
	assert.Equal(t, int32(2), f.source.calls.Load())
	assert.Empty(t, listFiles(t, f.cacheDir))
}

func TestGetFile_ConcurrentCallersDownloadOnce(t *testing.T) {
	// Eight tasks of one job start on one TaskExecutor at the same moment
	// and all need the job's jar.
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 0)
		release := make(chan struct{})
		f.source.open = func(_ int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
			<-release
			return f.server.Open(ctx, jobID, key)
		}

		const tasks = 8
		paths, errs := make([]string, tasks), make([]error, tasks)
		var wg sync.WaitGroup
		for i := range tasks {
			wg.Go(func() { paths[i], errs[i] = f.cache.GetFile(context.Background(), f.jobID, f.key) })
		}
		synctest.Wait() // every task is blocked: one inside the source, seven waiting for its download
		assert.Equal(t, int32(1), f.source.calls.Load())
		close(release)
		wg.Wait()

		for i := range tasks {
			assert.NoError(t, errs[i])
			assert.Equal(t, f.cachedPath(), paths[i])
		}
		assert.Equal(t, int32(1), f.source.calls.Load(), "downloads")
		assert.Len(t, listFiles(t, f.cacheDir), 1)
	})
}

func TestGetFile_ContextCancelledBeforeTheCall(t *testing.T) {
	f := newFixture(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := f.cache.GetFile(ctx, f.jobID, f.key)

	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int32(0), f.source.calls.Load())
}

func TestGetFile_ContextCancelledDuringTheDownload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 0)
		f.source.open = func(_ int32, ctx context.Context, _ api.JobID, _ blob.PermanentBlobKey) (io.ReadCloser, error) {
			<-ctx.Done() // the server never answers
			return nil, ctx.Err()
		}
		ctx, cancel := context.WithCancel(context.Background())

		var err error
		done := make(chan struct{})
		go func() { _, err = f.cache.GetFile(ctx, f.jobID, f.key); close(done) }()
		synctest.Wait()
		cancel()
		<-done

		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, int32(1), f.source.calls.Load(), "no retry after cancellation")
		assert.NotContains(t, f.logs.String(), "Retrying...")
		assert.Empty(t, listFiles(t, f.cacheDir))
	})
}

func TestGetFile_WaiterCancelledWhileAnotherTaskDownloads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 0)
		release := make(chan struct{})
		f.source.open = func(_ int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
			<-release
			return f.server.Open(ctx, jobID, key)
		}
		waiterCtx, cancelWaiter := context.WithCancel(context.Background())

		var downloaderErr, waiterErr error
		var wg sync.WaitGroup
		wg.Go(func() { _, downloaderErr = f.cache.GetFile(context.Background(), f.jobID, f.key) })
		synctest.Wait() // the downloader is inside the source
		wg.Go(func() { _, waiterErr = f.cache.GetFile(waiterCtx, f.jobID, f.key) })
		synctest.Wait() // the waiter waits for the download
		cancelWaiter()
		synctest.Wait() // the waiter has returned
		close(release)
		wg.Wait()

		assert.ErrorIs(t, waiterErr, context.Canceled)
		assert.NoError(t, downloaderErr, "the download goes on for the other task")
		assert.Equal(t, int32(1), f.source.calls.Load())
	})
}

func TestGetFile_WaiterTakesOverWhenTheDownloaderIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 0)
		f.source.open = func(call int32, ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
			if call == 1 {
				<-ctx.Done() // the first download hangs until its task is cancelled
				return nil, ctx.Err()
			}
			return f.server.Open(ctx, jobID, key)
		}
		downloaderCtx, cancelDownloader := context.WithCancel(context.Background())

		var downloaderErr, waiterErr error
		var waiterPath string
		var wg sync.WaitGroup
		wg.Go(func() { _, downloaderErr = f.cache.GetFile(downloaderCtx, f.jobID, f.key) })
		synctest.Wait() // the downloader is inside the source
		wg.Go(func() { waiterPath, waiterErr = f.cache.GetFile(context.Background(), f.jobID, f.key) })
		synctest.Wait() // the waiter waits for the download
		cancelDownloader()
		wg.Wait()

		assert.ErrorIs(t, downloaderErr, context.Canceled)
		assert.NoError(t, waiterErr)
		assert.Equal(t, f.cachedPath(), waiterPath)
		assert.Equal(t, int32(2), f.source.calls.Load())
	})
}

func TestReleaseJobRemovesOnlyThatJob(t *testing.T) {
	f := newFixture(t, 0)
	otherJob := api.NewJobID()
	otherKey, err := f.server.PutPermanentBytes(otherJob, []byte("jar of another job"))
	require.NoError(t, err)
	_, err = f.cache.GetFile(context.Background(), f.jobID, f.key)
	require.NoError(t, err)
	otherPath, err := f.cache.GetFile(context.Background(), otherJob, otherKey)
	require.NoError(t, err)

	require.NoError(t, f.cache.ReleaseJob(f.jobID))

	assert.Equal(t, []string{filepath.Join("job_"+otherJob.String(), "blob_"+otherKey.String())}, listFiles(t, f.cacheDir))
	assert.FileExists(t, otherPath)
	assert.NoError(t, f.cache.ReleaseJob(f.jobID), "releasing twice is not an error")

	// The next task of the released job downloads the jar again.
	_, err = f.cache.GetFile(context.Background(), f.jobID, f.key)
	require.NoError(t, err)
	assert.Equal(t, int32(3), f.source.calls.Load())
}

func TestPermanentBlobCache_RejectsZeroIDs(t *testing.T) {
	f := newFixture(t, 0)

	tests := []struct {
		name string
		call func() error
	}{
		{"GetFile zero JobID", func() error {
			_, err := f.cache.GetFile(context.Background(), api.JobID{}, f.key)
			return err
		}},
		{"GetFile zero key", func() error {
			_, err := f.cache.GetFile(context.Background(), f.jobID, blob.PermanentBlobKey{})
			return err
		}},
		{"ReleaseJob zero JobID", func() error { return f.cache.ReleaseJob(api.JobID{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, tt.call(), blob.ErrInvalidID)
		})
	}
	assert.Equal(t, int32(0), f.source.calls.Load())
}

func TestNewPermanentBlobCache_ChecksItsConfig(t *testing.T) {
	source := blob.SourceFunc(func(context.Context, api.JobID, blob.PermanentBlobKey) (io.ReadCloser, error) {
		return nil, fs.ErrNotExist
	})
	tests := []struct {
		name    string
		cfg     blob.CacheConfig
		wantErr string
	}{
		{"no source", blob.CacheConfig{StorageDir: t.TempDir()}, "Source must be set"},
		{"no storage dir", blob.CacheConfig{Source: source}, "storage directory must be set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := blob.NewPermanentBlobCache(tt.cfg)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestPermanentBlobCache_CallsAfterCloseFail(t *testing.T) {
	f := newFixture(t, 0)

	require.NoError(t, f.cache.Close())
	require.NoError(t, f.cache.Close(), "closing twice is allowed")

	_, err := f.cache.GetFile(context.Background(), f.jobID, f.key)
	assert.ErrorIs(t, err, blob.ErrClosed)
	assert.ErrorIs(t, f.cache.ReleaseJob(f.jobID), blob.ErrClosed)
	assert.Equal(t, int32(0), f.source.calls.Load())
}

func BenchmarkGetFileCached(b *testing.B) {
	f := newFixture(b, 0)
	ctx := context.Background()
	_, err := f.cache.GetFile(ctx, f.jobID, f.key)
	require.NoError(b, err)

	for b.Loop() {
		if _, err := f.cache.GetFile(ctx, f.jobID, f.key); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAFaultAtStepM10FailsEveryAttemptOfOneDownload(t *testing.T) {
	tests := []struct {
		kind      fault.Kind
		wantCause error
		wantText  string
	}{
		{fault.BlobUnavailable, fs.ErrNotExist, "does not exist and failed to copy from blob store"},
		{fault.JarCorrupted, blob.ErrChecksumMismatch, "Detected data corruption during transfer (SHA-256): expected"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			faults := fault.NewInjector(nil)
			f := newFixtureWithFaults(t, 2, faults)
			require.NoError(t, faults.Inject(fault.Fault{Step: trace.M10, Kind: tt.kind, JobID: f.jobID}))

			_, err := f.cache.GetFile(context.Background(), f.jobID, f.key)
			failed := fmt.Sprintf("Failed to fetch BLOB %s/%s from %s and store it under %s", f.jobID, f.key, serverAddress, f.cachedPath())
			assert.EqualError(t, err, failed+" No retries left.")
			assert.ErrorIs(t, err, tt.wantCause)
			assert.ErrorContains(t, errors.Unwrap(err), tt.wantText)
			assert.Equal(t, 2, strings.Count(f.logs.String(), failed+" Retrying..."), "every retry of the download fails")
			assert.Empty(t, listFiles(t, f.cacheDir))

			// The fault fired for that download only: the next one succeeds.
			path, err := f.cache.GetFile(context.Background(), f.jobID, f.key)
			require.NoError(t, err)
			assert.Equal(t, f.cachedPath(), path)
		})
	}
}
