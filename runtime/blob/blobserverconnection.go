package blob

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"time"

	"flinklab/runtime/internal/connlimit"
)

// The serving side of the BLOB protocol (protocol.go): a BlobServer with a
// ListenAddress serves each connection on a goroutine of its own.

// acceptLoop takes connections until Close closes the listener, no more
// than FetchNumConcurrent at a time: while that many are served, the next
// ones wait in the listen backlog of the operating system, where they
// cost the process nothing, until one closes (Flink: BlobServer#run, which
// waits on activeConnections the same way).
func (s *BlobServer) acceptLoop() {
	for {
		if !s.connections.Acquire() {
			return // closed
		}
		conn, err := s.connections.Accept(s.listener, "The BLOB server at "+s.address)
		if err != nil {
			s.connections.Release()
			return // closed
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = conn.Close()
			s.connections.Release()
			return
		}
		s.conns[conn] = struct{}{}
		s.wg.Go(func() {
			defer s.connections.Release()
			s.serveConnection(conn)
		})
		s.mu.Unlock()
	}
}

// serveConnection answers the one GET request a connection carries, then
// closes it. Flink: BlobServerConnection.run → get.
func (s *BlobServer) serveConnection(conn net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		_ = conn.Close()
	}()

	request, err := s.readRequest(conn)
	if err != nil {
		// Not a client that hung up before it asked, nor Close. Anyone
		// who reaches the port can make this line, so it is written at
		// most once a minute (package internal/connlimit).
		if !errors.Is(err, io.EOF) && !s.isClosed() {
			s.connLog.Error(kindNoRequest, fmt.Sprintf("Error while executing BLOB connection from %s.", conn.RemoteAddr()), "cause", err.Error())
		}
		return
	}
	// Flink's BUFFER_SIZE; each write of it waits for the client for the
	// write timeout at most.
	w := bufio.NewWriterSize(writeTimeoutConn{Conn: conn, timeout: s.limits.WriteTimeout}, 64<<10)
	content, size, err := s.openForTransfer(request)
	if err != nil {
		s.log.Debug(fmt.Sprintf("GET operation from %s failed.", conn.RemoteAddr()), "error", err.Error())
		_, _ = w.Write(appendErrorResponse(nil, err))
		_ = w.Flush()
		return
	}
	defer content.Close()

	// From here on the client is receiving the BLOB: all we can do when
	// something fails is close the connection, and the client sees a
	// short transfer.
	if _, err := w.Write(appendOkayHeader(nil, size)); err != nil {
		return
	}
	if _, err := io.CopyN(w, content, size); err != nil {
		s.log.Warn(fmt.Sprintf("Error while sending a BLOB to %s.", conn.RemoteAddr()), "error", err.Error())
		return
	}
	_ = w.Flush()
}

// readRequest reads the one request of a connection: its TLS handshake
// first, when the server has TLS, then the GET. Both must arrive within
// the read timeout from the accept, or the connection is closed: it holds
// one of the FetchNumConcurrent places, which a client that sends nothing
// must not keep.
func (s *BlobServer) readRequest(conn net.Conn) ([requestLength]byte, error) {
	var request [requestLength]byte
	_ = conn.SetReadDeadline(time.Now().Add(s.limits.ReadTimeout))
	if err := connlimit.Handshake(context.Background(), conn); err != nil { // Close closes conn, which ends it
		return request, fmt.Errorf("TLS handshake failed: %w", err)
	}
	_, err := io.ReadFull(conn, request[:])
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("no complete GET request within %s (blob.server.read-timeout): %w", s.limits.ReadTimeout, err)
	}
	return request, err
}

// kindNoRequest is the kind of the line a connection that brought no GET
// request logs (connlimit.Log): the TLS handshake failed, the request did
// not arrive within the read timeout, or it was cut short.
const kindNoRequest = "no request"

// writeTimeoutConn gives each write the write timeout to complete: a
// client that stops reading a BLOB fails its transfer then, and frees its
// place.
type writeTimeoutConn struct {
	net.Conn
	timeout time.Duration
}

func (c writeTimeoutConn) Write(p []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.Conn.Write(p)
}

// openForTransfer parses a request and opens the BLOB it names, with its
// size.
func (s *BlobServer) openForTransfer(request [requestLength]byte) (io.ReadCloser, int64, error) {
	jobID, key, err := parseGetRequest(request)
	if err != nil {
		return nil, 0, fmt.Errorf("GET operation failed: %w", err)
	}
	content, err := s.Open(context.Background(), jobID, key)
	if err != nil {
		return nil, 0, err
	}
	file, ok := content.(interface{ Stat() (fs.FileInfo, error) }) // an *os.File
	if !ok {
		_ = content.Close()
		return nil, 0, fmt.Errorf("get BLOB %s/%s: cannot tell its size", jobID, key)
	}
	info, err := file.Stat()
	if err != nil {
		_ = content.Close()
		return nil, 0, fmt.Errorf("get BLOB %s/%s: %w", jobID, key, err)
	}
	return content, info.Size(), nil
}
