package tasks

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
)

// transactionalFileSink writes each record as a line into part files and
// commits them in two phases, so that every record becomes visible
// exactly once, though a failover replays the records emitted since the
// last checkpoint. It is Flink's TwoPhaseCommitSinkFunction with a part
// file as the transaction, committed the way Flink's FileSink commits its
// files (FileWriter writes in-progress files, closes them to pending ones
// at a checkpoint, and FileCommitter renames them into place when the
// checkpoint completes). DataStream.SinkToTransactionalFiles makes it.
//
// # One transaction, three names
//
// A transaction is one part file. The records subtask 1 receives between
// the barriers of checkpoints 7 and 8 go through three names:
//
//	<dir>/.in-progress/part-1-after-7   open: created at the first record after checkpoint 7 (beginTransaction)
//	        │
//	        │ barrier 8: flush, fsync, close, rename (preCommit, in snapshotState)
//	        ▼
//	<dir>/.pending/part-1-8             pre-committed: named in checkpoint 8's state; waits for the checkpoint
//	        │
//	        │ notifyCheckpointComplete(8 or later), or a restore of such a checkpoint (commit, recoverAndCommit)
//	        ▼
//	<dir>/part-1-8                      committed: readers see it, the sink never touches it again
//
// A subtask that received no record between two barriers has no
// transaction for the second, and writes no empty file. At the end of
// the input the last transaction is committed as part-1-end. Readers
// look at dir only: the hidden directories hold what may still vanish
// (Flink hides its in-progress and pending files as ".part-…" files).
//
// Every step is a rename inside one file system, which is atomic: a
// crash leaves the file under its old name or its new one, never half
// moved. Committing is idempotent: a second commit finds the pending
// file gone and the part file there, and does nothing.
//
// # The protocol
//
//	processElement            write the line into the open transaction (beginTransaction first if none is open)
//	snapshotState(n)          preCommit the open transaction as checkpoint n's; the state is the list of
//	                          every pending transaction (Flink: pendingCommitTransactions)
//	notifyCheckpointComplete  commit every pending transaction of a checkpoint ≤ n: a checkpoint that was
//	  (n)                     aborted before n left its transaction pending, and n covers its records
//	notifyCheckpointAborted   nothing: its transaction waits for the next completed checkpoint
//	initializeState(C, …)     take this subtask's share of checkpoint C's pending transactions
//	open                      commit them (C completed, so its transactions must be committed: recoverAndCommit;
//	                          most were committed already), then abort the leftovers (below)
//	endInput                  commit the pending transactions and the open one
//	close                     abort the open transaction: delete its in-progress file (after a failure)
//
// # Leftovers, and another parallelism
//
// The pending transactions are a SPLIT_DISTRIBUTE list (Flink's
// getListState), one element per transaction: at any new parallelism
// each goes to exactly one new subtask, which commits it. When the job
// shrinks from 3 subtasks to 2, the transactions of old subtask 2 are
// committed by new subtask 0 or 1, once.
//
// The leftovers of a failed attempt are in no state: the in-progress
// files, and the pending files of checkpoints after C, which never
// completed. They are found by name, and each has one owner: new subtask
// i of p aborts (deletes) the leftovers of every writer k with
// k % p == i. So every old writer's leftovers are deleted by one new
// subtask, and none deletes a file another new subtask writes, since
// those carry the writer's own index. A pending file of a checkpoint ≤ C
// is no leftover: it is in the restored state of some subtask, and only
// that one may touch it.
//
// A sink that starts without a checkpoint to restore refuses a directory
// that holds part files: the job's checkpoints count from 1 again, and
// its part files would take the earlier run's names.
//
// It belongs to the task's goroutine.
//
// # Differs from Flink
//
//   - The last transaction is committed at the end of the input
//     (endInput). Flink 1.15 and later take a final checkpoint before
//     the tasks finish (FLIP-147) and commit then; here a task that has
//     finished takes no checkpoints. So a failure after a subtask
//     committed its last transaction, and before the job finished,
//     replays records that subtask already committed: exactly once holds
//     until the first sink subtask reaches the end of its input.
//   - One operator does both phases, as TwoPhaseCommitSinkFunction does.
//     Flink's FileSink is a Sink V2: a writer operator (FileWriter)
//     sends FileSinkCommittables to a committer operator (FileCommitter).
//   - A part file never outlives a checkpoint: every barrier closes the
//     open one (Flink's OnCheckpointRollingPolicy). Flink's row-format
//     default (DefaultRollingPolicy) rolls at 128 MB or after 60 s, and
//     keeps writing the in-progress file across checkpoints, resuming it
//     at its checkpointed length (RecoverableWriter) after a restore.
//   - No buckets: every file goes straight into dir (Flink's
//     DateTimeBucketAssigner puts them into yyyy-MM-dd--HH directories).
//   - Names are deterministic, part-<subtask>-<checkpoint>, like the old
//     StreamingFileSink's part-<subtask>-<counter>. Flink's FileSink puts
//     a random UUID in every name (part-<uuid>-<counter>), so that runs
//     never collide; here a fresh start refuses a used directory, and a
//     restore of a checkpoint older than the latest may overwrite the
//     part files of the checkpoints after it. Two attempts of one subtask
//     alive at once (one on a TaskManager that lost its JobManager) would
//     write the same in-progress file; the MiniCluster stops a lost
//     TaskManager's tasks before it deploys new ones.
//   - The transaction open at a checkpoint is not in the state (Flink's
//     TwoPhaseCommitSinkFunction keeps it there, as pendingTransaction,
//     to abort it on restore): every leftover is found by its name.
//   - Commits and aborts after a restore happen in open: initializeState
//     runs only when the task restores a checkpoint, where Flink calls
//     it at every start.
//   - No transaction timeout (Flink's setTransactionTimeout and
//     ignoreFailuresAfterTransactionTimeout): a file transaction never
//     expires. The file is synced before it becomes pending; the
//     directories are not synced after a rename, as Flink's local file
//     system does not either.
//   - Each line is fmt.Sprint(record), where Flink's SimpleStringEncoder
//     writes toString().
type transactionalFileSink struct {
	subtaskShare
	dir string
	// current is the open transaction's file; nil until the first record
	// after a checkpoint.
	current *inProgressFile
	// lastCheckpointID is the last checkpoint this subtask snapshotted or
	// restored; the next in-progress file is named after it.
	lastCheckpointID int64
	// pending are the pre-committed transactions, oldest first (Flink:
	// pendingCommitTransactions). Before open they are the restored ones.
	pending []transaction
	// restored says that the task restores a checkpoint.
	restored bool
	// err is a failed preCommit: the open transaction is in an unknown
	// state, so the task fails with the next record and a restore sorts
	// it out.
	err error
	// w buffers the open transaction's file; it is reused for the next.
	w    *bufio.Writer
	line []byte // reused for every record
}

var (
	_ oneInputStreamOperator = (*transactionalFileSink)(nil)
	_ checkpointedOperator   = (*transactionalFileSink)(nil)
	_ checkpointListener     = (*transactionalFileSink)(nil)
	_ boundedOneInput        = (*transactionalFileSink)(nil)
)

// The hidden directories of the transactions not committed yet.
const (
	inProgressDir = ".in-progress"
	pendingDir    = ".pending"
)

// pendingCommitTransactionsStateName names the sink's list state.
const pendingCommitTransactionsStateName = "pending-commit-transactions"

// endOfInputCheckpointID is the checkpoint of the transaction committed
// at the end of the input: part-<subtask>-end.
const endOfInputCheckpointID int64 = math.MaxInt64

// transaction names a part file: the subtask that wrote it and the
// checkpoint whose barrier closed it.
type transaction struct {
	subtask      int
	checkpointID int64
}

func (t transaction) name() string {
	if t.checkpointID == endOfInputCheckpointID {
		return fmt.Sprintf("part-%d-end", t.subtask)
	}
	return fmt.Sprintf("part-%d-%d", t.subtask, t.checkpointID)
}

// inProgressFile is the open transaction.
type inProgressFile struct {
	path string
	file *os.File
}

func newTransactionalFileSink(dir string, share subtaskShare) *transactionalFileSink {
	return &transactionalFileSink{subtaskShare: share, dir: dir}
}

// open commits the restored pending transactions and aborts this
// subtask's share of the leftovers of earlier attempts (Flink:
// TwoPhaseCommitSinkFunction#initializeState).
func (s *transactionalFileSink) open() error {
	for _, sub := range []string{inProgressDir, pendingDir} {
		if err := os.MkdirAll(filepath.Join(s.dir, sub), 0o755); err != nil {
			return err
		}
	}
	if !s.restored {
		// A fresh start numbers its checkpoints from 1 again: its part
		// files would take the names of an earlier run's.
		parts, err := filepath.Glob(filepath.Join(s.dir, "part-*"))
		if err != nil {
			return err
		}
		if len(parts) > 0 {
			return fmt.Errorf("%s holds part files of an earlier run, such as %s: write each run of a job into a new directory, or restore the run's checkpoint",
				s.dir, filepath.Base(parts[0]))
		}
	}
	// Flink does both in TwoPhaseCommitSinkFunction#initializeState,
	// which runs at every start; here initializeState runs only when the
	// task restores a checkpoint, so open does it.
	for _, txn := range s.pending {
		if err := s.commit(txn); err != nil {
			return fmt.Errorf("recoverAndCommit: %w", err)
		}
	}
	s.pending = nil
	return s.abortLeftovers()
}

func (s *transactionalFileSink) processElement(record any) error {
	if s.err != nil {
		return s.err
	}
	if s.current == nil {
		if err := s.beginTransaction(); err != nil {
			return err
		}
	}
	s.line = fmt.Append(s.line[:0], record)
	s.line = append(s.line, '\n')
	_, err := s.w.Write(s.line)
	return err
}

// snapshotState pre-commits the open transaction as checkpoint
// checkpointID's and returns every pending transaction as the state.
func (s *transactionalFileSink) snapshotState(checkpointID int64) (operatorSnapshot, error) {
	if s.err != nil {
		return operatorSnapshot{}, s.err
	}
	if s.current != nil {
		// Step k4, the sink's part: the records before the barrier
		// become checkpoint checkpointID's pending transaction.
		txn := transaction{subtask: s.subtaskIndex, checkpointID: checkpointID}
		if err := s.preCommit(txn); err != nil {
			s.err = fmt.Errorf("preCommit %s: %w", txn.name(), err)
			return operatorSnapshot{}, s.err
		}
		s.pending = append(s.pending, txn)
	}
	s.lastCheckpointID = checkpointID
	elements := make([][]byte, len(s.pending))
	for i, txn := range s.pending {
		elements[i] = binary.AppendVarint(binary.AppendUvarint(nil, uint64(txn.subtask)), txn.checkpointID)
	}
	return operatorSnapshot{lists: map[string]listStateSnapshot{
		pendingCommitTransactionsStateName: {mode: state.SplitDistribute, elements: elements},
	}}, nil
}

// initializeState keeps this subtask's share of the restored pending
// transactions; open commits them.
func (s *transactionalFileSink) initializeState(restoredCheckpointID int64, restored checkpoint.OperatorSubtaskState) error {
	s.restored = true
	s.lastCheckpointID = restoredCheckpointID
	for _, h := range restored.ManagedOperatorState {
		elements, err := h.Elements(pendingCommitTransactionsStateName)
		if err != nil {
			return fmt.Errorf("cannot restore the pending transactions: %w", err)
		}
		for _, element := range elements {
			subtask, n1 := binary.Uvarint(element)
			var checkpointID int64
			n2 := 0
			if n1 > 0 {
				checkpointID, n2 = binary.Varint(element[n1:])
			}
			if n1 <= 0 || n2 <= 0 || subtask > math.MaxInt32 || checkpointID > restoredCheckpointID {
				return fmt.Errorf("corrupt pending transaction in checkpoint %d", restoredCheckpointID)
			}
			s.pending = append(s.pending, transaction{subtask: int(subtask), checkpointID: checkpointID})
		}
	}
	return nil
}

// notifyCheckpointComplete commits every pending transaction of a
// checkpoint up to checkpointID (Flink's comment there lists why there
// may be several).
func (s *transactionalFileSink) notifyCheckpointComplete(checkpointID int64) error {
	// Step k7: the checkpoint completed; what came before its barrier
	// becomes visible.
	committed := 0
	for _, txn := range s.pending {
		if txn.checkpointID > checkpointID {
			break
		}
		if err := s.commit(txn); err != nil {
			return err
		}
		committed++
	}
	s.pending = s.pending[committed:]
	return nil
}

// notifyCheckpointAborted does nothing, as in Flink: the aborted
// checkpoint's transaction stays pending until a later checkpoint
// completes, or a restore aborts it.
func (s *transactionalFileSink) notifyCheckpointAborted(int64) error { return nil }

// endInput commits everything: the pending transactions and the open one.
func (s *transactionalFileSink) endInput() error {
	if s.err != nil {
		return s.err
	}
	if s.current != nil {
		txn := transaction{subtask: s.subtaskIndex, checkpointID: endOfInputCheckpointID}
		if err := s.preCommit(txn); err != nil {
			return err
		}
		s.pending = append(s.pending, txn)
	}
	return s.notifyCheckpointComplete(endOfInputCheckpointID)
}

// close aborts the open transaction, if any: after endInput none is
// open, after a failure its records will be replayed.
func (s *transactionalFileSink) close() error {
	if s.current == nil {
		return nil
	}
	current := s.current
	s.current = nil
	return errors.Join(current.file.Close(), removeIfExists(current.path))
}

// beginTransaction opens an in-progress file named after the last
// checkpoint (Flink: beginTransaction).
func (s *transactionalFileSink) beginTransaction() error {
	name := fmt.Sprintf("part-%d-after-%d", s.subtaskIndex, s.lastCheckpointID)
	path := filepath.Join(s.dir, inProgressDir, name)
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	s.current = &inProgressFile{path: path, file: file}
	if s.w == nil {
		s.w = bufio.NewWriterSize(file, 64<<10)
	} else {
		s.w.Reset(file)
	}
	return nil
}

// preCommit makes the open transaction durable and moves it to its
// pending name (Flink: preCommit; FileSink's
// InProgressFileWriter#closeForCommit, which also syncs the file).
func (s *transactionalFileSink) preCommit(txn transaction) error {
	current := s.current
	s.current = nil
	if err := s.w.Flush(); err != nil {
		return errors.Join(err, current.file.Close())
	}
	if err := current.file.Sync(); err != nil {
		return errors.Join(err, current.file.Close())
	}
	if err := current.file.Close(); err != nil {
		return err
	}
	return os.Rename(current.path, filepath.Join(s.dir, pendingDir, txn.name()))
}

// commit renames a pending transaction into place. A transaction
// committed before is not committed again, and one that is neither
// pending nor committed is an error: its records are lost (Flink:
// commit, and for a restored one recoverAndCommit; FileSink's committer
// of local files, LocalCommitter#commitAfterRecovery, skips a file
// committed before, and leaves the case of neither file as a TODO).
func (s *transactionalFileSink) commit(txn transaction) error {
	// Step k7, the sink's part: one rename makes the transaction's
	// records visible, all at once.
	committed := filepath.Join(s.dir, txn.name())
	err := os.Rename(filepath.Join(s.dir, pendingDir, txn.name()), committed)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, statErr := os.Stat(committed); statErr == nil {
		return nil // committed before
	}
	return fmt.Errorf("cannot commit transaction %s of checkpoint %d: it is neither pending nor committed in %s",
		txn.name(), txn.checkpointID, s.dir)
}

// abortLeftovers deletes the in-progress files of this subtask's writers,
// and their pending files of checkpoints after the restored one (Flink:
// recoverAndAbort of the transaction open at the checkpoint).
func (s *transactionalFileSink) abortLeftovers() error {
	for _, sub := range []string{inProgressDir, pendingDir} {
		entries, err := os.ReadDir(filepath.Join(s.dir, sub))
		if err != nil {
			return err
		}
		for _, e := range entries {
			writer, checkpointID, ok := parsePartName(e.Name())
			if !ok || writer%s.parallelism != s.subtaskIndex {
				continue // not a part file, or another subtask's to abort
			}
			// At open, lastCheckpointID is the restored checkpoint's (0: none).
			if sub == pendingDir && checkpointID <= s.lastCheckpointID {
				continue // in the restored checkpoint's state: committed by whoever holds it
			}
			if err := removeIfExists(filepath.Join(s.dir, sub, e.Name())); err != nil {
				return fmt.Errorf("recoverAndAbort: %w", err)
			}
		}
	}
	return nil
}

// parsePartName reads the writer's subtask and the checkpoint from
// part-<subtask>-<checkpoint>, part-<subtask>-end and (without a
// checkpoint) part-<subtask>-after-<checkpoint>.
func parsePartName(name string) (subtask int, checkpointID int64, ok bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, 0, false
	}
	index, rest, ok := strings.Cut(rest, "-")
	subtask, err := strconv.Atoi(index)
	if !ok || err != nil || subtask < 0 {
		return 0, 0, false
	}
	switch {
	case rest == "end":
		return subtask, endOfInputCheckpointID, true
	case strings.HasPrefix(rest, "after-"):
		return subtask, 0, true
	}
	checkpointID, err = strconv.ParseInt(rest, 10, 64)
	return subtask, checkpointID, err == nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
