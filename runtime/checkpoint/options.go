package checkpoint

import (
	"fmt"

	"flinklab/runtime/state"
)

// CheckpointType says what a snapshot is for (Flink's SnapshotType:
// CheckpointType and SavepointType).
type CheckpointType string

const (
	// Checkpoint is a periodic checkpoint, owned and pruned by Flink.
	Checkpoint CheckpointType = "CHECKPOINT"
	// Savepoint is taken on request and owned by the user.
	Savepoint CheckpointType = "SAVEPOINT"
	// SavepointSuspend is the savepoint of stop-with-savepoint: the
	// sources stop after it.
	SavepointSuspend CheckpointType = "SAVEPOINT_SUSPEND"
)

// IsSavepoint reports whether the snapshot is a savepoint.
func (t CheckpointType) IsSavepoint() bool { return t == Savepoint || t == SavepointSuspend }

// String prints the type as Flink's toString does in "Triggering
// checkpoint 5 (type=CheckpointType{name='Checkpoint', …})".
func (t CheckpointType) String() string {
	switch t {
	case Checkpoint:
		return "CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}"
	case Savepoint:
		return "SavepointType{name='Savepoint', postCheckpointAction=NONE, formatType=CANONICAL}"
	case SavepointSuspend:
		return "SavepointType{name='Suspend Savepoint', postCheckpointAction=SUSPEND, formatType=CANONICAL}"
	default:
		return fmt.Sprintf("CheckpointType(%s)", string(t))
	}
}

// Name is the short name the REST API and CompletedCheckpoint#toString
// use: "Checkpoint", "Savepoint", "Suspend Savepoint".
func (t CheckpointType) Name() string {
	switch t {
	case Savepoint:
		return "Savepoint"
	case SavepointSuspend:
		return "Suspend Savepoint"
	default:
		return "Checkpoint"
	}
}

// CheckpointingMode is execution.checkpointing.mode: whether a task with
// several inputs aligns the barriers (Flink's CheckpointingMode).
type CheckpointingMode string

const (
	// ExactlyOnce aligns: after the barrier arrives on one input, that
	// input is not read until it has arrived on all. The snapshot then
	// holds exactly the effect of the records before the barrier.
	ExactlyOnce CheckpointingMode = "EXACTLY_ONCE"
	// AtLeastOnce does not align: records behind an early barrier are
	// processed before the snapshot, and processed again after a restore.
	AtLeastOnce CheckpointingMode = "AT_LEAST_ONCE"
)

// ParseCheckpointingMode reads a value of execution.checkpointing.mode.
func ParseCheckpointingMode(s string) (CheckpointingMode, error) {
	switch m := CheckpointingMode(s); m {
	case ExactlyOnce, AtLeastOnce:
		return m, nil
	default:
		return "", fmt.Errorf("Could not parse value '%s' for key 'execution.checkpointing.mode'. "+
			"Caused by: Could not parse value for enum class org.apache.flink.core.execution.CheckpointingMode. "+
			"Expected one of: [[EXACTLY_ONCE, AT_LEAST_ONCE]]", s)
	}
}

// AlignmentType is how the barriers of one checkpoint travel (Flink's
// CheckpointOptions.AlignmentType; flinklab has no unaligned checkpoints).
type AlignmentType string

const (
	// Aligned barriers block each input channel they arrive on until the
	// task has them on all (ALIGNED_CHECKPOINT_BARRIER).
	Aligned AlignmentType = "ALIGNED"
	// AtLeastOnceAlignment barriers block nothing (EVENT_BUFFER).
	AtLeastOnceAlignment AlignmentType = "AT_LEAST_ONCE"
)

// CheckpointOptions travel with the trigger to the sources and with the
// barrier to every task (Flink's CheckpointOptions): what the snapshot is,
// where its state goes, and whether barriers align.
type CheckpointOptions struct {
	CheckpointType CheckpointType `json:"checkpointType"`
	// TargetLocation is where the tasks write their state (Flink: the
	// CheckpointStorageLocationReference): the checkpoint's chk-<n>
	// directory, or none when the JobManager keeps the state.
	TargetLocation state.CheckpointStorageLocation `json:"targetLocation"`
	AlignmentType  AlignmentType                   `json:"alignmentType"`
}

// NeedsAlignment reports whether the barriers block the channels they
// arrive on (exactly-once).
func (o CheckpointOptions) NeedsAlignment() bool { return o.AlignmentType == Aligned }
