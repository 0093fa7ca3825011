package taskmanager

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/trace"
)

// CheckpointResponder is how a task answers a checkpoint: it acknowledges
// it with its state, or declines it (Flink's CheckpointResponder, whose
// RpcCheckpointResponder sends the answer to the JobMaster). The
// TaskExecutor implements it; the calls must not block the task.
type CheckpointResponder interface {
	AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint)
	DeclineCheckpoint(decline checkpoint.DeclineCheckpoint)
}

// CheckpointableTask is an invokable that takes part in checkpoints
// (Flink's CheckpointableTask, which StreamTask implements). The Task
// calls these methods from the TaskExecutor's goroutines while the
// invokable runs; the invokable hands each to its own goroutine (Flink:
// the task's mailbox) and returns at once.
type CheckpointableTask interface {
	// TriggerCheckpointAsync asks a source task to take a checkpoint and
	// send its barrier downstream. It reports false if the task cannot
	// (it is not running any more).
	TriggerCheckpointAsync(checkpointID, timestamp int64, options checkpoint.CheckpointOptions) bool
	// NotifyCheckpointCompleteAsync tells the task that a checkpoint it
	// took part in completed.
	NotifyCheckpointCompleteAsync(checkpointID int64)
	// NotifyCheckpointAbortAsync tells the task that a checkpoint will
	// not complete.
	NotifyCheckpointAbortAsync(checkpointID, latestCompletedCheckpointID int64)
}

// TriggerCheckpointBarrier asks the task's invokable to take checkpoint
// checkpointID (Flink's Task#triggerCheckpointBarrier). A task that is not
// RUNNING yet, or whose invokable takes no checkpoints, declines it with
// CHECKPOINT_DECLINED_TASK_NOT_READY, as Flink's does: step k2 breaks,
// and the coordinator aborts the checkpoint without counting it as a
// failure.
func (t *Task) TriggerCheckpointBarrier(checkpointID, timestamp int64, options checkpoint.CheckpointOptions) {
	if t.State() == api.ExecutionRunning && !t.injectedNotReady() {
		if invokable, ok := t.runningInvokable().(CheckpointableTask); ok &&
			invokable.TriggerCheckpointAsync(checkpointID, timestamp, options) {
			return
		}
	}
	message := fmt.Sprintf("Declining checkpoint request for non-running task %s (%s).", t.taskNameWithSubtask, t.ExecutionID())
	t.logger.Debug(message)
	t.trace.EmitFailure(trace.K2, "TaskExecutor", t.taskNameWithSubtask, t.tdd.JobID, "%s", message)
	t.declineCheckpoint(checkpointID, checkpoint.NewCheckpointException(checkpoint.CheckpointDeclinedTaskNotReady,
		fmt.Errorf("Task name with subtask : %s", t.taskNameWithSubtask)))
}

// injectedNotReady is step k2's fault, task-not-ready: the running task
// declines the trigger as a task that is not RUNNING does (one that has
// just finished or failed on its TaskManager while the JobMaster, which
// planned the checkpoint, still counted it RUNNING). It is asked only of
// a task that would take the checkpoint.
func (t *Task) injectedNotReady() bool {
	// Step k2 (fault): the task declines as one that is not running.
	_, ok := t.faults.Fire(trace.K2, t.tdd.JobID)
	return ok
}

// NotifyCheckpointComplete tells the running invokable that checkpoint
// checkpointID completed (Flink's Task#notifyCheckpointComplete); a task
// that is not running ignores it.
func (t *Task) NotifyCheckpointComplete(checkpointID int64) {
	invokable, ok := t.runningInvokable().(CheckpointableTask)
	if t.State() != api.ExecutionRunning || !ok {
		t.logger.Debug(fmt.Sprintf("Ignoring checkpoint commit notification for non-running task %s.", t.taskNameWithSubtask))
		return
	}
	invokable.NotifyCheckpointCompleteAsync(checkpointID)
}

// NotifyCheckpointAborted tells the running invokable that checkpoint
// checkpointID will not complete (Flink's Task#notifyCheckpointAborted).
func (t *Task) NotifyCheckpointAborted(checkpointID, latestCompletedCheckpointID int64) {
	invokable, ok := t.runningInvokable().(CheckpointableTask)
	if t.State() != api.ExecutionRunning || !ok {
		t.logger.Debug(fmt.Sprintf("Ignoring checkpoint aborted notification for non-running task %s.", t.taskNameWithSubtask))
		return
	}
	invokable.NotifyCheckpointAbortAsync(checkpointID, latestCompletedCheckpointID)
}

func (t *Task) declineCheckpoint(checkpointID int64, cause *checkpoint.CheckpointException) {
	if t.checkpointResponder == nil {
		return
	}
	t.checkpointResponder.DeclineCheckpoint(checkpoint.DeclineCheckpoint{
		JobID:           t.tdd.JobID,
		TaskExecutionID: t.ExecutionID(),
		CheckpointID:    checkpointID,
		Reason:          cause.Reason.Name,
		Message:         cause.Error(),
	})
}

// runningInvokable returns the invokable once the task has made it, else nil.
func (t *Task) runningInvokable() Invokable {
	t.invokableMu.Lock()
	defer t.invokableMu.Unlock()
	return t.invokable
}
