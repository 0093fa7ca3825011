package scheduler

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// Savepoints are checkpoints a user asks for and owns (Flink:
// SchedulerBase#triggerSavepoint and #stopWithSavepoint, the
// StopWithSavepointTerminationManager, and the savepoint restore of
// DefaultExecutionGraphFactory). They go the way of every checkpoint,
// steps k1 to k6, with three differences: they are forced (they do not
// wait for pending checkpoints), they go to a directory of their own
// (savepoint-<job id prefix>-<random>, in the request's directory or
// state.savepoints.dir), and nobody deletes them.
//
//	TriggerSavepoint                    StopWithSavepoint
//	  k1…k6 (SAVEPOINT)                   stop the periodic checkpoints
//	  the path                            k1…k6 (SAVEPOINT_SUSPEND)
//	  cancelJob: then cancel the job      savepoint failed: periodic checkpoints again, the job runs on
//	                                      savepoint completed: the tasks end, RUNNING → FINISHED, the path

// stopWithSavepointTermination is a stop-with-savepoint whose savepoint
// completed: its tasks are ending, and the job finishes when the last has
// stopped (Flink's StopWithSavepointTerminationHandlerImpl in its state
// SavepointCreated). done is told the savepoint's path then, or why the
// job did not finish.
type stopWithSavepointTermination struct {
	savepointPath string
	done          []func(path string, err error) // the stop's, and those of a second stop while it ends
}

// TriggerSavepoint takes a savepoint into targetDirectory, or
// state.savepoints.dir (Flink: SchedulerBase#triggerSavepoint). With
// cancelJob the periodic checkpoints stop first, and the job is cancelled
// once the savepoint completed ("cancel with savepoint", which Flink
// deprecates for stop). done is called once, on the main thread, with the
// savepoint's path or the failure, maybe before TriggerSavepoint returns.
func (s *DefaultScheduler) TriggerSavepoint(targetDirectory string, cancelJob bool, done func(path string, err error)) {
	coordinator, err := s.checkSavepointActionPreconditions(targetDirectory)
	if err != nil {
		done("", err)
		return
	}
	jobID := s.deps.Graph.JobID()
	prefix := ""
	if cancelJob {
		prefix = "cancel-with-"
		coordinator.StopCheckpointScheduler()
	}
	s.log.Info(fmt.Sprintf("Triggering %ssavepoint for job %s.", prefix, jobID))
	// Step k1 (savepoint): the coordinator triggers it at once; k2 to k6
	// follow as for any checkpoint.
	coordinator.TriggerCheckpoint(checkpoint.Savepoint, targetDirectory, s.onMainThread(func(savepoint *checkpoint.CompletedCheckpoint, err error) {
		if err != nil {
			if cancelJob {
				s.startCheckpointScheduler()
			}
			done("", err)
			return
		}
		if cancelJob {
			s.log.Info(fmt.Sprintf("Savepoint stored in %s. Now cancelling %s.", savepoint.ExternalPointer, jobID))
			s.Cancel()
		}
		done(savepoint.ExternalPointer, nil)
	}))
}

// StopWithSavepoint stops the job with a savepoint (Flink:
// SchedulerBase#stopWithSavepoint): the periodic checkpoints stop, so that
// no checkpoint after the savepoint commits anything, and a
// SAVEPOINT_SUSPEND savepoint is taken. If it fails, the periodic
// checkpoints start again and the job runs on; done gets the failure. If
// it completes, the job's tasks end and the job goes RUNNING → FINISHED;
// done gets the savepoint's path then. terminate (drain) is accepted and
// takes the same savepoint: see the package documentation.
func (s *DefaultScheduler) StopWithSavepoint(targetDirectory string, terminate bool, done func(path string, err error)) {
	coordinator, err := s.checkSavepointActionPreconditions(targetDirectory)
	if err != nil {
		done("", err)
		return
	}
	s.log.Info(fmt.Sprintf("Triggering stop-with-savepoint for job %s.", s.deps.Graph.JobID()))
	// No checkpoint may complete after the savepoint: if the job restarts
	// instead, the CheckpointCoordinatorDeActivator starts them again.
	coordinator.StopCheckpointScheduler()
	// Step k1 (savepoint): the synchronous savepoint, after which the
	// sources stop.
	coordinator.TriggerCheckpoint(checkpoint.SavepointSuspend, targetDirectory, s.onMainThread(func(savepoint *checkpoint.CompletedCheckpoint, err error) {
		if err != nil {
			// Flink: StopWithSavepointTerminationHandlerImpl#terminateExceptionally.
			s.startCheckpointScheduler()
			done("", err)
			return
		}
		s.terminateAfterSavepoint(savepoint.ExternalPointer, done)
	}))
}

// CheckSavepointActionPreconditions says why a savepoint into
// targetDirectory cannot even be triggered, nil if it can (Flink:
// StopWithSavepointTerminationManager#checkSavepointActionPreconditions):
// the job is not checkpointed (Flink, where every streaming job has a
// coordinator, says "Job … is not a streaming job." of a batch job), or
// neither the request nor state.savepoints.dir names a directory. The
// AdaptiveScheduler asks before it moves to StopWithSavepoint.
func (s *DefaultScheduler) CheckSavepointActionPreconditions(targetDirectory string) error {
	_, err := s.checkSavepointActionPreconditions(targetDirectory)
	return err
}

// checkSavepointActionPreconditions is CheckSavepointActionPreconditions,
// and returns the coordinator that takes the savepoint.
func (s *DefaultScheduler) checkSavepointActionPreconditions(targetDirectory string) (*checkpoint.CheckpointCoordinator, error) {
	coordinator := s.checkpointCoordinator
	if coordinator == nil {
		return nil, gateway.ErrCheckpointingDisabled
	}
	if targetDirectory == "" && s.deps.Checkpointing.Config.SavepointDir == "" {
		s.log.Info(fmt.Sprintf("Trying to cancel job %s with savepoint, but no savepoint directory configured.", s.deps.Graph.JobID()))
		return nil, checkpoint.ErrNoSavepointDirectory
	}
	return coordinator, nil
}

// onMainThread returns a completion for the coordinator that runs fn on
// the main thread, after the coordinator's current work: the coordinator
// calls it in the middle of its own, where fn must not call back into it
// (Flink completes the savepoint future and continues with handleAsync on
// the main thread executor).
func (s *DefaultScheduler) onMainThread(fn func(*checkpoint.CompletedCheckpoint, error)) func(*checkpoint.CompletedCheckpoint, error) {
	return func(savepoint *checkpoint.CompletedCheckpoint, err error) {
		s.deps.MainThread.RunAsync(func() { fn(savepoint, err) })
	}
}

// startCheckpointScheduler starts the periodic checkpoints again after a
// savepoint that stopped them failed, if the job still runs (Flink:
// SchedulerBase#startCheckpointScheduler; a job that left RUNNING meanwhile
// gets them back from the CheckpointCoordinatorDeActivator when it runs
// again).
func (s *DefaultScheduler) startCheckpointScheduler() {
	if s.checkpointCoordinator != nil && s.deps.Graph.State() == api.JobRunning {
		s.checkpointCoordinator.StartCheckpointScheduler()
	}
}

// terminateAfterSavepoint ends the job whose stop-with-savepoint savepoint
// completed. In Flink the sources stop after the synchronous savepoint,
// the end of their input flows through the job, and every task FINISHES.
// Here the tasks are cancelled, as they would be for a cancel, while the
// job stays RUNNING; when the last has stopped, the job FINISHES
// (maybeCompleteStopWithSavepoint).
func (s *DefaultScheduler) terminateAfterSavepoint(savepointPath string, done func(string, error)) {
	if t := s.stopWithSavepoint; t != nil {
		// A second stop-with-savepoint completed while the first ends the
		// job: it ends with it.
		t.done = append(t.done, func(_ string, err error) {
			if err != nil {
				done("", err)
				return
			}
			done(savepointPath, nil)
		})
		return
	}
	if s.deps.Graph.State() != api.JobRunning {
		// A failure took the job over between the savepoint and now.
		done("", stopWithSavepointStoppingError(savepointPath, s.deps.Graph.JobID()))
		return
	}
	s.stopWithSavepoint = &stopWithSavepointTermination{savepointPath: savepointPath, done: []func(string, error){done}}
	s.cancelAllExecutions()
	s.maybeCompleteStopWithSavepoint()
}

// maybeCompleteStopWithSavepoint finishes the job of a stop-with-savepoint
// once every task has stopped, and tells the stop (Flink:
// StopWithSavepointTerminationHandlerImpl#handleExecutionsTermination). A
// job that left RUNNING meanwhile (it was cancelled, or failed) did not
// finish: the stop fails with Flink's StopWithSavepointStoppingException,
// though its savepoint is there. Every execution that stops calls it.
func (s *DefaultScheduler) maybeCompleteStopWithSavepoint() {
	t := s.stopWithSavepoint
	if t == nil {
		return
	}
	state := s.deps.Graph.State()
	if state == api.JobRunning {
		for ev := range s.deps.Graph.AllExecutionVertices() {
			if !ev.ExecutionState().IsTerminal() {
				return
			}
		}
	}
	s.stopWithSavepoint = nil
	path, err := t.savepointPath, error(nil)
	if state != api.JobRunning || !s.transitionJob(api.JobRunning, api.JobFinished, nil) {
		path, err = "", stopWithSavepointStoppingError(t.savepointPath, s.deps.Graph.JobID())
	} else {
		s.terminated()
	}
	for _, done := range t.done {
		done(path, err)
	}
}

// stopWithSavepointStoppingError is Flink's
// StopWithSavepointStoppingException: the savepoint is there, but the job
// did not stop as it should have.
func stopWithSavepointStoppingError(savepointPath string, jobID api.JobID) error {
	return fmt.Errorf("StopWithSavepointStoppingException: A savepoint has been created at: %s, but the corresponding "+
		"job %s failed during stopping. The savepoint is consistent, but might have uncommitted transactions. "+
		"If you want to commit the transaction please restart a job from this savepoint.", savepointPath, jobID)
}

// restoreInitialState gives the subtasks the state they start the job
// with (Flink: DefaultExecutionGraphFactory#createAndRestoreExecutionGraph):
// the latest completed checkpoint if the job has one (it recovers after a
// JobManager failover, or the AdaptiveScheduler builds its next graph);
// else the savepoint its SavepointRestoreSettings name, if any
// (tryRestoreExecutionGraphFromSavepoint); else nothing. StartScheduling
// calls it.
func (s *DefaultScheduler) restoreInitialState() error {
	settings := s.savepointRestoreSettings()
	if !settings.RestoreSavepoint() || (s.checkpointCoordinator != nil && s.checkpointCoordinator.LatestCompletedCheckpoint() != nil) {
		return s.restoreState(s.allVertexIDs())
	}
	return s.tryRestoreExecutionGraphFromSavepoint(settings)
}

// tryRestoreExecutionGraphFromSavepoint restores the savepoint the job was
// submitted with: the coordinator reads its _metadata, checks that its
// state fits the job, adds it to the store as the latest checkpoint (so
// that a failover before the first checkpoint restores it again) and
// hands each subtask its share: "Starting job <id> from savepoint <path>
// (…)". A job that is not checkpointed cannot: it fails.
func (s *DefaultScheduler) tryRestoreExecutionGraphFromSavepoint(settings jobgraph.SavepointRestoreSettings) error {
	if s.checkpointCoordinator == nil {
		return fmt.Errorf("Could not restore job %s from savepoint %s: %w", s.deps.Graph.JobID(), settings.RestorePath,
			gateway.ErrCheckpointingDisabled)
	}
	ids := s.allVertexIDs()
	restores, err := s.checkpointCoordinator.RestoreSavepoint(settings.RestorePath, settings.AllowNonRestoredState,
		s.verticesToRestore(ids))
	if err != nil {
		return err
	}
	for _, id := range ids {
		s.taskRestores[id] = restores[id]
	}
	return nil
}

// savepointRestoreSettings are the job's; none without a JobGraph.
func (s *DefaultScheduler) savepointRestoreSettings() jobgraph.SavepointRestoreSettings {
	if s.deps.JobGraph == nil {
		return jobgraph.SavepointRestoreSettingsNone
	}
	return s.deps.JobGraph.SavepointRestoreSettings
}

// verticesToRestore describes the job vertices of ids to the coordinator,
// each once, at the parallelism they run with now.
func (s *DefaultScheduler) verticesToRestore(ids []api.ExecutionVertexID) []checkpoint.VertexToRestore {
	seen := make(map[api.JobVertexID]bool)
	var vertices []checkpoint.VertexToRestore
	for _, id := range ids {
		if seen[id.JobVertexID] {
			continue
		}
		seen[id.JobVertexID] = true
		ejv := s.deps.Graph.JobVertex(id.JobVertexID)
		vertices = append(vertices, checkpoint.VertexToRestore{
			JobVertexID:    ejv.ID(),
			Name:           ejv.Name(),
			Parallelism:    ejv.Parallelism(),
			MaxParallelism: ejv.MaxParallelism(),
			OperatorIDs:    ejv.JobVertex().OperatorIDs,
		})
	}
	return vertices
}
