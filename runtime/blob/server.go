package blob

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/internal/connlimit"
)

// DefaultListenAddress is where a BlobServer that serves over TCP listens
// unless told otherwise: the loopback interface, on a free port (Flink's
// blob.server.port is 0, a free port, by default).
const DefaultListenAddress = "127.0.0.1:0"

// The defaults of the limits of a listening BlobServer (doc.go, "Limits").
const (
	// DefaultFetchNumConcurrent is Flink's default for
	// blob.fetch.num-concurrent: how many connections the server serves at
	// once.
	DefaultFetchNumConcurrent = 50
	// DefaultFetchBacklog is Flink's default for blob.fetch.backlog.
	DefaultFetchBacklog = 1000
	// DefaultServerReadTimeout is our default for blob.server.read-timeout:
	// how long after accepting a connection the server waits for its GET
	// request (and, with TLS, the handshake before it). A TCPSource sends
	// the request as soon as it is connected.
	DefaultServerReadTimeout = 10 * time.Second
	// DefaultServerWriteTimeout is our default for
	// blob.server.write-timeout: how long one write of a BLOB's bytes may
	// wait for the client to take them. It is Flink's
	// blob.client.socket.timeout, the client's wait in the other direction.
	DefaultServerWriteTimeout = DefaultSocketTimeout
)

// ServerConfig configures a BlobServer.
type ServerConfig struct {
	// StorageDir is where BLOBs are stored. It is created if missing and is
	// left on disk by Close: the caller owns it.
	StorageDir string
	// Logger receives the server's log lines; nil means slog.Default().
	Logger *slog.Logger
	// Address is shown in log lines and messages only, for example
	// "localhost:0", when the server does not listen. Empty means
	// "in-process".
	Address string
	// ListenAddress is the host:port to serve BLOBs on over TCP
	// (blob.server.port; port 0 picks a free one; DefaultListenAddress is
	// a good choice). The server's Address is then where it listens, with
	// the host given here, and TaskExecutors in other processes download
	// through NewTCPSource(Address()). Empty means no listener: caches use
	// the server itself as their Source, in-process, as in the embedded
	// cluster.
	ListenAddress string
	// BlobStore keeps a copy of every BLOB where the next leader
	// JobManager finds it: a FileSystemBlobStore in the HA storage
	// directory when high availability is on. Nil means nothing is stored
	// beyond the local disk, as with Flink's VoidBlobStore. The caller owns
	// the store; Close leaves it as it is.
	BlobStore BlobStore

	// The limits of a listening server (doc.go, "Limits"). Zero means the
	// default.

	// FetchNumConcurrent bounds the connections served at once
	// (blob.fetch.num-concurrent; DefaultFetchNumConcurrent). The next
	// ones wait in the listen backlog until one closes.
	FetchNumConcurrent int
	// FetchBacklog is blob.fetch.backlog (DefaultFetchBacklog). It is
	// shown in the start-up line; the backlog is the operating system's
	// (see doc.go).
	FetchBacklog int
	// ReadTimeout bounds the wait for a connection's request, TLS handshake
	// included (blob.server.read-timeout, ours; DefaultServerReadTimeout).
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a BLOB's bytes to a client that
	// does not read (blob.server.write-timeout, ours;
	// DefaultServerWriteTimeout).
	WriteTimeout time.Duration
	// TLS, when set, makes every connection TLS: the listener hands out
	// tls.Conns, whose handshake happens under the read timeout. Set
	// ClientAuth to tls.RequireAndVerifyClientCert for mutual TLS, as
	// Flink's internal SSL is. Nil means plaintext.
	TLS *tls.Config
}

// BlobServer stores the BLOBs of every job on the JobManager's local disk
// and serves them to the TaskExecutors' caches. It mirrors Flink's
// org.apache.flink.runtime.blob.BlobServer (the permanent half of it).
//
// All methods are safe for concurrent use.
type BlobServer struct {
	storageDir string
	address    string
	log        *slog.Logger
	blobStore  BlobStore // nil without high availability

	// listener accepts the connections of TCPSources; nil when the server
	// does not listen.
	listener net.Listener
	// limits are the listening server's limits, defaults filled in.
	limits ServerConfig
	// connections bounds the connections served at once
	// (FetchNumConcurrent): the accept loop takes a slot before it
	// accepts the next. connLog writes the lines about single
	// connections, at most one of each kind a minute.
	connections *connlimit.Slots
	connLog     *connlimit.Log

	// mu orders the moves of finished BLOBs into a job directory against
	// CleanupJob removing that directory, and guards closed and conns.
	// Writing and reading content happen outside it, with one exception
	// taken from Flink (BlobUtils#moveTempFileToStore holds the write lock
	// for both): PutPermanent copies a new BLOB to the BlobStore under mu,
	// so that CleanupJob cannot run between the local copy and the store's
	// and leave a BLOB of a finished job in the store.
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{} // connections being served
	wg     sync.WaitGroup        // the accept loop and every connection's goroutine
}

// NewBlobServer prepares the storage directory and returns a running server.
func NewBlobServer(cfg ServerConfig) (*BlobServer, error) {
	if err := prepareStorageDir(cfg.StorageDir); err != nil {
		return nil, fmt.Errorf("start BLOB server: %w", err)
	}
	cfg = cfg.withDefaultLimits()
	s := &BlobServer{
		storageDir: cfg.StorageDir,
		address:    cfg.Address,
		log:        cfg.Logger,
		blobStore:  cfg.BlobStore,
		limits:     cfg,
		conns:      make(map[net.Conn]struct{}),
	}
	if cfg.ListenAddress != "" {
		listener, address, err := listen(cfg.ListenAddress)
		if err != nil {
			return nil, fmt.Errorf("start BLOB server: %w", err)
		}
		if cfg.TLS != nil {
			listener = tls.NewListener(listener, cfg.TLS)
		}
		s.listener, s.address = listener, address
	}
	if s.address == "" {
		s.address = "in-process"
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.log = s.log.With("logger", "BlobServer")
	s.connLog = connlimit.NewLog(s.log, connlimit.Timeouts{Read: cfg.ReadTimeout, ReadKey: "blob.server.read-timeout"})
	s.connections = connlimit.NewSlots(cfg.FetchNumConcurrent, s.connLog, fmt.Sprintf(
		"BLOB server at %s serves %d connections, its maximum (blob.fetch.num-concurrent): new connections wait in the backlog until one closes.",
		s.address, cfg.FetchNumConcurrent))
	s.log.Info(fmt.Sprintf("Started BLOB server at %s - max concurrent requests: %d - max backlog: %d",
		s.address, cfg.FetchNumConcurrent, cfg.FetchBacklog),
		"storageDir", s.storageDir)
	if s.listener != nil {
		s.wg.Go(s.acceptLoop)
	}
	return s, nil
}

// withDefaultLimits fills in the limits left zero.
func (cfg ServerConfig) withDefaultLimits() ServerConfig {
	if cfg.FetchNumConcurrent <= 0 {
		cfg.FetchNumConcurrent = DefaultFetchNumConcurrent
	}
	if cfg.FetchBacklog <= 0 {
		cfg.FetchBacklog = DefaultFetchBacklog
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultServerReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultServerWriteTimeout
	}
	return cfg
}

// listen opens the server's listener and returns it with the address
// clients dial: the host given, and the port it got.
func listen(address string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, "", fmt.Errorf("listen address %q: %w", address, err)
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return nil, "", fmt.Errorf("could not listen at %s: %w", address, err)
	}
	_, port, _ := net.SplitHostPort(listener.Addr().String())
	return listener, net.JoinHostPort(host, port), nil
}

// Address returns where the server is: "host:port" when it listens (give
// it to NewTCPSource), otherwise the address shown in log lines. Give it
// to each PermanentBlobCache as CacheConfig.ServerAddress too.
func (s *BlobServer) Address() string { return s.address }

// PutPermanent stores the content of r as a permanent BLOB of the job and
// returns its key, the SHA-256 of the content. Putting the same content
// twice returns the same key and keeps one file. If reading r fails, nothing
// is stored.
//
// With a BlobStore, the BLOB is copied there too before PutPermanent
// returns. If that copy fails, PutPermanent fails, and the local file goes
// again unless it was there before the call: a job must not be submitted
// with a jar that the next leader could not find.
func (s *BlobServer) PutPermanent(jobID api.JobID, r io.Reader) (PermanentBlobKey, error) {
	if jobID.IsZero() {
		return PermanentBlobKey{}, fmt.Errorf("put BLOB: %w: the JobID is zero", ErrInvalidID)
	}
	if s.isClosed() {
		return PermanentBlobKey{}, fmt.Errorf("put BLOB for job %s: %w", jobID, ErrClosed)
	}

	// The job's jar arrives (after the run request, step m2). It is written to a temp file and
	// hashed on the way; only a complete file is renamed to its key's name.
	tmpPath, key, err := writeTemp(context.Background(), incomingDir(s.storageDir), r)
	if err != nil {
		return PermanentBlobKey{}, fmt.Errorf("put BLOB for job %s: %w", jobID, err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = os.Remove(tmpPath)
		return PermanentBlobKey{}, fmt.Errorf("put BLOB for job %s: %w", jobID, ErrClosed)
	}
	path := storageLocation(s.storageDir, jobID, key)
	existed := isRegularFile(path) // no one else moves this BLOB into place while we hold mu
	if _, err := moveIntoPlace(tmpPath, s.storageDir, jobID, key); err != nil {
		return PermanentBlobKey{}, fmt.Errorf("put BLOB for job %s: %w", jobID, err)
	}

	// High availability: the next leader finds the jar only in the
	// BlobStore. Flink copies a BLOB there only when it is new on the local
	// disk; we copy it every time, which costs a copy but also repairs a
	// store that lost it, and the store still keeps one file per key.
	if s.blobStore != nil {
		if err := s.blobStore.Put(path, jobID, key); err != nil {
			if !existed {
				_ = os.Remove(path)
			}
			return PermanentBlobKey{}, fmt.Errorf("put BLOB for job %s: %w", jobID, err)
		}
		s.log.Debug(fmt.Sprintf("Copied BLOB %s/%s to the blob store.", jobID, key))
	}
	s.log.Debug(fmt.Sprintf("Stored BLOB %s/%s.", jobID, key))
	return key, nil
}

// PutPermanentBytes is PutPermanent for content already in memory.
func (s *BlobServer) PutPermanentBytes(jobID api.JobID, content []byte) (PermanentBlobKey, error) {
	return s.PutPermanent(jobID, bytes.NewReader(content))
}

// Open returns the content of a stored BLOB; it is the Source a
// PermanentBlobCache downloads from. A BLOB missing on the local disk is
// copied from the BlobStore, if there is one, and kept on the local disk
// from then on (Flink: BlobServer#getFileInternal). A BLOB that neither has
// gives an error wrapping fs.ErrNotExist. The returned file stays readable
// even if CleanupJob removes it meanwhile.
func (s *BlobServer) Open(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error) {
	if err := checkIDs(jobID, key); err != nil {
		return nil, fmt.Errorf("get BLOB: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get BLOB %s/%s: %w", jobID, key, err)
	}
	if s.isClosed() {
		return nil, fmt.Errorf("get BLOB %s/%s: %w", jobID, key, ErrClosed)
	}

	path := storageLocation(s.storageDir, jobID, key)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = s.copyFromBlobStore(jobID, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// The wording of the FileNotFoundException Flink's BlobServer throws.
		return nil, fmt.Errorf("Local file %s does not exist and failed to copy from blob store: %w",
			path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("get BLOB %s/%s: %w", jobID, key, err)
	}
	return f, nil
}

// copyFromBlobStore is the high-availability half of Open, for a BLOB that
// is not on the local disk: this server may be the next leader, recovering
// a job whose jar only the previous leader's disk and the BlobStore have.
// The BLOB is copied from the BlobStore into the incoming directory, outside
// mu, then moved into place and opened under mu, so that a CleanupJob
// cannot remove it in between. Without a BlobStore, or if the store does
// not have the BLOB either, the error wraps fs.ErrNotExist.
func (s *BlobServer) copyFromBlobStore(jobID api.JobID, key PermanentBlobKey) (*os.File, error) {
	if s.blobStore == nil {
		return nil, fs.ErrNotExist
	}
	// Reserve a unique name in the incoming directory for the store to
	// copy to (Flink: BlobServer#createTemporaryFilename).
	reserved, err := os.CreateTemp(incomingDir(s.storageDir), "temp-")
	if err != nil {
		return nil, fmt.Errorf("create temp file for BLOB: %w", err)
	}
	tmpPath := reserved.Name()
	_ = reserved.Close()
	if err := s.blobStore.Get(jobID, key, tmpPath); err != nil {
		_ = os.Remove(tmpPath)
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = os.Remove(tmpPath)
		return nil, ErrClosed
	}
	path, err := moveIntoPlace(tmpPath, s.storageDir, jobID, key)
	if err != nil {
		return nil, err
	}
	s.log.Debug(fmt.Sprintf("Copied BLOB %s/%s from the blob store.", jobID, key))
	return os.Open(path)
}

// CleanupJob removes every BLOB of the job, from the local disk and from the
// BlobStore (Flink: BlobServer#globalCleanupAsync). The Dispatcher calls it
// once the job has reached a globally terminal state: no leader will run
// the job again, so no leader needs its jars. Removing a job with no BLOBs
// is not an error. If both removals fail, the error joins both.
func (s *BlobServer) CleanupJob(jobID api.JobID) error {
	if jobID.IsZero() {
		return fmt.Errorf("clean up BLOBs: %w: the JobID is zero", ErrInvalidID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("clean up BLOBs of job %s: %w", jobID, ErrClosed)
	}
	var errs []error
	if err := os.RemoveAll(jobDir(s.storageDir, jobID)); err != nil {
		errs = append(errs, err)
	}
	if s.blobStore != nil {
		if err := s.blobStore.DeleteAll(jobID); err != nil {
			// The wording of the IOException Flink's BlobServer adds.
			errs = append(errs, fmt.Errorf("Error while cleaning up the BlobStore for job %s: %w", jobID, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clean up BLOBs of job %s: %w", jobID, err)
	}
	return nil
}

// DeletePermanent removes one BLOB of a job, from the local disk and from
// the BlobStore (Flink's PermanentBlobService has no such call; a REST run
// the Dispatcher refuses uses it to take back exactly the jar it stored).
// Deleting a BLOB that is not there is not an error; the job's other BLOBs
// stay.
func (s *BlobServer) DeletePermanent(jobID api.JobID, key PermanentBlobKey) error {
	if jobID.IsZero() || key.IsZero() {
		return fmt.Errorf("delete BLOB: %w: the JobID or key is zero", ErrInvalidID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("delete BLOB %s/%s: %w", jobID, key, ErrClosed)
	}
	var errs []error
	if err := os.Remove(storageLocation(s.storageDir, jobID, key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if s.blobStore != nil {
		if err := s.blobStore.Delete(jobID, key); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("delete BLOB %s/%s: %w", jobID, key, err)
	}
	return nil
}

// Close stops the server; every later call fails with ErrClosed. A server
// that listens stops accepting connections, closes those it is serving
// (their downloads fail, and are retried elsewhere or fail the task), and
// waits for their goroutines. The stored BLOBs stay on disk. Closing twice
// is allowed.
func (s *BlobServer) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.connections.Close()
		if s.listener != nil {
			_ = s.listener.Close()
		}
		for conn := range s.conns {
			_ = conn.Close()
		}
		s.log.Info("Stopped BLOB server at " + s.address + ".")
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *BlobServer) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
