package checkpoint

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// newRestoreCoordinator returns a coordinator that only restores: it must
// schedule nothing.
func newRestoreCoordinator(t *testing.T, job api.JobID) (*CheckpointCoordinator, *logCapture) {
	log := &logCapture{}
	c := NewCheckpointCoordinator(CoordinatorDeps{
		JobID: job, Config: DefaultCheckpointCoordinatorConfiguration(), Logger: slog.New(logHandler{capture: log}),
		Schedule: func(func(), time.Duration) func() { t.Error("a restore scheduled something"); return func() {} },
		Now:      func() time.Time { return time.UnixMilli(1_700_000_000_000) },
	})
	return c, log
}

// keyedHandle is the keyed state subtask i of parallelism p wrote: key
// group kg holds "kg<kg>;".
func keyedHandle(maxParallelism, parallelism, i int) state.KeyGroupsStateHandle {
	r := state.ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, i)
	var data []byte
	var offsets []int64
	for kg := r.StartKeyGroup; kg <= r.EndKeyGroup; kg++ {
		offsets = append(offsets, int64(len(data)))
		data = append(data, fmt.Sprintf("kg%d;", kg)...)
	}
	return state.KeyGroupsStateHandle{KeyGroupRange: r, Offsets: offsets, End: int64(len(data)),
		Delegate: state.StreamStateHandle{Data: data, StateSize: int64(len(data))}}
}

// operatorHandle is the operator state subtask i wrote: a SPLIT_DISTRIBUTE
// list "split" of "s<i>-<k>" (splits elements) and a UNION list
// "offsets" of "u<i>".
func operatorHandle(i, splits int) state.OperatorStateHandle {
	var data []byte
	var split []int64
	for k := range splits {
		var offset int64
		data, offset = state.AppendElement(data, []byte(fmt.Sprintf("s%d-%d", i, k)))
		split = append(split, offset)
	}
	data, union := state.AppendElement(data, []byte(fmt.Sprintf("u%d", i)))
	return state.OperatorStateHandle{
		StateNameToPartitionOffsets: map[string]state.StateMetaInfo{
			"split":   {Offsets: split, DistributionMode: state.SplitDistribute},
			"offsets": {Offsets: []int64{union}, DistributionMode: state.Union},
		},
		Delegate: state.StreamStateHandle{Data: data, StateSize: int64(len(data))},
	}
}

// keyedCheckpoint is checkpoint 14 of a keyed operator at parallelism p
// (max parallelism 128), each subtask with keyed state and two split
// elements.
func keyedCheckpoint(job api.JobID, parallelism int) *CompletedCheckpoint {
	st := NewOperatorState(reduceOp, parallelism, 128)
	for i := range parallelism {
		st.PutState(i, OperatorSubtaskState{ManagedOperatorState: []state.OperatorStateHandle{operatorHandle(i, 2)},
			ManagedKeyedState: []state.KeyGroupsStateHandle{keyedHandle(128, parallelism, i)}})
	}
	props := PropertiesForCheckpoint(NoExternalizedCheckpoints)
	return &CompletedCheckpoint{JobID: job, CheckpointID: 14, Timestamp: 1_700_000_000_000, Type: Checkpoint, Properties: props,
		OperatorStates: map[api.OperatorID]*OperatorState{reduceOp: st}, ExternalPointer: state.NonExternalPointer}
}

func keyedVertexAt(parallelism int) VertexToRestore {
	return VertexToRestore{JobVertexID: keyedVertex, Name: "Keyed Reduce -> Sink: print", Parallelism: parallelism,
		MaxParallelism: 128, OperatorIDs: []api.OperatorID{reduceOp, sinkOp}}
}

func restoreAt(t *testing.T, checkpointParallelism, parallelism int) map[api.ExecutionVertexID]*JobManagerTaskRestore {
	job := api.NewJobID()
	c, log := newRestoreCoordinator(t, job)
	if _, err := c.store.AddCheckpointAndSubsumeOldestOne(keyedCheckpoint(job, checkpointParallelism)); err != nil {
		t.Fatal(err)
	}
	restores, ok, err := c.RestoreLatestCheckpointedStateToSubtasks([]VertexToRestore{keyedVertexAt(parallelism)})
	if err != nil || !ok {
		t.Fatalf("got ok %v, %v", ok, err)
	}
	want := fmt.Sprintf("INFO CheckpointCoordinator - Restoring job %s from Checkpoint 14 @ 1700000000000 for %s located at %s.",
		job, job, state.NonExternalPointer)
	if !log.contains(want) {
		t.Errorf("no %q in\n%s", want, log)
	}
	if got := c.Stats().Latest.Restored; got == nil || got.ID != 14 || got.RestoreTimestamp != 1_700_000_000_000 {
		t.Errorf("got restored statistics %+v", got)
	}
	return restores
}

// At the checkpoint's parallelism, every subtask gets back its own state,
// and, as always, the UNION lists of all.
func TestRestoreAtTheSameParallelismGivesEachSubtaskItsOwnState(t *testing.T) {
	restores := restoreAt(t, 2, 2)
	checkpoint := keyedCheckpoint(api.JobID{}, 2)
	for i := range 2 {
		restore := restores[api.ExecutionVertexID{JobVertexID: keyedVertex, SubtaskIndex: i}]
		if restore == nil || restore.RestoreCheckpointID != 14 {
			t.Fatalf("subtask %d: got %+v", i, restore)
		}
		got, own := restore.TaskStateSnapshot.SubtaskStateMappings[reduceOp], checkpoint.OperatorStates[reduceOp].SubtaskStates[i]
		if !reflect.DeepEqual(got.ManagedKeyedState, own.ManagedKeyedState) {
			t.Errorf("subtask %d: got keyed state %+v, want its own %+v", i, got.ManagedKeyedState, own.ManagedKeyedState)
		}
		if !reflect.DeepEqual(got.ManagedOperatorState[0], own.ManagedOperatorState[0]) {
			t.Errorf("subtask %d: got operator state %+v, want its own first", i, got.ManagedOperatorState)
		}
		if union := elements(t, got, "offsets"); !sameElements(union, []string{"u0", "u1"}) {
			t.Errorf("subtask %d: got union elements %v, want every subtask's", i, union)
		}
		if sink, ok := restore.TaskStateSnapshot.SubtaskStateMappings[sinkOp]; !ok || sink.HasState() {
			t.Errorf("subtask %d: the stateless sink gets %+v, want an empty state", i, sink)
		}
	}
}

// sameElements reports whether a and b hold the same elements, in any order.
func sameElements(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// At another parallelism, each subtask gets exactly the key groups of its
// range, every UNION element, and its run of the SPLIT_DISTRIBUTE list.
func TestRestoreAtANewParallelismRedistributesTheState(t *testing.T) {
	tests := []struct {
		from, to int
		split    [][]string // the split elements of each new subtask
	}{
		{4, 3, [][]string{{"s0-0", "s0-1", "s1-0"}, {"s1-1", "s2-0", "s2-1"}, {"s3-0", "s3-1"}}},
		{2, 5, [][]string{{"s0-0"}, {"s0-1"}, {"s1-0"}, {"s1-1"}, nil}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d to %d", tt.from, tt.to), func(t *testing.T) {
			restores := restoreAt(t, tt.from, tt.to)
			owners := make(map[int]int) // key group → how many subtasks got it
			var union []string
			for i := range tt.to {
				restore := restores[api.ExecutionVertexID{JobVertexID: keyedVertex, SubtaskIndex: i}]
				if restore == nil {
					t.Fatalf("subtask %d gets no state", i)
				}
				sub := restore.TaskStateSnapshot.SubtaskStateMappings[reduceOp]
				owned := state.ComputeKeyGroupRangeForOperatorIndex(128, tt.to, i)
				for _, h := range sub.ManagedKeyedState {
					err := h.KeyGroups(func(kg int, data []byte) error {
						if !owned.Contains(kg) || string(data) != fmt.Sprintf("kg%d;", kg) {
							t.Errorf("subtask %d (%v) got key group %d: %q", i, owned, kg, data)
						}
						owners[kg]++
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if got := elements(t, sub, "split"); !slices.Equal(got, tt.split[i]) {
					t.Errorf("subtask %d: got split elements %v, want %v", i, got, tt.split[i])
				}
				got := elements(t, sub, "offsets")
				if i == 0 {
					union = got
				} else if !sameElements(got, union) {
					t.Errorf("subtask %d: got union elements %v, subtask 0 %v", i, got, union)
				}
			}
			for kg := range 128 {
				if owners[kg] != 1 {
					t.Errorf("key group %d restored %d times, want once", kg, owners[kg])
				}
			}
			if len(union) != tt.from {
				t.Errorf("got union elements %v, want one per old subtask", union)
			}
		})
	}
}

// elements returns the elements of the named list across the handles.
func elements(t *testing.T, sub OperatorSubtaskState, name string) []string {
	var all []string
	for _, h := range sub.ManagedOperatorState {
		els, err := h.Elements(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range els {
			all = append(all, string(e))
		}
	}
	return all
}

func TestRestoreRefusesAChangedMaxParallelism(t *testing.T) {
	job := api.NewJobID()
	c, _ := newRestoreCoordinator(t, job)
	_, _ = c.store.AddCheckpointAndSubsumeOldestOne(keyedCheckpoint(job, 2))
	vertex := keyedVertexAt(2)
	vertex.MaxParallelism = 256
	_, _, err := c.RestoreLatestCheckpointedStateToSubtasks([]VertexToRestore{vertex})
	want := "The maximum parallelism (128) with which the latest checkpoint of the execution job vertex " +
		"Keyed Reduce -> Sink: print (" + keyedVertex.String() + ") has been taken and the current maximum parallelism (256) " +
		"changed. This is currently not supported."
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}

	vertex = keyedVertexAt(200)
	_, _, err = c.RestoreLatestCheckpointedStateToSubtasks([]VertexToRestore{vertex})
	if err == nil || !strings.Contains(err.Error(), "The maximum parallelism (128) of the restored state is lower than the configured parallelism (200).") {
		t.Errorf("got %v", err)
	}
}

// State of an operator the job lacks is an error, unless
// allowNonRestoredState.
func TestRestoreRefusesStateOfAnUnknownOperator(t *testing.T) {
	job := api.NewJobID()
	c, log := newRestoreCoordinator(t, job)
	_, _ = c.store.AddCheckpointAndSubsumeOldestOne(keyedCheckpoint(job, 2))
	sourceOnly := []VertexToRestore{{JobVertexID: sourceVertex, Name: "Source: numbers", Parallelism: 2, MaxParallelism: 128,
		OperatorIDs: []api.OperatorID{sourceOp}}}

	_, _, err := c.RestoreLatestCheckpointedStateToAll(sourceOnly, false)
	if err == nil || err.Error() != "There is no operator for the state "+reduceOp.String() {
		t.Errorf("got %v", err)
	}
	restores, ok, err := c.RestoreLatestCheckpointedStateToAll(sourceOnly, true)
	if err != nil || !ok || len(restores) != 0 {
		t.Errorf("got %v, %v, %v; want nothing to restore", restores, ok, err)
	}
	if !log.contains("INFO StateAssignmentOperation - Skipped checkpoint state for operator " + reduceOp.String() + ".") {
		t.Errorf("no Skipped line in\n%s", log)
	}
	// A regional restore allows it, as in Flink.
	if _, _, err := c.RestoreLatestCheckpointedStateToSubtasks(sourceOnly); err != nil {
		t.Error(err)
	}
}

func TestRestoreWithoutCheckpoint(t *testing.T) {
	c, log := newRestoreCoordinator(t, api.NewJobID())
	restores, ok, err := c.RestoreLatestCheckpointedStateToSubtasks([]VertexToRestore{keyedVertexAt(2)})
	if restores != nil || ok || err != nil {
		t.Errorf("got %v, %v, %v; want nothing", restores, ok, err)
	}
	if !log.contains("INFO CheckpointCoordinator - No checkpoint found during restore.") {
		t.Errorf("no line in\n%s", log)
	}
}

// writeSavepoint writes the _metadata of checkpoint into a new directory.
func writeSavepoint(t *testing.T, checkpoint *CompletedCheckpoint) string {
	dir := filepath.Join(t.TempDir(), "savepoint-abcdef-0123456789ab")
	data, err := StoreCheckpointMetadata(newCheckpointMetadata(checkpoint.JobID, checkpoint.CheckpointID, Savepoint,
		checkpoint.Timestamp, checkpoint.OperatorStates))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, state.MetadataFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A job starts from a savepoint: at a new parallelism, and it never
// deletes the savepoint.
func TestRestoreSavepoint(t *testing.T) {
	job := api.NewJobID()
	dir := writeSavepoint(t, keyedCheckpoint(api.NewJobID(), 4))
	c, log := newRestoreCoordinator(t, job)

	restores, err := c.RestoreSavepoint(filepath.Join(dir, state.MetadataFileName), false, []VertexToRestore{keyedVertexAt(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(restores) != 3 {
		t.Errorf("got %d restores, want 3", len(restores))
	}
	for _, want := range []string{
		fmt.Sprintf("INFO CheckpointCoordinator - Starting job %s from savepoint %s/_metadata ()", job, dir),
		fmt.Sprintf("INFO CheckpointCoordinator - Reset the checkpoint ID of job %s to 15.", job),
		fmt.Sprintf("INFO CheckpointCoordinator - Restoring job %s from Savepoint 14 @ 0 for %s located at %s.", job, job, dir),
	} {
		if !log.contains(want) {
			t.Errorf("no %q in\n%s", want, log)
		}
	}
	if next, _ := c.checkpointIDCounter.Get(); next != 15 {
		t.Errorf("next checkpoint ID %d, want 15", next)
	}
	c.Shutdown(api.JobFinished)
	if _, err := os.Stat(filepath.Join(dir, state.MetadataFileName)); err != nil {
		t.Errorf("the savepoint was deleted: %v", err)
	}
}

func TestRestoreSavepointRefusesWhatDoesNotFit(t *testing.T) {
	dir := writeSavepoint(t, keyedCheckpoint(api.NewJobID(), 2))
	sourceOnly := []VertexToRestore{{JobVertexID: sourceVertex, Parallelism: 2, MaxParallelism: 128, OperatorIDs: []api.OperatorID{sourceOp}}}
	tests := []struct {
		name     string
		vertices []VertexToRestore
		allow    bool
		want     string
	}{
		{"unknown operator", sourceOnly, false, "Failed to rollback to checkpoint/savepoint " + dir + ". Cannot map " +
			"checkpoint/savepoint state for operator " + reduceOp.String() + " to the new program, because the operator " +
			"is not available in the new program. If you want to allow to skip this, you can set the " +
			"--allowNonRestoredState option on the CLI."},
		{"unknown operator allowed", sourceOnly, true, ""},
		{"max parallelism", []VertexToRestore{{JobVertexID: keyedVertex, Parallelism: 2, MaxParallelism: 64,
			OperatorIDs: []api.OperatorID{reduceOp}}}, false, "Failed to rollback to checkpoint/savepoint " + dir +
			". Max parallelism mismatch between checkpoint/savepoint state and new program. Cannot map operator " +
			reduceOp.String() + " with max parallelism 128 to new program with max parallelism 64. This indicates that " +
			"the program has been changed in a non-compatible way after the checkpoint/savepoint."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newRestoreCoordinator(t, api.NewJobID())
			_, err := c.RestoreSavepoint(dir, tt.allow, tt.vertices)
			if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
