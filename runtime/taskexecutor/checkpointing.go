package taskexecutor

import (
	"context"
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
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
	r.send(ack.CheckpointID, func(ctx context.Context) error { return r.connection.gateway.AcknowledgeCheckpoint(ctx, ack) })
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
