package scheduler

import (
	"slices"
	"time"

	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
)

// ExceptionHistorySize is how many failures the job's exception history
// keeps, the newest (Flink's web.exception-history-size, 16).
const ExceptionHistorySize = 16

// maxConcurrentExceptions bounds the concurrent exceptions kept under one
// failure.
const maxConcurrentExceptions = ExceptionHistorySize

// ExceptionHistory holds the failures a job went through, newest first
// (Flink: SchedulerBase's exceptionHistory, a BoundedFIFOQueue of
// RootExceptionHistoryEntry). The DefaultScheduler and the
// AdaptiveScheduler each keep one; GET /jobs/{jobid}/exceptions shows it.
type ExceptionHistory []gateway.ExceptionHistoryEntry

// Record adds a failure of e (nil for a global failure), dropping the
// oldest beyond ExceptionHistorySize (Flink:
// archiveFromFailureHandlingResult).
func (h *ExceptionHistory) Record(e *executiongraph.Execution, cause error, at time.Time) {
	*h = slices.Insert(*h, 0, exceptionHistoryEntry(e, cause, at))
	if len(*h) > ExceptionHistorySize {
		*h = (*h)[:ExceptionHistorySize]
	}
}

// AddConcurrent records a failure of e that happened while the newest one
// was handled, under that one.
func (h *ExceptionHistory) AddConcurrent(e *executiongraph.Execution, cause error, at time.Time) {
	if len(*h) == 0 {
		return
	}
	root := &(*h)[0]
	if len(root.ConcurrentExceptions) < maxConcurrentExceptions {
		root.ConcurrentExceptions = append(root.ConcurrentExceptions, exceptionHistoryEntry(e, cause, at))
	}
}

// exceptionHistoryEntry is the entry of a failure of e, or of the whole
// job for a nil e (a global failure, which names no task).
func exceptionHistoryEntry(e *executiongraph.Execution, cause error, at time.Time) gateway.ExceptionHistoryEntry {
	entry := gateway.ExceptionHistoryEntry{Exception: exceptionText(cause), Timestamp: at}
	if e == nil {
		return entry
	}
	entry.TaskName = e.VertexWithAttempt()
	if slot, ok := e.AssignedSlot(); ok {
		entry.TaskManagerID = slot.TaskManagerLocation.ResourceID
	}
	return entry
}
