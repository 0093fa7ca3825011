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
	"reflect"
	"sync"
	"time"

	"flinklab/runtime/internal/conndeadline"
	"flinklab/runtime/internal/connlimit"
)

// The serving side of TCPService: one serverConn per connection a peer
// dialled.

// serverConn reads the requests of one connection and runs each call on a
// goroutine of its own, so a slow call (RequestJobResult waits for the job
// to end) holds up nothing else; the answers go back in the order the calls
// finish.
type serverConn struct {
	service *TCPService
	conn    net.Conn
	peer    string // the peer's host:port, for log lines

	// deadlines closes a connection whose frame stalls, or that stays
	// idle while none of its calls runs (ReadTimeout, IdleTimeout).
	deadlines *conndeadline.Deadlines

	// ctx is cancelled when the connection closes; every call's ctx
	// derives from it.
	ctx    context.Context
	cancel context.CancelFunc

	writeMu sync.Mutex     // one frame at a time
	calls   sync.WaitGroup // calls still running
}

func newServerConn(s *TCPService, nc net.Conn) *serverConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &serverConn{
		service:   s,
		conn:      nc,
		peer:      nc.RemoteAddr().String(),
		deadlines: conndeadline.Start(nc, s.cfg.ReadTimeout, s.cfg.IdleTimeout),
		ctx:       ctx,
		cancel:    cancel,
	}
}

// close closes the connection and cancels the calls it brought in. It may
// be called more than once.
func (c *serverConn) close() {
	_ = c.conn.Close() // first, so that no call answers after Close
	c.cancel()
}

// serve reads requests until the connection ends, breaks the protocol or
// passes a deadline, then waits for the calls still running.
func (c *serverConn) serve() {
	if err := connlimit.Handshake(c.ctx, c.conn); err != nil {
		c.service.connLog.HandshakeFailed(c.peer, err)
	} else {
		c.readRequests()
	}
	c.close()
	c.calls.Wait()
	c.service.mu.Lock()
	delete(c.service.incoming, c)
	c.service.mu.Unlock()
}

// readRequests reads requests and starts a goroutine for each call, until
// the connection ends, breaks the protocol or passes a deadline.
//
// Each frame is read in two steps: its first byte, which may be long in
// coming (the connection is idle), then the rest, which must follow
// within the read timeout (package conndeadline).
func (c *serverConn) readRequests() {
	r := bufio.NewReader(c.conn)
	for framesRead := 0; ; framesRead++ {
		if _, err := r.Peek(1); err != nil {
			if !c.service.connLog.WaitTimedOut(c.peer, err, framesRead) {
				c.logReadError(err)
			}
			return
		}
		c.deadlines.FrameStarted()
		body, err := readFrame(r, c.service.cfg.MaxFrameSize)
		if err != nil {
			c.logReadError(err)
			return
		}
		req, err := decodeRequest(body)
		if err != nil {
			c.service.connLog.Error(kindNotARequest, fmt.Sprintf("Closing connection from %s: %v", c.peer, err))
			return
		}
		// The caller waits for the answer until its deadline, which its
		// remaining timeout counts from now. While the call runs, the
		// connection may stay silent.
		var deadline time.Time
		if req.TimeoutMs > 0 {
			deadline = time.Now().Add(time.Duration(req.TimeoutMs) * time.Millisecond)
		}
		c.deadlines.BeginWork()
		c.calls.Go(func() {
			defer c.deadlines.EndWork()
			c.answer(req, c.handle(req, deadline), deadline)
		})
		c.deadlines.AwaitFrame()
	}
}

// The kinds of line a connection that breaks the protocol logs, besides
// those of package connlimit. Anyone who can reach the port can break
// it, so these lines too are written at most once a minute each.
const (
	kindNotARequest   = "not a request"
	kindFrameTooLarge = "frame too large"
	kindFrameCut      = "frame cut short"
	kindReadFailed    = "read failed"
)

// logReadError says why reading a frame ended, unless the end was a
// normal one.
func (c *serverConn) logReadError(err error) {
	var tooLarge *frameTooLargeError
	log := c.service.connLog
	switch {
	case c.ctx.Err() != nil, errors.Is(err, net.ErrClosed):
		// closed by us (TCPService.Close)
	case errors.Is(err, io.EOF):
		// the peer hung up between frames: the normal end
	case errors.As(err, &tooLarge):
		log.Error(kindFrameTooLarge, fmt.Sprintf("Closing connection from %s: %v.", c.peer, err))
	case errors.Is(err, io.ErrUnexpectedEOF):
		log.Error(kindFrameCut, fmt.Sprintf("Closing connection from %s: it ended in the middle of a frame.", c.peer))
	case errors.Is(err, os.ErrDeadlineExceeded):
		log.FrameStalled(c.peer, "a frame")
	default:
		log.Warn(kindReadFailed, fmt.Sprintf("Closing connection from %s.", c.peer), "cause", err.Error())
	}
}

// handle runs one call, with the caller's deadline (none if zero), and
// returns its answer. A panic while serving it becomes the caller's error,
// as Flink's PekkoRpcActor reports back what a remote procedure threw,
// and the connection serves on.
func (c *serverConn) handle(req request, deadline time.Time) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = errorResponse(req.ID, fmt.Errorf("Reporting back error thrown in remote procedure %s: %v", invocationName(req.Method), r))
		}
	}()
	address := c.service.Address(req.Target)
	ep := c.service.endpoint(req.Target)
	switch {
	case ep == nil && req.Method == "":
		return errorResponse(req.ID, couldNotConnect(address, nil))
	case ep == nil:
		return errorResponse(req.ID, recipientUnreachable(invocationName(req.Method), req.Sender, address, nil))
	case req.Method == "": // the handshake: which methods the endpoint serves
		return resultResponse(req.ID, sortedNames(ep.methods))
	}
	method, ok := ep.methods[req.Method]
	if !ok {
		return errorResponse(req.ID, fmt.Errorf("Could not find rpc method %s on the rpc endpoint under address %s.", req.Method, address))
	}

	if fenced, ok := ep.gateway.(FencedGateway); ok {
		if err := checkFencingToken(invocationName(req.Method), req.FencingToken, fenced.ExpectedFencingToken()); err != nil {
			return errorResponse(req.ID, err)
		}
	}

	ctx := c.ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	in, err := decodeArgs(ctx, method.Type(), req.Args)
	if err != nil {
		return errorResponse(req.ID, fmt.Errorf("Could not decode the arguments of rpc method %s: %w", req.Method, err))
	}
	out := method.Call(in)

	if err, _ := out[len(out)-1].Interface().(error); err != nil {
		return errorResponse(req.ID, err)
	}
	if len(out) == 1 {
		return response{ID: req.ID}
	}
	return resultResponse(req.ID, out[0].Interface())
}

// decodeArgs turns the JSON arguments of a call into the parameters of the
// method, ctx first.
func decodeArgs(ctx context.Context, m reflect.Type, args []json.RawMessage) ([]reflect.Value, error) {
	if len(args) != m.NumIn()-1 {
		return nil, fmt.Errorf("it takes %d arguments, got %d", m.NumIn()-1, len(args))
	}
	in := []reflect.Value{reflect.ValueOf(ctx)}
	for i, raw := range args {
		v, err := decodeValue(raw, m.In(i+1))
		if err != nil {
			return nil, fmt.Errorf("argument %d (%s): %w", i+1, m.In(i+1), err)
		}
		in = append(in, v)
	}
	return in, nil
}

func resultResponse(id uint64, result any) response {
	raw, err := encodeValue(result)
	if err != nil {
		return errorResponse(id, fmt.Errorf("Could not encode the result: %w", err))
	}
	return response{ID: id, Result: raw}
}

func errorResponse(id uint64, err error) response {
	return response{ID: id, Error: encodeError(err)}
}

// answer sends a call's response, unless the caller's deadline (none if
// zero) passes first: then the caller has stopped waiting, and the answer
// is dropped, so that a peer that stops reading cannot hold the goroutine
// of every call it made. An answer over the frame limit is replaced by an
// error saying so (Flink: "The method ...'s result size ... exceeds the
// maximum size"), so the caller learns why rather than timing out.
func (c *serverConn) answer(req request, resp response, deadline time.Time) {
	limit := c.service.cfg.MaxFrameSize
	body, err := json.Marshal(resp)
	if err != nil {
		body, _ = json.Marshal(errorResponse(req.ID, fmt.Errorf("Could not encode the answer of rpc method %s: %w", req.Method, err)))
	}
	frame, err := appendFrame(nil, body, limit)
	var tooLarge *frameTooLargeError
	if errors.As(err, &tooLarge) {
		body, _ = json.Marshal(errorResponse(req.ID, fmt.Errorf("The method %s's result size %d exceeds the maximum size %d.",
			req.Method, tooLarge.size, tooLarge.limit)))
		frame, _ = appendFrame(nil, body, limit)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if !deadline.IsZero() {
		_ = c.conn.SetWriteDeadline(deadline)
		defer func() { _ = c.conn.SetWriteDeadline(time.Time{}) }()
	}
	n, err := c.conn.Write(frame)
	if err != nil && (n > 0 || !errors.Is(err, os.ErrDeadlineExceeded)) {
		// The peer is gone, or the stream is broken by an answer only
		// partly written: the read loop ends too. An answer dropped
		// whole at its deadline leaves the stream as it was.
		c.close()
	}
}
