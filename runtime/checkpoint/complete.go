package checkpoint

import (
	"fmt"
	"path/filepath"
	"strings"

	"flinklab/runtime/fault"
	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

// completePendingCheckpoint turns a fully acknowledged checkpoint into a
// CompletedCheckpoint: _metadata written, added to the store (which
// subsumes the oldest), older pending checkpoints dropped, the tasks told.
// The error says what failed; the checkpoint is then aborted.
func (c *CheckpointCoordinator) completePendingCheckpoint(pending *PendingCheckpoint) error {
	checkpointID := pending.CheckpointID()

	// Step k6: every task acknowledged: write the checkpoint's _metadata
	// and keep it as a CompletedCheckpoint.
	completed, err := c.finalizeCheckpoint(pending)
	var subsumed []*CompletedCheckpoint
	if err == nil && !pending.Props().IsSavepoint() {
		subsumed, err = c.addCompletedCheckpointToStoreAndSubsumeOldest(completed, pending)
	}
	delete(c.pendingCheckpoints, checkpointID)
	c.scheduleTriggerRequest() // a waiting request may run now
	if err != nil {
		return err
	}

	pending.complete(completed, nil)
	c.failureManager.HandleCheckpointSuccess(checkpointID)
	c.statsTracker.reportCompletedCheckpoint(pending.stats, completed.ExternalPointer)
	for _, s := range subsumed {
		if s.Properties.DiscardSubsumed {
			c.discardCompletedCheckpoint(s)
		}
	}
	c.cleanupAfterCompletedCheckpoint(pending, completed)
	return nil
}

// finalizeCheckpoint writes the _metadata; if that fails, the checkpoint
// is aborted with FINALIZE_CHECKPOINT_FAILURE.
func (c *CheckpointCoordinator) finalizeCheckpoint(pending *PendingCheckpoint) (*CompletedCheckpoint, error) {
	var completed *CompletedCheckpoint
	// Step k6 (fault): metadata-write-fails: the _metadata cannot be
	// written; the checkpoint is aborted below, as for a real I/O error.
	err := c.injectedMetadataWriteFailure(pending)
	if err == nil {
		completed, err = pending.finalizeCheckpoint(c.nowMillis)
	}
	if err == nil {
		return completed, nil
	}
	exception := NewCheckpointException(FinalizeCheckpointFailure,
		fmt.Errorf("Could not finalize the pending checkpoint %d. Caused by: %w", pending.CheckpointID(), err))
	c.trace.EmitFailure(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator", c.job, "%s", exception)
	c.abortPendingCheckpoint(pending, exception, nil)
	return nil, exception
}

// injectedMetadataWriteFailure is step k6's fault, metadata-write-fails:
// the file system of state.checkpoints.dir refuses the checkpoint's
// _metadata, and the error is the one Flink's
// FsCheckpointMetadataOutputStream throws then. It is asked only where a
// _metadata file is written, for a checkpoint with a directory; with
// JobManagerCheckpointStorage nothing is written, and the fault stays
// armed.
func (c *CheckpointCoordinator) injectedMetadataWriteFailure(pending *PendingCheckpoint) error {
	dir := pending.targetLocation.Directory
	if dir == "" {
		return nil
	}
	kind, ok := c.faults.Fire(trace.K6, c.job)
	if !ok {
		return nil
	}
	return fmt.Errorf("Could not flush and close the file system output stream to %s in order to obtain the stream state handle: %w",
		filepath.Join(dir, state.MetadataFileName), fault.Injected(trace.K6, kind))
}

// addCompletedCheckpointToStoreAndSubsumeOldest adds the checkpoint to the
// store. If the store refuses it, the checkpoint is deleted and counts as
// failed.
func (c *CheckpointCoordinator) addCompletedCheckpointToStoreAndSubsumeOldest(completed *CompletedCheckpoint,
	pending *PendingCheckpoint) ([]*CompletedCheckpoint, error) {
	subsumed, err := c.store.AddCheckpointAndSubsumeOldestOne(completed)
	if err == nil {
		return subsumed, nil
	}
	exception := NewCheckpointException(FinalizeCheckpointFailure,
		fmt.Errorf("Could not complete the pending checkpoint %d. Caused by: %w", completed.CheckpointID, err))
	pending.complete(nil, exception)
	if err := completed.DiscardState(); err != nil {
		c.log.Warn(fmt.Sprintf("Could not discard completed checkpoint %d.", completed.CheckpointID), "cause", err.Error())
	}
	c.trace.EmitFailure(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator", c.job, "%s", exception)
	c.statsTracker.reportFailedCheckpoint(pending.stats, c.nowMillis(), exception)
	c.failureManager.HandleCheckpointException(pending, pending.Props(), exception, nil, c.job)
	c.sendAbortedMessages(pending)
	return nil, exception
}

// cleanupAfterCompletedCheckpoint logs the completion, drops the older
// pending checkpoints and tells the tasks. A savepoint a user asked for is
// not told to the tasks: they commit only what checkpoints and the
// savepoint of stop-with-savepoint hold.
func (c *CheckpointCoordinator) cleanupAfterCompletedCheckpoint(pending *PendingCheckpoint, completed *CompletedCheckpoint) {
	c.rememberRecentCheckpointID(completed.CheckpointID)
	c.lastCheckpointCompletion = c.now() // for the min pause
	c.logCheckpointInfo(completed)

	props := pending.Props()
	if !props.IsSavepoint() || props.IsSynchronous() {
		c.dropSubsumedCheckpoints(completed.CheckpointID)
		c.sendAcknowledgeMessages(pending, completed)
	}
}

func (c *CheckpointCoordinator) logCheckpointInfo(completed *CompletedCheckpoint) {
	message := fmt.Sprintf("Completed checkpoint %d for job %s (%d bytes, checkpointDuration=%d ms, finalizationTime=%d ms).",
		completed.CheckpointID, c.job, completed.StateSize, completed.CompletionTimestamp-completed.Timestamp,
		c.nowMillis()-completed.CompletionTimestamp)
	c.log.Info(message)
	c.trace.Emit(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator", c.job, "%s", message)

	if len(completed.OperatorStates) > 0 {
		states := make([]string, 0, len(completed.OperatorStates))
		for _, s := range newCheckpointMetadata(c.job, 0, "", 0, completed.OperatorStates).OperatorStates {
			states = append(states, s.String())
		}
		c.log.Debug("Checkpoint state: " + strings.Join(states, ", "))
	}
}

// sendAcknowledgeMessages tells the tasks that the checkpoint completed.
func (c *CheckpointCoordinator) sendAcknowledgeMessages(pending *PendingCheckpoint, completed *CompletedCheckpoint) {
	for _, task := range pending.plan.TasksToCommitTo {
		// Step k7: the task hears notifyCheckpointComplete; a
		// transactional sink commits what the checkpoint covers.
		if task.NotifyCheckpointComplete != nil {
			task.NotifyCheckpointComplete(completed.CheckpointID, completed.Timestamp)
		}
		c.trace.Emit(trace.K7, "CheckpointCoordinator", task.TaskNameWithSubtask, c.job,
			"notifyCheckpointComplete for checkpoint %d", completed.CheckpointID)
	}
}

// sendAbortedMessages tells the tasks that the checkpoint will not
// complete, so that they drop what they hold for it.
func (c *CheckpointCoordinator) sendAbortedMessages(pending *PendingCheckpoint) {
	var latestCompletedCheckpointID int64
	if latest := c.store.GetLatestCheckpoint(); latest != nil {
		latestCompletedCheckpointID = latest.CheckpointID
	}
	for _, task := range pending.plan.TasksToCommitTo {
		if task.NotifyCheckpointAborted != nil {
			task.NotifyCheckpointAborted(pending.CheckpointID(), latestCompletedCheckpointID, pending.CheckpointTimestamp())
		}
	}
}

// discardCompletedCheckpoint deletes a completed checkpoint the store let
// go of: its state files and its directory (Flink's CheckpointsCleaner).
func (c *CheckpointCoordinator) discardCompletedCheckpoint(completed *CompletedCheckpoint) {
	if err := completed.DiscardState(); err != nil {
		c.log.Warn(fmt.Sprintf("Could not discard completed checkpoint %d.", completed.CheckpointID), "cause", err.Error())
	}
	c.statsTracker.markDiscarded(completed.CheckpointID)
}
