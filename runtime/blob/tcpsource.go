package blob

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"flinklab/runtime/api"
)

// DefaultSocketTimeout is Flink's default for blob.client.socket.timeout:
// how long a download waits for the BlobServer to send anything before it
// gives up.
const DefaultSocketTimeout = 5 * time.Minute

// TCPSource downloads BLOBs from a BlobServer in another process, over
// TCP: the Source a PermanentBlobCache uses when the JobManager is not in
// its process. It mirrors the download half of Flink's BlobClient
// (BlobClient#downloadFromBlobServer's GET); the cache around it keeps
// doing what it does with any Source: it hashes what arrives, compares it
// with the key, and retries.
//
// Each Open is one connection, one request and one response (protocol.go).
// A BlobServer that sends nothing for the socket timeout
// (DefaultSocketTimeout unless configured) fails the download (Flink's
// BlobClient sets its socket's SO_TIMEOUT), so a JobManager that hangs
// does not hold a task in DEPLOYING for ever. TCPSource is safe for
// concurrent use.
type TCPSource struct {
	address string
	cfg     TCPSourceConfig
	// dial opens the connection; tests replace it.
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// TCPSourceConfig configures a TCPSource. The zero value is Flink's
// defaults, in plaintext.
type TCPSourceConfig struct {
	// TLS, when set, is what the source dials the BlobServer with: the
	// client side of mutual TLS (a certificate the server trusts, and the
	// roots to check the server's). Nil means plaintext.
	TLS *tls.Config
	// ConnectTimeout bounds connecting, TLS handshake included
	// (blob.client.connect.timeout; Flink's default 0 means none: the
	// operating system's own timeout, and the caller's ctx).
	ConnectTimeout time.Duration
	// SocketTimeout is how long a download waits for the server to send
	// anything (blob.client.socket.timeout); zero means
	// DefaultSocketTimeout, and NoSocketTimeout means that it waits as
	// long as it takes (the option's 0).
	SocketTimeout time.Duration
}

// NoSocketTimeout, as a TCPSourceConfig's SocketTimeout, lets a download
// wait for the BlobServer as long as it takes, as Flink's BlobClient does
// with blob.client.socket.timeout: 0. The caller's ctx still ends it.
const NoSocketTimeout time.Duration = -1

// NewTCPSource returns a Source that downloads from the BlobServer
// listening at address (its Address(), "host:port"). An empty address
// stands for a BlobServer not known yet: Open fails until the cache is
// given one (PermanentBlobCache.SetBlobServerAddress), which keeps cfg.
func NewTCPSource(address string, cfg TCPSourceConfig) *TCPSource {
	if cfg.SocketTimeout == 0 {
		cfg.SocketTimeout = DefaultSocketTimeout
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout}
	dial := dialer.DialContext
	if cfg.TLS != nil {
		tlsDialer := &tls.Dialer{NetDialer: dialer, Config: cfg.TLS}
		dial = tlsDialer.DialContext
	}
	return &TCPSource{address: address, cfg: cfg, dial: dial}
}

// errBlobServerUnknown is what Open fails with before the source knows
// where the BlobServer is.
var errBlobServerUnknown = errors.New("the BlobServer is not known yet: a TaskExecutor learns it when it registers at the ResourceManager")

// Open connects to the BlobServer, asks for one BLOB and returns its
// content as it arrives. A BLOB the server does not have is an error
// wrapping fs.ErrNotExist, as from BlobServer.Open. The returned reader
// fails with io.ErrUnexpectedEOF if the connection ends before the
// announced length; reads give up when ctx ends, or when the server has
// sent nothing for the socket timeout. Close closes the connection.
func (s *TCPSource) Open(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error) {
	if s.address == "" {
		return nil, errBlobServerUnknown
	}
	nc, err := s.dial(ctx, "tcp", s.address)
	if err != nil {
		return nil, fmt.Errorf("Could not connect to BlobServer at address %s: %w", s.address, err)
	}
	conn := socketTimeoutConn{Conn: nc, timeout: s.cfg.SocketTimeout}
	// A ctx that ends closes the connection, which ends a read waiting on it.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	stream := &blobStream{ctx: ctx, conn: conn, stop: stop}

	if _, err := conn.Write(appendGetRequest(nil, jobID, key)); err != nil {
		_ = stream.Close()
		return nil, stream.failed(fmt.Errorf("GET operation failed: could not send the request to %s: %w", s.address, err))
	}
	size, err := readResponseHeader(conn)
	if err != nil {
		_ = stream.Close()
		return nil, stream.failed(fmt.Errorf("GET operation failed: %w", err))
	}
	stream.remaining = size
	return stream, nil
}

// socketTimeoutConn is a connection whose every read gives up after the
// socket timeout without a byte (Java's SO_TIMEOUT): the time counts from
// the start of each read, not of the download, so a large BLOB that keeps
// arriving takes as long as it needs. A timeout of NoSocketTimeout (or
// any below zero) sets no deadline.
type socketTimeoutConn struct {
	net.Conn
	timeout time.Duration
}

func (c socketTimeoutConn) Read(p []byte) (int, error) {
	if c.timeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(c.timeout))
	}
	return c.Conn.Read(p)
}

// blobStream is the content of one BLOB arriving on its connection.
type blobStream struct {
	ctx       context.Context
	conn      net.Conn
	stop      func() bool
	remaining int64 // bytes announced and not read yet
}

// Read reads the content, and no more than the server announced.
func (b *blobStream) Read(p []byte) (int, error) {
	if b.remaining == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.conn.Read(p)
	b.remaining -= int64(n)
	switch {
	case err == io.EOF && b.remaining > 0:
		err = io.ErrUnexpectedEOF // the server announced more
	case err == io.EOF:
		err = nil // the next Read says EOF
	case err != nil:
		err = b.failed(err)
	}
	return n, err
}

// failed returns ctx's error if ctx ending caused err, and err otherwise.
func (b *blobStream) failed(err error) error {
	if ctxErr := b.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (%w)", ctxErr, err)
	}
	return err
}

// Close closes the connection. A connection that ctx closed already is
// not an error.
func (b *blobStream) Close() error {
	b.stop()
	if err := b.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
