package tasks

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
)

// A source restored at another parallelism emits exactly the indexes no
// old subtask emitted: none twice, none lost. Old subtasks of parallelism
// 2 stopped at different positions (subtask 0 had emitted 0…8, subtask 1
// 1…5); the new subtasks, 1 to 5 of them, emit the rest.
func TestASourceRestoredAtAnotherParallelismEmitsEveryIndexOnce(t *testing.T) {
	old := []sourcePosition{
		{subtaskShare: subtaskShare{0, 2}, next: 10},
		{subtaskShare: subtaskShare{1, 2}, next: 7},
	}
	restored := checkpoint.OperatorSubtaskState{}
	for _, p := range old {
		snapshot, err := p.snapshotState(1)
		require.NoError(t, err)
		written, err := writeSnapshot(state.CheckpointStorageLocation{}, snapshot)
		require.NoError(t, err)
		restored.ManagedOperatorState = append(restored.ManagedOperatorState, written.ManagedOperatorState...)
	}
	emittedBefore := map[int64]bool{0: true, 2: true, 4: true, 6: true, 8: true, 1: true, 3: true, 5: true}

	for parallelism := 1; parallelism <= 5; parallelism++ {
		t.Run(fmt.Sprint(parallelism), func(t *testing.T) {
			emitted := map[int64]int{}
			for s := range parallelism {
				p := sourcePosition{subtaskShare: subtaskShare{s, parallelism}}
				require.NoError(t, p.initializeState(1, restored))
				for i := p.first(); i < 40; i = p.advance(i) {
					assert.Equal(t, s, int(i)%parallelism, "subtask %d emits only its own indexes", s)
					emitted[i]++
				}
			}
			for i := int64(0); i < 40; i++ {
				want := 1
				if emittedBefore[i] {
					want = 0
				}
				assert.Equal(t, want, emitted[i], "index %d", i)
			}
		})
	}
}

// Without a checkpoint a source starts at its subtask index; restored at
// the same parallelism it starts where it stopped.
func TestASourceRestoredAtItsParallelismGoesOnWhereItStopped(t *testing.T) {
	fresh := sourcePosition{subtaskShare: subtaskShare{1, 3}}
	assert.Equal(t, int64(1), fresh.first())
	assert.Equal(t, int64(4), fresh.advance(1))

	p := sourcePosition{subtaskShare: subtaskShare{1, 3}}
	var all []state.OperatorStateHandle
	for s, next := range []int64{0, 31, 2} {
		o, err := (&sourcePosition{subtaskShare: subtaskShare{s, 3}, next: next}).snapshotState(1)
		require.NoError(t, err)
		w, err := writeSnapshot(state.CheckpointStorageLocation{}, o)
		require.NoError(t, err)
		all = append(all, w.ManagedOperatorState...)
	}
	require.NoError(t, p.initializeState(1, checkpoint.OperatorSubtaskState{ManagedOperatorState: all}))
	assert.Equal(t, int64(31), p.first())
}

// A checkpoint that lacks the position of one old subtask cannot be
// restored: the source would not know what that subtask emitted.
func TestASourceRefusesACheckpointMissingASubtasksPosition(t *testing.T) {
	o, err := (&sourcePosition{subtaskShare: subtaskShare{0, 2}, next: 4}).snapshotState(1)
	require.NoError(t, err)
	w, err := writeSnapshot(state.CheckpointStorageLocation{}, o)
	require.NoError(t, err)
	p := sourcePosition{subtaskShare: subtaskShare{0, 2}}
	err = p.initializeState(1, w)
	assert.ErrorContains(t, err, "the checkpoint holds no position of source subtask 1 of 2")
}

// The keyed state of two subtasks, restored at parallelism 3: each new
// subtask reads exactly the keys of its key groups, and together they
// read every key with its value.
func TestKeyedStateMovesWithItsKeyGroupsWhenTheParallelismChanges(t *testing.T) {
	const maxParallelism = 128
	keys := make([]string, 200)
	for i := range keys {
		keys[i] = fmt.Sprintf("sensor-%d", i)
	}
	var handles []state.KeyGroupsStateHandle
	for s := range 2 {
		b := newHeapKeyedStateBackend(maxParallelism, 2, s)
		b.createSerializers(reflect.TypeFor[string](), reflect.TypeFor[int64]())
		for i, key := range keys {
			if streaming.AssignKeyToParallelOperator(key, maxParallelism, 2) == s {
				values, err := b.stateMapForKey(key)
				require.NoError(t, err)
				values[key] = int64(i)
			}
		}
		snapshot, err := b.snapshot()
		require.NoError(t, err)
		// Over the memory threshold the keyed state goes to a file.
		written, err := writeSnapshot(state.CheckpointStorageLocation{Directory: t.TempDir()}, operatorSnapshot{keyed: snapshot})
		require.NoError(t, err)
		handles = append(handles, written.ManagedKeyedState...)
	}

	found := map[string]int64{}
	for s := range 3 {
		b := newHeapKeyedStateBackend(maxParallelism, 3, s)
		b.createSerializers(reflect.TypeFor[string](), reflect.TypeFor[int64]())
		var mine []state.KeyGroupsStateHandle
		for _, h := range handles {
			if part, ok := h.Intersection(b.keyGroupRange); ok {
				mine = append(mine, part)
			}
		}
		require.NoError(t, b.restore(mine))
		for _, values := range b.keyGroupedStateMaps {
			for key, value := range values {
				assert.Equal(t, s, streaming.AssignKeyToParallelOperator(key, maxParallelism, 3), "key %v", key)
				found[key.(string)] = value.(int64)
			}
		}
	}
	require.Len(t, found, len(keys))
	for i, key := range keys {
		assert.Equal(t, int64(i), found[key], key)
	}
}
