package heartbeat

import (
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/api"
)

// monitorState is where a heartbeatMonitor stands. Only running monitors
// have a timeout armed and notify the listener; the other three are final.
type monitorState int

const (
	running     monitorState = iota // waiting for heartbeats, the timeout armed
	timedOut                        // the timeout fired: NotifyHeartbeatTimeout was called
	unreachable                     // too many failed RPCs: NotifyTargetUnreachable was called
	canceled                        // unmonitored, or the manager stopped
)

// heartbeatMonitor watches one target (Flink: DefaultHeartbeatMonitor).
// Every heartbeat from the target re-arms its timeout; when the timeout
// fires, or when too many heartbeat RPCs to the target failed in a row, it
// tells the listener, once, and goes quiet. It lives on the owner's main
// thread, like everything else in the manager.
type heartbeatMonitor[O any] struct {
	id     api.ResourceID
	target HeartbeatTarget[O]

	executor MainThreadExecutor
	log      *slog.Logger
	timeout  time.Duration
	// failedRPCsUntilUnreachable is heartbeat.rpc-failure-threshold; -1
	// (FailedRPCDetectionDisabled) disables the check.
	failedRPCsUntilUnreachable int
	onTimeout                  func(api.ResourceID) // the listener's NotifyHeartbeatTimeout
	onUnreachable              func(api.ResourceID) // the listener's NotifyTargetUnreachable

	state         monitorState
	lastHeartbeat time.Time // zero until the first heartbeat
	failedRPCs    int       // consecutive failed heartbeat RPCs since the last success
	cancelTimeout func()    // cancels the armed timeout; nil if none
}

// start arms the first timeout: a target that never sends a heartbeat
// times out after timeout, counted from the moment it is monitored.
func (m *heartbeatMonitor[O]) start() { m.resetHeartbeatTimeout() }

// reportHeartbeat records a heartbeat from the target and, if the monitor
// is still running, restarts the timeout. A timed-out or unreachable
// monitor only records the time: it stays quiet until the owner
// unmonitors the target.
func (m *heartbeatMonitor[O]) reportHeartbeat() {
	m.lastHeartbeat = time.Now()
	m.resetHeartbeatTimeout()
}

func (m *heartbeatMonitor[O]) resetHeartbeatTimeout() {
	if m.state != running {
		return
	}
	m.stopTimeout()
	m.cancelTimeout = m.executor.ScheduleRunAsync(m.timeoutFired, m.timeout)
}

// timeoutFired runs on the main thread when no heartbeat came for timeout.
func (m *heartbeatMonitor[O]) timeoutFired() {
	m.cancelTimeout = nil
	if m.state != running {
		return
	}
	m.state = timedOut
	m.onTimeout(m.id)
}

// reportHeartbeatRPCSuccess: a heartbeat RPC to the target went through,
// so the count of failures in a row starts again.
func (m *heartbeatMonitor[O]) reportHeartbeatRPCSuccess() { m.failedRPCs = 0 }

// reportHeartbeatRPCFailure: a heartbeat RPC to the target could not reach
// it. After failedRPCsUntilUnreachable of them in a row, the target is
// declared unreachable without waiting for the timeout.
func (m *heartbeatMonitor[O]) reportHeartbeatRPCFailure() {
	m.failedRPCs++
	if m.failedRPCsUntilUnreachable <= 0 || m.failedRPCs < m.failedRPCsUntilUnreachable || m.state != running {
		return
	}
	m.state = unreachable
	m.log.Debug(fmt.Sprintf("Mark heartbeat target %s as unreachable because %d consecutive heartbeat RPCs have failed.",
		m.id, m.failedRPCs), "logger", "DefaultHeartbeatMonitor")
	m.stopTimeout()
	m.onUnreachable(m.id)
}

// cancel stops a running monitor for good: its timeout will not fire.
func (m *heartbeatMonitor[O]) cancel() {
	if m.state != running {
		return
	}
	m.state = canceled
	m.stopTimeout()
}

func (m *heartbeatMonitor[O]) stopTimeout() {
	if m.cancelTimeout != nil {
		m.cancelTimeout()
		m.cancelTimeout = nil
	}
}
