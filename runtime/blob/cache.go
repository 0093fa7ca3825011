package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// DefaultFetchRetries is Flink's default for blob.fetch.retries: how many
// times a failed download is tried again before the task fails to deploy.
const DefaultFetchRetries = 5

// CacheConfig configures a PermanentBlobCache.
type CacheConfig struct {
	// StorageDir is where downloaded BLOBs are kept. It is created if
	// missing and is left on disk by Close: the caller owns it.
	StorageDir string
	// Source is what BLOBs are downloaded from: the BlobServer itself in
	// its own process, a TCPSource from another. It must be set.
	Source Source
	// TCPSource configures the TCPSource that SetBlobServerAddress makes
	// for each BlobServer it is told of: its TLS and timeouts
	// (security.ssl.internal.*, blob.client.*). The zero value is
	// plaintext, with Flink's default timeouts.
	TCPSource TCPSourceConfig
	// FetchRetries is how many times a failed download is retried
	// (blob.fetch.retries). 0 means DefaultFetchRetries; a negative value
	// means no retries, so one attempt only.
	FetchRetries int
	// Logger receives the cache's log lines; nil means slog.Default().
	Logger *slog.Logger
	// ServerAddress names the BlobServer in log lines and errors: its
	// Address, "host:port" for one that listens. Empty means "in-process".
	ServerAddress string
	// Faults may break step m10: a download whose fault fires fails on
	// every attempt, so the task fails to deploy. Nil injects nothing.
	Faults *fault.Injector
}

// PermanentBlobCache keeps a TaskExecutor's local copies of the permanent
// BLOBs its tasks need, downloading each one once and verifying it. It
// mirrors Flink's org.apache.flink.runtime.blob.PermanentBlobCache, with the
// retry loop of BlobClient#downloadFromBlobServer.
//
// All methods are safe for concurrent use: several tasks of one job may ask
// for the same jar at the same moment.
type PermanentBlobCache struct {
	storageDir   string
	fetchRetries int
	log          *slog.Logger // the cache's own lines
	clientLog    *slog.Logger // the download's lines, which Flink's BlobClient logs
	faults       *fault.Injector
	tcpSource    TCPSourceConfig // for SetBlobServerAddress

	// mu guards inFlight, closed and the BlobServer (source and
	// serverAddress, which SetBlobServerAddress changes), and orders
	// moving a finished download into a job directory against ReleaseJob
	// removing it.
	mu            sync.Mutex
	inFlight      map[blobID]*download
	closed        bool
	source        Source
	serverAddress string
}

// blobID names one BLOB of one job, the unit the cache downloads.
type blobID struct {
	jobID api.JobID
	key   PermanentBlobKey
}

// download is one GetFile call fetching a BLOB on behalf of every caller
// that asks for the same BLOB meanwhile. The fetching caller sets err and
// leaderCancelled, then closes done; the others read them after done.
type download struct {
	done            chan struct{}
	err             error
	leaderCancelled bool // the fetching caller's ctx ended, not the download
}

// NewPermanentBlobCache prepares the storage directory and returns a cache.
func NewPermanentBlobCache(cfg CacheConfig) (*PermanentBlobCache, error) {
	if cfg.Source == nil {
		return nil, errors.New("create permanent BLOB cache: CacheConfig.Source must be set")
	}
	if err := prepareStorageDir(cfg.StorageDir); err != nil {
		return nil, fmt.Errorf("create permanent BLOB cache: %w", err)
	}
	c := &PermanentBlobCache{
		storageDir:    cfg.StorageDir,
		source:        cfg.Source,
		fetchRetries:  cfg.FetchRetries,
		serverAddress: cfg.ServerAddress,
		log:           cfg.Logger,
		faults:        cfg.Faults,
		tcpSource:     cfg.TCPSource,
		inFlight:      make(map[blobID]*download),
	}
	switch {
	case c.fetchRetries == 0:
		c.fetchRetries = DefaultFetchRetries
	case c.fetchRetries < 0:
		c.fetchRetries = 0
	}
	if c.serverAddress == "" {
		c.serverAddress = "in-process"
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.clientLog = c.log.With("logger", "BlobClient")
	c.log = c.log.With("logger", "PermanentBlobCache")
	return c, nil
}

// SetBlobServerAddress makes the cache download from the BlobServer that
// listens at address ("host:port") from now on, over TCP (Flink's
// BlobCacheService#setBlobServerAddress). The TaskExecutor calls it each
// time it registers at a ResourceManager, which tells it where its
// JobManager's BlobServer is: after a failover, the new leader's. The
// same address again changes nothing; downloads under way finish from
// the server they started with. The new source connects as
// CacheConfig.TCPSource says, whatever the source before it was.
func (c *PermanentBlobCache) SetBlobServerAddress(address string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if address == c.serverAddress {
		return
	}
	c.source, c.serverAddress = NewTCPSource(address, c.tcpSource), address
	c.log.Info(fmt.Sprintf("Downloading BLOBs from the BlobServer at %s from now on.", address))
}

// blobServer returns the source of the downloads and the address that
// names it.
func (c *PermanentBlobCache) blobServer() (Source, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.source, c.serverAddress
}

// GetFile returns the local path of a BLOB, downloading it first unless it
// is already cached. A download is checked against the key (its SHA-256)
// before it becomes visible, and retried FetchRetries times. Callers asking
// for the same BLOB while it downloads wait for that one download.
//
// Errors wrap ErrChecksumMismatch, fs.ErrNotExist (the source does not have
// the BLOB), ErrClosed, ErrInvalidID or ctx's error.
func (c *PermanentBlobCache) GetFile(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (string, error) {
	if err := checkIDs(jobID, key); err != nil {
		return "", fmt.Errorf("get BLOB: %w", err)
	}
	id := blobID{jobID, key}
	path := storageLocation(c.storageDir, jobID, key)

	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("get BLOB %s/%s: %w", jobID, key, err)
		}

		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return "", fmt.Errorf("get BLOB %s/%s: %w", jobID, key, ErrClosed)
		}
		d, downloading := c.inFlight[id]
		if !downloading {
			d = &download{done: make(chan struct{})}
			c.inFlight[id] = d
		}
		c.mu.Unlock()

		if !downloading {
			return c.getFileFor(ctx, id, d)
		}

		// Another task is already getting this BLOB: wait for its result.
		select {
		case <-d.done:
		case <-ctx.Done():
			return "", fmt.Errorf("get BLOB %s/%s: %w", jobID, key, ctx.Err())
		}
		if d.err == nil {
			return path, nil
		}
		if d.leaderCancelled {
			continue // that caller gave up, not the download: try again ourselves
		}
		return "", d.err
	}
}

// getFileFor runs getFileInternal for every caller waiting on d, then
// publishes the result. The callers waiting get an answer even if
// getFileInternal panics.
func (c *PermanentBlobCache) getFileFor(ctx context.Context, id blobID, d *download) (path string, err error) {
	err = errDownloadPanicked // unless getFileInternal returns
	defer func() {
		c.mu.Lock()
		delete(c.inFlight, id)
		c.mu.Unlock()

		d.err = err
		d.leaderCancelled = err != nil && ctx.Err() != nil
		close(d.done)
	}()
	path, err = c.getFileInternal(ctx, c.downloadSource(), id.jobID, id.key)
	return path, err
}

// errDownloadPanicked is what the callers waiting for a download get when
// the download panicked instead of returning.
var errDownloadPanicked = errors.New("the download of the BLOB panicked")

// getFileInternal returns the local path of a BLOB: the cached file if
// there is one, else a fresh download from source, tried 1 + fetchRetries
// times with no pause in between (Flink's AbstractBlobCache#getFileInternal
// with the retry loop of BlobClient#downloadFromBlobServer, and its lines:
// a failed attempt's cause is logged only when no retries are left).
func (c *PermanentBlobCache) getFileInternal(ctx context.Context, source Source, jobID api.JobID, key PermanentBlobKey) (string, error) {
	path := storageLocation(c.storageDir, jobID, key)
	if isRegularFile(path) {
		return path, nil // cache hit
	}
	_, serverAddress := c.blobServer()
	failed := fmt.Sprintf("Failed to fetch BLOB %s/%s from %s and store it under %s", jobID, key, serverAddress, path)

	// Step m10: the TaskExecutor fetches the job's jar before the task can
	// load its user code.
	c.clientLog.Info(fmt.Sprintf("Downloading %s/%s from %s", jobID, key, serverAddress))
	for retriesLeft := c.fetchRetries; ; retriesLeft-- {
		err := c.fetchOnce(ctx, source, jobID, key)
		if err == nil {
			return path, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", fmt.Errorf("fetch BLOB %s/%s from %s: %w", jobID, key, serverAddress, ctxErr)
		}
		if errors.Is(err, ErrClosed) {
			return "", err
		}
		if retriesLeft == 0 {
			c.clientLog.Error(failed+" No retries left.", "cause", err.Error())
			return "", &fetchError{msg: failed + " No retries left.", cause: err}
		}
		if c.clientLog.Enabled(ctx, slog.LevelDebug) { // Flink gives the cause here only at DEBUG
			c.clientLog.Error(failed+" Retrying...", "cause", err.Error())
		} else {
			c.clientLog.Error(failed + " Retrying...")
		}
		c.clientLog.Info(fmt.Sprintf("Downloading %s/%s from %s (retry %d)", jobID, key, serverAddress, c.fetchRetries-retriesLeft+1))
	}
}

// fetchOnce is one download attempt: read from the source into a temp file
// while hashing, check the hash against the key, move the file into place.
// A failed attempt leaves nothing behind.
func (c *PermanentBlobCache) fetchOnce(ctx context.Context, source Source, jobID api.JobID, key PermanentBlobKey) error {
	content, err := source.Open(ctx, jobID, key)
	if err != nil {
		return err
	}
	tmpPath, actual, err := writeTemp(ctx, incomingDir(c.storageDir), content)
	_ = content.Close() // what was read is verified below; a close error changes nothing
	if err != nil {
		return err
	}

	// Step m10: verify the checksum. The key is the SHA-256 of the content,
	// so a corrupted jar cannot pass for the real one.
	if actual != key {
		_ = os.Remove(tmpPath)
		return fmt.Errorf("%w (SHA-256): expected %s, actual %s", ErrChecksumMismatch, key, actual)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = os.Remove(tmpPath)
		return ErrClosed
	}
	_, err = moveIntoPlace(tmpPath, c.storageDir, jobID, key)
	return err
}

// downloadSource returns the Source one download reads from: the cache's
// own, through step m10's fault injection. The injector is asked on the
// download's first attempt, so a cache hit never fires a fault; a fault
// that fires breaks every attempt of that download. It makes the BLOB
// unavailable, or corrupts its bytes on the way so that the real checksum
// check catches it.
func (c *PermanentBlobCache) downloadSource() Source {
	var (
		ask      sync.Once
		injected fault.Kind
	)
	return SourceFunc(func(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error) {
		// Step m10 (fault): the BLOB is missing on the server, or damaged.
		ask.Do(func() { injected, _ = c.faults.Fire(trace.M10, jobID) })
		if injected == fault.BlobUnavailable {
			return nil, fmt.Errorf("GET operation failed: Local file for BLOB %s/%s does not exist and failed to copy from blob store: %w: %w",
				jobID, key, fs.ErrNotExist, fault.Injected(trace.M10, injected))
		}
		source, _ := c.blobServer()
		content, err := source.Open(ctx, jobID, key)
		if err != nil || injected != fault.JarCorrupted {
			return content, err
		}
		return corrupted{content}, nil
	})
}

// ReleaseJob removes every cached BLOB of the job. The TaskExecutor calls it
// when it no longer runs tasks of the job. Releasing a job with nothing
// cached is not an error.
func (c *PermanentBlobCache) ReleaseJob(jobID api.JobID) error {
	if jobID.IsZero() {
		return fmt.Errorf("release BLOBs: %w: the JobID is zero", ErrInvalidID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("release BLOBs of job %s: %w", jobID, ErrClosed)
	}
	if err := os.RemoveAll(jobDir(c.storageDir, jobID)); err != nil {
		return fmt.Errorf("release BLOBs of job %s: %w", jobID, err)
	}
	return nil
}

// Close stops the cache; every later call fails with ErrClosed, and
// downloads still running fail instead of storing their file. Cached BLOBs
// stay on disk. Closing twice is allowed.
func (c *PermanentBlobCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// fetchError is what GetFile returns once every attempt has failed. Its text
// is exactly the IOException message of Flink's BlobClient, "Failed to fetch
// BLOB <jobId>/<blobKey> from <addr> and store it under <path> No retries
// left."; the last attempt's error is its cause, reachable with errors.Is,
// errors.As and errors.Unwrap, and every earlier cause is in an ERROR line.
type fetchError struct {
	msg   string
	cause error
}

func (e *fetchError) Error() string { return e.msg }
func (e *fetchError) Unwrap() error { return e.cause }

// corrupted flips the bits of the first byte it reads: a jar damaged on
// the way, for the m10 fault "jar-corrupted".
type corrupted struct{ io.ReadCloser }

func (c corrupted) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if n > 0 {
		p[0] ^= 0xff
	}
	return n, err
}
