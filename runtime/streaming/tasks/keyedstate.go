package tasks

import (
	"encoding/binary"
	"fmt"
	"reflect"

	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks/typeutils"
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
	// keySerializer and valueSerializer write keys and values into
	// snapshots and read them back (Flink: the StateTable's key and state
	// serializers). A backend without them cannot be checkpointed.
	keySerializer, valueSerializer typeutils.TypeSerializer
}

func newHeapKeyedStateBackend(maxParallelism, parallelism, subtaskIndex int) *heapKeyedStateBackend {
	r := streaming.ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, subtaskIndex)
	return &heapKeyedStateBackend{
		maxParallelism:      maxParallelism,
		keyGroupRange:       r,
		keyGroupedStateMaps: make([]map[any]any, max(r.NumberOfKeyGroups(), 0)),
	}
}

// createSerializers makes the serializers of keys of keyType and values
// of valueType. A type no serializer handles leaves the backend without
// them: it works, but every checkpoint of it is declined.
func (b *heapKeyedStateBackend) createSerializers(keyType, valueType reflect.Type) {
	keys, err := typeutils.CreateSerializer(keyType)
	if err != nil {
		return
	}
	values, err := typeutils.CreateSerializer(valueType)
	if err != nil {
		return
	}
	b.keySerializer, b.valueSerializer = keys, values
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

// keyedStateSnapshot is the synchronous part of a keyed snapshot: the
// bytes of every key group the subtask owns, one after the other, and
// where each starts. A key group's bytes are its number of entries (a
// uvarint), then each entry's key and value, each length-prefixed. The
// asynchronous part writes them to the checkpoint storage as one
// KeyGroupsStateHandle (Flink: HeapSnapshotStrategy writing through a
// KeyGroupRangeOffsets-tracking stream).
type keyedStateSnapshot struct {
	keyGroupRange streaming.KeyGroupRange
	offsets       []int64
	data          []byte
}

// snapshot copies the backend's values into bytes. It runs on the task's
// goroutine, between two records, so the copy is consistent with the
// barrier: every record before it counted, none after.
func (b *heapKeyedStateBackend) snapshot() (*keyedStateSnapshot, error) {
	if b.keySerializer == nil || b.valueSerializer == nil {
		return nil, fmt.Errorf("the keyed state of %v has no serializers", b.keyGroupRange)
	}
	s := &keyedStateSnapshot{keyGroupRange: b.keyGroupRange, offsets: make([]int64, len(b.keyGroupedStateMaps))}
	var scratch []byte
	var err error
	for i, values := range b.keyGroupedStateMaps {
		s.offsets[i] = int64(len(s.data))
		s.data = binary.AppendUvarint(s.data, uint64(len(values)))
		for key, value := range values {
			if scratch, err = b.keySerializer.Serialize(key, scratch[:0]); err != nil {
				return nil, err
			}
			s.data, _ = state.AppendElement(s.data, scratch)
			if scratch, err = b.valueSerializer.Serialize(value, scratch[:0]); err != nil {
				return nil, err
			}
			s.data, _ = state.AppendElement(s.data, scratch)
		}
	}
	return s, nil
}

// restore reads back the key groups this subtask owns from the handles the
// JobMaster assigned it: after a rescale they may come from several old
// subtasks, each handle already cut to this subtask's range (Flink:
// HeapRestoreOperation).
func (b *heapKeyedStateBackend) restore(handles []state.KeyGroupsStateHandle) error {
	for _, h := range handles {
		err := h.KeyGroups(func(keyGroup int, data []byte) error {
			if !b.keyGroupRange.Contains(keyGroup) {
				return fmt.Errorf("the restored state holds key group %d, outside %v", keyGroup, b.keyGroupRange)
			}
			return b.restoreKeyGroup(keyGroup, data)
		})
		if err != nil {
			return fmt.Errorf("cannot restore keyed state: %w", err)
		}
	}
	return nil
}

func (b *heapKeyedStateBackend) restoreKeyGroup(keyGroup int, data []byte) error {
	n, size := binary.Uvarint(data)
	if size <= 0 {
		return fmt.Errorf("key group %d: corrupt entry count", keyGroup)
	}
	data = data[size:]
	values := make(map[any]any, n)
	for range n {
		var keyBytes, valueBytes []byte
		var err error
		if keyBytes, data, err = cutElement(data); err != nil {
			return fmt.Errorf("key group %d: %w", keyGroup, err)
		}
		if valueBytes, data, err = cutElement(data); err != nil {
			return fmt.Errorf("key group %d: %w", keyGroup, err)
		}
		key, err := b.keySerializer.Deserialize(keyBytes)
		if err != nil {
			return fmt.Errorf("key group %d: %w", keyGroup, err)
		}
		value, err := b.valueSerializer.Deserialize(valueBytes)
		if err != nil {
			return fmt.Errorf("key group %d: %w", keyGroup, err)
		}
		values[key] = value
	}
	b.keyGroupedStateMaps[keyGroup-b.keyGroupRange.StartKeyGroup] = values
	return nil
}

// cutElement returns the first length-prefixed element of data and what
// follows it.
func cutElement(data []byte) (element, rest []byte, err error) {
	n, size := binary.Uvarint(data)
	if size <= 0 || n > uint64(len(data)-size) {
		return nil, nil, fmt.Errorf("corrupt element")
	}
	end := size + int(n)
	return data[size:end], data[end:], nil
}
