package zookeeper

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
)

// JobGraphStore keeps the JobGraphs of submitted jobs in the HA storage
// directory, with a node per job under jobgraphs/ in ZooKeeper (Flink's
// DefaultJobGraphStore over a ZooKeeperStateHandleStore,
// high-availability.zookeeper.path.jobgraphs "/jobgraphs"): a Dispatcher
// that gains leadership finds there every job that is not finished yet
// and runs it again.
type JobGraphStore struct {
	store *StateHandleStore
	log   *slog.Logger
}

var _ jobmanager.JobGraphStore = (*JobGraphStore)(nil)

// NewJobGraphStore returns the store of the cluster client is in, whose
// JobGraphs go to storageDir (<high-availability.storageDir>/<cluster-id>).
func NewJobGraphStore(client *Client, storageDir string, logger *slog.Logger) (*JobGraphStore, error) {
	if logger == nil {
		logger = slog.Default()
	}
	store, err := NewStateHandleStore(client, "jobgraphs", storageDir, "submittedJobGraph", logger)
	if err != nil {
		return nil, err
	}
	return &JobGraphStore{store: store, log: logger.With("logger", "DefaultJobGraphStore")}, nil
}

// PutJobGraph persists g: added and locked for this process, or replaced
// when this process holds it already.
func (s *JobGraphStore) PutJobGraph(g *jobgraph.JobGraph) error {
	data, err := jobgraph.Encode(g)
	if err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	err = s.store.AddAndLock(g.JobID.String(), data)
	if errors.Is(err, ErrAlreadyExists) {
		err = s.store.Replace(g.JobID.String(), data)
	}
	if err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	s.log.Info(fmt.Sprintf("Added JobGraph(jobId: %s) to %s.", g.JobID, s.store))
	return nil
}

// RecoverJobGraph locks the job's graph for this process and reads it.
func (s *JobGraphStore) RecoverJobGraph(jobID api.JobID) (*jobgraph.JobGraph, error) {
	data, err := s.store.GetAndLock(jobID.String())
	if errors.Is(err, ErrNotExists) {
		return nil, fmt.Errorf("recover job graph %s: %w", jobID, jobmanager.ErrJobGraphNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("Could not recover job with job id %s.: %w", jobID, err)
	}
	g, err := jobgraph.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("Could not recover job with job id %s.: %w", jobID, err)
	}
	s.log.Info(fmt.Sprintf("Recovered JobGraph(jobId: %s).", jobID))
	return g, nil
}

// RemoveJobGraph removes the job's graph once the job is globally
// terminal (Flink's globalCleanup): this process's lock, and the node and
// its file if no other process holds it.
func (s *JobGraphStore) RemoveJobGraph(jobID api.JobID) error {
	if _, err := s.store.ReleaseAndTryRemove(jobID.String()); err != nil {
		return fmt.Errorf("remove job graph %s: %w", jobID, err)
	}
	return nil
}

// ReleaseJobGraph gives up this process's lock and keeps the graph, for
// the next leader (Flink's localCleanup, when the leadership is lost).
func (s *JobGraphStore) ReleaseJobGraph(jobID api.JobID) error {
	return s.store.Release(jobID.String())
}

// JobIDs lists the jobs in the store, sorted.
func (s *JobGraphStore) JobIDs() ([]api.JobID, error) {
	names, err := s.store.Names()
	if err != nil {
		return nil, fmt.Errorf("Could not retrieve job ids of persisted jobs.: %w", err)
	}
	var ids []api.JobID
	for _, n := range names {
		id, err := api.ParseJobID(n)
		if err != nil {
			s.log.Warn(fmt.Sprintf("Ignoring %s: not a job id.", n))
			continue
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b api.JobID) int { return strings.Compare(a.String(), b.String()) })
	return ids, nil
}
