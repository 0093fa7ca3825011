package rest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Deadlines and limits: what keeps a slow or hostile client from holding
// the endpoint's connections, memory and disk (see "Deadlines and limits"
// in the package documentation)
// ---------------------------------------------------------------------------

// bodyDeadline bounds the reading of a request body by
// Config.ReadTimeout, whether the handler reads it or not:
//
//   - When the request comes in with a body, newBodyDeadline sets the
//     connection's read deadline to now + timeout, before the handler runs.
//   - Before every Read it moves the deadline to now + timeout, so a
//     client that keeps sending is never cut, and one that stops is cut
//     timeout after its last byte. Once the body has ended it lifts the
//     deadline again, so that a handler that then waits for the
//     Dispatcher is not cut while it waits.
//   - When the handler has returned without reading the body to its end,
//     handlerDone sets the deadline to now + timeout once more: net/http
//     reads what is left of the body (up to 256 KiB) before it sends the
//     answer, and would otherwise wait for a stalled client for ever,
//     holding its connection and never sending the answer.
//
// A request without a body gets no deadline: net/http already reads its
// connection in the background, to notice a client that hangs up, and a
// deadline would end that read and cancel the request's ctx with it.
//
// A request served without a connection (Handler, in-process tests) has no
// deadline to set: ResponseController answers http.ErrNotSupported, and
// the body is read as it is.
type bodyDeadline struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	hasBody bool // the request came with a body
	sawEOF  bool // the body was read to its end
	cut     bool // a read ran into the deadline, which stays in the past
}

func newBodyDeadline(w http.ResponseWriter, r *http.Request, timeout time.Duration) *bodyDeadline {
	b := &bodyDeadline{body: r.Body, rc: http.NewResponseController(w), timeout: timeout, hasBody: hasBody(r)}
	if b.hasBody {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
	return b
}

func (b *bodyDeadline) Read(p []byte) (int, error) {
	if !b.hasBody {
		return b.body.Read(p) // io.EOF at once
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	n, err := b.body.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		b.sawEOF = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays where it is, in the past: net/http, which
		// reads what is left of a body before it answers, must not wait
		// for the stalled client either.
		b.cut = true
		err = &readTimeoutError{timeout: b.timeout, cause: err}
	}
	return n, err
}

func (b *bodyDeadline) Close() error { return b.body.Close() }

// handlerDone is called once the handler has returned, before its answer
// is written: a body it did not read to the end gets timeout from now for
// net/http to read the rest, unless the client already stalled.
func (b *bodyDeadline) handlerDone() {
	if b.hasBody && !b.sawEOF && !b.cut {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
}

// readTimeoutError is a request body that stopped arriving: no byte for
// Config.ReadTimeout. requestReadError answers it with 408.
type readTimeoutError struct {
	timeout time.Duration
	cause   error
}

func (e *readTimeoutError) Error() string {
	return fmt.Sprintf("The request body stopped arriving: no byte for %v (rest.server.read-timeout).", e.timeout)
}

func (e *readTimeoutError) Unwrap() error { return e.cause }

// limitListener serves at most max connections at once: Accept takes a
// slot before it accepts a connection, and the connection gives the slot
// back when it is closed. While every slot is taken, new connections wait
// in the kernel's accept backlog, unaccepted, as they would in front of a
// busy server; the read and idle timeouts make sure slots come free. (The
// same as golang.org/x/net/netutil.LimitListener, written out here.)
type limitListener struct {
	net.Listener
	slots     chan struct{} // one token per connection being served
	closed    chan struct{} // closed by Close, to stop an Accept waiting for a slot
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, max int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	conn, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: conn, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its slot back once, on its first Close.
type limitedConn struct {
	net.Conn
	release     func()
	releaseOnce sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.releaseOnce.Do(c.release)
	return err
}

// hideServerPaths replaces, in the messages of an error answer, the
// directories the endpoint keeps its files in with the option that names
// them: "<web.upload.dir>/flink-web-upload/…", "<env.log.dir>/…". Flink
// shows them ("Jar file /tmp/flink-web-…/flink-web-upload/x.jar does not
// exist"); a client has no use for them, and an attacker a little. The
// log keeps the real paths.
func (s *Server) hideServerPaths(messages []string) []string {
	hidden := make([]string, len(messages))
	for i, m := range messages {
		if s.uploadDir != "" {
			m = strings.ReplaceAll(m, s.uploadDir, "<web.upload.dir>")
		}
		if s.cfg.LogDir != "" {
			if logDir, err := filepath.Abs(s.cfg.LogDir); err == nil {
				m = strings.ReplaceAll(m, logDir, "<env.log.dir>")
			}
		}
		hidden[i] = m
	}
	return hidden
}

// Temp names of uploads in progress: a jar of POST /jars/upload in the jar
// directory, the files of a POST /jobs in a directory of their own in the
// upload directory. Neither can be a jar ID, so GET /jars never lists
// them.
const (
	jarUploadPattern  = ".upload-*.tmp"
	submissionPattern = ".submission-*"
)

// removeStaleUploads removes what uploads in progress left behind when an
// earlier server with the same upload directory stopped without cleaning
// up (a crash, a kill -9). NewServer calls it before anything is served.
func (s *Server) removeStaleUploads() {
	stale, _ := filepath.Glob(filepath.Join(s.jarDir, jarUploadPattern))
	submissions, _ := filepath.Glob(filepath.Join(s.uploadDir, submissionPattern))
	for _, path := range append(stale, submissions...) {
		if err := os.RemoveAll(path); err != nil {
			s.log.Warn("Could not delete an upload left behind.", "path", path, "cause", err.Error())
		}
	}
}
