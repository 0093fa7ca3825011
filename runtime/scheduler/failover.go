package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
)

// handleTaskFailure decides what a task's failure means for the job (Flink:
// DefaultScheduler#handleTaskFailure → maybeRestartTasks): restart the
// tasks the failover strategy names after the restart strategy's backoff,
// or, when the restart strategy refuses, fail the job with "Recovery is
// suppressed by …".
//
// A failure while the job is RESTARTING is handled like any other: with
// region failover, another region may fail while one restarts, and it
// restarts too.
func (s *DefaultScheduler) handleTaskFailure(e *executiongraph.Execution, cause error) {
	if s.checkpointCoordinator != nil {
		// The checkpoints waiting for this task will not complete.
		s.checkpointCoordinator.FailUnacknowledgedPendingCheckpointsFor(e.AttemptID(), cause)
	}
	if state := s.deps.Graph.State(); state != api.JobRunning && state != api.JobRestarting {
		// The job is failing or being cancelled already: this failure
		// happened while that was handled. It changes nothing but the
		// count of tasks still alive.
		s.exceptionHistory.AddConcurrent(e, cause, time.Now())
		if s.deps.OnTaskFailure != nil {
			s.deps.OnTaskFailure(e, cause) // the AdaptiveScheduler keeps its own history
		}
		s.executionTerminated()
		return
	}
	if s.deps.OnTaskFailure != nil {
		s.deps.OnTaskFailure(e, cause)
		return
	}
	vertexID := e.Vertex().ID()
	result := s.failureHandler.HandleFailure(&vertexID, cause, time.Now())
	if result.IsRootCause {
		s.exceptionHistory.Record(e, result.Error, result.Timestamp)
	} else {
		// Merged into the restart that was due (exponential-delay): one of
		// that failure's concurrent exceptions.
		s.exceptionHistory.AddConcurrent(e, cause, time.Now())
	}
	if !result.CanRestart {
		s.failJob(result.Error)
		return
	}
	s.restartTasksWithDelay(result, e)
}

// restartTasksWithDelay is Flink's DefaultScheduler#restartTasksWithDelay:
// the job goes RUNNING → RESTARTING, the tasks to restart are cancelled,
// and once all of them have stopped and the backoff has passed, they are
// deployed again as new attempts (restartTasks). failed is nil for a
// global failure (handleGlobalFailure).
func (s *DefaultScheduler) restartTasksWithDelay(result failover.FailureHandlingResult, failed *executiongraph.Execution) {
	if failed == nil {
		s.log.Info(fmt.Sprintf("%d tasks will be restarted to recover from a global failure.", len(result.VerticesToRestart)))
	} else {
		s.log.Info(fmt.Sprintf("%d tasks will be restarted to recover the failed task %s.",
			len(result.VerticesToRestart), failed.AttemptID()))
	}
	restart := &pendingRestart{vertices: result.VerticesToRestart, versions: make(map[api.ExecutionVertexID]int)}
	for _, id := range restart.vertices {
		s.versions[id]++ // Flink: ExecutionVertexVersioner#recordVertexModifications
		restart.versions[id] = s.versions[id]
		s.waitingForRestart[id] = true
	}
	s.restarts = append(s.restarts, restart)
	s.transitionJob(api.JobRunning, api.JobRestarting, nil) // once, for the first of concurrent restarts

	// Their slots go back to the pool as their executions stop; the new
	// attempts take them again, so a restart needs no new slots from the
	// ResourceManager unless a TaskExecutor was lost.
	s.cancelExecutions(func(yield func(*executiongraph.ExecutionVertex) bool) {
		for _, id := range restart.vertices {
			if !yield(s.deps.Graph.ExecutionVertex(id)) {
				return
			}
		}
	})

	s.deps.MainThread.ScheduleRunAsync(func() {
		restart.delayElapsed = true
		s.maybeRestartTasks()
	}, result.RestartDelay)
	s.maybeRestartTasks()
}

// executionTerminated is called when an execution reached a terminal state
// while the job was winding down, restarting or stopping with a savepoint:
// the job may be over, ready to restart, or FINISHED.
func (s *DefaultScheduler) executionTerminated() {
	s.checkJobTerminated()
	s.maybeRestartTasks()
	s.maybeCompleteStopWithSavepoint()
}

// maybeRestartTasks runs each pending restart whose backoff has passed and
// whose tasks have all stopped.
func (s *DefaultScheduler) maybeRestartTasks() {
	if state := s.deps.Graph.State(); state != api.JobRestarting && state != api.JobRunning {
		return // cancelled or failed meanwhile: nothing restarts
	}
	for i := 0; i < len(s.restarts); i++ {
		restart := s.restarts[i]
		if !restart.delayElapsed || !s.stopped(restart) {
			continue
		}
		s.restarts = slices.Delete(s.restarts, i, i+1)
		i--
		s.restartTasks(restart)
	}
}

// unmodified returns the subtasks of a restart that no later restart took
// over (Flink: ExecutionVertexVersioner#getUnmodifiedExecutionVertices).
func (s *DefaultScheduler) unmodified(restart *pendingRestart) []api.ExecutionVertexID {
	var ids []api.ExecutionVertexID
	for _, id := range restart.vertices {
		if s.versions[id] == restart.versions[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

// stopped reports whether every subtask the restart still owns has stopped.
func (s *DefaultScheduler) stopped(restart *pendingRestart) bool {
	for _, id := range s.unmodified(restart) {
		if !s.deps.Graph.ExecutionVertex(id).ExecutionState().IsTerminal() {
			return false
		}
	}
	return true
}

// restartTasks is Flink's DefaultScheduler#restartTasks: each subtask gets
// a new attempt (attempt number + 1), the job goes back to RUNNING once no
// restart is pending, and the scheduling strategy schedules the restarted
// regions again, as soon as their inputs allow.
func (s *DefaultScheduler) restartTasks(restart *pendingRestart) {
	ids := s.unmodified(restart)
	if len(ids) == 0 {
		return // a later restart took them all
	}
	for _, id := range ids {
		delete(s.waitingForRestart, id)
	}
	if len(s.waitingForRestart) == 0 {
		s.transitionJob(api.JobRestarting, api.JobRunning, nil)
	}
	for _, id := range ids {
		ev := s.deps.Graph.ExecutionVertex(id)
		// The old attempt's results are written anew by the new one.
		s.partitions.stopTrackingAndReleasePartitions(partitionIDsOf(ev))
		if _, err := ev.ResetForNewExecution(); err != nil {
			panic(fmt.Sprintf("scheduler: %v", err))
		}
		// The consumers' shuffle descriptors must name the new attempt.
		s.tdds.forgetPartitionsOf(ev)
	}
	// The new attempts start from the latest completed checkpoint.
	if err := s.restoreState(ids); err != nil {
		s.failJob(err)
		return
	}
	s.schedulingStrategy.restartTasks(ids)
}

// exceptionText is a failure as the exception history shows it: the error
// text, led by the name of the exception Flink would throw. A heartbeat
// timeout's text is the bare message (it is also a log line), so its
// class is added here: Flink's is java.util.concurrent.TimeoutException.
func exceptionText(cause error) string {
	var timeout *gateway.TimeoutException
	if errors.As(cause, &timeout) && !strings.HasPrefix(cause.Error(), "TimeoutException") {
		return "TimeoutException: " + cause.Error()
	}
	return cause.Error()
}
