package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// The calling side of TCPService: one clientConn per peer, shared by every
// call to that peer.

// invoke sends one call to inv's endpoint and waits for its answer: the
// JSON of the result (null for a method without one), or the error the
// method returned, or an error of the transport:
//
//   - ErrRecipientUnreachable when the peer refuses the connection, or the
//     connection breaks before the answer arrives (the call may or may not
//     have run);
//   - ErrTimeout when ctx ends first, while the peer is dialled or the
//     call waits for its answer (the call may still run at the peer);
//   - Flink's "rpc invocation size" error when the call is over the frame
//     limit, without sending it.
//
// An empty method is the handshake that Connect sends.
func (s *TCPService) invoke(ctx context.Context, inv *Invoker, method string, args []any) (json.RawMessage, error) {
	invocation := invocationName(method)
	req := request{Sender: s.actorSystemAddress(), Target: inv.target, Method: method, FencingToken: inv.fencingToken}
	for i, arg := range args {
		raw, err := encodeValue(arg)
		if err != nil {
			return nil, fmt.Errorf("could not encode argument %d of %s: %w", i+1, invocation, err)
		}
		req.Args = append(req.Args, raw)
	}
	if err := ctx.Err(); err != nil {
		return nil, timedOut(invocation, inv.address, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		// What is left of the caller's timeout, in whole milliseconds,
		// rounded up so that it never becomes "no deadline".
		req.TimeoutMs = (time.Until(deadline) + time.Millisecond - 1).Milliseconds()
		req.TimeoutMs = max(req.TimeoutMs, 1)
	}

	// The call goes over the connection to the peer. One that closed
	// itself for being idle just as this call took it (closeIfIdle) had
	// nothing of the call sent: the call takes a fresh one.
	var resp response
	var err error
	for {
		var c *clientConn
		c, err = s.connection(ctx, inv.hostPort)
		switch {
		case err != nil && ctx.Err() != nil:
			// The caller's time ran out while the peer was dialled: a slow
			// peer, or one whose host is gone, is a timeout, not a refusal.
			return nil, timedOut(invocation, inv.address, ctx.Err())
		case err != nil:
			return nil, couldNotConnect(inv.address, err)
		}
		resp, err = c.call(ctx, req)
		if !errors.Is(err, errClosedWhileIdle) {
			break
		}
	}
	var tooLarge *frameTooLargeError
	switch {
	case err == nil:
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("The rpc invocation size %d exceeds the maximum pekko framesize (%d bytes): %s at %s.",
			tooLarge.size, tooLarge.limit, invocation, inv.address)
	case ctx.Err() != nil:
		return nil, timedOut(invocation, inv.address, ctx.Err())
	default:
		return nil, recipientUnreachable(invocation, req.Sender, inv.address, err)
	}
	if resp.Error != nil {
		return nil, decodeError(resp.Error)
	}
	if resp.Result == nil {
		return json.RawMessage("null"), nil
	}
	return resp.Result, nil
}

// invocationName names a call as Flink's logs do.
func invocationName(method string) string {
	if method == "" {
		return "RemoteHandshakeMessage"
	}
	return "RemoteRpcInvocation(" + method + ")"
}

// timedOut is the error of a call whose caller stopped waiting: Flink's
// "Invocation of [...] at recipient [...] timed out."
func timedOut(invocation, address string, cause error) error {
	return fmt.Errorf("%w: Invocation of [%s] at recipient [%s] timed out.: %w", ErrTimeout, invocation, address, cause)
}

// clientConn is the connection to one peer TCPService. Calls go out as
// requests, each with a fresh ID; the read loop hands each response to
// the call waiting for that ID. Once broken, a clientConn stays broken,
// and the next call dials a new one (TCPService.connection).
//
// A connection that has been idle for half the IdleTimeout (no call in
// flight, nothing received) closes itself, as an HTTP client closes its
// idle connections before the server does: the peer closes a connection
// idle for the whole IdleTimeout, and a call sent just as it does would
// be lost on the way ("may or may not have run"). Closed by the side
// that sends the calls, an idle connection is never in use when it
// closes; the next call dials a new one.
type clientConn struct {
	service  *TCPService
	hostPort string
	conn     net.Conn

	writeMu sync.Mutex // one frame at a time

	mu       sync.Mutex
	nextID   uint64
	pending  map[uint64]chan response // calls waiting for their answer, by request ID
	err      error                    // why the connection closed; nil while it is open
	done     chan struct{}            // closed when the read loop has returned
	lastUsed time.Time                // when the last call ended or the last frame arrived
	// idleTimer fires closeIfIdle once the connection may have been
	// idle for idleTimeout.
	idleTimer   *time.Timer
	idleTimeout time.Duration
}

// errClosedWhileIdle is why a connection closed itself: it was idle for
// clientIdleTimeout. A call that finds it so has sent nothing.
var errClosedWhileIdle = errors.New("the connection was closed after being idle")

// clientIdleTimeout is how long an outgoing connection may be idle before
// it closes itself: half the IdleTimeout after which the peer, with the
// same configuration, closes it from its side. The margin, minutes with
// the default, covers the time an answer takes to arrive and the clocks
// of the two sides starting at slightly different moments.
func clientIdleTimeout(cfg TCPConfig) time.Duration { return cfg.IdleTimeout / 2 }

func newClientConn(s *TCPService, hostPort string, nc net.Conn) *clientConn {
	c := &clientConn{
		service:     s,
		hostPort:    hostPort,
		conn:        nc,
		pending:     make(map[uint64]chan response),
		done:        make(chan struct{}),
		lastUsed:    time.Now(),
		idleTimeout: clientIdleTimeout(s.cfg),
	}
	c.idleTimer = time.AfterFunc(c.idleTimeout, c.closeIfIdle)
	return c
}

// closeIfIdle closes the connection if it has been idle for idleTimeout:
// no call is in flight, and nothing arrived meanwhile. Otherwise the
// timer waits again: for the rest of the idle timeout, or, while calls
// are in flight, until the last of them ends (forget).
func (c *clientConn) closeIfIdle() {
	c.mu.Lock()
	idle := time.Since(c.lastUsed)
	switch {
	case c.err != nil || len(c.pending) > 0:
		c.mu.Unlock()
		return
	case idle < c.idleTimeout:
		c.idleTimer.Reset(c.idleTimeout - idle)
		c.mu.Unlock()
		return
	}
	c.err = errClosedWhileIdle
	c.mu.Unlock()
	_ = c.conn.Close()
	c.service.log.Debug(fmt.Sprintf("Closed the connection to the RPC service at %s: it was idle for %s.", c.hostPort, idle))
	c.service.forgetPeer(c)
}

// alive reports whether the connection is still open.
func (c *clientConn) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

// close closes the connection; reason is what calls that were waiting, or
// come later, are told. Only the first reason counts.
func (c *clientConn) close(reason error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = reason
	c.mu.Unlock()
	c.idleTimer.Stop()
	_ = c.conn.Close()
}

// reason returns why the connection closed.
func (c *clientConn) reason() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// call sends req and waits for its response. It fails with ctx's error
// when ctx ends first, with a *frameTooLargeError when req is too large to
// send, and with the connection's reason when it breaks.
func (c *clientConn) call(ctx context.Context, req request) (response, error) {
	reply := make(chan response, 1) // the read loop never waits for a caller
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return response{}, c.err
	}
	c.nextID++
	req.ID = c.nextID
	c.pending[req.ID] = reply
	c.mu.Unlock()
	defer c.forget(req.ID)

	body, err := json.Marshal(req)
	if err != nil {
		return response{}, err
	}
	frame, err := appendFrame(nil, body, c.service.cfg.MaxFrameSize)
	if err != nil {
		return response{}, err
	}
	if intact, err := c.write(ctx, frame); err != nil {
		if intact {
			// Nothing of the frame went out: the caller gave up while
			// the call waited for its turn to write. The stream is
			// intact, and the other calls on the connection go on.
			return response{}, err
		}
		// A frame partly written, or a broken socket, leaves the
		// stream unusable.
		c.close(fmt.Errorf("could not send a request: %w", err))
		return response{}, c.reason()
	}

	select {
	case resp := <-reply:
		return resp, nil
	case <-ctx.Done():
		return response{}, ctx.Err()
	case <-c.done:
		select {
		case resp := <-reply: // answered just before the connection broke
			return resp, nil
		default:
			return response{}, c.reason()
		}
	}
}

// forget drops a call that no longer waits; its answer, if it comes, is
// dropped too.
// When it was the last call in flight, the connection is idle from now.
func (c *clientConn) forget(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
	if len(c.pending) == 0 && c.err == nil {
		c.lastUsed = time.Now()
		c.idleTimer.Reset(c.idleTimeout)
	}
}

// write sends one frame, giving up at ctx's deadline. The frames of all
// calls take turns; a call whose ctx ends before its frame goes out sends
// nothing and reports the stream intact. Any other failure (a frame only
// partly written, a broken socket) leaves the stream unusable, and the
// caller closes the connection.
func (c *clientConn) write(ctx context.Context, frame []byte) (intact bool, err error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := ctx.Err(); err != nil {
		return true, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.conn.SetWriteDeadline(deadline)
		defer func() { _ = c.conn.SetWriteDeadline(time.Time{}) }()
	}
	n, err := c.conn.Write(frame)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		// The write deadline is ctx's: it passed just as the call's turn
		// came. ctx ends at the same moment, if it has not yet.
		<-ctx.Done()
		return true, ctx.Err()
	}
	return err == nil, err
}

// readLoop hands each response to its call until the connection breaks.
func (c *clientConn) readLoop() {
	defer close(c.done)
	r := bufio.NewReader(c.conn)
	for {
		body, err := readFrame(r, c.service.cfg.MaxFrameSize)
		if err != nil {
			c.closeAfterReadError(err)
			return
		}
		resp, err := decodeResponse(body)
		if err != nil {
			c.service.log.Error(fmt.Sprintf("Closing connection to %s: %v", c.hostPort, err))
			c.close(err)
			return
		}
		c.mu.Lock()
		c.lastUsed = time.Now()
		reply := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if reply != nil {
			reply <- resp
		}
	}
}

func (c *clientConn) closeAfterReadError(err error) {
	if c.reason() != nil {
		return // closed on purpose: by Close, or after a failed write
	}
	var tooLarge *frameTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		c.service.log.Error(fmt.Sprintf("Closing connection to %s: %v.", c.hostPort, err))
	case errors.Is(err, io.EOF):
		err = errors.New("the connection was closed by the peer")
		c.service.log.Info(fmt.Sprintf("The connection to the RPC service at %s was closed by the peer.", c.hostPort))
	default:
		c.service.log.Warn(fmt.Sprintf("Lost the connection to the RPC service at %s.", c.hostPort), "cause", err.Error())
	}
	c.close(err)
}
