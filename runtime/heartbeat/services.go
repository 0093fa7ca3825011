package heartbeat

import (
	"errors"
	"log/slog"
	"time"

	"flinklab/runtime/api"
)

// Flink's defaults for the heartbeat.* options (HeartbeatManagerOptions).
const (
	DefaultInterval            = 10 * time.Second // heartbeat.interval
	DefaultTimeout             = 50 * time.Second // heartbeat.timeout
	DefaultRPCFailureThreshold = 2                // heartbeat.rpc-failure-threshold

	// FailedRPCDetectionDisabled as RPCFailureThreshold turns the
	// detection of unreachable targets off: only the timeout is left.
	FailedRPCDetectionDisabled = -1
)

// HeartbeatServices holds the heartbeat options and creates the heartbeat
// managers of a component (Flink: HeartbeatServices and
// HeartbeatServicesImpl). One value serves the whole process, as in Flink,
// where the ClusterEntrypoint and the TaskManagerRunner build it from the
// configuration and pass it to every component.
type HeartbeatServices struct {
	// Interval is heartbeat.interval: how often a sender requests a
	// heartbeat from each target. It also bounds each heartbeat RPC.
	Interval time.Duration
	// Timeout is heartbeat.timeout: a target that sends no heartbeat for
	// this long is declared timed out, on both sides.
	Timeout time.Duration
	// RPCFailureThreshold is heartbeat.rpc-failure-threshold: after this
	// many heartbeat RPCs in a row could not reach a target, it is
	// declared unreachable. At least 1, or FailedRPCDetectionDisabled.
	RPCFailureThreshold int
}

// DefaultHeartbeatServices returns Flink's defaults: interval 10 s, timeout
// 50 s, rpc-failure-threshold 2.
func DefaultHeartbeatServices() HeartbeatServices {
	return HeartbeatServices{
		Interval:            DefaultInterval,
		Timeout:             DefaultTimeout,
		RPCFailureThreshold: DefaultRPCFailureThreshold,
	}
}

// WithDefaults fills the zero fields of s with Flink's defaults, so a
// component's zero Config gets working heartbeats.
func (s HeartbeatServices) WithDefaults() HeartbeatServices {
	if s.Interval == 0 {
		s.Interval = DefaultInterval
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.RPCFailureThreshold == 0 {
		s.RPCFailureThreshold = DefaultRPCFailureThreshold
	}
	return s
}

// Validate checks the options as HeartbeatServicesImpl's constructor does,
// with its messages.
func (s HeartbeatServices) Validate() error {
	if s.Interval <= 0 {
		return errors.New("The heartbeat interval must be larger than 0.")
	}
	if s.Timeout < s.Interval {
		return errors.New("The heartbeat timeout should be larger or equal than the heartbeat interval.")
	}
	if s.RPCFailureThreshold <= 0 && s.RPCFailureThreshold != FailedRPCDetectionDisabled {
		return errors.New("The number of failed heartbeat RPC requests has to be larger than 0 or -1 (deactivated).")
	}
	return nil
}

// CreateHeartbeatManager returns a receiver-side manager (Flink:
// HeartbeatServices.createHeartbeatManager): it answers heartbeat requests
// and times out targets that stop sending them. The TaskExecutor uses one
// for its JobMasters and one for its ResourceManager; the JobMaster one for
// its ResourceManager.
//
// own is the owner's ResourceID, sent with every heartbeat; executor is the
// owner's endpoint; log, nil for slog.Default(), is the owner's logger, as
// in Flink, where the heartbeat lines appear under the component's name.
// Call it on the owner's main thread, or before the owner starts. It panics
// if s is not valid (Flink's checkArgument): validate the configuration
// first.
//
// A function rather than a method, because Go methods cannot take type
// parameters.
func CreateHeartbeatManager[I, O any](s HeartbeatServices, own api.ResourceID, listener HeartbeatListener[I, O],
	executor MainThreadExecutor, log *slog.Logger) HeartbeatManager[I, O] {
	return newHeartbeatManagerImpl(s, own, listener, executor, log)
}

// CreateHeartbeatManagerSender returns a sender-side manager (Flink:
// HeartbeatServices.createHeartbeatManagerSender): it requests a heartbeat
// from every target each Interval. The JobMaster uses one for its
// TaskExecutors; the ResourceManager one for its TaskExecutors and one for
// its JobMasters. The arguments are those of CreateHeartbeatManager.
func CreateHeartbeatManagerSender[I, O any](s HeartbeatServices, own api.ResourceID, listener HeartbeatListener[I, O],
	executor MainThreadExecutor, log *slog.Logger) HeartbeatManager[I, O] {
	return newHeartbeatManagerSenderImpl(s, own, listener, executor, log)
}
