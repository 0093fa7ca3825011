package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Sentinel errors of the RPC layer.
var (
	// ErrRecipientUnreachable: the endpoint has stopped (or was never
	// reachable), so the message was not delivered.
	ErrRecipientUnreachable = errors.New("recipient unreachable")
	// ErrTimeout: the caller's deadline passed before the answer came.
	ErrTimeout = errors.New("rpc timeout")
	// ErrFencingTokenMismatch: a fenced message carried a stale token.
	ErrFencingTokenMismatch = errors.New("fencing token mismatch")
)

// Endpoint is Flink's RpcEndpoint: a mailbox and the one goroutine, the main
// thread, that drains it. A component embeds an Endpoint and touches its own
// fields only from functions that run on that goroutine.
//
// The lifecycle is created → started (Start) → stopped (Stop). Messages sent
// before Start wait in the mailbox; messages sent after Stop are dropped and
// their callers get ErrRecipientUnreachable.
type Endpoint struct {
	name string

	mu      sync.Mutex
	queue   []func()
	started bool
	stopped bool
	timers  map[*time.Timer]struct{}
	lanes   map[any][]func() // AskInOrder: calls waiting per lane, head running

	wake       chan struct{} // 1-buffered: "the queue may be non-empty"
	stop       chan struct{} // closed by Stop
	terminated chan struct{} // closed when the main thread has returned
	ctx        context.Context
	cancel     context.CancelFunc
}

// NewEndpoint returns an endpoint that is not started yet. The name appears
// in error messages, e.g. "StandaloneDispatcher".
func NewEndpoint(name string) *Endpoint {
	ctx, cancel := context.WithCancel(context.Background())
	return &Endpoint{
		name:       name,
		timers:     make(map[*time.Timer]struct{}),
		wake:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
		terminated: make(chan struct{}),
		ctx:        ctx,
		cancel:     cancel,
	}
}

// Name returns the endpoint's name.
func (e *Endpoint) Name() string { return e.name }

// Context is cancelled when the endpoint stops. Work an endpoint starts on
// other goroutines (see Ask) derives from it, so nothing outlives the
// endpoint.
func (e *Endpoint) Context() context.Context { return e.ctx }

// Start launches the main thread. onStart, if not nil, is the first thing it
// runs (Flink's onStart).
func (e *Endpoint) Start(onStart func()) {
	e.mu.Lock()
	if e.started || e.stopped {
		e.mu.Unlock()
		return
	}
	e.started = true
	e.mu.Unlock()
	if onStart != nil {
		e.RunAsync(onStart)
	}
	go e.run()
}

func (e *Endpoint) run() {
	defer close(e.terminated)
	for {
		select {
		case <-e.stop:
			return
		case <-e.wake:
		}
		for {
			fn, ok := e.next()
			if !ok {
				break
			}
			fn()
		}
	}
}

func (e *Endpoint) next() (func(), bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped || len(e.queue) == 0 {
		return nil, false
	}
	fn := e.queue[0]
	e.queue[0] = nil
	e.queue = e.queue[1:]
	return fn, true
}

// RunAsync puts fn into the mailbox; the main thread runs it later. It
// reports false when the endpoint has stopped and fn will never run.
func (e *Endpoint) RunAsync(fn func()) bool {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return false
	}
	e.queue = append(e.queue, fn)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return true
}

// ScheduleRunAsync runs fn on the main thread after delay. The returned
// function cancels it if it has not run yet. Timers of a stopped endpoint
// never fire.
func (e *Endpoint) ScheduleRunAsync(fn func(), delay time.Duration) (cancel func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return func() {}
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		e.mu.Lock()
		delete(e.timers, t)
		e.mu.Unlock()
		e.RunAsync(fn)
	})
	e.timers[t] = struct{}{}
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		t.Stop()
		delete(e.timers, t)
	}
}

// Stop asks the endpoint to stop and returns at once. If onStop is not nil
// it runs on the main thread after every message already in the mailbox
// (Flink's onStop). Messages sent later are dropped. Stop may be called from
// the main thread itself; use Terminated to wait for the end.
func (e *Endpoint) Stop(onStop func()) {
	e.mu.Lock()
	started := e.started
	e.mu.Unlock()
	if !started { // no main thread to run anything: stop right here
		e.stopNow()
		close(e.terminated)
		return
	}
	if onStop != nil {
		e.RunAsync(onStop)
	}
	e.RunAsync(e.stopNow)
}

func (e *Endpoint) stopNow() {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return
	}
	e.stopped = true
	e.queue = nil
	for t := range e.timers {
		t.Stop()
	}
	e.timers = nil
	e.mu.Unlock()
	e.cancel()
	close(e.stop)
}

// Terminated is closed once the main thread has returned.
func (e *Endpoint) Terminated() <-chan struct{} { return e.terminated }

// Close stops the endpoint and waits for its main thread to return. It must
// not be called from the main thread (that would wait for itself); use Stop
// there.
func (e *Endpoint) Close(onStop func()) {
	e.Stop(onStop)
	<-e.terminated
}

// CallAsync runs fn on e's main thread and returns its result to the caller,
// which may be any goroutine except e's own main thread. The ctx deadline is
// the RPC timeout: when it passes first, CallAsync returns an error wrapping
// ErrTimeout (fn may still run later). This is how gateway methods enter a
// component (Flink's callAsync).
func CallAsync[T any](ctx context.Context, e *Endpoint, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	reply := make(chan result, 1)
	var zero T
	if !e.RunAsync(func() {
		v, err := fn()
		reply <- result{v, err}
	}) {
		return zero, unreachable(e)
	}
	select {
	case r := <-reply:
		return r.v, r.err
	case <-ctx.Done():
		return zero, fmt.Errorf("%w: invocation at recipient [%s] timed out: %w", ErrTimeout, e.name, ctx.Err())
	case <-e.stop:
		return zero, unreachable(e)
	}
}

func unreachable(e *Endpoint) error {
	return fmt.Errorf("%w: could not send message to recipient [%s], because the recipient is unreachable. "+
		"This can either mean that the recipient has been terminated or that the remote RpcService is currently not reachable.",
		ErrRecipientUnreachable, e.name)
}

// Ask calls another endpoint without blocking self's main thread: call runs
// on a fresh goroutine with a ctx that expires after timeout (or when self
// stops), and then runs on self's main thread with the answer. If self has
// stopped by then, then is dropped.
//
// It is Go's spelling of Flink's
//
//	gateway.someRpc(..., timeout).thenAcceptAsync(then, getMainThreadExecutor())
func Ask[T any](self *Endpoint, timeout time.Duration, call func(ctx context.Context) (T, error), then func(T, error)) {
	go func() {
		ctx, cancel := context.WithTimeout(self.ctx, timeout)
		v, err := call(ctx)
		cancel()
		self.RunAsync(func() { then(v, err) })
	}()
}

// AskInOrder is Ask for messages whose order matters: calls on the same
// lane run one after another, in the order they were made, each starting
// when the previous one has been answered. A TaskExecutor reports a task's
// INITIALIZING, RUNNING and FINISHED on the lane of its job, so the
// JobMaster sees them in that order (Pekko gives Flink this ordering per
// pair of actors). Calls on different lanes, and plain Asks, do not wait
// for each other.
func AskInOrder[T any](self *Endpoint, lane any, timeout time.Duration, call func(ctx context.Context) (T, error), then func(T, error)) {
	var run func()
	run = func() {
		ctx, cancel := context.WithTimeout(self.ctx, timeout)
		v, err := call(ctx)
		cancel()
		self.RunAsync(func() { then(v, err) })
		self.mu.Lock()
		queue := self.lanes[lane][1:]
		if len(queue) == 0 {
			delete(self.lanes, lane)
		} else {
			self.lanes[lane] = queue
		}
		self.mu.Unlock()
		if len(queue) > 0 {
			queue[0]()
		}
	}
	self.mu.Lock()
	if self.lanes == nil {
		self.lanes = make(map[any][]func())
	}
	queue := append(self.lanes[lane], run)
	self.lanes[lane] = queue
	self.mu.Unlock()
	if len(queue) == 1 { // nothing in flight on this lane: start it
		go run()
	}
}
