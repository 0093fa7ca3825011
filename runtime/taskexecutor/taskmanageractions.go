package taskexecutor

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// taskManagerActions is what a Task calls to report its states (Flink's
// TaskExecutor.TaskManagerActionsImpl). It runs on the task's goroutine, so
// it only puts the report into the TaskExecutor's mailbox. The JobMaster
// connection is the one the task was deployed by.
type taskManagerActions struct {
	taskExecutor *TaskExecutor
	connection   *jobManagerConnection
}

func (a *taskManagerActions) UpdateTaskExecutionState(state gateway.TaskExecutionState) {
	te := a.taskExecutor
	te.RunAsync(func() { te.updateTaskExecutionState(a.connection, state) })
}

// updateTaskExecutionState forwards a task's state to its JobMaster. A
// final state first unregisters the task.
//
// Only the states Flink's Task reports are forwarded: INITIALIZING,
// RUNNING and the final one. DEPLOYING and CANCELING are the JobMaster's
// own doing (it deployed or cancelled the task), and Flink's JobMaster
// treats any other update as illegal and fails the task.
func (te *TaskExecutor) updateTaskExecutionState(conn *jobManagerConnection, state gateway.TaskExecutionState) {
	switch {
	case state.State.IsTerminal():
		te.unregisterTaskAndNotifyFinalState(conn, state)
	case state.State == api.ExecutionInitializing, state.State == api.ExecutionRunning:
		// Step m11 (RUNNING): the Task's report goes on to the JobMaster.
		te.sendTaskExecutionState(conn, state)
	}
}

// unregisterTaskAndNotifyFinalState takes a task that has ended out of its
// slot and tells the JobMaster its final state. The blocking partitions of
// a task that did not finish are no longer tracked: the task released them.
// A slot that was waiting for its last task to stop is freed now.
func (te *TaskExecutor) unregisterTaskAndNotifyFinalState(conn *jobManagerConnection, state gateway.TaskExecutionState) {
	task, ok := te.taskSlotTable.RemoveTask(state.AttemptID)
	if !ok {
		te.logger.Error(fmt.Sprintf("Cannot find task with ID %s to unregister.", state.AttemptID))
		return
	}
	if state.State != api.ExecutionFinished {
		te.partitionTracker.stopTrackingPartitions(task.JobID(), blockingPartitionsOf(task))
	}
	te.logger.Info(fmt.Sprintf("Un-registering task and sending final execution state %s to JobManager for task %s %s.",
		state.State, task.TaskNameWithSubtaskAndAttempt(), state.AttemptID))
	te.sendTaskExecutionState(conn, state)

	allocationID := task.AllocationID()
	if slot, ok := te.taskSlotTable.Slot(allocationID); ok && slot.State == SlotReleasing && slot.NumberOfTasks == 0 {
		te.freeSlotInternal(allocationID, fmt.Errorf("TaskSlotTable requested freeing the TaskSlot %s.", allocationID))
	}
}

// sendTaskExecutionState sends a state to the JobMaster. If that fails,
// the task fails: a task the JobMaster does not know about must not run on.
//
// The reports of one connection travel on one rpc.AskInOrder lane, so they
// leave one at a time and the JobMaster sees them in the order they
// happened (INITIALIZING before RUNNING before FINISHED). Flink gets this
// order from Pekko, which delivers the messages between two actors in
// order; a plain rpc.Ask runs on a goroutine of its own and would not.
func (te *TaskExecutor) sendTaskExecutionState(conn *jobManagerConnection, state gateway.TaskExecutionState) {
	rpc.AskInOrder(te.Endpoint, conn, te.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, conn.gateway.UpdateTaskExecutionState(ctx, conn.jobMasterID, state)
	}, func(_ struct{}, err error) {
		if err == nil {
			return
		}
		if task, ok := te.taskSlotTable.Task(state.AttemptID); ok {
			te.logger.Warn(fmt.Sprintf("Could not report the state %s of task %s to the JobManager.",
				state.State, task.TaskNameWithSubtaskAndAttempt()), "cause", err.Error())
			task.FailExternally(err)
		}
	})
}
