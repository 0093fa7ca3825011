package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// A completed checkpoint's _metadata lies at <dir>/<job id>/chk-<n>/_metadata
// and reads back as the checkpoint's state, from the directory or the file.
func TestMetadataIsWrittenAndLoadable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		h.trigger(Checkpoint, "")
		h.ackAll(1)
		completed := h.latest()
		dir := filepath.Join(h.checkpoint, h.job.String(), "chk-1")
		if completed.ExternalPointer != dir {
			t.Fatalf("checkpoint at %s, want %s", completed.ExternalPointer, dir)
		}
		for _, path := range []string{dir, filepath.Join(dir, state.MetadataFileName), "file:" + dir} {
			m, err := LoadCheckpointMetadata(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if m.CheckpointID != 1 || m.JobID != h.job || m.CheckpointType != Checkpoint || len(m.OperatorStates) != 3 {
				t.Errorf("%s: got %+v", path, m)
			}
			for _, s := range m.OperatorStates {
				if !reflect.DeepEqual(s, completed.OperatorStates[s.OperatorID]) {
					t.Errorf("%s: operator %s reads back as %+v, want %+v", path, s.OperatorID, s, completed.OperatorStates[s.OperatorID])
				}
			}
		}
	})
}

func TestLoadCheckpointMetadataErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "chk-7")
	corrupt := filepath.Join(dir, "corrupt")
	flink := filepath.Join(dir, "flink")
	for _, d := range []string{empty, corrupt, flink} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(corrupt, state.MetadataFileName), []byte(`{"magic": "flinklab-checkpoint-metadata", "checkpointId": `), 0o644)
	_ = os.WriteFile(filepath.Join(flink, state.MetadataFileName), []byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3}, 0o644)

	tests := []struct {
		path, want string
	}{
		{filepath.Join(dir, "missing"), "Cannot find checkpoint or savepoint file/directory '" + filepath.Join(dir, "missing") + "' on file system 'file'."},
		{empty, "Cannot find meta data file '_metadata' in directory '" + empty + "'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory."},
		{corrupt, "The metadata file '" + filepath.Join(corrupt, state.MetadataFileName) + "' is corrupt: unexpected end of JSON input"},
		{flink, "Unexpected magic number in '" + filepath.Join(flink, state.MetadataFileName) + "'."},
	}
	for _, tt := range tests {
		_, err := LoadCheckpointMetadata(tt.path)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.path, err, tt.want)
		}
	}
}

// Without state.checkpoints.dir the JobManager keeps checkpoints in
// memory: no directory, no _metadata.
func TestCheckpointsInTheJobManagersMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		h.do(func() { h.coord.checkpointStorage = state.CheckpointStorageAccess{} })
		h.trigger(Checkpoint, "")
		h.ackAll(1)
		completed := h.latest()
		if completed == nil || completed.ExternalPointer != state.NonExternalPointer {
			t.Fatalf("got %v", completed)
		}
		if _, err := os.Stat(filepath.Join(h.checkpoint, h.job.String(), "chk-1")); err == nil {
			t.Error("a chk-1 directory without state.checkpoints.dir")
		}
		if completed.String() != "Checkpoint 1 @ 946684800000 for "+h.job.String()+" located at <checkpoint-not-externally-addressable>" {
			t.Errorf("got %s", completed)
		}
	})
}

// The store keeps the newest; it subsumes a savepoint whenever it may, a
// checkpoint only while a newer checkpoint is kept.
func TestStandaloneStoreSubsumes(t *testing.T) {
	cp := func(id int64, props CheckpointProperties) *CompletedCheckpoint {
		return &CompletedCheckpoint{CheckpointID: id, Properties: props, Type: props.CheckpointType}
	}
	checkpoint, savepoint := PropertiesForCheckpoint(NoExternalizedCheckpoints), PropertiesForUnclaimedSnapshot()
	tests := []struct {
		name         string
		add          []*CompletedCheckpoint
		kept, gotten []int64
	}{
		{"oldest first", []*CompletedCheckpoint{cp(1, checkpoint), cp(2, checkpoint), cp(3, checkpoint)}, []int64{2, 3}, []int64{1}},
		{"a savepoint goes", []*CompletedCheckpoint{cp(7, savepoint), cp(8, checkpoint), cp(9, checkpoint)}, []int64{8, 9}, []int64{7}},
		{"the only checkpoint stays", []*CompletedCheckpoint{cp(1, checkpoint), cp(2, savepoint), cp(3, savepoint)}, []int64{1, 3}, []int64{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStandaloneCompletedCheckpointStore(2)
			var gotten []int64
			for _, c := range tt.add {
				subsumed, err := s.AddCheckpointAndSubsumeOldestOne(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range subsumed {
					gotten = append(gotten, g.CheckpointID)
				}
			}
			var kept []int64
			for _, c := range s.GetAllCheckpoints() {
				kept = append(kept, c.CheckpointID)
			}
			if !reflect.DeepEqual(kept, tt.kept) || !reflect.DeepEqual(gotten, tt.gotten) {
				t.Errorf("kept %v, subsumed %v; want %v, %v", kept, gotten, tt.kept, tt.gotten)
			}
		})
	}
	s := NewStandaloneCompletedCheckpointStore(0)
	if s.GetMaxNumberOfRetainedCheckpoints() != 1 {
		t.Error("a store that keeps nothing")
	}
	_ = s.Shutdown(api.JobFinished, func(*CompletedCheckpoint) {})
	if _, err := s.AddCheckpointAndSubsumeOldestOne(cp(1, checkpoint)); err != ErrCheckpointStoreShutdown {
		t.Errorf("got %v after shutdown", err)
	}
}

func TestStandaloneCheckpointIDCounter(t *testing.T) {
	c := NewStandaloneCheckpointIDCounter()
	if id, _ := c.GetAndIncrement(); id != 1 {
		t.Errorf("first ID %d, want 1", id)
	}
	if id, _ := c.Get(); id != 2 {
		t.Errorf("next ID %d, want 2", id)
	}
	_ = c.SetCount(15)
	if id, _ := c.GetAndIncrement(); id != 15 {
		t.Errorf("ID after SetCount(15): %d", id)
	}
}
