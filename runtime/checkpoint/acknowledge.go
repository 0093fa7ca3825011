package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/trace"
)

// ReceiveAcknowledgeMessage handles a task's acknowledgement of a
// checkpoint (Flink: receiveAcknowledgeMessage). taskManagerLocationInfo
// says where the task runs, for the log. When it is the last
// acknowledgement the checkpoint waited for, the checkpoint completes; the
// error says that this failed. An acknowledgement that comes too late, or
// for a checkpoint the coordinator does not know, is logged and its state
// deleted.
func (c *CheckpointCoordinator) ReceiveAcknowledgeMessage(msg AcknowledgeCheckpoint, taskManagerLocationInfo string) error {
	if c.shutdown {
		return nil
	}
	if msg.JobID != c.job {
		c.log.Error(fmt.Sprintf("Received wrong AcknowledgeCheckpoint message for job %s from %s : %+v",
			c.job, taskManagerLocationInfo, msg))
		return nil
	}
	checkpointID := msg.CheckpointID
	pending, ok := c.pendingCheckpoints[checkpointID]
	if !ok {
		c.receiveLateAcknowledgeMessage(msg, taskManagerLocationInfo)
		return nil
	}

	task, _ := pending.taskToWaitFor(msg.TaskExecutionID)
	switch pending.AcknowledgeTask(msg.TaskExecutionID, msg.SubtaskState, msg.Metrics, c.nowMillis()) {
	case TaskAcknowledgeSuccess:
		// Step k5: a task acknowledged the checkpoint with its state.
		message := fmt.Sprintf("Received acknowledge message for checkpoint %d from task %s of job %s at %s.",
			checkpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo)
		c.log.Debug(message)
		c.trace.Emit(trace.K5, task.TaskNameWithSubtask, "CheckpointCoordinator", c.job, "%s", message)
		if pending.IsFullyAcknowledged() {
			return c.completePendingCheckpoint(pending)
		}
	case TaskAcknowledgeDuplicate:
		c.log.Debug(fmt.Sprintf("Received a duplicate acknowledge message for checkpoint %d, task %s, job %s, location %s.",
			checkpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo))
	case TaskAcknowledgeUnknown:
		c.log.Warn(fmt.Sprintf("Could not acknowledge the checkpoint %d for task %s of job %s at %s, "+
			"because the task's execution attempt id was unknown. Discarding the state handle to avoid lingering state.",
			checkpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo))
		c.discardSubtaskState(msg)
	case TaskAcknowledgeDiscarded:
		c.log.Warn(fmt.Sprintf("Could not acknowledge the checkpoint %d for task %s of job %s at %s, "+
			"because the pending checkpoint had been discarded. Discarding the state handle tp avoid lingering state.", // sic, as Flink
			checkpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo))
		c.discardSubtaskState(msg)
	}
	return nil
}

// receiveLateAcknowledgeMessage handles an acknowledgement of a checkpoint
// that is no longer pending: it ended (expired, aborted, completed) or was
// never known.
func (c *CheckpointCoordinator) receiveLateAcknowledgeMessage(msg AcknowledgeCheckpoint, taskManagerLocationInfo string) {
	if slices.Contains(c.recentPendingCheckpoints, msg.CheckpointID) {
		c.log.Warn(fmt.Sprintf("Received late message for now expired checkpoint attempt %d from task %s of job %s at %s.",
			msg.CheckpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo))
	} else {
		c.log.Debug(fmt.Sprintf("Received message for an unknown checkpoint %d from task %s of job %s at %s.",
			msg.CheckpointID, msg.TaskExecutionID, msg.JobID, taskManagerLocationInfo))
	}
	// Differs from Flink: the state of a checkpoint that completed and is
	// still retained is not deleted, in case the task sent the same handles
	// again; they go with the checkpoint's directory.
	for _, completed := range c.store.GetAllCheckpoints() {
		if completed.CheckpointID == msg.CheckpointID {
			return
		}
	}
	c.discardSubtaskState(msg)
}

// discardSubtaskState deletes the state an acknowledgement carries that
// no checkpoint will keep, so that it does not linger.
func (c *CheckpointCoordinator) discardSubtaskState(msg AcknowledgeCheckpoint) {
	msg.SubtaskState.DiscardState()
}

// ReceiveDeclineMessage handles a task's refusal of a checkpoint (Flink:
// receiveDeclineMessage): the checkpoint is aborted with the reason the
// task gave, and the failure manager counts it.
func (c *CheckpointCoordinator) ReceiveDeclineMessage(msg DeclineCheckpoint, taskManagerLocationInfo string) {
	if c.shutdown {
		return
	}
	if msg.JobID != c.job {
		c.log.Error(fmt.Sprintf("Received DeclineCheckpoint message for job %s from %s while this coordinator handles job %s",
			msg.JobID, taskManagerLocationInfo, c.job))
		return
	}
	exception := declineException(msg)
	pending, ok := c.pendingCheckpoints[msg.CheckpointID]
	if !ok {
		what := "decline message for unknown (too old?) checkpoint attempt"
		if slices.Contains(c.recentPendingCheckpoints, msg.CheckpointID) {
			what = "another decline message for now expired checkpoint attempt"
		}
		c.log.Debug(fmt.Sprintf("Received %s %d from task %s of job %s at %s : %s",
			what, msg.CheckpointID, msg.TaskExecutionID, c.job, taskManagerLocationInfo, exception))
		return
	}

	message := fmt.Sprintf("Decline checkpoint %d by task %s of job %s at %s.",
		msg.CheckpointID, msg.TaskExecutionID, c.job, taskManagerLocationInfo)
	if exception.Cause != nil {
		c.log.Info(message, "cause", exception.Cause.Error())
	} else {
		c.log.Info(message)
	}
	task, _ := pending.taskToWaitFor(msg.TaskExecutionID)
	c.trace.EmitFailure(trace.K5, task.TaskNameWithSubtask, "CheckpointCoordinator", c.job, "%s", message)
	attemptID := msg.TaskExecutionID
	c.abortPendingCheckpoint(pending, exception, &attemptID)
}

// declineException rebuilds the exception a task declined with from its
// reason's name and its text: "<reason's message> Caused by: <cause>".
// An unknown reason is CHECKPOINT_DECLINED.
func declineException(msg DeclineCheckpoint) *CheckpointException {
	reason, ok := ReasonOf(msg.Reason)
	if !ok {
		reason = CheckpointDeclined
	}
	text := msg.Message
	switch {
	case text == "" || text == reason.Message:
		return NewCheckpointException(reason, nil)
	case strings.HasPrefix(text, reason.Message+" Caused by: "):
		text = strings.TrimPrefix(text, reason.Message+" Caused by: ")
	}
	return NewCheckpointException(reason, declineCause(text))
}

// declineCause is the cause of a decline, as text: it crossed processes.
type declineCause string

func (e declineCause) Error() string { return string(e) }

// FailUnacknowledgedPendingCheckpointsFor aborts the pending checkpoints
// the task has not acknowledged (TASK_FAILURE): it failed and never will.
// The ExecutionGraph calls it when a task fails.
func (c *CheckpointCoordinator) FailUnacknowledgedPendingCheckpointsFor(attemptID api.ExecutionAttemptID, cause error) {
	c.abortPendingCheckpoints(func(p *PendingCheckpoint) bool { return !p.IsAcknowledgedBy(attemptID) },
		NewCheckpointException(TaskFailure, cause))
}

// AbortPendingCheckpoints aborts every pending checkpoint with exception.
func (c *CheckpointCoordinator) AbortPendingCheckpoints(exception *CheckpointException) {
	c.abortPendingCheckpoints(func(*PendingCheckpoint) bool { return true }, exception)
}
