package blob

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
)

// The serving side of the BLOB protocol (protocol.go): a BlobServer with a
// ListenAddress serves each connection on a goroutine of its own.

// acceptLoop takes connections until Close closes the listener.
func (s *BlobServer) acceptLoop() {
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			if !s.isClosed() {
				s.log.Error(fmt.Sprintf("BLOB server at %s stopped accepting connections.", s.address), "cause", err.Error())
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = conn.Close()
			return
		}
		s.conns[conn] = struct{}{}
		s.wg.Go(func() { s.serveConnection(conn) })
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

	var request [requestLength]byte
	if _, err := io.ReadFull(conn, request[:]); err != nil {
		return // the client hung up before it asked for anything
	}
	w := bufio.NewWriterSize(conn, 64<<10) // Flink's BUFFER_SIZE
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
