package zookeeper

import (
	"fmt"
	"log/slog"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// CompletedCheckpointStore keeps a job's completed checkpoints where the
// next JobManager finds them (Flink's DefaultCompletedCheckpointStore over
// a ZooKeeperStateHandleStore): each checkpoint in a file of the HA
// storage directory, and in ZooKeeper a node per checkpoint, named by its
// ID, that points at the file:
//
//	/flink/default/jobs/<jobid>/checkpoints/0000000000000000007                {"path": "<storageDir>/default/completedCheckpoint9c2e…"}
//	/flink/default/jobs/<jobid>/checkpoints/0000000000000000007/locks/<uuid>   EPHEMERAL: the JobMaster's store that holds it
//
// The file holds the checkpoint's _metadata and its properties, so that it
// survives a JobManager also when the checkpoint itself lives nowhere but
// in the JobManager's memory (no state.checkpoints.dir: its state is
// inline in the file).
//
// ZooKeeper is the truth, and the store keeps a copy of its list in
// memory: NewCompletedCheckpointStore reads every node once (a JobMaster
// that takes over resumes from the latest), AddCheckpointAndSubsumeOldestOne
// writes the file and the node before it keeps the checkpoint, and lets go
// of the oldest once more than the maximum are kept: their nodes and
// files are removed (unless another JobMaster still holds a lock on one),
// and the CheckpointCoordinator then deletes the checkpoints' own files.
//
// Only the CheckpointCoordinator's goroutine, the JobMaster's main thread,
// calls a store.
type CompletedCheckpointStore struct {
	maxNumberOfCheckpointsToRetain int
	checkpointStateHandleStore     *StateHandleStore
	client                         *Client
	jobPath                        string                            // jobs/<jobid>, relative to the namespace
	completedCheckpoints           []*checkpoint.CompletedCheckpoint // oldest first
	shutdown                       bool
	log                            *slog.Logger
}

var _ checkpoint.CompletedCheckpointStore = (*CompletedCheckpointStore)(nil)

// checkpointsPath is the node of a job's checkpoints under jobs/<jobid>
// (Flink: ZooKeeperUtils#getCheckpointsPath).
const checkpointsPath = "/checkpoints"

// NewCompletedCheckpointStore returns the store of jobID's completed
// checkpoints, with every checkpoint ZooKeeper holds for the job already
// in it, oldest first, and locked for this store (Flink:
// ZooKeeperUtils#createCompletedCheckpoints, which recovers them with
// DefaultCompletedCheckpointStoreUtils#retrieveCompletedCheckpoints).
// storageDir is <high-availability.storageDir>/<cluster-id>.
//
// A node whose data is no state handle is left out, with a WARN. A
// checkpoint whose file cannot be read fails the store, as in Flink: the
// job must not quietly start from an older checkpoint than the one it
// committed last.
func NewCompletedCheckpointStore(client *Client, storageDir string, jobID api.JobID, maxNumberOfCheckpointsToRetain int,
	logger *slog.Logger) (*CompletedCheckpointStore, error) {
	if logger == nil {
		logger = slog.Default()
	}
	jobPath := jobsPath + "/" + jobID.String()
	handles, err := NewStateHandleStore(client, jobPath+checkpointsPath, storageDir, completedCheckpointFilePrefix, logger)
	if err != nil {
		return nil, err
	}
	recovered, err := retrieveCompletedCheckpoints(handles, logger.With("logger", "DefaultCompletedCheckpointStoreUtils"))
	if err != nil {
		_ = handles.ReleaseAll() // whoever tries next must be able to remove them
		return nil, err
	}
	s := &CompletedCheckpointStore{
		maxNumberOfCheckpointsToRetain: max(maxNumberOfCheckpointsToRetain, 1),
		checkpointStateHandleStore:     handles,
		client:                         client,
		jobPath:                        jobPath,
		completedCheckpoints:           recovered,
		log:                            logger.With("logger", "DefaultCompletedCheckpointStore"),
	}
	logger.With("logger", "ZooKeeperUtils").Info(fmt.Sprintf("Initialized DefaultCompletedCheckpointStore in '%s' with %s.",
		handles, checkpointsPath))
	return s, nil
}

// retrieveCompletedCheckpoints reads every checkpoint of the store,
// sorted by name and so by ID, and locks each for this process (Flink:
// DefaultCompletedCheckpointStoreUtils#retrieveCompletedCheckpoints).
func retrieveCompletedCheckpoints(handles *StateHandleStore, log *slog.Logger) ([]*checkpoint.CompletedCheckpoint, error) {
	log.Info(fmt.Sprintf("Recovering checkpoints from %s.", handles))
	initialCheckpoints, err := handles.GetAllAndLock()
	if err != nil {
		return nil, err
	}
	log.Info(fmt.Sprintf("Found %d checkpoints in %s.", len(initialCheckpoints), handles))
	log.Info(fmt.Sprintf("Trying to fetch %d checkpoints from storage.", len(initialCheckpoints)))
	retrieved := make([]*checkpoint.CompletedCheckpoint, 0, len(initialCheckpoints))
	for _, h := range initialCheckpoints {
		checkpointID, ok := nameToCheckpointID(h.Name)
		if !ok {
			log.Warn(fmt.Sprintf("Could not parse checkpoint id from %s. This indicates that the checkpoint id to path conversion has changed.", h.Name))
		}
		log.Info(fmt.Sprintf("Trying to retrieve checkpoint %d.", checkpointID))
		c, err := retrieveCompletedCheckpoint(h.Handle)
		if err != nil {
			return nil, fmt.Errorf("Could not retrieve checkpoint %d from state handle under /%s. This indicates that the "+
				"retrieved state handle is broken. Try cleaning the state handle store.: %w", checkpointID, h.Name, err)
		}
		retrieved = append(retrieved, c)
	}
	return retrieved, nil
}

func retrieveCompletedCheckpoint(handle RetrievableStateHandle) (*checkpoint.CompletedCheckpoint, error) {
	data, err := handle.RetrieveState()
	if err != nil {
		return nil, err
	}
	return decodeCompletedCheckpoint(data)
}

// AddCheckpointAndSubsumeOldestOne writes c to a file of the HA storage
// directory and its node to ZooKeeper, then keeps it as the latest. If
// that fails, c is not added and the store is as it was. Then the oldest
// checkpoints beyond the maximum are subsumed: each one's node and file
// are removed, and it is returned for the coordinator to delete; one that
// another JobMaster still holds a lock on is only forgotten (Flink:
// DefaultCompletedCheckpointStore#addCheckpointAndSubsumeOldestOne).
func (s *CompletedCheckpointStore) AddCheckpointAndSubsumeOldestOne(c *checkpoint.CompletedCheckpoint) ([]*checkpoint.CompletedCheckpoint, error) {
	if s.shutdown {
		return nil, checkpoint.ErrCheckpointStoreShutdown
	}
	name := checkpointIDToName(c.CheckpointID)
	data, err := encodeCompletedCheckpoint(c)
	if err != nil {
		return nil, err
	}
	// Now add the new one. If it fails, we don't want to lose existing data.
	if err := s.checkpointStateHandleStore.AddAndLock(name, data); err != nil {
		return nil, err
	}
	s.completedCheckpoints = append(s.completedCheckpoints, c)

	var kept, subsumed, removed []*checkpoint.CompletedCheckpoint
	kept, subsumed = subsume(s.completedCheckpoints, s.maxNumberOfCheckpointsToRetain)
	s.completedCheckpoints = kept
	for _, old := range subsumed {
		ok, err := s.tryRemove(old.CheckpointID)
		if err != nil {
			s.log.Warn("Fail to subsume the old checkpoint.", "cause", err.Error())
			continue
		}
		if ok {
			removed = append(removed, old)
		}
	}
	s.log.Debug(fmt.Sprintf("Added %s to /%s.", c, name))
	return removed, nil
}

// tryRemove removes a checkpoint's node and file, unless another
// JobMaster's store still holds a lock on it.
func (s *CompletedCheckpointStore) tryRemove(checkpointID int64) (bool, error) {
	return s.checkpointStateHandleStore.ReleaseAndTryRemove(checkpointIDToName(checkpointID))
}

// GetLatestCheckpoint returns the newest checkpoint, nil if none.
func (s *CompletedCheckpointStore) GetLatestCheckpoint() *checkpoint.CompletedCheckpoint {
	if len(s.completedCheckpoints) == 0 {
		return nil
	}
	return s.completedCheckpoints[len(s.completedCheckpoints)-1]
}

// GetAllCheckpoints returns the checkpoints, oldest first.
func (s *CompletedCheckpointStore) GetAllCheckpoints() []*checkpoint.CompletedCheckpoint {
	return append([]*checkpoint.CompletedCheckpoint(nil), s.completedCheckpoints...)
}

// GetNumberOfRetainedCheckpoints returns how many are kept now.
func (s *CompletedCheckpointStore) GetNumberOfRetainedCheckpoints() int {
	return len(s.completedCheckpoints)
}

// GetMaxNumberOfRetainedCheckpoints returns how many are kept at most.
func (s *CompletedCheckpointStore) GetMaxNumberOfRetainedCheckpoints() int {
	return s.maxNumberOfCheckpointsToRetain
}

// RequiresExternalizedCheckpoints is true: ZooKeeper holds pointers only,
// the checkpoints must be in files.
func (s *CompletedCheckpointStore) RequiresExternalizedCheckpoints() bool { return true }

// Shutdown ends the store once its job ended in jobStatus (Flink:
// DefaultCompletedCheckpointStore#shutdown).
//
// A globally terminal job ("Shutting down") needs its checkpoints no
// more: each node and file is removed, and discard is called with each
// checkpoint its properties say to delete; then the job's checkpoints
// node goes with whatever is left under it. A SUSPENDED job
// ("Suspending") is the next JobManager's to run: the store only lets go
// of its locks, and every node, file and checkpoint stays.
func (s *CompletedCheckpointStore) Shutdown(jobStatus api.JobStatus, discard func(*checkpoint.CompletedCheckpoint)) error {
	if s.shutdown {
		return nil
	}
	s.shutdown = true
	if !jobStatus.IsGloballyTerminalState() {
		s.log.Info("Suspending")
		s.completedCheckpoints = nil
		return s.checkpointStateHandleStore.ReleaseAll()
	}
	s.log.Info("Shutting down")
	for _, c := range s.completedCheckpoints {
		removed, err := s.tryRemove(c.CheckpointID)
		if err != nil {
			s.log.Warn("Fail to remove checkpoint during shutdown.", "cause", err.Error())
			continue
		}
		if removed && c.ShouldBeDiscardedOnShutdown(jobStatus) {
			discard(c)
		}
	}
	s.completedCheckpoints = nil
	if err := s.checkpointStateHandleStore.ClearEntries(); err != nil {
		return err
	}
	return s.client.DeleteIfEmpty(s.jobPath)
}

// subsume drops the oldest checkpoints until at most numRetain are left,
// never the latest, and a checkpoint only while a newer checkpoint (not a
// savepoint) is kept (Flink's CheckpointSubsumeHelper, as the
// StandaloneCompletedCheckpointStore applies it).
func subsume(checkpoints []*checkpoint.CompletedCheckpoint, numRetain int) (kept, subsumed []*checkpoint.CompletedCheckpoint) {
	if len(checkpoints) <= numRetain {
		return checkpoints, nil
	}
	latest := checkpoints[len(checkpoints)-1]
	var latestNotSavepoint *checkpoint.CompletedCheckpoint
	for i := len(checkpoints) - 1; i >= 0 && latestNotSavepoint == nil; i-- {
		if !checkpoints[i].Properties.IsSavepoint() {
			latestNotSavepoint = checkpoints[i]
		}
	}
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
