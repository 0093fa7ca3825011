package scheduler

import (
	"errors"
	"fmt"
	"maps"
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
func (s *DefaultScheduler) handleTaskFailure(e *executiongraph.Execution, cause error) {
	if s.deps.Graph.State() != api.JobRunning {
		// The job is restarting, failing or being cancelled already: this
		// failure happened while that was handled. It changes nothing but
		// the count of tasks still alive.
		s.addConcurrentException(e, cause)
		s.executionTerminated()
		return
	}
	vertexID := e.Vertex().ID()
	result := s.failureHandler.HandleFailure(&vertexID, cause, time.Now())
	if result.IsRootCause {
		s.recordException(e, result.Error, result.Timestamp)
	} else {
		// Merged into the restart that was due (exponential-delay): one of
		// that failure's concurrent exceptions.
		s.addConcurrentException(e, cause)
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
// deployed again as new attempts (restartTasks).
func (s *DefaultScheduler) restartTasksWithDelay(result failover.FailureHandlingResult, failed *executiongraph.Execution) {
	s.log.Info(fmt.Sprintf("%d tasks will be restarted to recover the failed task %s.",
		len(result.VerticesToRestart), failed.AttemptID()))
	if !s.transitionJob(api.JobRunning, api.JobRestarting, nil) {
		return
	}
	restart := &pendingRestart{vertices: result.VerticesToRestart}
	s.restart = restart

	// Give the slots back to the pool: the new attempts take them again, so
	// a restart needs no new slots from the ResourceManager unless a
	// TaskExecutor was lost (Flink: cancelAllPendingSlotRequestsForVertices,
	// and the slots return to the pool when their payload is released).
	for key, id := range s.waiting {
		s.deps.SlotPool.CancelSlotRequest(id)
		delete(s.waiting, key)
	}
	for _, key := range slices.Collect(maps.Keys(s.arrived)) {
		s.deps.SlotPool.CancelSlotRequest(s.arrived[key].request)
		delete(s.arrived, key)
	}
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
// while the job was winding down or restarting: the job may be over, or
// ready to restart.
func (s *DefaultScheduler) executionTerminated() {
	s.checkJobTerminated()
	s.maybeRestartTasks()
}

// maybeRestartTasks restarts the pending restart's tasks once the backoff
// has passed and every one of them has stopped.
func (s *DefaultScheduler) maybeRestartTasks() {
	restart := s.restart
	if restart == nil || !restart.delayElapsed || s.deps.Graph.State() != api.JobRestarting {
		return
	}
	for _, id := range restart.vertices {
		if !s.deps.Graph.ExecutionVertex(id).ExecutionState().IsTerminal() {
			return
		}
	}
	s.restart = nil
	s.restartTasks(restart.vertices)
}

// restartTasks is Flink's DefaultScheduler#restartTasks: every task gets a
// new attempt (attempt number + 1), the job goes RESTARTING → RUNNING, and
// the new attempts are scheduled like the first ones.
func (s *DefaultScheduler) restartTasks(vertexIDs []api.ExecutionVertexID) {
	vertices := make([]*executiongraph.ExecutionVertex, 0, len(vertexIDs))
	for _, id := range vertexIDs {
		ev := s.deps.Graph.ExecutionVertex(id)
		if _, err := ev.ResetForNewExecution(); err != nil {
			panic(fmt.Sprintf("scheduler: %v", err))
		}
		vertices = append(vertices, ev)
	}
	// The consumers' shuffle descriptors must name the new producers.
	s.tdds.reset()
	if !s.transitionJob(api.JobRestarting, api.JobRunning, nil) {
		return
	}
	s.allocateSlotsAndDeploy(vertices)
}

// ExceptionHistorySize is how many failures the job's exception history
// keeps, the newest (Flink's web.exception-history-size, 16).
const ExceptionHistorySize = 16

// maxConcurrentExceptions bounds the concurrent exceptions kept under one
// failure.
const maxConcurrentExceptions = ExceptionHistorySize

// recordException adds a failure to the job's exception history, newest
// first, dropping the oldest beyond ExceptionHistorySize (Flink:
// archiveFromFailureHandlingResult, into a BoundedFIFOQueue).
func (s *DefaultScheduler) recordException(e *executiongraph.Execution, cause error, at time.Time) {
	entry := gateway.ExceptionHistoryEntry{Exception: exceptionText(cause), Timestamp: at, TaskName: e.VertexWithAttempt()}
	if slot, ok := e.AssignedSlot(); ok {
		entry.TaskManagerID = slot.TaskManagerLocation.ResourceID
	}
	s.exceptionHistory = slices.Insert(s.exceptionHistory, 0, entry)
	if len(s.exceptionHistory) > ExceptionHistorySize {
		s.exceptionHistory = s.exceptionHistory[:ExceptionHistorySize]
	}
}

// addConcurrentException records a failure that happened while the last
// one was handled, under that one.
func (s *DefaultScheduler) addConcurrentException(e *executiongraph.Execution, cause error) {
	if len(s.exceptionHistory) == 0 {
		return
	}
	entry := gateway.ExceptionHistoryEntry{Exception: exceptionText(cause), Timestamp: time.Now(), TaskName: e.VertexWithAttempt()}
	if slot, ok := e.AssignedSlot(); ok {
		entry.TaskManagerID = slot.TaskManagerLocation.ResourceID
	}
	root := &s.exceptionHistory[0]
	if len(root.ConcurrentExceptions) < maxConcurrentExceptions {
		root.ConcurrentExceptions = append(root.ConcurrentExceptions, entry)
	}
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
