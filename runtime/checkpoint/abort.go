package checkpoint

import (
	"slices"

	"flinklab/runtime/api"
)

// abortPendingCheckpoint aborts a pending checkpoint: its state and
// directory are deleted, the trigger request's caller and the tasks are
// told, the statistics record the failure and the failure manager counts
// it (Flink: abortPendingCheckpoint). attemptID is the task that declined
// it, nil when the JobManager aborted it.
func (c *CheckpointCoordinator) abortPendingCheckpoint(pending *PendingCheckpoint, exception *CheckpointException,
	attemptID *api.ExecutionAttemptID) {
	if pending.IsDisposed() {
		return
	}
	pending.abort(exception)
	c.statsTracker.reportFailedCheckpoint(pending.stats, c.nowMillis(), exception)
	c.failureManager.HandleCheckpointException(pending, pending.Props(), exception, attemptID, c.job)

	c.sendAbortedMessages(pending)
	delete(c.pendingCheckpoints, pending.CheckpointID())
	c.rememberRecentCheckpointID(pending.CheckpointID())
	c.scheduleTriggerRequest()
}

// abortPendingCheckpoints aborts the pending checkpoints shouldFail picks,
// oldest first.
func (c *CheckpointCoordinator) abortPendingCheckpoints(shouldFail func(*PendingCheckpoint) bool, exception *CheckpointException) {
	ids := make([]int64, 0, len(c.pendingCheckpoints))
	for id, p := range c.pendingCheckpoints {
		if shouldFail(p) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if p, ok := c.pendingCheckpoints[id]; ok {
			c.abortPendingCheckpoint(p, exception, nil)
		}
	}
}

// abortPendingAndQueuedCheckpoints fails the waiting trigger requests and
// aborts the pending checkpoints.
func (c *CheckpointCoordinator) abortPendingAndQueuedCheckpoints(exception *CheckpointException) {
	c.requestDecider.abortAll(exception)
	c.abortPendingCheckpoints(func(*PendingCheckpoint) bool { return true }, exception)
}

// dropSubsumedCheckpoints aborts the pending checkpoints older than a
// checkpoint that completed (CHECKPOINT_SUBSUMED): the job will never
// restore them. Savepoints complete anyway.
func (c *CheckpointCoordinator) dropSubsumedCheckpoints(checkpointID int64) {
	c.abortPendingCheckpoints(func(p *PendingCheckpoint) bool {
		return p.CheckpointID() < checkpointID && p.CanBeSubsumed()
	}, NewCheckpointException(CheckpointSubsumed, nil))
}
