package heartbeat_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

// The test pair is a JobMaster (sender) and a TaskExecutor (receiver), with
// stand-ins for their payloads.
type (
	slotReport string // JobMaster → TaskExecutor (Flink: AllocatedSlotReport)
	tmReport   string // TaskExecutor → JobMaster (Flink: TaskExecutorToJobManagerHeartbeatPayload)
)

const (
	jmID api.ResourceID = "jm-1"
	tmID api.ResourceID = "tm-1"
)

// fast are short options for tests whose point is not the defaults.
var fast = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second, RPCFailureThreshold: 2}

// event is one listener callback as the owner's main thread saw it.
type event struct {
	Kind    string // "timeout", "unreachable" or "payload"
	From    api.ResourceID
	Payload string        // for "payload"
	At      time.Duration // since the test began
}

// listener records its callbacks. It is called on its owner's main thread;
// calls counts them without a lock, so -race proves that. Timeouts and
// unreachable verdicts also go to verdicts, for the test to wait on.
type listener[I, O ~string] struct {
	start    time.Time
	prefix   string // of the payloads it hands out
	verdicts chan event

	calls     int // main thread only
	retrieved int // main thread only

	mu     sync.Mutex
	events []event
}

func newListener[I, O ~string](start time.Time, prefix string) *listener[I, O] {
	return &listener[I, O]{start: start, prefix: prefix, verdicts: make(chan event, 100)}
}

func (l *listener[I, O]) record(e event) {
	l.calls++
	e.At = time.Since(l.start)
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	if e.Kind != "payload" {
		l.verdicts <- e
	}
}

func (l *listener[I, O]) NotifyHeartbeatTimeout(id api.ResourceID) {
	l.record(event{Kind: "timeout", From: id})
}

func (l *listener[I, O]) NotifyTargetUnreachable(id api.ResourceID) {
	l.record(event{Kind: "unreachable", From: id})
}

func (l *listener[I, O]) ReportPayload(id api.ResourceID, payload I) {
	l.record(event{Kind: "payload", From: id, Payload: string(payload)})
}

func (l *listener[I, O]) RetrievePayload(api.ResourceID) O {
	l.calls++
	l.retrieved++
	return O(fmt.Sprintf("%s #%d", l.prefix, l.retrieved))
}

// of returns the recorded events of one kind.
func (l *listener[I, O]) of(kind string) []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []event
	for _, e := range l.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// mode is how a fakeGateway answers an RPC.
type mode int32

const (
	deliver mode = iota // into the peer's manager, on the peer's main thread
	lose                // answers nil, but nothing arrives: a network that eats messages
	fail                // rpc.ErrRecipientUnreachable at once: a dead process
	hang                // no answer until ctx ends: a frozen process
)

// call is one heartbeat RPC a fakeGateway saw: when it arrived, how long
// its ctx had, and when the caller stopped waiting.
type call struct {
	At, Budget, Ended time.Duration
	Payload           string
}

// fakeGateway is one side's view of its peer: an in-process stand-in for
// the peer's gateway methods (heartbeatFromJobManager,
// heartbeatFromTaskManager). In deliver mode it hands the heartbeat to the
// peer's manager on the peer's main thread, as rpc.CallAsync does for a
// real gateway method.
type fakeGateway struct {
	start  time.Time
	peer   *rpc.Endpoint                                           // nil: nobody there, deliver just answers nil
	onPeer func(request bool, from api.ResourceID, payload string) // runs on the peer's main thread
	mode   atomic.Int32

	mu     sync.Mutex
	script []mode // answers for the next calls, before mode applies again
	calls  []call
}

// newFakeGateway returns a gateway to peer, or to nobody if peer is nil.
func newFakeGateway[I ~string](start time.Time, peer *node[I], m mode) *fakeGateway {
	g := &fakeGateway{start: start}
	if peer != nil {
		g.peer, g.onPeer = peer.endpoint, peer.handle
	}
	g.mode.Store(int32(m))
	return g
}

func (g *fakeGateway) set(m mode) { g.mode.Store(int32(m)) }

// play makes the next calls answer as script says, one entry each.
func (g *fakeGateway) play(script ...mode) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.script = append(g.script, script...)
}

func (g *fakeGateway) ReceiveHeartbeat(ctx context.Context, from api.ResourceID, payload string) error {
	return g.rpc(ctx, false, from, payload)
}

func (g *fakeGateway) RequestHeartbeat(ctx context.Context, from api.ResourceID, payload string) error {
	return g.rpc(ctx, true, from, payload)
}

func (g *fakeGateway) rpc(ctx context.Context, request bool, from api.ResourceID, payload string) error {
	deadline, _ := ctx.Deadline()
	g.mu.Lock()
	i := len(g.calls)
	g.calls = append(g.calls, call{At: time.Since(g.start), Budget: time.Until(deadline), Payload: payload})
	answer := mode(g.mode.Load())
	if len(g.script) > 0 {
		answer, g.script = g.script[0], g.script[1:]
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.calls[i].Ended = time.Since(g.start)
		g.mu.Unlock()
	}()

	switch answer {
	case lose:
		return nil
	case fail:
		return fmt.Errorf("%w: could not send message to recipient", rpc.ErrRecipientUnreachable)
	case hang:
		<-ctx.Done()
		return fmt.Errorf("%w: %w", rpc.ErrTimeout, ctx.Err())
	}
	if g.peer == nil {
		return nil
	}
	_, err := rpc.CallAsync(ctx, g.peer, func() (struct{}, error) {
		g.onPeer(request, from, payload)
		return struct{}{}, nil
	})
	return err
}

func (g *fakeGateway) seen() []call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]call(nil), g.calls...)
}

// logRecorder keeps the log lines, with the logger each names.
type logRecorder struct {
	mu    sync.Mutex
	lines []logLine
}

type logLine struct {
	Level  slog.Level
	Logger string // the "logger" attribute, if any
	Msg    string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	line := logLine{Level: r.Level, Msg: r.Message}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "logger" {
			line.Logger = a.Value.String()
		}
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lines = append(h.lines, line)
	return nil
}

func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) all() []logLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logLine(nil), h.lines...)
}

// countingExecutor is the owner's endpoint, counting the timers that are
// armed: scheduled, and neither fired nor cancelled.
type countingExecutor struct {
	*rpc.Endpoint
	armed atomic.Int64
}

func (c *countingExecutor) ScheduleRunAsync(fn func(), delay time.Duration) func() {
	var done atomic.Bool
	c.armed.Add(1)
	disarm := func() {
		if done.CompareAndSwap(false, true) {
			c.armed.Add(-1)
		}
	}
	cancel := c.Endpoint.ScheduleRunAsync(func() { disarm(); fn() }, delay)
	return func() { disarm(); cancel() }
}

// node is a component with one heartbeat manager: I comes in, string-like
// payloads go out. The JobMaster is a node[tmReport], the TaskExecutor a
// node[slotReport]; their outgoing payloads are plain strings made by the
// listener.
type node[I ~string] struct {
	id       api.ResourceID
	endpoint *rpc.Endpoint
	executor *countingExecutor
	listener *listener[I, string]
	hm       heartbeat.HeartbeatManager[I, string] // main thread only
}

// handle is the node's gateway method for heartbeats: it runs on the
// node's main thread.
func (n *node[I]) handle(request bool, from api.ResourceID, payload string) {
	if request {
		n.hm.RequestHeartbeat(from, I(payload))
	} else {
		n.hm.ReceiveHeartbeat(from, I(payload))
	}
}

// newNode returns a node whose endpoint is not started yet.
func newNode[I ~string](t *testing.T, id api.ResourceID, start time.Time, prefix string) *node[I] {
	t.Helper()
	ep := rpc.NewEndpoint(string(id))
	t.Cleanup(func() { ep.Close(nil) })
	return &node[I]{
		id:       id,
		endpoint: ep,
		executor: &countingExecutor{Endpoint: ep},
		listener: newListener[I, string](start, prefix),
	}
}

// startSender starts the node with a sender-side manager and, in the same
// onStart, monitors the given targets, so the first round of requests
// (which follows onStart in the mailbox) already goes to them.
func (n *node[I]) startSender(s heartbeat.HeartbeatServices, log *slog.Logger, targets map[api.ResourceID]heartbeat.HeartbeatTarget[string]) {
	n.endpoint.Start(func() {
		n.hm = heartbeat.CreateHeartbeatManagerSender[I, string](s, n.id, n.listener, n.executor, log)
		n.monitorAll(targets)
	})
}

// startReceiver is startSender with a receiver-side manager.
func (n *node[I]) startReceiver(s heartbeat.HeartbeatServices, log *slog.Logger, targets map[api.ResourceID]heartbeat.HeartbeatTarget[string]) {
	n.endpoint.Start(func() {
		n.hm = heartbeat.CreateHeartbeatManager[I, string](s, n.id, n.listener, n.executor, log)
		n.monitorAll(targets)
	})
}

func (n *node[I]) monitorAll(targets map[api.ResourceID]heartbeat.HeartbeatTarget[string]) {
	for id, target := range targets {
		n.hm.MonitorTarget(id, target)
	}
}

// do runs fn on the node's main thread and waits for it.
func (n *node[I]) do(t *testing.T, fn func(hm heartbeat.HeartbeatManager[I, string])) {
	t.Helper()
	_, err := rpc.CallAsync(context.Background(), n.endpoint, func() (struct{}, error) {
		fn(n.hm)
		return struct{}{}, nil
	})
	require.NoError(t, err)
}

// lastHeartbeatFrom asks the main thread, as a REST handler would.
func (n *node[I]) lastHeartbeatFrom(t *testing.T, id api.ResourceID) time.Time {
	t.Helper()
	var last time.Time
	n.do(t, func(hm heartbeat.HeartbeatManager[I, string]) { last = hm.LastHeartbeatFrom(id) })
	return last
}

// listenerCalls reads the listener's unlocked counter on the main thread.
func (n *node[I]) listenerCalls(t *testing.T) int {
	t.Helper()
	var calls int
	n.do(t, func(heartbeat.HeartbeatManager[I, string]) { calls = n.listener.calls })
	return calls
}

// pair is a JobMaster monitoring a TaskExecutor and the TaskExecutor
// monitoring the JobMaster, wired through fake gateways.
type pair struct {
	start time.Time
	jm    *node[tmReport]
	tm    *node[slotReport]
	toTM  *fakeGateway // the JobMaster's view of the TaskExecutor
	toJM  *fakeGateway // the TaskExecutor's view of the JobMaster
}

// startPair starts the TaskExecutor first, then the JobMaster, so the
// JobMaster's first request at 0 s finds the TaskExecutor monitoring it.
// Call it inside a synctest bubble.
func startPair(t *testing.T, s heartbeat.HeartbeatServices, log *slog.Logger) *pair {
	t.Helper()
	p := &pair{start: time.Now()}
	p.jm = newNode[tmReport](t, jmID, p.start, "slot report")
	p.tm = newNode[slotReport](t, tmID, p.start, "tm report")
	p.toTM = newFakeGateway(p.start, p.tm, deliver)
	p.toJM = newFakeGateway(p.start, p.jm, deliver)
	p.tm.startReceiver(s, log, map[api.ResourceID]heartbeat.HeartbeatTarget[string]{jmID: p.toJM})
	p.jm.startSender(s, log, map[api.ResourceID]heartbeat.HeartbeatTarget[string]{tmID: p.toTM})
	return p
}
