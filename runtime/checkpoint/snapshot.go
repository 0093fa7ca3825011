package checkpoint

import (
	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// OperatorSubtaskState is what one subtask of one operator snapshots
// (Flink's OperatorSubtaskState): its operator state (a source's position)
// and its keyed state (a reduce's values, by key group). Flink also keeps
// raw state and the in-flight data of unaligned checkpoints here; flinklab
// has neither.
type OperatorSubtaskState struct {
	ManagedOperatorState []state.OperatorStateHandle  `json:"managedOperatorState,omitempty"`
	ManagedKeyedState    []state.KeyGroupsStateHandle `json:"managedKeyedState,omitempty"`
}

// StateSize returns the bytes of the state, in files or inline.
func (s OperatorSubtaskState) StateSize() int64 {
	var size int64
	for _, h := range s.ManagedOperatorState {
		size += h.Delegate.StateSize
	}
	for _, h := range s.ManagedKeyedState {
		size += h.End - firstOffset(h)
	}
	return size
}

func firstOffset(h state.KeyGroupsStateHandle) int64 {
	if len(h.Offsets) == 0 {
		return h.End
	}
	return h.Offsets[0]
}

// HasState reports whether the subtask snapshotted any state.
func (s OperatorSubtaskState) HasState() bool {
	return len(s.ManagedOperatorState) > 0 || len(s.ManagedKeyedState) > 0
}

// DiscardState deletes the files of the state.
func (s OperatorSubtaskState) DiscardState() {
	for _, h := range s.ManagedOperatorState {
		_ = h.DiscardState()
	}
	for _, h := range s.ManagedKeyedState {
		_ = h.DiscardState()
	}
}

// TaskStateSnapshot is what one task snapshots: the state of each operator
// of its chain, by OperatorID (Flink's TaskStateSnapshot). A task sends it
// with its acknowledgement, and gets one back, inside a
// JobManagerTaskRestore, when it is deployed to restore a checkpoint.
type TaskStateSnapshot struct {
	SubtaskStateMappings map[api.OperatorID]OperatorSubtaskState `json:"subtaskStateMappings,omitempty"`
}

// StateSize returns the bytes of the task's state.
func (s *TaskStateSnapshot) StateSize() int64 {
	if s == nil {
		return 0
	}
	var size int64
	for _, sub := range s.SubtaskStateMappings {
		size += sub.StateSize()
	}
	return size
}

// DiscardState deletes the files of the task's state.
func (s *TaskStateSnapshot) DiscardState() {
	if s == nil {
		return
	}
	for _, sub := range s.SubtaskStateMappings {
		sub.DiscardState()
	}
}

// JobManagerTaskRestore is the state a task is deployed with: which
// checkpoint it comes from, and the task's share of it (Flink's
// JobManagerTaskRestore, in the TaskDeploymentDescriptor).
type JobManagerTaskRestore struct {
	RestoreCheckpointID int64             `json:"restoreCheckpointId"`
	TaskStateSnapshot   TaskStateSnapshot `json:"taskStateSnapshot"`
}

// CheckpointMetrics are what a task measured while it took its snapshot
// (Flink's CheckpointMetrics).
type CheckpointMetrics struct {
	// AlignmentDurationNanos is how long the task waited for the barrier
	// on all of its inputs after it arrived on the first.
	AlignmentDurationNanos int64 `json:"alignmentDurationNanos"`
	// BytesProcessedDuringAlignment counts the bytes of the records the
	// task read while aligning (at-least-once mode reads on).
	BytesProcessedDuringAlignment int64 `json:"bytesProcessedDuringAlignment"`
	// SyncDurationMillis is how long the snapshot stopped the task.
	SyncDurationMillis int64 `json:"syncDurationMillis"`
	// AsyncDurationMillis is how long writing the snapshot took.
	AsyncDurationMillis int64 `json:"asyncDurationMillis"`
}
