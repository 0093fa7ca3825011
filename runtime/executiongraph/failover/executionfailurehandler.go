package failover

import (
	"slices"
	"time"

	"flinklab/runtime/api"
)

// FailureHandlingResult is what the ExecutionFailureHandler decided about
// one failure (Flink: FailureHandlingResult).
type FailureHandlingResult struct {
	// CanRestart: restart VerticesToRestart after RestartDelay; otherwise
	// fail the job with Error.
	CanRestart        bool
	VerticesToRestart []api.ExecutionVertexID // nil when !CanRestart
	RestartDelay      time.Duration           // 0 when !CanRestart

	// Error is the failure's cause when the job restarts. When it does not,
	// it is a *JobException wrapping the cause: "Recovery is suppressed by
	// <strategy>" or "The failure is not recoverable".
	Error error

	FailingVertex *api.ExecutionVertexID // nil for a global failure (Flink: failedExecution)
	Timestamp     time.Time              // when the failure happened
	GlobalFailure bool                   // the job as a whole failed, not one task

	// IsRootCause is false when the failure joined a restart that was
	// already pending (exponential-delay): it is then one of the root
	// cause's concurrent exceptions, not a new failure.
	IsRootCause bool

	// NumberOfRestarts counts the restarts of the job so far, this one
	// included (Flink's numberOfRestarts metric).
	NumberOfRestarts int64
}

// ExecutionFailureHandler turns a failure into a FailureHandlingResult
// (Flink: ExecutionFailureHandler). It asks the FailoverStrategy which tasks
// to restart and the RestartBackoffTimeStrategy whether, and when. It is
// not safe for concurrent use: the scheduler calls it from the JobMaster's
// main thread.
type ExecutionFailureHandler struct {
	vertices                   []api.ExecutionVertexID
	failoverStrategy           FailoverStrategy
	restartBackoffTimeStrategy RestartBackoffTimeStrategy
	numberOfRestarts           int64
}

// NewExecutionFailureHandler returns a handler for a job made of the given
// subtasks (a global failure restarts all of them).
func NewExecutionFailureHandler(
	vertices []api.ExecutionVertexID,
	failoverStrategy FailoverStrategy,
	restartBackoffTimeStrategy RestartBackoffTimeStrategy,
) *ExecutionFailureHandler {
	return &ExecutionFailureHandler{
		vertices:                   slices.Clone(vertices),
		failoverStrategy:           failoverStrategy,
		restartBackoffTimeStrategy: restartBackoffTimeStrategy,
	}
}

// HandleFailure decides about a failure of failingVertex, or of the whole
// job when failingVertex is nil (Flink: getFailureHandlingResult and
// getGlobalFailureHandlingResult), that happened at now:
//
//  1. A cause holding a *SuppressRestartsError fails the job: "The failure
//     is not recoverable". The restart strategy is not even told.
//  2. Otherwise the restart strategy is notified. If it allows a restart,
//     the result carries the tasks to restart (all of them for a global
//     failure) and its backoff time; a failure it counts as new adds one
//     to NumberOfRestarts.
//  3. If it does not, the job fails: "Recovery is suppressed by <strategy>".
func (h *ExecutionFailureHandler) HandleFailure(failingVertex *api.ExecutionVertexID, cause error, now time.Time) FailureHandlingResult {
	result := FailureHandlingResult{
		Timestamp:     now,
		GlobalFailure: failingVertex == nil,
		IsRootCause:   true,
	}
	if failingVertex != nil {
		v := *failingVertex
		result.FailingVertex = &v
	}
	if IsUnrecoverableError(cause) {
		result.Error = &JobException{Message: "The failure is not recoverable", Cause: cause}
		result.NumberOfRestarts = h.numberOfRestarts
		return result
	}

	isNewAttempt := h.restartBackoffTimeStrategy.NotifyFailure(cause, now)
	result.IsRootCause = isNewAttempt
	if !h.restartBackoffTimeStrategy.CanRestart() {
		result.Error = &JobException{
			Message: "Recovery is suppressed by " + h.restartBackoffTimeStrategy.String(),
			Cause:   cause,
		}
		result.NumberOfRestarts = h.numberOfRestarts
		return result
	}
	if isNewAttempt {
		h.numberOfRestarts++
	}
	result.CanRestart = true
	result.Error = cause
	result.RestartDelay = h.restartBackoffTimeStrategy.BackoffTime()
	if failingVertex == nil {
		result.VerticesToRestart = slices.Clone(h.vertices)
	} else {
		result.VerticesToRestart = h.failoverStrategy.TasksNeedingRestart(*failingVertex, cause)
	}
	result.NumberOfRestarts = h.numberOfRestarts
	return result
}

// NumberOfRestarts counts the restarts of the job so far (Flink:
// getNumberOfRestarts, the numberOfRestarts metric).
func (h *ExecutionFailureHandler) NumberOfRestarts() int64 { return h.numberOfRestarts }
