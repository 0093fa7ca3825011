package heartbeat

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"flinklab/runtime/api"
)

// HeartbeatManagerSenderImpl is the sender side (Flink:
// HeartbeatManagerSenderImpl): a HeartbeatManagerImpl that, every
// heartbeat interval, asks each monitored target for a heartbeat, sending
// the listener's payload along. The answers come back through
// ReceiveHeartbeat and reset the targets' timeouts. Create it with
// CreateHeartbeatManagerSender.
type HeartbeatManagerSenderImpl[I, O any] struct {
	*HeartbeatManagerImpl[I, O]
	interval      time.Duration // heartbeat.interval
	cancelTrigger func()        // cancels the next round of requests; nil before the first
}

func newHeartbeatManagerSenderImpl[I, O any](s HeartbeatServices, own api.ResourceID, listener HeartbeatListener[I, O],
	executor MainThreadExecutor, log *slog.Logger) *HeartbeatManagerSenderImpl[I, O] {
	m := &HeartbeatManagerSenderImpl[I, O]{
		HeartbeatManagerImpl: newHeartbeatManagerImpl(s, own, listener, executor, log),
		interval:             s.Interval,
	}
	// The first round goes out as soon as the main thread gets to it (Flink
	// schedules it with a delay of 0), every later one interval after the
	// previous one.
	executor.RunAsync(m.triggerHeartbeats)
	return m
}

// triggerHeartbeats sends one round of heartbeat requests, then schedules
// the next. The targets are visited in the order of their ids, so logs and
// tests are repeatable (Flink walks a hash map).
func (m *HeartbeatManagerSenderImpl[I, O]) triggerHeartbeats() {
	if m.stopped {
		return
	}
	m.log.Debug("Trigger heartbeat request.")
	for _, id := range slices.Sorted(maps.Keys(m.targets)) {
		monitor, ok := m.targets[id]
		if !ok { // unmonitored by the listener while this round was sent
			continue
		}
		m.requestHeartbeat(monitor)
	}
	if !m.stopped {
		m.cancelTrigger = m.executor.ScheduleRunAsync(m.triggerHeartbeats, m.interval)
	}
}

func (m *HeartbeatManagerSenderImpl[I, O]) requestHeartbeat(monitor *heartbeatMonitor[O]) {
	payload := m.listener.RetrievePayload(monitor.id)
	target, own := monitor.target, m.ownResourceID
	m.sendHeartbeatRPC(monitor, func(ctx context.Context) error {
		return target.RequestHeartbeat(ctx, own, payload)
	})
}

// Stop implements HeartbeatManager: no more rounds of requests, then
// HeartbeatManagerImpl.Stop.
func (m *HeartbeatManagerSenderImpl[I, O]) Stop() {
	if m.cancelTrigger != nil {
		m.cancelTrigger()
		m.cancelTrigger = nil
	}
	m.HeartbeatManagerImpl.Stop()
}
