package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"flinklab/runtime/api"
)

// TCPSource downloads BLOBs from a BlobServer in another process, over
// TCP: the Source a PermanentBlobCache uses when the JobManager is not in
// its process. It mirrors the download half of Flink's BlobClient
// (BlobClient#downloadFromBlobServer's GET); the cache around it keeps
// doing what it does with any Source: it hashes what arrives, compares it
// with the key, and retries.
//
// Each Open is one connection, one request and one response (protocol.go).
// TCPSource is safe for concurrent use.
type TCPSource struct {
	address string
	dialer  net.Dialer
}

// NewTCPSource returns a Source that downloads from the BlobServer
// listening at address (its Address(), "host:port").
func NewTCPSource(address string) *TCPSource { return &TCPSource{address: address} }

// Open connects to the BlobServer, asks for one BLOB and returns its
// content as it arrives. A BLOB the server does not have is an error
// wrapping fs.ErrNotExist, as from BlobServer.Open. The returned reader
// fails with io.ErrUnexpectedEOF if the connection ends before the
// announced length; reads give up when ctx ends. Close closes the
// connection.
func (s *TCPSource) Open(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error) {
	conn, err := s.dialer.DialContext(ctx, "tcp", s.address)
	if err != nil {
		return nil, fmt.Errorf("Could not connect to BlobServer at address %s: %w", s.address, err)
	}
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
