package tasks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
)

// One transaction through its three names: the records wait in an
// in-progress file, checkpoint 1's barrier makes it pending, and only its
// completion makes it a part file a reader sees. Hearing of the
// completion twice changes nothing.
func TestATransactionIsCommittedWhenItsCheckpointCompletes(t *testing.T) {
	dir := t.TempDir()
	s := openSink(t, dir, 0, 1, 0, nil)
	write(t, s, "a", "b")
	assert.Equal(t, []string{".in-progress/part-0-after-0"}, filesIn(t, dir), "open: in progress")

	snapshotSink(t, s, 1)
	assert.Equal(t, []string{".pending/part-0-1"}, filesIn(t, dir), "pre-committed by the barrier")
	assert.Empty(t, committedLines(t, dir), "nothing is visible before the checkpoint completes")

	write(t, s, "c")
	require.NoError(t, s.notifyCheckpointComplete(1))
	assert.Equal(t, []string{".in-progress/part-0-after-1", "part-0-1"}, filesIn(t, dir))
	assert.Equal(t, []string{"a", "b"}, committedLines(t, dir), "checkpoint 1 covers a and b, not c")

	require.NoError(t, s.notifyCheckpointComplete(1), "a second notification")
	require.NoError(t, s.notifyCheckpointAborted(2))
	assert.Equal(t, []string{"a", "b"}, committedLines(t, dir))
}

// A checkpoint that was aborted leaves its transaction pending; the next
// checkpoint to complete covers its records, and commits both.
func TestTheNextCompletedCheckpointCommitsTheTransactionOfAnAbortedOne(t *testing.T) {
	dir := t.TempDir()
	s := openSink(t, dir, 0, 1, 0, nil)
	write(t, s, "a")
	snapshotSink(t, s, 1)
	require.NoError(t, s.notifyCheckpointAborted(1))
	snapshotSink(t, s, 2) // no record since checkpoint 1: no transaction, no empty file
	write(t, s, "b")
	snapshotSink(t, s, 3)
	assert.Equal(t, []string{".pending/part-0-1", ".pending/part-0-3"}, filesIn(t, dir))

	require.NoError(t, s.notifyCheckpointComplete(3))
	assert.Equal(t, []string{"part-0-1", "part-0-3"}, filesIn(t, dir))
	assert.Equal(t, []string{"a", "b"}, committedLines(t, dir))
}

// The task dies after checkpoint 1's barrier and before it hears that
// the checkpoint completed; it had also written records after the barrier
// and pre-committed them for checkpoint 2, which never completed. The
// restored subtask commits checkpoint 1's transaction (recoverAndCommit)
// and deletes the rest (recoverAndAbort): the replay will write those
// records again.
func TestARestoreCommitsTheRestoredCheckpointAndAbortsTheRest(t *testing.T) {
	dir := t.TempDir()
	s := openSink(t, dir, 0, 1, 0, nil)
	write(t, s, "a", "b")
	restored := snapshotSink(t, s, 1)
	write(t, s, "c")
	snapshotSink(t, s, 2)
	write(t, s, "d") // the task dies here: no close
	assert.Equal(t, []string{".in-progress/part-0-after-2", ".pending/part-0-1", ".pending/part-0-2"}, filesIn(t, dir))

	again := openSink(t, dir, 0, 1, 1, restored)
	assert.Equal(t, []string{"part-0-1"}, filesIn(t, dir))
	assert.Equal(t, []string{"a", "b"}, committedLines(t, dir))

	// Checkpoint 1 completes once more for the restored subtask (its
	// notification was lost): harmless.
	require.NoError(t, again.notifyCheckpointComplete(1))
	write(t, again, "c", "d")
	require.NoError(t, again.endInput())
	require.NoError(t, again.close())
	assert.Equal(t, []string{"part-0-1", "part-0-end"}, filesIn(t, dir))
	assert.Equal(t, []string{"a", "b", "c", "d"}, committedLines(t, dir))
}

// A restore of a checkpoint whose transaction was committed before
// commits nothing twice; a transaction that is neither pending nor
// committed is lost data, and fails the restore (as Flink's
// recoverAndCommit does).
func TestARestoredTransactionIsCommittedOnce(t *testing.T) {
	dir := t.TempDir()
	s := openSink(t, dir, 0, 1, 0, nil)
	write(t, s, "a")
	restored := snapshotSink(t, s, 1)
	require.NoError(t, s.notifyCheckpointComplete(1))

	openSink(t, dir, 0, 1, 1, restored)
	openSink(t, dir, 0, 1, 1, restored)
	assert.Equal(t, []string{"a"}, committedLines(t, dir))

	require.NoError(t, os.Remove(filepath.Join(dir, "part-0-1")))
	lost := newTransactionalFileSink(dir, subtaskShare{0, 1})
	require.NoError(t, lost.initializeState(1, checkpoint.OperatorSubtaskState{ManagedOperatorState: restored}))
	assert.ErrorContains(t, lost.open(), "cannot commit transaction part-0-1 of checkpoint 1: it is neither pending nor committed")
}

// Without checkpoints nothing is visible until the input ends; a sink
// that fails before it ends leaves nothing behind. A second run from
// scratch into the same directory is refused: its part files would take
// the first run's names.
func TestWithoutCheckpointsTheSinkCommitsAtTheEndOfInput(t *testing.T) {
	dir := t.TempDir()
	s := openSink(t, dir, 1, 2, 0, nil)
	write(t, s, "a", "b")
	assert.Empty(t, committedLines(t, dir))
	require.NoError(t, s.endInput())
	require.NoError(t, s.close())
	assert.Equal(t, []string{"part-1-end"}, filesIn(t, dir))
	assert.Equal(t, []string{"a", "b"}, committedLines(t, dir))

	again := newTransactionalFileSink(dir, subtaskShare{0, 2})
	assert.ErrorContains(t, again.open(), "holds part files of an earlier run, such as part-1-end: write each run of a job into a new directory",
		"a fresh start would reuse the names")

	failed := t.TempDir()
	s = openSink(t, failed, 0, 1, 0, nil)
	write(t, s, "a")
	require.NoError(t, s.close())
	assert.Empty(t, filesIn(t, failed), "close aborts the open transaction")
}

// Three subtasks checkpoint twice; checkpoint 2 completes, but only
// subtask 0 hears of it before they all die, so the others' transactions
// of checkpoints 1 and 2 are still pending; each subtask also left an
// in-progress file. Checkpoint 2's state names all six transactions
// (subtask 0 committed its own after the barrier). Restored at 1, 2, 4
// or 5 subtasks, the transactions are split among the new ones
// (SPLIT_DISTRIBUTE): each goes to exactly one of them and is committed,
// once, and every leftover is deleted.
func TestARestoreAtAnotherParallelismCommitsEveryPendingTransactionOnce(t *testing.T) {
	for _, parallelism := range []int{1, 2, 4, 5} {
		t.Run(fmt.Sprint(parallelism), func(t *testing.T) {
			dir := t.TempDir()
			var old [][]state.OperatorStateHandle
			var want []string
			sinks := []*transactionalFileSink{openSink(t, dir, 0, 3, 0, nil), openSink(t, dir, 1, 3, 0, nil), openSink(t, dir, 2, 3, 0, nil)}
			for subtask, s := range sinks {
				for checkpointID := int64(1); checkpointID <= 2; checkpointID++ {
					line := fmt.Sprintf("subtask %d before barrier %d", subtask, checkpointID)
					write(t, s, line)
					want = append(want, line)
					handles := snapshotSink(t, s, checkpointID)
					if checkpointID == 2 {
						old = append(old, handles)
					}
				}
				if subtask == 0 {
					require.NoError(t, s.notifyCheckpointComplete(2))
				}
				write(t, s, fmt.Sprintf("subtask %d after the checkpoint", subtask))
			}

			restoredBy := map[transaction][]int{}
			for i, share := range splitDistribute(old, parallelism) {
				s := newTransactionalFileSink(dir, subtaskShare{i, parallelism})
				require.NoError(t, s.initializeState(2, checkpoint.OperatorSubtaskState{ManagedOperatorState: share}))
				for _, txn := range s.pending {
					restoredBy[txn] = append(restoredBy[txn], i)
				}
				require.NoError(t, s.open())
			}
			assert.Len(t, restoredBy, 6, "every transaction of checkpoints 1 and 2")
			for txn, subtasks := range restoredBy {
				assert.Len(t, subtasks, 1, "%s goes to one new subtask", txn.name())
			}
			assert.Equal(t, []string{"part-0-1", "part-0-2", "part-1-1", "part-1-2", "part-2-1", "part-2-2"}, filesIn(t, dir))
			slices.Sort(want)
			assert.Equal(t, want, committedLines(t, dir))
		})
	}
}

// Part file names, and the names that are not part files.
func TestParsePartName(t *testing.T) {
	tests := []struct {
		name         string
		subtask      int
		checkpointID int64
		ok           bool
	}{
		{"part-3-17", 3, 17, true},
		{"part-0-end", 0, endOfInputCheckpointID, true},
		{"part-2-after-5", 2, 0, true},
		{"part-x-1", 0, 0, false},
		{"part-1", 0, 0, false},
		{"part-1-", 0, 0, false},
		{"_SUCCESS", 0, 0, false},
	}
	for _, tt := range tests {
		subtask, checkpointID, ok := parsePartName(tt.name)
		assert.Equal(t, tt.ok, ok, tt.name)
		if tt.ok {
			assert.Equal(t, tt.subtask, subtask, tt.name)
			assert.Equal(t, tt.checkpointID, checkpointID, tt.name)
		}
	}
}

// openSink makes and opens subtask i of p, restored from checkpointID's
// handles when there are any.
func openSink(t *testing.T, dir string, subtask, parallelism int, checkpointID int64, handles []state.OperatorStateHandle) *transactionalFileSink {
	t.Helper()
	s := newTransactionalFileSink(dir, subtaskShare{subtask, parallelism})
	if handles != nil {
		require.NoError(t, s.initializeState(checkpointID, checkpoint.OperatorSubtaskState{ManagedOperatorState: handles}))
	}
	require.NoError(t, s.open())
	return s
}

func write(t *testing.T, s *transactionalFileSink, records ...string) {
	t.Helper()
	for _, r := range records {
		require.NoError(t, s.processElement(r))
	}
}

// snapshotSink takes the sink's part of a checkpoint and returns the
// handles a restore gets back, kept in memory.
func snapshotSink(t *testing.T, s *transactionalFileSink, checkpointID int64) []state.OperatorStateHandle {
	t.Helper()
	snapshot, err := s.snapshotState(checkpointID)
	require.NoError(t, err)
	written, err := writeSnapshot(state.CheckpointStorageLocation{}, snapshot)
	require.NoError(t, err)
	return written.ManagedOperatorState
}

// splitDistribute hands the elements of the old subtasks' lists to
// parallelism new subtasks in runs of consecutive elements, as the
// CheckpointCoordinator's RoundRobinOperatorStateRepartitioner does.
func splitDistribute(old [][]state.OperatorStateHandle, parallelism int) [][]state.OperatorStateHandle {
	type element struct {
		handle state.OperatorStateHandle
		offset int64
	}
	var all []element
	for _, handles := range old {
		for _, h := range handles {
			for _, offset := range h.StateNameToPartitionOffsets[pendingCommitTransactionsStateName].Offsets {
				all = append(all, element{h, offset})
			}
		}
	}
	shares := make([][]state.OperatorStateHandle, parallelism)
	next := 0
	for i := range parallelism {
		n := len(all) / parallelism
		if i < len(all)%parallelism {
			n++
		}
		for _, e := range all[next : next+n] {
			shares[i] = append(shares[i], state.OperatorStateHandle{
				StateNameToPartitionOffsets: map[string]state.StateMetaInfo{pendingCommitTransactionsStateName: {
					Offsets: []int64{e.offset}, DistributionMode: state.SplitDistribute}},
				Delegate: e.handle.Delegate,
			})
		}
		next += n
	}
	return shares
}

// filesIn lists every file under dir, by its path relative to dir.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	}))
	return files
}

// committedLines returns the lines of every committed part file, sorted:
// what a reader of dir sees.
func committedLines(t testing.TB, dir string) []string {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	require.NoError(t, err)
	var lines []string
	for _, part := range parts {
		data, err := os.ReadFile(part)
		require.NoError(t, err)
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	slices.Sort(lines)
	return lines
}
