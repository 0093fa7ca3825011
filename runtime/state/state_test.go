package state

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// The ranges of the subtasks of any parallelism cover the key groups once,
// in order, as Flink's KeyGroupRangeAssignment does.
func TestKeyGroupRangesOfTheSubtasksCoverEveryKeyGroupOnce(t *testing.T) {
	for _, parallelism := range []int{1, 3, 4, 7, 128} {
		next := 0
		for s := range parallelism {
			r := ComputeKeyGroupRangeForOperatorIndex(128, parallelism, s)
			assert.Equal(t, next, r.StartKeyGroup, "parallelism %d, subtask %d", parallelism, s)
			next = r.EndKeyGroup + 1
		}
		assert.Equal(t, 128, next, "parallelism %d", parallelism)
	}
	assert.Equal(t, "KeyGroupRange{startKeyGroup=32, endKeyGroup=63}", ComputeKeyGroupRangeForOperatorIndex(128, 4, 1).String())
}

func TestIntersectionOfKeyGroupRanges(t *testing.T) {
	a := KeyGroupRange{StartKeyGroup: 0, EndKeyGroup: 63}
	assert.Equal(t, KeyGroupRange{StartKeyGroup: 43, EndKeyGroup: 63}, a.Intersection(KeyGroupRange{StartKeyGroup: 43, EndKeyGroup: 85}))
	assert.Equal(t, 0, a.Intersection(KeyGroupRange{StartKeyGroup: 64, EndKeyGroup: 127}).NumberOfKeyGroups())
}

// A handle cut to a part of its range reads exactly the key groups of that
// part, from the same bytes.
func TestAKeyGroupsStateHandleCutToARangeReadsOnlyItsKeyGroups(t *testing.T) {
	data := []byte("aaBBBcccc") // key group 10: "aa", 11: "BBB", 12: "cccc"
	h := KeyGroupsStateHandle{
		KeyGroupRange: KeyGroupRange{StartKeyGroup: 10, EndKeyGroup: 12},
		Offsets:       []int64{0, 2, 5},
		Delegate:      StreamStateHandle{Data: data, StateSize: int64(len(data))},
		End:           int64(len(data)),
	}
	read := func(h KeyGroupsStateHandle) map[int]string {
		got := map[int]string{}
		require.NoError(t, h.KeyGroups(func(kg int, b []byte) error { got[kg] = string(b); return nil }))
		return got
	}
	assert.Equal(t, map[int]string{10: "aa", 11: "BBB", 12: "cccc"}, read(h))
	part, ok := h.Intersection(KeyGroupRange{StartKeyGroup: 11, EndKeyGroup: 11})
	require.True(t, ok)
	assert.Equal(t, map[int]string{11: "BBB"}, read(part))
	_, ok = h.Intersection(KeyGroupRange{StartKeyGroup: 13, EndKeyGroup: 20})
	assert.False(t, ok)

	broken := h
	broken.Offsets = []int64{0, 2, 50}
	assert.ErrorContains(t, broken.KeyGroups(func(int, []byte) error { return nil }), "key group 11 of KeyGroupRange{startKeyGroup=10, endKeyGroup=12} lies outside its state (2..50 of 9 bytes)")
}

func TestOperatorStateElementsRoundTrip(t *testing.T) {
	var data []byte
	var offsets []int64
	for _, e := range []string{"one", "", "three"} {
		var off int64
		data, off = AppendElement(data, []byte(e))
		offsets = append(offsets, off)
	}
	h := OperatorStateHandle{
		StateNameToPartitionOffsets: map[string]StateMetaInfo{"positions": {Offsets: offsets, DistributionMode: Union}},
		Delegate:                    StreamStateHandle{Data: data, StateSize: int64(len(data))},
	}
	got, err := h.Elements("positions")
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("one"), {}, []byte("three")}, got)
	none, err := h.Elements("other")
	require.NoError(t, err)
	assert.Empty(t, none)

	h.Delegate.Data = data[:len(data)-1]
	_, err = h.Elements("positions")
	assert.ErrorContains(t, err, `operator state "positions": corrupt element`)
}

// With state.checkpoints.dir the job's directory has Flink's layout; small
// state stays inline, large state gets a file of its own in chk-<n>, and
// _metadata is written whole.
func TestFileCheckpointStorageIsLaidOutAsFlinks(t *testing.T) {
	base := t.TempDir()
	job := api.NewJobID()
	storage, err := NewCheckpointStorageAccess(base, job)
	require.NoError(t, err)
	for _, sub := range []string{CheckpointSharedStateDir, CheckpointTaskOwnedStateDir} {
		info, err := os.Stat(filepath.Join(base, job.String(), sub))
		require.NoError(t, err)
		assert.True(t, info.IsDir())
	}
	location, err := storage.InitializeLocationForCheckpoint(3)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(base, job.String(), "chk-3"), location.Directory)

	small, err := location.WriteState([]byte("tiny"))
	require.NoError(t, err)
	assert.Empty(t, small.FilePath, "within the inline threshold: inline")
	exactly, err := location.WriteState(bytes.Repeat([]byte("x"), DefaultMemoryThreshold))
	require.NoError(t, err)
	assert.Empty(t, exactly.FilePath, "exactly the threshold stays inline, as Flink's pos <= threshold")
	large := bytes.Repeat([]byte("x"), DefaultMemoryThreshold+1)
	handle, err := location.WriteState(large)
	require.NoError(t, err)
	assert.Equal(t, location.Directory, filepath.Dir(handle.FilePath))
	got, err := handle.Read()
	require.NoError(t, err)
	assert.Equal(t, large, got)

	pointer, err := location.WriteMetadata([]byte(`{"checkpointId":3}`))
	require.NoError(t, err)
	assert.Equal(t, location.Directory, pointer)
	entries, err := os.ReadDir(location.Directory)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{filepath.Base(handle.FilePath), MetadataFileName}, names, "no temporary file is left")

	require.NoError(t, os.Truncate(handle.FilePath, 10))
	_, err = handle.Read()
	assert.ErrorContains(t, err, "holds 10 bytes, the checkpoint says 20481")
	require.NoError(t, handle.DiscardState())
	require.NoError(t, handle.DiscardState(), "a file already gone is no error")
}

// Without a directory the JobManager keeps the checkpoints: every state
// travels inline, up to Flink's 5 MiB, and there is no external pointer.
func TestTheJobManagerKeepsCheckpointsWithoutADirectory(t *testing.T) {
	storage, err := NewCheckpointStorageAccess("", api.NewJobID())
	require.NoError(t, err)
	assert.False(t, storage.SupportsHighlyAvailableStorage())
	location, err := storage.InitializeLocationForCheckpoint(1)
	require.NoError(t, err)
	h, err := location.WriteState(bytes.Repeat([]byte("x"), DefaultMemoryThreshold*2))
	require.NoError(t, err)
	assert.Empty(t, h.FilePath)
	_, err = location.WriteState(make([]byte, DefaultMaxStateSize+1))
	assert.ErrorContains(t, err, "Size of the state is larger than the maximum permitted memory-backed state. Size=5242881 , maxSize=5242880.")
	pointer, err := location.WriteMetadata([]byte("{}"))
	require.NoError(t, err)
	assert.Equal(t, NonExternalPointer, pointer)
}
