package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
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
// Its lifecycle (endpointState, changed only by transitionToLocked):
//
//	CREATED ──Start──► STARTED ──Stop──► STOPPING ──stopNow──► STOPPED
//	   │                                                          ▲
//	   └──────────────────Stop, before any Start──────────────────┘
//
// Messages sent before Start wait in the mailbox; messages sent after Stop
// are dropped and their callers get ErrRecipientUnreachable. Start and Stop
// may be called from any goroutine, more than once and in any order: only
// the first Start and the first Stop count, and a Stop before any Start
// ends the endpoint (CREATED → STOPPED) without ever starting its main
// thread.
type Endpoint struct {
	name string
	log  *slog.Logger // where a failed message is logged; set before Start

	// inOnStart is true while onStart runs (main thread only): a panic
	// there is fatal, as a failed onStart is in Flink.
	inOnStart bool

	mu     sync.Mutex
	state  endpointState // CREATED → STARTED → STOPPING → STOPPED; see endpointState
	queue  []func()
	timers map[uint64]scheduledRun
	nextID uint64
	lanes  map[any][]func() // AskInOrder: calls waiting per lane; a lane in the map has a goroutine draining it

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
		timers:     make(map[uint64]scheduledRun),
		wake:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
		terminated: make(chan struct{}),
		ctx:        ctx,
		cancel:     cancel,
	}
}

// SetLogger sets the logger a failed message is logged with (under
// PekkoRpcActor, as Flink's RPC actor logs it); nil, or not set, means
// slog.Default(). Call it before Start.
func (e *Endpoint) SetLogger(l *slog.Logger) { e.log = l }

// Name returns the endpoint's name.
func (e *Endpoint) Name() string { return e.name }

// Context is cancelled when the endpoint stops. Work an endpoint starts on
// other goroutines (see Ask) derives from it, so nothing outlives the
// endpoint.
func (e *Endpoint) Context() context.Context { return e.ctx }

// Start launches the main thread. onStart, if not nil, is the first thing it
// runs (Flink's onStart): it goes to the head of the mailbox, ahead of any
// message sent before Start. Start does nothing if the endpoint has been
// started or stopped already.
func (e *Endpoint) Start(onStart func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != endpointCreated { // started already, or stopped before it started
		return
	}
	e.transitionToLocked(endpointStarted)
	if onStart != nil {
		e.queue = slices.Insert(e.queue, 0, withCause(func() {
			e.inOnStart = true
			onStart()
			e.inOnStart = false
		}))
		e.wakeLocked()
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
			e.runMessage(fn)
		}
	}
}

// runMessage runs one message on the main thread. As in Flink's RPC actor,
// a handler that fails does not end the main thread: the panic is logged
// (Flink: "Caught exception while executing runnable in main thread.") and
// the next message runs. A call's caller gets the panic as its error
// instead (see CallAsync). A failed onStart is fatal, as in Flink: an
// endpoint that did not start must not go on half-started.
func (e *Endpoint) runMessage(fn func()) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if e.inOnStart {
			panic(fmt.Sprintf("Could not start RpcEndpoint %s: %v", e.name, r))
		}
		log := e.log
		if log == nil {
			log = slog.Default()
		}
		log.Error("Caught exception while executing runnable in main thread.",
			"logger", "PekkoRpcActor", "endpoint", e.name, "cause", fmt.Sprint(r), "stack", string(debug.Stack()))
	}()
	fn()
}

func (e *Endpoint) next() (func(), bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == endpointStopped || len(e.queue) == 0 {
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
	if e.state == endpointStopped {
		e.mu.Unlock()
		return false
	}
	e.queue = append(e.queue, withCause(fn))
	e.wakeLocked()
	e.mu.Unlock()
	return true
}

// wakeLocked tells the main thread that the queue may be non-empty. e.mu is
// held; wake is 1-buffered, so this never blocks.
func (e *Endpoint) wakeLocked() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// ScheduleRunAsync runs fn on the main thread after delay. The returned
// function cancels it if it has not run yet, even when the timer has
// already fired and fn waits in the mailbox: fn checks, on the main thread,
// whether it was cancelled. Call cancel on the main thread (as every
// component does) and fn is sure not to run after it; called from another
// goroutine, cancel may come too late for an fn that is already running.
// Cancelling twice, or after fn ran, does nothing. Timers of a stopped
// endpoint never fire.
//
// The timer itself knows only the endpoint and an ID; fn waits in the
// endpoint's timers until the timer fires. A stopped timer may stay in the
// Go runtime's timer heap until the time it was set for (minutes, for a
// slot request timeout), and it must not keep fn, and the component fn
// belongs to, reachable that long: once a timer is cancelled or its
// endpoint has stopped, nothing of the endpoint holds fn any more (Flink's
// RpcEndpoint, too, drops what it scheduled when it stops: its
// MainThreadExecutor shuts its scheduled executor down).
func (e *Endpoint) ScheduleRunAsync(fn func(), delay time.Duration) (cancel func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == endpointStopped {
		return func() {}
	}
	var cancelled atomic.Bool
	id := e.nextID
	e.nextID++
	e.timers[id] = scheduledRun{
		// The timer may fire at once, but not before e.mu is released.
		timer: time.AfterFunc(delay, withCause(func() { e.timerFired(id) })),
		fn: func() {
			if !cancelled.Load() {
				fn()
			}
		},
	}
	return func() {
		cancelled.Store(true)
		e.mu.Lock()
		defer e.mu.Unlock()
		if run, pending := e.timers[id]; pending {
			run.timer.Stop()
			delete(e.timers, id)
		}
	}
}

// scheduledRun is a timer of ScheduleRunAsync and what it runs when it
// fires. The endpoint keeps those that have not fired in its timers, by
// an ID of their own (nextID is the next one's).
type scheduledRun struct {
	timer *time.Timer
	fn    func()
}

// timerFired puts the function of timer id into the mailbox, unless the
// timer was cancelled or the endpoint stopped meanwhile.
func (e *Endpoint) timerFired(id uint64) {
	e.mu.Lock()
	run, pending := e.timers[id]
	delete(e.timers, id)
	e.mu.Unlock()
	if pending {
		e.RunAsync(run.fn)
	}
}

// Stop asks the endpoint to stop and returns at once. If onStop is not nil
// it runs on the main thread after every message already in the mailbox
// (Flink's onStop). Messages sent later are dropped. Stop may be called from
// the main thread itself; use Terminated to wait for the end.
//
// Only the first Stop counts: later calls, and their onStop, are ignored.
// An endpoint stopped before it was started has no main thread, so its
// onStop never runs and it ends within Stop.
func (e *Endpoint) Stop(onStop func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch e.state {
	case endpointStopping, endpointStopped: // an earlier Stop decided
		return
	case endpointCreated: // no main thread to run anything, and Start will not launch one: stop right here
		e.stopLocked()
		close(e.terminated)
		return
	}
	e.transitionToLocked(endpointStopping)
	if onStop != nil {
		e.queue = append(e.queue, withCause(onStop))
	}
	e.queue = append(e.queue, e.stopNow)
	e.wakeLocked()
}

// stopNow is the last message the main thread runs.
func (e *Endpoint) stopNow() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopLocked()
}

// stopLocked closes the mailbox (→ STOPPED, from CREATED or STOPPING),
// stops the timers, cancels the endpoint's context and tells the main
// thread to return. e.mu is held; Stop makes sure it runs once.
func (e *Endpoint) stopLocked() {
	e.transitionToLocked(endpointStopped)
	e.queue = nil
	for _, run := range e.timers {
		run.timer.Stop()
	}
	e.timers = nil
	e.cancel()
	close(e.stop)
}

// Terminated is closed once the main thread has returned.
func (e *Endpoint) Terminated() <-chan struct{} { return e.terminated }

// Close stops the endpoint and waits for its main thread to return. It must
// not be called from the main thread (that would wait for itself); use Stop
// there. Like Stop, only the first call's onStop counts; every call waits.
func (e *Endpoint) Close(onStop func()) {
	e.Stop(onStop)
	<-e.terminated
}

// CallAsync runs fn on e's main thread and returns its result to the caller,
// which may be any goroutine except e's own main thread. The ctx deadline is
// the RPC timeout: when it passes first, CallAsync returns an error wrapping
// ErrTimeout (fn may still run later). If fn panics, the caller gets a
// *PanicError and the main thread goes on. This is how gateway methods enter
// a component (Flink's callAsync).
func CallAsync[T any](ctx context.Context, e *Endpoint, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	reply := make(chan result, 1)
	var zero T
	if !e.RunAsync(func() {
		v, err := callRecovering(fn)
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
		// fn runs before the main thread ends, so if it ran, its answer is
		// waiting: a call answered just before the endpoint stopped was
		// delivered, and must not be reported unreachable.
		select {
		case r := <-reply:
			return r.v, r.err
		default:
			return zero, unreachable(e)
		}
	}
}

// PanicError is the error a caller gets when the handler it called panicked
// (Flink completes the caller's future with the exception the RPC method
// threw). The main thread goes on with its next message.
type PanicError struct {
	Value any    // what the handler panicked with
	Stack string // the main thread's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprint(e.Value) }

func callRecovering[T any](fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: string(debug.Stack())}
		}
	}()
	return fn()
}

func unreachable(e *Endpoint) error {
	return fmt.Errorf("%w: Could not send message to recipient [%s], because the recipient is unreachable. "+
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
	ask := withCause(func() {
		ctx, cancel := context.WithTimeout(self.ctx, timeout)
		v, err := call(ctx)
		cancel()
		self.RunAsync(func() { then(v, err) })
	})
	go ask()
}

// AskInOrder is Ask for messages whose order matters: calls on the same
// lane run one after another, in the order they were made, each starting
// when the previous one has been answered, and their then callbacks run on
// self's main thread in that same order. A TaskExecutor reports a task's
// INITIALIZING, RUNNING and FINISHED on the lane of its job, so the
// JobMaster sees them in that order (Pekko gives Flink this ordering per
// pair of actors). Calls on different lanes, and plain Asks, do not wait
// for each other.
//
// A lane with calls waiting has one goroutine that runs them in a loop,
// from the oldest to the newest, and ends when the lane is empty; the next
// call on the lane starts a new one.
func AskInOrder[T any](self *Endpoint, lane any, timeout time.Duration, call func(ctx context.Context) (T, error), then func(T, error)) {
	ask := withCause(func() {
		ctx, cancel := context.WithTimeout(self.ctx, timeout)
		v, err := call(ctx)
		cancel()
		self.RunAsync(func() { then(v, err) })
	})
	self.mu.Lock()
	if self.lanes == nil {
		self.lanes = make(map[any][]func())
	}
	queue, draining := self.lanes[lane]
	self.lanes[lane] = append(queue, ask)
	self.mu.Unlock()
	if !draining { // nothing in flight on this lane: start its goroutine
		go self.drainLane(lane)
	}
}

// drainLane runs the calls of one AskInOrder lane, oldest first, until the
// lane is empty. One goroutine per lane runs it: the lane's entry in e.lanes
// exists exactly as long as that goroutine does.
func (e *Endpoint) drainLane(lane any) {
	for {
		e.mu.Lock()
		queue := e.lanes[lane]
		if len(queue) == 0 {
			delete(e.lanes, lane)
			e.mu.Unlock()
			return
		}
		ask := queue[0]
		queue[0] = nil
		e.lanes[lane] = queue[1:]
		e.mu.Unlock()
		ask()
	}
}
