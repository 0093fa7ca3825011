package checkpoint

import (
	"errors"
	"fmt"
	"log/slog"
	"math"

	"flinklab/runtime/api"
)

// UnlimitedTolerableFailureNumber tolerates any number of failed
// checkpoints (Flink: CheckpointFailureManager.UNLIMITED_TOLERABLE_FAILURE_NUMBER).
const UnlimitedTolerableFailureNumber = math.MaxInt32

// ErrExceededCheckpointTolerableFailure is wrapped by the error a job fails
// with when more checkpoints failed in a row than
// execution.checkpointing.tolerable-failed-checkpoints allows.
var ErrExceededCheckpointTolerableFailure = errors.New("Exceeded checkpoint tolerable failure threshold.")

// unknownCheckpointID stands for a checkpoint that failed before it had
// an ID.
const unknownCheckpointID = -1

// CheckpointFailureManager counts the checkpoints that failed in a row and
// fails the job when there are more than it tolerates (Flink's
// CheckpointFailureManager). A completed checkpoint resets the count.
//
// Not every failure counts. Those that say nothing about the job's health
// do not: the coordinator was busy or stopping (pre-flight reasons but
// IO_EXCEPTION), a newer checkpoint subsumed this one, a task was not
// ready or failed (its own failover handles it). Those that do count
// once per checkpoint: an expired checkpoint, a task's declined or failed
// snapshot, an I/O error. Savepoints count only when a task fails them;
// the savepoint of stop-with-savepoint fails the job at once.
type CheckpointFailureManager struct {
	tolerableCpFailureNumber  int
	failJob                   func(cause error)
	continuousFailureCounter  int
	countedCheckpointIDs      map[int64]bool
	lastSucceededCheckpointID int64
	log                       *slog.Logger
}

// NewCheckpointFailureManager returns a manager that tolerates
// tolerableCpFailureNumber failures in a row and calls failJob at the next.
// log may be nil.
func NewCheckpointFailureManager(tolerableCpFailureNumber int, failJob func(cause error), log *slog.Logger) *CheckpointFailureManager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &CheckpointFailureManager{
		tolerableCpFailureNumber:  tolerableCpFailureNumber,
		failJob:                   failJob,
		countedCheckpointIDs:      make(map[int64]bool),
		lastSucceededCheckpointID: math.MinInt64,
		log:                       log,
	}
}

// HandleCheckpointException handles one failed checkpoint or savepoint:
// pending is nil when it failed before it had an ID; executionAttemptID is
// the task that declined it, nil when the JobManager failed it.
func (m *CheckpointFailureManager) HandleCheckpointException(pending *PendingCheckpoint, props CheckpointProperties,
	exception *CheckpointException, executionAttemptID *api.ExecutionAttemptID, job api.JobID) {
	checkpointID := int64(unknownCheckpointID)
	shown := "UNKNOWN_CHECKPOINT_ID"
	if pending != nil {
		checkpointID = pending.CheckpointID()
		shown = fmt.Sprint(checkpointID)
	}
	m.log.Warn(fmt.Sprintf("Failed to trigger or complete checkpoint %s for job %s. (%d consecutive failed attempts so far)",
		shown, job, m.continuousFailureCounter), "cause", javaString(exception))

	if exception.Reason.PreFlight || executionAttemptID == nil {
		m.handleJobLevelCheckpointException(props, exception, checkpointID)
	} else {
		m.handleTaskLevelCheckpointException(props, exception, checkpointID)
	}
}

// handleJobLevelCheckpointException counts a failure of the JobManager's;
// savepoints are the user's business and do not count.
func (m *CheckpointFailureManager) handleJobLevelCheckpointException(props CheckpointProperties, exception *CheckpointException, checkpointID int64) {
	if !props.IsSavepoint() {
		m.checkFailureAgainstCounter(exception, checkpointID)
	}
}

// handleTaskLevelCheckpointException counts a task's failure. A task that
// fails the savepoint of stop-with-savepoint fails the job: the job would
// otherwise wait for a savepoint that never comes.
func (m *CheckpointFailureManager) handleTaskLevelCheckpointException(props CheckpointProperties, exception *CheckpointException, checkpointID int64) {
	if props.IsSynchronous() {
		m.failJob(exception)
		return
	}
	m.checkFailureAgainstCounter(exception, checkpointID)
}

func (m *CheckpointFailureManager) checkFailureAgainstCounter(exception *CheckpointException, checkpointID int64) {
	if checkpointID != unknownCheckpointID && checkpointID <= m.lastSucceededCheckpointID {
		return // older than a checkpoint that completed: it no longer matters
	}
	m.checkFailureCounter(exception, checkpointID)
	if m.continuousFailureCounter > m.tolerableCpFailureNumber {
		m.clearCount()
		m.failJob(&TolerableFailureExceededError{Latest: exception})
	}
}

// checkFailureCounter counts the failure if its reason is one that counts,
// once per checkpoint.
func (m *CheckpointFailureManager) checkFailureCounter(exception *CheckpointException, checkpointID int64) {
	if m.tolerableCpFailureNumber == UnlimitedTolerableFailureNumber || !countsAsFailure(exception.Reason) {
		return
	}
	if checkpointID == unknownCheckpointID || !m.countedCheckpointIDs[checkpointID] {
		m.countedCheckpointIDs[checkpointID] = true
		m.continuousFailureCounter++
	}
}

// countsAsFailure reports whether a failure of this reason counts against
// the tolerable failures (Flink: the switch of checkFailureCounter).
func countsAsFailure(reason CheckpointFailureReason) bool {
	switch reason.Name {
	case IOException.Name, CheckpointAsyncException.Name, CheckpointDeclined.Name, CheckpointExpired.Name:
		return true
	default:
		return false
	}
}

// HandleCheckpointSuccess resets the count: the job checkpoints again.
func (m *CheckpointFailureManager) HandleCheckpointSuccess(checkpointID int64) {
	if checkpointID > m.lastSucceededCheckpointID {
		m.lastSucceededCheckpointID = checkpointID
		m.clearCount()
	}
}

// ContinuousFailureCount returns how many checkpoints failed in a row.
func (m *CheckpointFailureManager) ContinuousFailureCount() int { return m.continuousFailureCounter }

func (m *CheckpointFailureManager) clearCount() {
	m.continuousFailureCounter = 0
	clear(m.countedCheckpointIDs)
}

// TolerableFailureExceededError is what a job fails with when too many
// checkpoints failed in a row (Flink: a FlinkRuntimeException with
// EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE). It wraps
// ErrExceededCheckpointTolerableFailure and the latest failure.
type TolerableFailureExceededError struct {
	Latest *CheckpointException
}

func (e *TolerableFailureExceededError) Error() string {
	return fmt.Sprintf("%s The latest checkpoint failed due to %s, view the Checkpoint History tab or the Job Manager "+
		"log to find out why continuous checkpoints failed.", ErrExceededCheckpointTolerableFailure, e.Latest.Reason.Message)
}

func (e *TolerableFailureExceededError) Unwrap() []error {
	return []error{ErrExceededCheckpointTolerableFailure, e.Latest}
}

// javaString prints an error as Java prints an exception in a log line's
// stack trace: its class, then its message.
func javaString(err error) string {
	if _, ok := err.(*CheckpointException); ok {
		return "org.apache.flink.runtime.checkpoint.CheckpointException: " + err.Error()
	}
	return err.Error()
}
