package taskexecutor

import (
	"context"
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// TriggerCheckpoint hands a checkpoint request of the JobMaster's
// CheckpointCoordinator to a source task (Flink's
// TaskExecutor#triggerCheckpoint). The task answers later, with an
// acknowledgement or a decline; an unknown task is an error now.
func (te *TaskExecutor) TriggerCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64,
	options checkpoint.CheckpointOptions) error {
	return te.callAsync(ctx, func() error {
		te.logger.Debug(fmt.Sprintf("Trigger checkpoint %d@%d for %s.", checkpointID, timestamp, attemptID))
		task, ok := te.taskSlotTable.Task(attemptID)
		if !ok {
			message := fmt.Sprintf("TaskManager received a checkpoint request for unknown task %s.", attemptID)
			te.logger.Debug(message)
			return checkpoint.NewCheckpointException(checkpoint.TaskCheckpointFailure, fmt.Errorf("%s", message))
		}
		// Step k2: the source task's TaskExecutor has the request.
		te.deps.Trace.Emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", task.JobID(), "Trigger checkpoint %d@%d for %s.",
			checkpointID, timestamp, task.TaskNameWithSubtaskAndAttempt())
		task.TriggerCheckpointBarrier(checkpointID, timestamp, options)
		return nil
	})
}

// ConfirmCheckpoint tells a task that a checkpoint completed (Flink's
// TaskExecutor#confirmCheckpoint).
func (te *TaskExecutor) ConfirmCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64) error {
	return te.callAsync(ctx, func() error {
		te.logger.Debug(fmt.Sprintf("Confirm completed checkpoint %d@%d for %s.", checkpointID, timestamp, attemptID))
		task, ok := te.taskSlotTable.Task(attemptID)
		if !ok {
			message := fmt.Sprintf("TaskManager received a checkpoint confirmation for unknown task %s.", attemptID)
			te.logger.Debug(message)
			return checkpoint.NewCheckpointException(checkpoint.CheckpointFailureReason{
				Name: "UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE", Message: "Unknown task for the checkpoint to notify."},
				fmt.Errorf("%s", message))
		}
		task.NotifyCheckpointComplete(checkpointID)
		return nil
	})
}

// AbortCheckpoint tells a task that a checkpoint will not complete
// (Flink's TaskExecutor#abortCheckpoint).
func (te *TaskExecutor) AbortCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, latestCompletedCheckpointID, timestamp int64) error {
	return te.callAsync(ctx, func() error {
		te.logger.Debug(fmt.Sprintf("Abort checkpoint %d@%d for %s.", checkpointID, timestamp, attemptID))
		if task, ok := te.taskSlotTable.Task(attemptID); ok {
			task.NotifyCheckpointAborted(checkpointID, latestCompletedCheckpointID)
		}
		return nil
	})
}

// checkpointResponder sends a task's answers to checkpoints to the
// JobMaster that deployed it (Flink's RpcCheckpointResponder). A task
// calls it from its own goroutines; each answer is one RPC of its own,
// whose failure is logged: the checkpoint then expires at the coordinator.
type checkpointResponder struct {
	taskExecutor *TaskExecutor
	connection   *jobManagerConnection
}

func (r *checkpointResponder) AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint) {
	if r.diesBeforeAcknowledging(ack) {
		return
	}
	r.send(ack.CheckpointID, func(ctx context.Context) error { return r.connection.gateway.AcknowledgeCheckpoint(ctx, ack) })
}

// diesBeforeAcknowledging is step k5's fault
// taskexecutor-dies-during-checkpoint: the TaskManager process dies, as
// with kill -9 or the kernel's OOM killer, while a task's acknowledgement
// is on its way out. The acknowledgement never arrives; the JobMaster
// notices the loss by the heartbeat timeout and fails the TaskManager's
// tasks; the pending checkpoint is aborted with them (TASK_FAILURE, or
// CHECKPOINT_COORDINATOR_SUSPEND when the job's restart comes first),
// neither of which counts against the tolerable failures, and the job
// fails over to the latest completed checkpoint. It is the same death as
// MiniCluster.KillTaskManager's, at the moment a checkpoint is in flight.
func (r *checkpointResponder) diesBeforeAcknowledging(ack checkpoint.AcknowledgeCheckpoint) bool {
	te := r.taskExecutor
	if te.killed.Load() || !te.deps.Faults.FireKind(trace.K5, ack.JobID, fault.TaskExecutorDiesDuringCheckpoint) {
		return false
	}
	// Step k5 (fault): the TaskManager dies before the acknowledgement
	// leaves it. A killed process writes nothing: only the fault
	// injector said so.
	te.killed.Store(true)
	te.deps.Trace.EmitFailure(trace.K5, "TaskExecutor", "CheckpointCoordinator", ack.JobID,
		"acknowledgement of checkpoint %d by %s: TaskManager %s died before it was sent: %v",
		ack.CheckpointID, ack.TaskExecutionID, te.cfg.ResourceID, fault.Injected(trace.K5, fault.TaskExecutorDiesDuringCheckpoint))
	go te.Kill()
	return true
}

func (r *checkpointResponder) DeclineCheckpoint(decline checkpoint.DeclineCheckpoint) {
	r.send(decline.CheckpointID, func(ctx context.Context) error { return r.connection.gateway.DeclineCheckpoint(ctx, decline) })
}

func (r *checkpointResponder) send(checkpointID int64, call func(ctx context.Context) error) {
	te := r.taskExecutor
	timeout := te.cfg.RPCTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	rpc.Ask(te.Endpoint, timeout,
		func(ctx context.Context) (struct{}, error) { return struct{}{}, call(ctx) },
		func(_ struct{}, err error) {
			if err != nil {
				te.logger.Warn(fmt.Sprintf("Could not send the answer to checkpoint %d to the JobManager.", checkpointID), "cause", err.Error())
			}
		})
}
