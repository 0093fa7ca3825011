package api

import (
	"errors"
	"fmt"
)

// JobStatus is the lifecycle of a job as the JobManager sees it. The names
// and their order are Flink's (org.apache.flink.api.common.JobStatus).
//
//	INITIALIZING ──────────────────────────────► FAILED       the JobMaster could not start
//	     │     └───────────────────────────────► CANCELLING   cancelled before its JobMaster runs
//	     ▼ (the JobMaster built the ExecutionGraph)
//	  CREATED ──► RUNNING ──► FINISHED
//	               │  ▲
//	               ▼  │
//	            RESTARTING                                     a failover waits out its delay
//
//	CREATED | RUNNING | RESTARTING | FAILING ──► CANCELLING ──► CANCELED
//	CREATED | RUNNING | RESTARTING | CANCELLING ──► FAILING ──► FAILED
//	CANCELLING ──► FAILED                                      the tasks could not all be cancelled
//	RECONCILING ──► RUNNING | FAILING | CANCELLING             a new JobMaster found running tasks
//
// Flink has no table of these moves: DefaultExecutionGraph#transitionState
// refuses only to leave a terminal state, and the moves are the ones its
// methods make:
//
//   - cancel moves CREATED, RUNNING and RESTARTING to CANCELLING and
//     cancels every task; once all are terminal the job is CANCELED, or
//     FAILED with "Could not cancel job <name> because not all execution
//     job vertices could be cancelled." when cancelling them failed (the
//     future of the vertices' cancellation completed exceptionally).
//   - cancel moves a FAILING job to CANCELLING too, without cancelling its
//     tasks again (failJob is cancelling them): when they are all terminal,
//     failJob's completion finds the job CANCELLING and ends it CANCELED.
//   - failJob moves any state but FAILING and the terminal ones to
//     FAILING, CANCELLING included, and FAILING to FAILED once every task
//     is terminal.
//
// INITIALIZING is not a state of the ExecutionGraph, which starts at
// CREATED: it is what the JobManagerRunner reports while no JobMaster runs
// the job yet. A job cancelled then is reported CANCELLING
// (JobMasterServiceLeadershipRunner#requestJob answers CANCELLING instead
// of INITIALIZING once cancel was called) until its JobMaster runs; the
// runner then hands the cancel to the JobMaster, whose ExecutionGraph goes
// CREATED → CANCELLING → CANCELED. INITIALIZING → CANCELLING is in the
// table for that report; there is no INITIALIZING → CANCELED. (For a
// moment between the two, a poll may see the JobMaster's CREATED after
// the runner's CANCELLING; the table does not list that move, which no
// single state machine makes.)
//
// Any state that is not terminal may also move to SUSPENDED, when the
// JobMaster loses leadership. FINISHED, CANCELED and FAILED are globally
// terminal: the job is done for good and its result is kept in the
// JobResultStore. SUSPENDED is only locally terminal: another JobManager may
// pick the job up again.
type JobStatus int

// The job statuses, in Flink's declaration order.
const (
	JobInitializing JobStatus = iota // the JobManagerRunner has the job, but no JobMaster runs it yet
	JobCreated                       // the ExecutionGraph exists; nothing is scheduled yet
	JobRunning                       // scheduling has started; some tasks may still wait for slots
	JobFailing                       // the job failed; its tasks are being cancelled
	JobFailed                        // the job failed for good
	JobCancelling                    // the job was cancelled; its tasks are being cancelled
	JobCanceled                      // the job was cancelled for good
	JobFinished                      // every task finished
	JobRestarting                    // a failover is waiting out its restart delay
	JobSuspended                     // the JobMaster lost leadership; the job stays in the HA stores
	JobReconciling                   // a new JobMaster is reconnecting to running tasks
)

var jobStatusNames = [...]string{
	JobInitializing: "INITIALIZING",
	JobCreated:      "CREATED",
	JobRunning:      "RUNNING",
	JobFailing:      "FAILING",
	JobFailed:       "FAILED",
	JobCancelling:   "CANCELLING",
	JobCanceled:     "CANCELED",
	JobFinished:     "FINISHED",
	JobRestarting:   "RESTARTING",
	JobSuspended:    "SUSPENDED",
	JobReconciling:  "RECONCILING",
}

// String returns Flink's name of the status, e.g. "RUNNING".
func (s JobStatus) String() string {
	if s < 0 || int(s) >= len(jobStatusNames) {
		return fmt.Sprintf("JobStatus(%d)", int(s))
	}
	return jobStatusNames[s]
}

// GoString is String: %#v, and so testify's "expected" and "actual", print
// the status by Flink's name, not by its number.
func (s JobStatus) GoString() string { return s.String() }

// IsGloballyTerminalState reports whether the job is done for good:
// FINISHED, CANCELED or FAILED.
func (s JobStatus) IsGloballyTerminalState() bool {
	return s == JobFinished || s == JobCanceled || s == JobFailed
}

// IsTerminalState reports whether this JobManager is done with the job:
// globally terminal, or SUSPENDED.
func (s JobStatus) IsTerminalState() bool {
	return s.IsGloballyTerminalState() || s == JobSuspended
}

// MarshalText encodes the status by its Flink name.
func (s JobStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a status from its Flink name.
func (s *JobStatus) UnmarshalText(b []byte) error {
	for i, name := range jobStatusNames {
		if name == string(b) {
			*s = JobStatus(i)
			return nil
		}
	}
	return fmt.Errorf("unknown JobStatus %q", b)
}

// jobTransitions lists every legal move of a job. SUSPENDED is reachable from
// every non-terminal state and is added by CheckJobTransition.
var jobTransitions = map[JobStatus][]JobStatus{
	JobInitializing: {JobCreated, JobFailed, JobCancelling},
	JobCreated:      {JobRunning, JobFailing, JobCancelling},
	JobRunning:      {JobFinished, JobFailing, JobCancelling, JobRestarting},
	JobRestarting:   {JobRunning, JobFailing, JobCancelling},
	JobFailing:      {JobFailed, JobCancelling},
	JobCancelling:   {JobCanceled, JobFailing, JobFailed},
	JobReconciling:  {JobRunning, JobFailing, JobCancelling},
}

// ErrIllegalTransition is wrapped by every error CheckJobTransition and
// CheckExecutionTransition return. An illegal transition is a bug in the
// caller: a state machine that gets this error should fail loudly.
var ErrIllegalTransition = errors.New("illegal state transition")

// CheckJobTransition returns nil when a job may move from one status to the
// other, and an error wrapping ErrIllegalTransition otherwise. It is the one
// place job transitions are checked.
func CheckJobTransition(from, to JobStatus) error {
	if from.IsTerminalState() {
		return fmt.Errorf("%w: Job is trying to leave terminal state %s.", ErrIllegalTransition, from)
	}
	if to == JobSuspended {
		return nil
	}
	for _, allowed := range jobTransitions[from] {
		if allowed == to {
			return nil
		}
	}
	return fmt.Errorf("%w: Job may not switch from state %s to %s.", ErrIllegalTransition, from, to)
}
