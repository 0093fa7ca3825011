package tasks

import (
	"fmt"

	"flinklab/runtime/streaming"
)

// heapKeyedStateBackend keeps the per-key values of one keyed operator
// subtask in memory, one map per key group the subtask owns. It mirrors
// Flink's HeapKeyedStateBackend and its StateTable, which also keeps one
// map per key group (keyGroupedStateMaps): when the job is rescaled, whole
// key groups move between subtasks, and with them whole maps.
//
// The HASH partitioner upstream sends a key to the subtask that owns its
// key group, so every key that arrives here must fall into this subtask's
// KeyGroupRange. A key that does not means the producer and this subtask
// disagree on the key's hash: Flink fails with the same message.
//
// It belongs to the task's goroutine.
type heapKeyedStateBackend struct {
	maxParallelism      int
	keyGroupRange       streaming.KeyGroupRange
	keyGroupedStateMaps []map[any]any // index: key group - keyGroupRange.StartKeyGroup
}

func newHeapKeyedStateBackend(maxParallelism, parallelism, subtaskIndex int) *heapKeyedStateBackend {
	r := streaming.ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, subtaskIndex)
	return &heapKeyedStateBackend{
		maxParallelism:      maxParallelism,
		keyGroupRange:       r,
		keyGroupedStateMaps: make([]map[any]any, max(r.NumberOfKeyGroups(), 0)),
	}
}

// stateMapForKey returns the map holding key's value: the map of key's key
// group. It is Flink's setCurrentKey followed by StateTable.getMapForKeyGroup.
func (b *heapKeyedStateBackend) stateMapForKey(key any) (map[any]any, error) {
	keyGroup := streaming.AssignToKeyGroup(key, b.maxParallelism)
	if !b.keyGroupRange.Contains(keyGroup) {
		return nil, fmt.Errorf("Key group %d is not in %v. Unless you're directly using low level state access APIs, "+
			"this is most likely caused by non-deterministic shuffle key (hashCode and equals implementation).",
			keyGroup, b.keyGroupRange)
	}
	i := keyGroup - b.keyGroupRange.StartKeyGroup
	m := b.keyGroupedStateMaps[i]
	if m == nil {
		m = make(map[any]any)
		b.keyGroupedStateMaps[i] = m
	}
	return m, nil
}

// numberOfKeys returns how many keys hold a value.
func (b *heapKeyedStateBackend) numberOfKeys() int {
	n := 0
	for _, m := range b.keyGroupedStateMaps {
		n += len(m)
	}
	return n
}
