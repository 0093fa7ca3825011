package gateway

import (
	"errors"
	"fmt"
)

// TriggerSavepointMode says what a savepoint the Dispatcher is asked for
// is for (Flink's TriggerSavepointMode). POST /jobs/:jobid/savepoints asks
// for ModeSavepoint, or ModeCancelWithSavepoint with "cancel-job": true;
// POST /jobs/:jobid/stop asks for ModeSuspendWithSavepoint, or
// ModeTerminateWithSavepoint with "drain": true.
type TriggerSavepointMode int

const (
	// ModeSavepoint is a savepoint of a job that runs on (SAVEPOINT).
	ModeSavepoint TriggerSavepointMode = iota
	// ModeCancelWithSavepoint cancels the job once the savepoint completed
	// (CANCEL_WITH_SAVEPOINT, deprecated in Flink for stop).
	ModeCancelWithSavepoint
	// ModeSuspendWithSavepoint stops the job with a savepoint: flink stop
	// (SUSPEND_WITH_SAVEPOINT).
	ModeSuspendWithSavepoint
	// ModeTerminateWithSavepoint drains the job before it stops: flink
	// stop --drain (TERMINATE_WITH_SAVEPOINT).
	ModeTerminateWithSavepoint
)

var triggerSavepointModeNames = [...]string{
	ModeSavepoint:              "SAVEPOINT",
	ModeCancelWithSavepoint:    "CANCEL_WITH_SAVEPOINT",
	ModeSuspendWithSavepoint:   "SUSPEND_WITH_SAVEPOINT",
	ModeTerminateWithSavepoint: "TERMINATE_WITH_SAVEPOINT",
}

// String returns Flink's name of the mode, e.g. "SUSPEND_WITH_SAVEPOINT".
func (m TriggerSavepointMode) String() string {
	if m < 0 || int(m) >= len(triggerSavepointModeNames) {
		return fmt.Sprintf("TriggerSavepointMode(%d)", int(m))
	}
	return triggerSavepointModeNames[m]
}

// IsTerminalMode reports whether the job ends after the savepoint: it is
// cancelled, or drained (Flink's isTerminalMode). The Dispatcher passes it
// on to the JobMaster as cancelJob or terminate.
func (m TriggerSavepointMode) IsTerminalMode() bool {
	return m == ModeCancelWithSavepoint || m == ModeTerminateWithSavepoint
}

// MarshalText encodes the mode by its Flink name.
func (m TriggerSavepointMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText decodes a mode from its Flink name.
func (m *TriggerSavepointMode) UnmarshalText(b []byte) error {
	for i, name := range triggerSavepointModeNames {
		if name == string(b) {
			*m = TriggerSavepointMode(i)
			return nil
		}
	}
	return fmt.Errorf("unknown TriggerSavepointMode %q", b)
}

// Errors of savepoints and checkpoint statistics, which the
// JobMasterGateway and the DispatcherGateway answer with. They may cross
// processes (errors.go), as does checkpoint.ErrNoSavepointDirectory, which
// answers a savepoint without a directory.
var (
	// ErrCheckpointingDisabled answers a savepoint of a job that has no
	// CheckpointCoordinator: one run without
	// execution.checkpointing.interval. Its text is the REST endpoint's
	// answer for the statistics of such a job (Flink's
	// CheckpointingStatisticsHandler).
	ErrCheckpointingDisabled = errors.New("Checkpointing has not been enabled.")
	// ErrJobNotExecuting answers a savepoint of a job whose
	// AdaptiveScheduler has no ExecutionGraph running (Flink's
	// CheckpointException of TRIGGER_CHECKPOINT_FAILURE, with this text).
	ErrJobNotExecuting = errors.New("The Flink job is currently not executing.")
)
