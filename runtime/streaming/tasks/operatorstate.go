package tasks

import (
	"encoding/binary"
	"fmt"
	"math"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
)

// checkpointedOperator is an operator with state: it copies its state at a
// barrier and reads it back when its task is deployed from a checkpoint.
// It mirrors Flink's StreamOperator#snapshotState and
// StreamOperatorStateHandler#initializeOperatorState.
type checkpointedOperator interface {
	// snapshotState copies the operator's state for checkpoint
	// checkpointID (Flink: StateSnapshotContext#getCheckpointId): the
	// synchronous part of a checkpoint, on the task's goroutine.
	snapshotState(checkpointID int64) (operatorSnapshot, error)
	// initializeState restores the operator's share of checkpoint
	// restoredCheckpointID (Flink:
	// StateInitializationContext#getRestoredCheckpointId), before it
	// opens.
	initializeState(restoredCheckpointID int64, restored checkpoint.OperatorSubtaskState) error
}

// checkpointListener is an operator that wants to hear that a checkpoint
// completed or was aborted (Flink's CheckpointListener): a transactional
// sink commits what it wrote before that checkpoint's barrier.
type checkpointListener interface {
	notifyCheckpointComplete(checkpointID int64) error
	notifyCheckpointAborted(checkpointID int64) error
}

// operatorSnapshot is what snapshotState copies: keyed state, named lists
// of operator state, or both.
type operatorSnapshot struct {
	keyed *keyedStateSnapshot
	lists map[string]listStateSnapshot
}

// listStateSnapshot is one named list of operator state and how its
// elements are handed out on restore.
type listStateSnapshot struct {
	mode     state.OperatorStateDistributionMode
	elements [][]byte
}

// sourcePositionStateName names the operator state every source keeps.
const sourcePositionStateName = "source-position"

// sourcePosition is where a source subtask is: the index of the next record
// it emits. Every source numbers its records 0, 1, 2, … (elements, lines,
// numbers of the sequence, indexes of the generator), and subtask s of p
// emits the indexes i with i % p == s, in order. So "every index of mine
// below next" says exactly what the subtask has emitted.
//
// The position is kept as union list state (Flink's getUnionListState,
// what the legacy sources of Flink's Kafka connector used): on restore,
// every subtask gets the positions of all old subtasks, and can work out
// which of its own indexes were emitted, even at another parallelism.
//
// It belongs to the task's goroutine.
type sourcePosition struct {
	subtaskShare
	next     int64
	restored *restoredPositions
}

// restoredPositions are the positions of all subtasks of the checkpoint.
type restoredPositions struct {
	parallelism int
	next        []int64 // by old subtask index
	minNext     int64
	maxNext     int64
}

// first returns the first index to emit, and sets next to it.
func (p *sourcePosition) first() int64 {
	r := p.restored
	switch {
	case r == nil:
		p.next = int64(p.subtaskIndex)
	case r.parallelism == p.parallelism:
		p.next = r.next[p.subtaskIndex]
	default:
		// Every index below the smallest old position was emitted.
		start := r.minNext - r.minNext%int64(p.parallelism) + int64(p.subtaskIndex)
		if start < r.minNext {
			start += int64(p.parallelism)
		}
		p.next = p.skipEmitted(start)
	}
	return p.next
}

// advance returns the index after i that this subtask emits, skipping
// those the checkpoint says were emitted, and never overflowing.
func (p *sourcePosition) advance(i int64) int64 {
	step := int64(p.parallelism)
	if i > math.MaxInt64-step {
		return math.MaxInt64
	}
	return p.skipEmitted(i + step)
}

// skipEmitted returns the first index from i on (in steps of the
// parallelism) that no old subtask emitted.
func (p *sourcePosition) skipEmitted(i int64) int64 {
	r := p.restored
	if r == nil || r.parallelism == p.parallelism {
		return i
	}
	step := int64(p.parallelism)
	for i < r.maxNext && i < r.next[i%int64(r.parallelism)] && i <= math.MaxInt64-step {
		i += step
	}
	return i
}

func (p *sourcePosition) snapshotState(int64) (operatorSnapshot, error) {
	element := binary.AppendUvarint(nil, uint64(p.subtaskIndex))
	element = binary.AppendUvarint(element, uint64(p.parallelism))
	element = binary.AppendVarint(element, p.next)
	return operatorSnapshot{lists: map[string]listStateSnapshot{
		sourcePositionStateName: {mode: state.Union, elements: [][]byte{element}},
	}}, nil
}

func (p *sourcePosition) initializeState(_ int64, restored checkpoint.OperatorSubtaskState) error {
	var r *restoredPositions
	for _, h := range restored.ManagedOperatorState {
		elements, err := h.Elements(sourcePositionStateName)
		if err != nil {
			return fmt.Errorf("cannot restore the source's position: %w", err)
		}
		for _, element := range elements {
			subtask, parallelism, next, err := decodePosition(element)
			if err != nil {
				return err
			}
			if r == nil {
				r = &restoredPositions{parallelism: parallelism, next: make([]int64, parallelism), minNext: math.MaxInt64}
				for i := range r.next {
					r.next[i] = -1
				}
			}
			if parallelism != r.parallelism || subtask >= parallelism {
				return fmt.Errorf("the restored source positions disagree: subtask %d of %d among positions of %d subtasks", subtask, parallelism, r.parallelism)
			}
			r.next[subtask] = next
			r.minNext, r.maxNext = min(r.minNext, next), max(r.maxNext, next)
		}
	}
	if r == nil {
		return nil // nothing was checkpointed: start from the beginning
	}
	for subtask, next := range r.next {
		if next < 0 {
			return fmt.Errorf("the checkpoint holds no position of source subtask %d of %d", subtask, r.parallelism)
		}
	}
	p.restored = r
	return nil
}

func decodePosition(element []byte) (subtask, parallelism int, next int64, err error) {
	s, n1 := binary.Uvarint(element)
	par, n2 := 0, 0
	var pu uint64
	if n1 > 0 {
		pu, n2 = binary.Uvarint(element[n1:])
	}
	var nx int64
	n3 := 0
	if n1 > 0 && n2 > 0 {
		nx, n3 = binary.Varint(element[n1+n2:])
	}
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || pu == 0 || pu > math.MaxInt32 || s >= pu || nx < 0 {
		return 0, 0, 0, fmt.Errorf("corrupt source position")
	}
	par = int(pu)
	return int(s), par, nx, nil
}
