package executiongraph

import (
	"errors"
	"fmt"
	"time"

	"flinklab/runtime/api"
)

// numExecutionStates sizes the per-state timestamp array of an Execution.
// A test checks it against api.ExecutionStates.
const numExecutionStates = int(api.ExecutionInitializing) + 1

// Execution is one attempt to run a subtask: the first run is attempt 0, a
// restart makes attempt 1, and so on. It carries the attempt's
// ExecutionState, the slot it was given and why it failed. It mirrors
// Flink's org.apache.flink.runtime.executiongraph.Execution.
//
// An attempt starts CREATED. The scheduler moves it to SCHEDULED when it
// asks for a slot, gives it the slot with TryAssignResource, and deploys it
// (DEPLOYING); the TaskExecutor then reports INITIALIZING, RUNNING and
// finally FINISHED, or FAILED. api.ExecutionState has the full diagram;
// TransitionState enforces it.
type Execution struct {
	vertex          *ExecutionVertex
	attemptID       api.ExecutionAttemptID
	state           api.ExecutionState
	stateTimestamps [numExecutionStates]time.Time
	assignedSlot    AssignedSlot
	hasSlot         bool
	failureCause    error
}

// AssignedSlot is the slot an attempt runs in: which allocation, on which
// TaskManager. It stands in for Flink's LogicalSlot.
type AssignedSlot struct {
	AllocationID        api.AllocationID
	TaskManagerLocation TaskManagerLocation
}

// TaskManagerLocation says where a TaskManager runs. It mirrors the parts
// of Flink's TaskManagerLocation that the JobMaster needs to reach the
// TaskManager and to print it.
type TaskManagerLocation struct {
	ResourceID api.ResourceID
	Address    string
	// DataAddress is where the TaskExecutor serves its partitions to other
	// processes (Flink: the location's data port); "" when every partition
	// is read in-process. A consumer deployed after its producer finished
	// (a BLOCKING exchange) finds the producer here.
	DataAddress string
}

// String returns "resourceID @ address", the way Flink prints a location
// in its "switched from ... on ..." log lines.
func (l TaskManagerLocation) String() string {
	return fmt.Sprintf("%s @ %s", l.ResourceID, l.Address)
}

func newExecution(ev *ExecutionVertex, attemptNumber int) *Execution {
	graph := ev.jobVertex.graph
	e := &Execution{
		vertex: ev,
		attemptID: api.ExecutionAttemptID{
			ExecutionGraphID:  graph.graphID,
			ExecutionVertexID: ev.id,
			AttemptNumber:     attemptNumber,
		},
		state: api.ExecutionCreated,
	}
	e.stateTimestamps[api.ExecutionCreated] = graph.clock()
	return e
}

// AttemptID returns the attempt's ID: graph, subtask and attempt number.
func (e *Execution) AttemptID() api.ExecutionAttemptID { return e.attemptID }

// AttemptNumber returns 0 for the first attempt, 1 for the first restart, ...
func (e *Execution) AttemptNumber() int { return e.attemptID.AttemptNumber }

// Vertex returns the subtask this is an attempt of.
func (e *Execution) Vertex() *ExecutionVertex { return e.vertex }

// State returns the attempt's state.
func (e *Execution) State() api.ExecutionState { return e.state }

// StateTimestamp returns when the attempt entered state s, or the zero
// time if it never did.
func (e *Execution) StateTimestamp(s api.ExecutionState) time.Time {
	if s < 0 || int(s) >= numExecutionStates {
		return time.Time{}
	}
	return e.stateTimestamps[s]
}

// TransitionState moves the attempt to state to and stamps the time. An
// illegal move (checked by api.CheckExecutionTransition) fails with an
// error wrapping api.ErrIllegalTransition and changes nothing. Flink's
// Execution#transitionState logs every move as "<task name with subtask
// index> (<attempt id>) switched from <from> to <to>.", with no attempt
// number after the name, and a move with a cause as "... switched from
// <from> to <to> on <LocationInformation>."; logging is left to the
// caller.
func (e *Execution) TransitionState(to api.ExecutionState) error {
	if err := api.CheckExecutionTransition(e.state, to); err != nil {
		return fmt.Errorf("%s: %w", e, err)
	}
	e.state = to
	e.stateTimestamps[to] = e.vertex.jobVertex.graph.clock()
	if to == api.ExecutionFinished {
		// Flink's Execution#markFinished → finishPartitionsIfNeeded: the
		// BLOCKING results of a finished subtask can be read.
		for _, p := range e.vertex.producedPartitions {
			p.markFinished()
		}
	}
	return nil
}

// MarkFailed moves the attempt to FAILED and records err as the cause. It
// fails, changing nothing, when err is nil or the attempt is already in a
// terminal state.
func (e *Execution) MarkFailed(err error) error {
	if err == nil {
		return errors.New("MarkFailed needs a failure cause")
	}
	if terr := e.TransitionState(api.ExecutionFailed); terr != nil {
		return terr
	}
	e.failureCause = err
	return nil
}

// FailureCause returns why the attempt failed, or nil.
func (e *Execution) FailureCause() error { return e.failureCause }

// TryAssignResource gives the attempt the slot it will run in. It mirrors
// Flink's Execution.tryAssignResource: the slot is accepted only while the
// attempt is SCHEDULED (the scheduler asked for a slot and is waiting for
// it) and has no slot yet. Otherwise it fails with an error wrapping
// ErrUnexpectedState or ErrSlotAlreadyAssigned.
//
// Differs from Flink: Flink also accepts a slot in state CREATED, for its
// tests, and reports failure as false rather than an error.
func (e *Execution) TryAssignResource(slot AssignedSlot) error {
	if e.state != api.ExecutionScheduled {
		return fmt.Errorf("%w: %s cannot take a slot in state %s, only in state %s",
			ErrUnexpectedState, e, e.state, api.ExecutionScheduled)
	}
	if e.hasSlot {
		return fmt.Errorf("%w: %s already runs in slot %s on %s",
			ErrSlotAlreadyAssigned, e, e.assignedSlot.AllocationID, e.assignedSlot.TaskManagerLocation)
	}
	e.assignedSlot = slot
	e.hasSlot = true
	return nil
}

// AssignedSlot returns the slot the attempt was given, and whether it was
// given one.
func (e *Execution) AssignedSlot() (AssignedSlot, bool) { return e.assignedSlot, e.hasSlot }

// UnassignedResource is what Flink's Execution#getLocationInformation
// prints for an attempt that has no slot.
const UnassignedResource = "[unassigned resource]"

// LocationInformation returns where the attempt runs, as Flink's
// Execution#getLocationInformation prints it after "on" in a "switched
// from ... on ..." line: the TaskManager's location, or
// "[unassigned resource]" when the attempt has no slot.
//
// Differs from Flink: a TaskManagerLocation prints "resourceID @ address";
// Flink's prints "resourceID @ hostname (dataPort=port)".
func (e *Execution) LocationInformation() string {
	if !e.hasSlot {
		return UnassignedResource
	}
	return e.assignedSlot.TaskManagerLocation.String()
}

// VertexWithAttempt returns the subtask's name with the attempt number:
// "Map (2/4)#0", the name Flink's TaskExecutor gives the attempt's Task.
// The JobMaster's state-change lines print the name without the attempt
// number (ExecutionVertex.TaskNameWithSubtaskIndex).
func (e *Execution) VertexWithAttempt() string {
	return fmt.Sprintf("%s#%d", e.vertex.TaskNameWithSubtaskIndex(), e.AttemptNumber())
}

// String returns "Map (2/4)#0 (<attempt id>)", the form of the attempt in
// this package's error messages.
func (e *Execution) String() string {
	return fmt.Sprintf("%s (%s)", e.VertexWithAttempt(), e.attemptID)
}
