package jobmanager

import "fmt"

// runnerState is the lifecycle of a JobMasterServiceLeadershipRunner, with
// the names and declaration order of Flink's
// JobMasterServiceLeadershipRunner.State.
//
//	RUNNING ──the result is known──► JOB_COMPLETED ──Close──► STOPPED
//	   │                                                         ▲
//	   └──────────────────────────Close──────────────────────────┘
//
// RUNNING: the runner follows its leadership. A grant starts building a
// JobMaster, which is started and published only while the runner is
// RUNNING and the grant's session is the current one (isStale).
// JOB_COMPLETED: the result is known (the JobMaster reported the job's end,
// the JobMaster could not be started, or the job was already done); grants
// are ignored from now on. STOPPED,
// the only terminal state: Close was called, and the runner will never
// lead the job again. Leadership comes and goes within RUNNING; it is
// kept in the runner's session, not in its state.
//
// Differs from Flink: Flink moves to JOB_COMPLETED only when the current
// leader's JobMasterServiceProcess completes (onJobCompletion); its
// jobAlreadyDone, and a failure of the runner's own start, complete the
// result but leave the runner RUNNING. Here the first result of any kind
// does it. And Flink's closeAsync completes the result SUSPENDED at once,
// ignoring any result that comes later; our Close records SUSPENDED only
// after the JobMaster has closed, and a result that came meanwhile wins.
type runnerState int

// The runner states, in Flink's declaration order.
const (
	runnerRunning      runnerState = iota // following the leadership; no result yet
	runnerStopped                         // closed: no JobMaster is created or published any more
	runnerJobCompleted                    // the result is known; waiting for Close
)

var runnerStateNames = [...]string{
	runnerRunning:      "RUNNING",
	runnerStopped:      "STOPPED",
	runnerJobCompleted: "JOB_COMPLETED",
}

// String returns Flink's name of the state, e.g. "JOB_COMPLETED".
func (s runnerState) String() string {
	if s < 0 || int(s) >= len(runnerStateNames) {
		return fmt.Sprintf("runnerState(%d)", int(s))
	}
	return runnerStateNames[s]
}

// IsTerminal reports whether the runner is done for good: STOPPED.
func (s runnerState) IsTerminal() bool { return s == runnerStopped }

// runnerTransitions lists every legal move of a runner.
var runnerTransitions = map[runnerState][]runnerState{
	runnerRunning:      {runnerJobCompleted, runnerStopped},
	runnerJobCompleted: {runnerStopped},
}

// transitionToLocked moves the runner to state to; r.mu is held. It is the
// one place the state changes. An illegal move is a bug in the runner, not
// something its callers can cause (a second Close, or a result that comes
// after the first, never gets here), so it panics.
func (r *JobMasterServiceLeadershipRunner) transitionToLocked(to runnerState) {
	from := r.state
	for _, allowed := range runnerTransitions[from] {
		if allowed == to {
			r.state = to
			return
		}
	}
	panic(fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s may not switch from state %s to %s", r.JobID(), from, to))
}
