package checkpoint

import (
	"errors"

	"flinklab/runtime/api"
)

// ErrCheckpointStoreShutdown is returned by a CompletedCheckpointStore that
// was shut down (Flink's message).
var ErrCheckpointStoreShutdown = errors.New("Checkpoint store has already been shutdown.")

// CompletedCheckpointStore keeps a job's latest completed checkpoints, the
// ones it can restart from (Flink's CompletedCheckpointStore).
//
// The store keeps the list and, in a highly available setup, the pointers
// to the checkpoints where a new JobManager finds them (ZooKeeper:
// /jobs/<job id>/checkpoints/<id>, one node per checkpoint). It never
// deletes a checkpoint's state itself: it hands the checkpoints it lets go
// back to the CheckpointCoordinator, which deletes those its properties
// say to delete (Flink's CheckpointsCleaner). A ZooKeeper-backed store
// adds and removes its nodes in AddCheckpointAndSubsumeOldestOne and
// Shutdown, and recovers the list when it is created.
//
// Only the CheckpointCoordinator's goroutine calls a store.
type CompletedCheckpointStore interface {
	// AddCheckpointAndSubsumeOldestOne adds checkpoint as the latest and,
	// when more than the maximum are kept, lets go of the oldest. It
	// returns the checkpoints it let go of (subsumed), oldest first. An
	// error means checkpoint was not added.
	AddCheckpointAndSubsumeOldestOne(checkpoint *CompletedCheckpoint) (subsumed []*CompletedCheckpoint, err error)
	// GetLatestCheckpoint returns the newest checkpoint, nil if none.
	GetLatestCheckpoint() *CompletedCheckpoint
	// GetAllCheckpoints returns the checkpoints, oldest first.
	GetAllCheckpoints() []*CompletedCheckpoint
	// GetNumberOfRetainedCheckpoints returns how many are kept now.
	GetNumberOfRetainedCheckpoints() int
	// GetMaxNumberOfRetainedCheckpoints returns how many are kept at most.
	GetMaxNumberOfRetainedCheckpoints() int
	// RequiresExternalizedCheckpoints reports whether the store keeps
	// only pointers, so that checkpoints must be in files (true for
	// ZooKeeper).
	RequiresExternalizedCheckpoints() bool
	// Shutdown empties the store once its job ended in jobStatus: it calls
	// discard with each checkpoint that ShouldBeDiscardedOnShutdown and
	// lets go of the others. A highly available store removes its nodes
	// only when jobStatus is globally terminal; when SUSPENDED it keeps
	// everything for the next JobManager.
	Shutdown(jobStatus api.JobStatus, discard func(*CompletedCheckpoint)) error
}

// StandaloneCompletedCheckpointStore keeps the checkpoints in memory
// (Flink's StandaloneCompletedCheckpointStore, for a JobManager without
// high availability). A new JobManager starts with no checkpoint.
type StandaloneCompletedCheckpointStore struct {
	maxNumberOfCheckpointsToRetain int
	checkpoints                    []*CompletedCheckpoint // oldest first
	shutdown                       bool
}

var _ CompletedCheckpointStore = (*StandaloneCompletedCheckpointStore)(nil)

// NewStandaloneCompletedCheckpointStore returns an empty store that keeps
// at most maxRetained checkpoints; less than 1 keeps 1.
func NewStandaloneCompletedCheckpointStore(maxRetained int) CompletedCheckpointStore {
	return &StandaloneCompletedCheckpointStore{maxNumberOfCheckpointsToRetain: max(maxRetained, 1)}
}

// AddCheckpointAndSubsumeOldestOne adds checkpoint and subsumes the oldest
// ones beyond the maximum.
func (s *StandaloneCompletedCheckpointStore) AddCheckpointAndSubsumeOldestOne(checkpoint *CompletedCheckpoint) ([]*CompletedCheckpoint, error) {
	if s.shutdown {
		return nil, ErrCheckpointStoreShutdown
	}
	s.checkpoints = append(s.checkpoints, checkpoint)
	var subsumed []*CompletedCheckpoint
	s.checkpoints, subsumed = subsume(s.checkpoints, s.maxNumberOfCheckpointsToRetain)
	return subsumed, nil
}

// GetLatestCheckpoint returns the newest checkpoint, nil if none.
func (s *StandaloneCompletedCheckpointStore) GetLatestCheckpoint() *CompletedCheckpoint {
	if len(s.checkpoints) == 0 {
		return nil
	}
	return s.checkpoints[len(s.checkpoints)-1]
}

// GetAllCheckpoints returns the checkpoints, oldest first.
func (s *StandaloneCompletedCheckpointStore) GetAllCheckpoints() []*CompletedCheckpoint {
	return append([]*CompletedCheckpoint(nil), s.checkpoints...)
}

// GetNumberOfRetainedCheckpoints returns how many are kept now.
func (s *StandaloneCompletedCheckpointStore) GetNumberOfRetainedCheckpoints() int {
	return len(s.checkpoints)
}

// GetMaxNumberOfRetainedCheckpoints returns how many are kept at most.
func (s *StandaloneCompletedCheckpointStore) GetMaxNumberOfRetainedCheckpoints() int {
	return s.maxNumberOfCheckpointsToRetain
}

// RequiresExternalizedCheckpoints is false: the store keeps the whole
// checkpoints.
func (s *StandaloneCompletedCheckpointStore) RequiresExternalizedCheckpoints() bool { return false }

// Shutdown discards the checkpoints its job's end calls for, whatever the
// end: without high availability, no one resumes a SUSPENDED job from
// this store.
func (s *StandaloneCompletedCheckpointStore) Shutdown(jobStatus api.JobStatus, discard func(*CompletedCheckpoint)) error {
	if s.shutdown {
		return nil
	}
	s.shutdown = true
	for _, c := range s.checkpoints {
		if c.ShouldBeDiscardedOnShutdown(jobStatus) {
			discard(c)
		}
	}
	s.checkpoints = nil
	return nil
}

// subsume drops the oldest checkpoints until at most numRetain are left
// and returns what is left and what was dropped (Flink's
// CheckpointSubsumeHelper). The latest is never dropped; a savepoint
// always may be; a checkpoint only while a newer checkpoint, not a
// savepoint, is kept, so that the job never depends on a savepoint the
// user may delete.
func subsume(checkpoints []*CompletedCheckpoint, numRetain int) (kept, subsumed []*CompletedCheckpoint) {
	if len(checkpoints) <= numRetain {
		return checkpoints, nil
	}
	latest := checkpoints[len(checkpoints)-1]
	latestNotSavepoint := latestNotSavepoint(checkpoints)
	excess := len(checkpoints) - numRetain
	for _, c := range checkpoints {
		canSubsume := c != latest && (c.Properties.IsSavepoint() || (latestNotSavepoint != nil && latestNotSavepoint != c))
		if excess > 0 && canSubsume {
			subsumed = append(subsumed, c)
			excess--
			continue
		}
		kept = append(kept, c)
	}
	return kept, subsumed
}

func latestNotSavepoint(checkpoints []*CompletedCheckpoint) *CompletedCheckpoint {
	for i := len(checkpoints) - 1; i >= 0; i-- {
		if !checkpoints[i].Properties.IsSavepoint() {
			return checkpoints[i]
		}
	}
	return nil
}
