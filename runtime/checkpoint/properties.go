package checkpoint

import (
	"fmt"

	"flinklab/runtime/api"
)

// CheckpointProperties say what a snapshot is and who deletes it, when
// (Flink's CheckpointProperties). Flink owns checkpoints and deletes them
// when they are subsumed or their job ends, unless the retention says to
// keep them; the user owns savepoints, and Flink never deletes one.
type CheckpointProperties struct {
	// Forced snapshots are triggered even when MaxConcurrent checkpoints
	// are pending, and never subsumed: savepoints.
	Forced         bool
	CheckpointType CheckpointType
	// DiscardSubsumed deletes the snapshot once NumRetained newer ones
	// completed.
	DiscardSubsumed bool
	// The others delete it when the job ends FINISHED, CANCELED, FAILED or
	// SUSPENDED.
	DiscardFinished  bool
	DiscardCancelled bool
	DiscardFailed    bool
	DiscardSuspended bool
	// Unclaimed marks a snapshot the job was started from but does not own
	// (RecoveryClaimMode NO_CLAIM, Flink's default).
	Unclaimed bool
}

// PropertiesForCheckpoint returns the properties of a periodic checkpoint
// under the given execution.checkpointing.externalized-checkpoint-retention
// (Flink: forCheckpoint of the CheckpointRetentionPolicy the retention
// maps to: NEVER_RETAIN_AFTER_TERMINATION, RETAIN_ON_FAILURE for
// DELETE_ON_CANCELLATION, RETAIN_ON_CANCELLATION).
func PropertiesForCheckpoint(retention string) CheckpointProperties {
	p := CheckpointProperties{CheckpointType: Checkpoint, DiscardSubsumed: true, DiscardFinished: true}
	switch retention {
	case RetainOnCancellation:
		// Kept when cancelled, failed or suspended.
	case DeleteOnCancellation:
		p.DiscardCancelled, p.DiscardSuspended = true, true // kept when failed
	default:
		p.DiscardCancelled, p.DiscardFailed, p.DiscardSuspended = true, true, true
	}
	return p
}

// PropertiesForSavepoint returns the properties of a savepoint: forced,
// never deleted (Flink: forSavepoint).
func PropertiesForSavepoint() CheckpointProperties {
	return CheckpointProperties{Forced: true, CheckpointType: Savepoint}
}

// PropertiesForSyncSavepoint returns the properties of the savepoint of
// stop-with-savepoint, after which the sources stop (Flink:
// forSyncSavepoint with terminate false).
func PropertiesForSyncSavepoint() CheckpointProperties {
	return CheckpointProperties{Forced: true, CheckpointType: SavepointSuspend}
}

// PropertiesForUnclaimedSnapshot returns the properties of a snapshot a job
// was started from: kept like a savepoint, whatever it was (Flink:
// forUnclaimedSnapshot).
func PropertiesForUnclaimedSnapshot() CheckpointProperties {
	return CheckpointProperties{CheckpointType: Savepoint, Unclaimed: true}
}

// IsSavepoint reports whether the properties describe a savepoint.
func (p CheckpointProperties) IsSavepoint() bool { return p.CheckpointType.IsSavepoint() }

// IsSynchronous reports whether the snapshot is the savepoint of
// stop-with-savepoint.
func (p CheckpointProperties) IsSynchronous() bool { return p.CheckpointType == SavepointSuspend }

// ShouldBeDiscardedOnShutdown reports whether the snapshot is deleted when
// its job ends in jobStatus (Flink: CompletedCheckpoint#shouldBeDiscardedOnShutdown).
func (p CheckpointProperties) ShouldBeDiscardedOnShutdown(jobStatus api.JobStatus) bool {
	switch jobStatus {
	case api.JobFinished:
		return p.DiscardFinished
	case api.JobCanceled:
		return p.DiscardCancelled
	case api.JobFailed:
		return p.DiscardFailed
	case api.JobSuspended:
		return p.DiscardSuspended
	default:
		return false
	}
}

// String prints the properties as Flink's toString does.
func (p CheckpointProperties) String() string {
	return fmt.Sprintf("CheckpointProperties{forced=%t, checkpointType=%s, discardSubsumed=%t, discardFinished=%t, "+
		"discardCancelled=%t, discardFailed=%t, discardSuspended=%t}",
		p.Forced, p.CheckpointType, p.DiscardSubsumed, p.DiscardFinished, p.DiscardCancelled, p.DiscardFailed, p.DiscardSuspended)
}
