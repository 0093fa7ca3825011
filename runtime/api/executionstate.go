package api

import "fmt"

// ExecutionState is the lifecycle of one attempt to run one subtask, shared
// by the JobMaster's Execution and the TaskExecutor's Task. The names are
// Flink's (org.apache.flink.runtime.execution.ExecutionState); note CANCELING
// with one L, where JobStatus has CANCELLING.
//
//	CREATED ─► SCHEDULED ─► DEPLOYING ─► INITIALIZING ─► RUNNING ─► FINISHED
//	   │           │            │              │             │
//	   │           │            └──────────────┴─────────────┴──► CANCELING ─► CANCELED
//	   │           └─────────────────────────────────────────────────────────► CANCELED
//	   └─────────────────────────────────────────────────────────────────────► CANCELED
//
//	CREATED ─► DEPLOYING   only a Task on its TaskExecutor (CheckTaskTransition)
//	any state that is not terminal ─► FAILED
//	CREATED ─► RECONCILING ─► INITIALIZING | RUNNING | FINISHED | CANCELED | FAILED
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
// to FAILED, which every non-terminal state may make.
var executionTransitions = map[ExecutionState][]ExecutionState{
	ExecutionCreated:      {ExecutionScheduled, ExecutionCanceled, ExecutionReconciling},
	ExecutionScheduled:    {ExecutionDeploying, ExecutionCanceled},
	ExecutionDeploying:    {ExecutionInitializing, ExecutionCanceling},
	ExecutionInitializing: {ExecutionRunning, ExecutionCanceling},
	ExecutionRunning:      {ExecutionFinished, ExecutionCanceling},
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
