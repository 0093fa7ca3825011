package checkpoint

import (
	"errors"
	"fmt"
	"os"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// OperatorState is the state one operator took in one checkpoint: the
// state of each of its subtasks, by subtask index (Flink's OperatorState).
// It keeps the parallelism and max parallelism the operator ran with, so
// that a restore at another parallelism knows how the state was split.
type OperatorState struct {
	OperatorID     api.OperatorID `json:"operatorId"`
	Parallelism    int            `json:"parallelism"`
	MaxParallelism int            `json:"maxParallelism"`
	// SubtaskStates holds the subtasks that reported state; a stateless
	// subtask has no entry.
	SubtaskStates map[int]OperatorSubtaskState `json:"subtaskStates,omitempty"`
}

// NewOperatorState returns the state of an operator with no subtask state
// yet.
func NewOperatorState(operatorID api.OperatorID, parallelism, maxParallelism int) *OperatorState {
	return &OperatorState{OperatorID: operatorID, Parallelism: parallelism, MaxParallelism: maxParallelism,
		SubtaskStates: make(map[int]OperatorSubtaskState)}
}

// PutState sets the state of subtask subtaskIndex. An index outside the
// parallelism is a bug of the caller.
func (s *OperatorState) PutState(subtaskIndex int, st OperatorSubtaskState) {
	if subtaskIndex < 0 || subtaskIndex >= s.Parallelism {
		panic(fmt.Sprintf("The given sub task index %d exceeds the maximum number of sub tasks %d", subtaskIndex, s.Parallelism))
	}
	if s.SubtaskStates == nil {
		s.SubtaskStates = make(map[int]OperatorSubtaskState)
	}
	s.SubtaskStates[subtaskIndex] = st
}

// State returns the state of subtask subtaskIndex, if it reported any.
func (s *OperatorState) State(subtaskIndex int) (OperatorSubtaskState, bool) {
	st, ok := s.SubtaskStates[subtaskIndex]
	return st, ok
}

// HasState reports whether any subtask holds state.
func (s *OperatorState) HasState() bool {
	for _, st := range s.SubtaskStates {
		if st.HasState() {
			return true
		}
	}
	return false
}

// StateSize returns the bytes of all subtasks' state.
func (s *OperatorState) StateSize() int64 {
	var size int64
	for _, st := range s.SubtaskStates {
		size += st.StateSize()
	}
	return size
}

// DiscardState deletes the files of all subtasks' state.
func (s *OperatorState) DiscardState() {
	for _, st := range s.SubtaskStates {
		st.DiscardState()
	}
}

// String prints the state as Flink's toString does (flinklab has no
// operator coordinators).
func (s *OperatorState) String() string {
	return fmt.Sprintf("OperatorState(operatorID: %s, parallelism: %d, maxParallelism: %d, coordinatorState: (none), "+
		"sub task states: %d, total size (bytes): %d)", s.OperatorID, s.Parallelism, s.MaxParallelism, len(s.SubtaskStates), s.StateSize())
}

// CompletedCheckpoint is a checkpoint (or savepoint) every task
// acknowledged and whose _metadata was written (Flink's
// CompletedCheckpoint). The CompletedCheckpointStore keeps the latest
// ones; the job restarts from the newest.
type CompletedCheckpoint struct {
	JobID        api.JobID
	CheckpointID int64
	// Timestamp is when the checkpoint was triggered, CompletionTimestamp
	// when it completed, in milliseconds since the epoch. Both are 0 for a
	// snapshot the job was started from, as in Flink.
	Timestamp           int64
	CompletionTimestamp int64
	// Type is Properties.CheckpointType.
	Type       CheckpointType
	Properties CheckpointProperties
	// OperatorStates holds the state of every operator, by OperatorID.
	OperatorStates map[api.OperatorID]*OperatorState
	// ExternalPointer is where the checkpoint lies: its chk-<n> (or
	// savepoint) directory, which holds the _metadata, or
	// state.NonExternalPointer when the JobManager keeps it in memory.
	ExternalPointer string
	// StateSize is the bytes of all operators' state.
	StateSize int64
}

// String prints the checkpoint as Flink's toString does:
// "Checkpoint 14 @ 1700000000000 for <job> located at <pointer>".
func (c *CompletedCheckpoint) String() string {
	return fmt.Sprintf("%s %d @ %d for %s located at %s", c.Type.Name(), c.CheckpointID, c.Timestamp, c.JobID, c.ExternalPointer)
}

// ShouldBeDiscardedOnShutdown reports whether the checkpoint is deleted
// when its job ends in jobStatus.
func (c *CompletedCheckpoint) ShouldBeDiscardedOnShutdown(jobStatus api.JobStatus) bool {
	return c.Properties.ShouldBeDiscardedOnShutdown(jobStatus)
}

// DiscardState deletes the checkpoint: the files of its state, then its
// directory with the _metadata (Flink: CompletedCheckpoint#discard, then
// CompletedCheckpointStorageLocation#disposeStorageLocation). A checkpoint
// in memory has nothing to delete.
func (c *CompletedCheckpoint) DiscardState() error {
	for _, s := range c.OperatorStates {
		s.DiscardState()
	}
	if c.ExternalPointer == "" || c.ExternalPointer == state.NonExternalPointer {
		return nil
	}
	if err := os.RemoveAll(c.ExternalPointer); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// operatorStatesSize returns the bytes of the state of states.
func operatorStatesSize(states map[api.OperatorID]*OperatorState) int64 {
	var size int64
	for _, s := range states {
		size += s.StateSize()
	}
	return size
}
