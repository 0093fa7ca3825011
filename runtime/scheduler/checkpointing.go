package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
	"flinklab/runtime/state"
)

// Checkpointing is what a scheduler needs to checkpoint its job: the
// options, and the store and ID counter of the job's completed
// checkpoints, which outlive one ExecutionGraph (the AdaptiveScheduler's
// next graph restores from the same store; Flink creates both once per
// job, in the SchedulerNG factory).
type Checkpointing struct {
	Config    checkpoint.CheckpointCoordinatorConfiguration
	Store     checkpoint.CompletedCheckpointStore
	IDCounter checkpoint.CheckpointIDCounter
	// Faults may break the coordinator's steps k1 and k6; nil injects
	// nothing.
	Faults *fault.Injector
}

// createCheckpointCoordinator makes the job's CheckpointCoordinator when
// checkpointing is enabled (Flink: DefaultExecutionGraph#enableCheckpointing).
func (s *DefaultScheduler) createCheckpointCoordinator(logger *slog.Logger) error {
	cp := s.deps.Checkpointing
	if cp == nil || !cp.Config.IsCheckpointingEnabled() {
		return nil
	}
	storage, err := state.NewCheckpointStorageAccess(cp.Config.CheckpointsDir, s.deps.Graph.JobID())
	if err != nil {
		return err
	}
	s.checkpointCoordinator = checkpoint.NewCheckpointCoordinator(checkpoint.CoordinatorDeps{
		JobID:     s.deps.Graph.JobID(),
		Config:    cp.Config,
		Storage:   storage,
		IDCounter: cp.IDCounter,
		Store:     cp.Store,
		Schedule: func(fn func(), delay time.Duration) func() {
			return s.deps.MainThread.ScheduleRunAsync(fn, delay)
		},
		Logger:                  logger,
		Trace:                   s.deps.Trace,
		Faults:                  cp.Faults,
		CalculateCheckpointPlan: s.calculateCheckpointPlan,
		FailJob:                 s.failJobFromCheckpointing,
	})
	return nil
}

// failJobFromCheckpointing is the CheckpointFailureManager's way to fail
// the job: more checkpoints failed in a row than
// execution.checkpointing.tolerable-failed-checkpoints allows, or a task
// failed the savepoint of stop-with-savepoint. As in Flink (the
// FailJobCallback of DefaultExecutionGraph#enableCheckpointing, which calls
// failGlobal from the main thread's queue), it is a global failure: the
// job restarts every task by its restart strategy, from the latest
// completed checkpoint, or fails when the strategy allows no restart. It
// is called in the middle of the coordinator's work, so the failure is
// handled a moment later, on the main thread.
func (s *DefaultScheduler) failJobFromCheckpointing(cause error) {
	s.deps.MainThread.RunAsync(func() { s.handleGlobalFailure(cause) })
}

// handleGlobalFailure is Flink's DefaultScheduler#handleGlobalFailure: the
// job as a whole failed, not one of its tasks. The restart strategy is
// asked as for a task's failure; every task restarts after its backoff
// ("N tasks will be restarted to recover from a global failure."), from
// the latest completed checkpoint, or the job fails when it allows no
// restart. A job that is no longer RUNNING or RESTARTING (failing,
// cancelled, finished meanwhile) ignores it. A graph of the
// AdaptiveScheduler fails instead, and the AdaptiveScheduler ends the job
// with it.
func (s *DefaultScheduler) handleGlobalFailure(cause error) {
	if state := s.deps.Graph.State(); state != api.JobRunning && state != api.JobRestarting {
		return
	}
	s.log.Info("Trying to recover from a global failure.", "cause", cause.Error())
	if s.deps.OnTaskFailure != nil {
		s.failJob(cause)
		return
	}
	result := s.failureHandler.HandleFailure(nil, cause, time.Now())
	if result.IsRootCause {
		s.exceptionHistory.Record(nil, result.Error, result.Timestamp)
	} else {
		s.exceptionHistory.AddConcurrent(nil, cause, result.Timestamp)
	}
	if !result.CanRestart {
		s.failJob(result.Error)
		return
	}
	s.restartTasksWithDelay(result, nil)
}

// CheckpointCoordinator returns the job's coordinator, nil when the job
// is not checkpointed.
func (s *DefaultScheduler) CheckpointCoordinator() *checkpoint.CheckpointCoordinator {
	return s.checkpointCoordinator
}

// checkpointCoordinatorDeActivator starts the periodic checkpoints when the
// job reaches RUNNING and stops them when it leaves it (Flink's
// CheckpointCoordinatorDeActivator, a job status listener).
func (s *DefaultScheduler) checkpointCoordinatorDeActivator(from, to api.JobStatus) {
	switch {
	case s.checkpointCoordinator == nil:
	case to == api.JobRunning:
		s.checkpointCoordinator.StartCheckpointScheduler()
	case from == api.JobRunning:
		s.checkpointCoordinator.StopCheckpointScheduler()
	}
}

// calculateCheckpointPlan lists the tasks of the next checkpoint: the
// sources are triggered, every task must acknowledge, every task hears
// of the completion. A task that is not RUNNING fails the trigger (Flink's
// DefaultCheckpointPlanCalculator, before tasks could finish).
func (s *DefaultScheduler) calculateCheckpointPlan() (checkpoint.CheckpointPlan, error) {
	var plan checkpoint.CheckpointPlan
	for ev := range s.deps.Graph.AllExecutionVertices() {
		e := ev.CurrentExecution()
		if e.State() != api.ExecutionRunning {
			return plan, checkpoint.NewCheckpointException(checkpoint.NotAllRequiredTasksRunning, fmt.Errorf(
				"Checkpoint triggering task %s of job %s is not being executed at the moment. Aborting checkpoint.",
				ev.TaskNameWithSubtaskIndex(), s.deps.Graph.JobID()))
		}
		task := s.taskToCheckpoint(e)
		if ev.JobVertex().JobVertex().IsInputVertex() {
			plan.TasksToTrigger = append(plan.TasksToTrigger, task)
		}
		plan.TasksToWaitFor = append(plan.TasksToWaitFor, task)
		plan.TasksToCommitTo = append(plan.TasksToCommitTo, task)
	}
	return plan, nil
}

// taskToCheckpoint describes one running execution to the coordinator,
// with the RPCs that reach its TaskExecutor (Flink: Execution's
// triggerCheckpoint, notifyCheckpointOnComplete, notifyCheckpointAborted).
func (s *DefaultScheduler) taskToCheckpoint(e *executiongraph.Execution) checkpoint.TaskToCheckpoint {
	slot, _ := e.AssignedSlot()
	ejv := e.Vertex().JobVertex()
	call := func(name string, fn func(ctx context.Context, tm gateway.TaskExecutorGateway) error) {
		tm, ok := s.deps.TaskExecutor(slot.TaskManagerLocation.ResourceID)
		if !ok {
			return
		}
		rpc.Ask(s.deps.MainThread, s.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, fn(ctx, tm)
		}, func(_ struct{}, err error) {
			if err != nil {
				s.log.Debug(fmt.Sprintf("%s of %s failed.", name, e.VertexWithAttempt()), "cause", err.Error())
			}
		})
	}
	id := e.AttemptID()
	return checkpoint.TaskToCheckpoint{
		AttemptID:           id,
		JobVertexID:         ejv.ID(),
		TaskNameWithSubtask: e.VertexWithAttempt(),
		Location:            slot.TaskManagerLocation.String(),
		Parallelism:         ejv.Parallelism(),
		MaxParallelism:      ejv.MaxParallelism(),
		OperatorIDs:         ejv.JobVertex().OperatorIDs,
		TriggerCheckpoint: func(checkpointID, timestamp int64, options checkpoint.CheckpointOptions) {
			call("triggerCheckpoint", func(ctx context.Context, tm gateway.TaskExecutorGateway) error {
				return tm.TriggerCheckpoint(ctx, id, checkpointID, timestamp, options)
			})
		},
		NotifyCheckpointComplete: func(checkpointID, timestamp int64) {
			call("notifyCheckpointComplete", func(ctx context.Context, tm gateway.TaskExecutorGateway) error {
				return tm.ConfirmCheckpoint(ctx, id, checkpointID, timestamp)
			})
		},
		NotifyCheckpointAborted: func(checkpointID, latestCompletedCheckpointID, timestamp int64) {
			call("notifyCheckpointAborted", func(ctx context.Context, tm gateway.TaskExecutorGateway) error {
				return tm.AbortCheckpoint(ctx, id, checkpointID, latestCompletedCheckpointID, timestamp)
			})
		},
	}
}

// restoreState gives the subtasks of the job vertices of ids the state of
// the latest completed checkpoint before they are deployed again (Flink:
// SchedulerBase#restoreState → restoreLatestCheckpointedStateToSubtasks).
// Without a checkpoint they start empty.
func (s *DefaultScheduler) restoreState(ids []api.ExecutionVertexID) error {
	if s.checkpointCoordinator == nil {
		return nil
	}
	restores, ok, err := s.checkpointCoordinator.RestoreLatestCheckpointedStateToSubtasks(s.verticesToRestore(ids))
	if err != nil || !ok {
		return err
	}
	for _, id := range ids {
		s.taskRestores[id] = restores[id]
	}
	return nil
}

// allVertexIDs lists every subtask of the job.
func (s *DefaultScheduler) allVertexIDs() []api.ExecutionVertexID {
	var ids []api.ExecutionVertexID
	for ev := range s.deps.Graph.AllExecutionVertices() {
		ids = append(ids, ev.ID())
	}
	return ids
}

// AcknowledgeCheckpoint hands a task's acknowledgement to the coordinator
// (Flink: SchedulerBase#acknowledgeCheckpoint).
//
// A checkpoint that this acknowledgement completes may fail to complete
// (its _metadata cannot be written): the coordinator has aborted it, and
// the failure is logged here, as Flink's ExecutionGraphHandler logs it.
// The task that acknowledged did nothing wrong, so its RPC succeeds.
func (s *DefaultScheduler) AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint) error {
	if s.checkpointCoordinator == nil {
		return fmt.Errorf("received AcknowledgeCheckpoint message for job %s with no CheckpointCoordinator", ack.JobID)
	}
	if err := s.checkpointCoordinator.ReceiveAcknowledgeMessage(ack, s.locationOf(ack.TaskExecutionID)); err != nil {
		s.log.Warn("Error while processing AcknowledgeCheckpoint message", "cause", err.Error())
	}
	return nil
}

// DeclineCheckpoint hands a task's decline to the coordinator.
func (s *DefaultScheduler) DeclineCheckpoint(decline checkpoint.DeclineCheckpoint) error {
	if s.checkpointCoordinator == nil {
		return fmt.Errorf("received DeclineCheckpoint message for job %s with no CheckpointCoordinator", decline.JobID)
	}
	s.checkpointCoordinator.ReceiveDeclineMessage(decline, s.locationOf(decline.TaskExecutionID))
	return nil
}

// locationOf names the TaskManager an attempt runs on, for log lines.
func (s *DefaultScheduler) locationOf(id api.ExecutionAttemptID) string {
	if e, ok := s.deps.Graph.Execution(id); ok {
		if slot, ok := e.AssignedSlot(); ok {
			return slot.TaskManagerLocation.String()
		}
	}
	return "unknown location"
}
