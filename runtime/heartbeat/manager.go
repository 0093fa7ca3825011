package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/rpc"
)

// HeartbeatManager watches a set of heartbeat targets for its owner (Flink:
// HeartbeatManager). I is the payload that arrives with heartbeats, O the
// payload it sends. Every method must be called on the owner's main
// thread; the listener is called there too.
type HeartbeatManager[I, O any] interface {
	// MonitorTarget starts watching the target id: from now on it must send
	// a heartbeat within the heartbeat timeout. Monitoring an id that is
	// already monitored does nothing (not even re-arm a timed-out monitor):
	// unmonitor it first.
	MonitorTarget(id api.ResourceID, target HeartbeatTarget[O])
	// UnmonitorTarget stops watching id and cancels its timeout. Unknown
	// ids are ignored.
	UnmonitorTarget(id api.ResourceID)
	// ReceiveHeartbeat is a heartbeat from the target from: it resets the
	// target's timeout and hands the payload to the listener. The owner's
	// gateway method (e.g. the JobMaster's heartbeatFromTaskManager) calls
	// it. Heartbeats from targets that are not monitored are ignored.
	ReceiveHeartbeat(from api.ResourceID, payload I)
	// RequestHeartbeat is a heartbeat request from the target from: like
	// ReceiveHeartbeat, and then the manager answers with a heartbeat of
	// its own, carrying the listener's payload. The owner's gateway method
	// (e.g. the TaskExecutor's heartbeatFromJobManager) calls it.
	RequestHeartbeat(from api.ResourceID, payload I)
	// LastHeartbeatFrom returns when the last heartbeat from id arrived;
	// the zero time if none has yet or id is not monitored (Flink returns
	// 0 and -1).
	LastHeartbeatFrom(id api.ResourceID) time.Time
	// Stop cancels every monitor and, on the sender side, the periodic
	// requests. Heartbeat RPCs still in flight are cancelled and their
	// results ignored. The manager does nothing after Stop.
	Stop()
}

// HeartbeatManagerImpl is the receiver side (Flink: HeartbeatManagerImpl):
// it keeps one monitor per target, answers heartbeat requests, and resets
// a target's timeout with every heartbeat from it. It never asks for
// heartbeats itself; HeartbeatManagerSenderImpl adds that. Create it with
// CreateHeartbeatManager.
type HeartbeatManagerImpl[I, O any] struct {
	ownResourceID              api.ResourceID
	listener                   HeartbeatListener[I, O]
	executor                   MainThreadExecutor
	log                        *slog.Logger
	timeout                    time.Duration // heartbeat.timeout
	rpcTimeout                 time.Duration // bounds each heartbeat RPC
	failedRPCsUntilUnreachable int           // heartbeat.rpc-failure-threshold

	ctx    context.Context // parent of every heartbeat RPC's ctx; ends at Stop
	cancel context.CancelFunc

	targets map[api.ResourceID]*heartbeatMonitor[O]
	stopped bool
}

func newHeartbeatManagerImpl[I, O any](s HeartbeatServices, own api.ResourceID, listener HeartbeatListener[I, O],
	executor MainThreadExecutor, log *slog.Logger) *HeartbeatManagerImpl[I, O] {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(executor.Context())
	return &HeartbeatManagerImpl[I, O]{
		ownResourceID:              own,
		listener:                   listener,
		executor:                   executor,
		log:                        log,
		timeout:                    s.Timeout,
		rpcTimeout:                 s.Interval,
		failedRPCsUntilUnreachable: s.RPCFailureThreshold,
		ctx:                        ctx,
		cancel:                     cancel,
		targets:                    make(map[api.ResourceID]*heartbeatMonitor[O]),
	}
}

// MonitorTarget implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) MonitorTarget(id api.ResourceID, target HeartbeatTarget[O]) {
	if m.stopped {
		return
	}
	if _, ok := m.targets[id]; ok {
		m.log.Debug(fmt.Sprintf("The target with resource ID %s is already been monitored.", id))
		return
	}
	monitor := &heartbeatMonitor[O]{
		id:                         id,
		target:                     target,
		executor:                   m.executor,
		log:                        m.log,
		timeout:                    m.timeout,
		failedRPCsUntilUnreachable: m.failedRPCsUntilUnreachable,
		onTimeout:                  m.listener.NotifyHeartbeatTimeout,
		onUnreachable:              m.listener.NotifyTargetUnreachable,
	}
	m.targets[id] = monitor
	monitor.start()
}

// UnmonitorTarget implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) UnmonitorTarget(id api.ResourceID) {
	if m.stopped {
		return
	}
	if monitor, ok := m.targets[id]; ok {
		delete(m.targets, id)
		monitor.cancel()
	}
}

// Stop implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) Stop() {
	m.stopped = true
	for id, monitor := range m.targets {
		delete(m.targets, id)
		monitor.cancel()
	}
	m.cancel()
}

// LastHeartbeatFrom implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) LastHeartbeatFrom(id api.ResourceID) time.Time {
	if monitor, ok := m.targets[id]; ok {
		return monitor.lastHeartbeat
	}
	return time.Time{}
}

// ReceiveHeartbeat implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) ReceiveHeartbeat(from api.ResourceID, payload I) {
	if m.stopped {
		return
	}
	m.log.Debug(fmt.Sprintf("Received heartbeat from %s.", from))
	if m.reportHeartbeat(from) == nil {
		return
	}
	m.listener.ReportPayload(from, payload)
}

// RequestHeartbeat implements HeartbeatManager.
func (m *HeartbeatManagerImpl[I, O]) RequestHeartbeat(from api.ResourceID, payload I) {
	if m.stopped {
		return
	}
	m.log.Debug(fmt.Sprintf("Received heartbeat request from %s.", from))
	monitor := m.reportHeartbeat(from)
	if monitor == nil {
		return
	}
	m.listener.ReportPayload(from, payload)
	answer := m.listener.RetrievePayload(from)
	target, own := monitor.target, m.ownResourceID
	m.sendHeartbeatRPC(monitor, func(ctx context.Context) error {
		return target.ReceiveHeartbeat(ctx, own, answer)
	})
}

// reportHeartbeat notes a heartbeat from id and returns its monitor, or nil
// if id is not monitored.
func (m *HeartbeatManagerImpl[I, O]) reportHeartbeat(id api.ResourceID) *heartbeatMonitor[O] {
	monitor, ok := m.targets[id]
	if !ok {
		return nil
	}
	monitor.reportHeartbeat()
	return monitor
}

// sendHeartbeatRPC runs call, a heartbeat RPC to monitor's target, on a
// goroutine of its own, so the main thread never waits for a peer; its ctx
// ends after rpcTimeout or at Stop. The outcome comes back to the main
// thread as a mailbox message (Flink: whenCompleteAsync(handleHeartbeatRpc,
// mainThreadExecutor)).
func (m *HeartbeatManagerImpl[I, O]) sendHeartbeatRPC(monitor *heartbeatMonitor[O], call func(ctx context.Context) error) {
	parent, timeout, executor := m.ctx, m.rpcTimeout, m.executor
	go func() {
		ctx, cancel := context.WithTimeout(parent, timeout)
		err := call(ctx)
		cancel()
		executor.RunAsync(func() { m.handleHeartbeatRPC(monitor, err) })
	}()
}

// handleHeartbeatRPC counts the outcome of a heartbeat RPC, on the main
// thread. As in Flink, only an unreachable recipient is a failure: an RPC
// that timed out or was rejected says nothing about whether the target is
// alive, and its missing heartbeat is the timeout's business. An outcome
// for a monitor that is gone (unmonitored, maybe monitored anew since) is
// ignored.
func (m *HeartbeatManagerImpl[I, O]) handleHeartbeatRPC(monitor *heartbeatMonitor[O], err error) {
	if m.stopped || m.targets[monitor.id] != monitor {
		return
	}
	switch {
	case err == nil:
		monitor.reportHeartbeatRPCSuccess()
	case errors.Is(err, rpc.ErrRecipientUnreachable):
		monitor.reportHeartbeatRPCFailure()
	}
}
