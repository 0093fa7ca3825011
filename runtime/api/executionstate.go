package api

import "fmt"

// ExecutionState is the lifecycle of one attempt to run one subtask, shared
// by the JobMaster's Execution and the TaskExecutor's Task. The names are
// Flink's (org.apache.flink.runtime.execution.ExecutionState); note CANCELING
// with one L, where JobStatus has CANCELLING.
//
// The moves are those Flink's code makes (Flink 1.18–1.20), which are more
// than the Javadoc diagram of ExecutionState draws:
//
//	CREATED ─► SCHEDULED ─► DEPLOYING ─► INITIALIZING ─► RUNNING ─► FINISHED
//
//	DEPLOYING | INITIALIZING ─► FINISHED                        a very fast task
//	CREATED | SCHEDULED | DEPLOYING | INITIALIZING | RUNNING ─► CANCELING ─► CANCELED
//	DEPLOYING | INITIALIZING | RUNNING ─► CANCELED              directly, without CANCELING
//	CREATED ─► RECONCILING ─► INITIALIZING | RUNNING | FINISHED | CANCELED
//	SCHEDULED ─► CANCELED   drawn by the Javadoc only; the code never takes it
//	CREATED ─► DEPLOYING    only a Task on its TaskExecutor (CheckTaskTransition)
//	any state that is not terminal ─► FAILED
//
// Where the Javadoc diagram and the code differ:
//
//   - FINISHED is reached from DEPLOYING and INITIALIZING too, not only from
//     RUNNING: Execution#markFinished accepts a FINISHED report in any of
//     the three ("very fast tasks!": the report overtook the RUNNING one).
//   - CANCELED is reached directly from DEPLOYING, INITIALIZING and RUNNING,
//     not only through CANCELING: Execution#completeCancelling accepts a
//     CANCELED report in any of them, and a Task whose code throws a
//     CancelTaskException goes there at once (Task#doRun's catch block),
//     logging "… switched from RUNNING to CANCELED due to
//     CancelTaskException.".
//   - CREATED and SCHEDULED are cancelled through CANCELING
//     (Execution#cancel → cancelAtomically: startCancelling, then
//     completeCancelling), and a Task cancelled before its thread ran goes
//     CREATED → CANCELING (Task#cancelOrFailAndCancelInvokableInternal),
//     then CANCELED when the thread starts (Task#doRun). The diagram's
//     direct SCHEDULED → CANCELED is never taken; CREATED → CANCELED is in
//     neither.
//   - The diagram spells the state CANCELLING; the constant is CANCELING.
//   - "Any state → FAILED": the code never fails a CANCELING attempt; both
//     the Execution (processFail) and the Task (doRun's catch block)
//     complete its cancellation to CANCELED instead. The table still
//     allows it, as the Javadoc says.
//
// Operators are opened while the task is INITIALIZING (since Flink 1.13),
// so an operator whose open fails takes its task INITIALIZING → FAILED.
// FINISHED, CANCELED and FAILED are terminal.
type ExecutionState int

// The execution states, in Flink's declaration order.
const (
	ExecutionCreated      ExecutionState = iota // the attempt exists; no slot yet
	ExecutionScheduled                          // a slot has been requested for it
	ExecutionDeploying                          // submitTask was sent; the TaskExecutor loads user code
	ExecutionRunning                            // the task processes records
	ExecutionFinished                           // the task ran to its end
	ExecutionCanceling                          // cancellation was requested; the task is stopping
	ExecutionCanceled                           // the task stopped after a cancellation
	ExecutionFailed                             // the task stopped with an error
	ExecutionReconciling                        // a new JobMaster is finding the task again
	ExecutionInitializing                       // the task restores state and opens its operators
)

var executionStateNames = [...]string{
	ExecutionCreated:      "CREATED",
	ExecutionScheduled:    "SCHEDULED",
	ExecutionDeploying:    "DEPLOYING",
	ExecutionRunning:      "RUNNING",
	ExecutionFinished:     "FINISHED",
	ExecutionCanceling:    "CANCELING",
	ExecutionCanceled:     "CANCELED",
	ExecutionFailed:       "FAILED",
	ExecutionReconciling:  "RECONCILING",
	ExecutionInitializing: "INITIALIZING",
}

// ExecutionStates lists every state in declaration order.
func ExecutionStates() []ExecutionState {
	states := make([]ExecutionState, len(executionStateNames))
	for i := range states {
		states[i] = ExecutionState(i)
	}
	return states
}

// String returns Flink's name of the state, e.g. "DEPLOYING".
func (s ExecutionState) String() string {
	if s < 0 || int(s) >= len(executionStateNames) {
		return fmt.Sprintf("ExecutionState(%d)", int(s))
	}
	return executionStateNames[s]
}

// IsTerminal reports whether the attempt is over: FINISHED, CANCELED or FAILED.
func (s ExecutionState) IsTerminal() bool {
	return s == ExecutionFinished || s == ExecutionCanceled || s == ExecutionFailed
}

// MarshalText encodes the state by its Flink name.
func (s ExecutionState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a state from its Flink name.
func (s *ExecutionState) UnmarshalText(b []byte) error {
	for i, name := range executionStateNames {
		if name == string(b) {
			*s = ExecutionState(i)
			return nil
		}
	}
	return fmt.Errorf("unknown ExecutionState %q", b)
}

// executionTransitions lists every legal move of an attempt except the move
// to FAILED, which every non-terminal state may make. Each move is one
// Flink's code makes (see ExecutionState for where), except SCHEDULED →
// CANCELED, which only its Javadoc diagram draws.
var executionTransitions = map[ExecutionState][]ExecutionState{
	ExecutionCreated:      {ExecutionScheduled, ExecutionCanceling, ExecutionReconciling},
	ExecutionScheduled:    {ExecutionDeploying, ExecutionCanceling, ExecutionCanceled},
	ExecutionDeploying:    {ExecutionInitializing, ExecutionFinished, ExecutionCanceling, ExecutionCanceled},
	ExecutionInitializing: {ExecutionRunning, ExecutionFinished, ExecutionCanceling, ExecutionCanceled},
	ExecutionRunning:      {ExecutionFinished, ExecutionCanceling, ExecutionCanceled},
	ExecutionCanceling:    {ExecutionCanceled},
	ExecutionReconciling: {ExecutionInitializing, ExecutionRunning, ExecutionFinished,
		ExecutionCanceled},
}

// CheckExecutionTransition returns nil when an attempt may move from one
// state to the other, and an error wrapping ErrIllegalTransition otherwise.
// It is the one place execution transitions are checked.
func CheckExecutionTransition(from, to ExecutionState) error {
	if from.IsTerminal() {
		return fmt.Errorf("%w: Cannot leave terminal state %s to transition to %s.", ErrIllegalTransition, from, to)
	}
	if to == ExecutionFailed {
		return nil
	}
	for _, allowed := range executionTransitions[from] {
		if allowed == to {
			return nil
		}
	}
	return fmt.Errorf("%w: Cannot transition from %s to %s.", ErrIllegalTransition, from, to)
}

// CheckTaskTransition is CheckExecutionTransition for a Task on its
// TaskExecutor. A Task is created in the slot it runs in, so it goes
// CREATED → DEPLOYING without SCHEDULED, as Flink's Task does; the
// JobMaster's Execution must pass through SCHEDULED (waiting for a slot).
func CheckTaskTransition(from, to ExecutionState) error {
	if from == ExecutionCreated && to == ExecutionDeploying {
		return nil
	}
	return CheckExecutionTransition(from, to)
}

// GoString is String: %#v, and so testify's "expected" and "actual", print
// the state by Flink's name, not by its number.
func (s ExecutionState) GoString() string { return s.String() }
