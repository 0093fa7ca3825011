package jobmanager

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// ErrJobGraphNotFound: the store has no JobGraph for that JobID.
var ErrJobGraphNotFound = errors.New("job graph not found")

// JobGraphStore keeps the JobGraphs of submitted jobs until they are
// globally terminated (Flink's JobGraphStore, the JobGraphWriter half of
// which the Dispatcher uses at step m3). A recovering Dispatcher reads them
// back to run the jobs again.
type JobGraphStore interface {
	// PutJobGraph persists a JobGraph, replacing one with the same JobID.
	PutJobGraph(g *jobgraph.JobGraph) error
	// RecoverJobGraph reads a persisted JobGraph back.
	RecoverJobGraph(jobID api.JobID) (*jobgraph.JobGraph, error)
	// RemoveJobGraph deletes a JobGraph; removing a missing one is not an error.
	RemoveJobGraph(jobID api.JobID) error
	// JobIDs lists the persisted jobs.
	JobIDs() ([]api.JobID, error)
}

// FileJobGraphStore keeps each JobGraph as a JSON file in a directory:
// <dir>/jobgraph-<jobid>.json. A write goes to a temporary file first and is
// renamed into place, so a crash never leaves a half-written JobGraph.
//
// Differs from Flink: Flink's file-system store writes Java-serialized
// graphs and keeps pointers in ZooKeeper or Kubernetes ConfigMaps.
type FileJobGraphStore struct {
	dir string
}

// NewFileJobGraphStore returns a store in dir, creating it if needed.
func NewFileJobGraphStore(dir string) (*FileJobGraphStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create job graph store directory: %w", err)
	}
	return &FileJobGraphStore{dir: dir}, nil
}

func (s *FileJobGraphStore) path(jobID api.JobID) string {
	return filepath.Join(s.dir, "jobgraph-"+jobID.String()+".json")
}

// PutJobGraph writes the graph atomically.
func (s *FileJobGraphStore) PutJobGraph(g *jobgraph.JobGraph) error {
	data, err := jobgraph.Encode(g)
	if err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	tmp, err := os.CreateTemp(s.dir, ".jobgraph-*.tmp")
	if err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	if err := os.Rename(tmp.Name(), s.path(g.JobID)); err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	return nil
}

// RecoverJobGraph reads a graph back.
func (s *FileJobGraphStore) RecoverJobGraph(jobID api.JobID) (*jobgraph.JobGraph, error) {
	data, err := os.ReadFile(s.path(jobID))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("recover job graph %s: %w", jobID, ErrJobGraphNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("recover job graph %s: %w", jobID, err)
	}
	return jobgraph.Decode(data)
}

// RemoveJobGraph deletes a graph's file.
func (s *FileJobGraphStore) RemoveJobGraph(jobID api.JobID) error {
	if err := os.Remove(s.path(jobID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove job graph %s: %w", jobID, err)
	}
	return nil
}

// JobIDs lists the graphs in the directory, sorted.
func (s *FileJobGraphStore) JobIDs() ([]api.JobID, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list job graphs: %w", err)
	}
	var ids []api.JobID
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "jobgraph-")
		if !ok {
			continue
		}
		id, err := api.ParseJobID(strings.TrimSuffix(name, ".json"))
		if err != nil {
			continue // not ours
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// InMemoryJobGraphStore keeps JobGraphs in memory: enough when nothing has
// to survive the process (Flink's StandaloneJobGraphStore keeps nothing at
// all).
type InMemoryJobGraphStore struct {
	mu     sync.Mutex
	graphs map[api.JobID][]byte
}

// NewInMemoryJobGraphStore returns an empty store.
func NewInMemoryJobGraphStore() *InMemoryJobGraphStore {
	return &InMemoryJobGraphStore{graphs: make(map[api.JobID][]byte)}
}

// PutJobGraph stores an encoded copy, so later changes to g do not leak in.
func (s *InMemoryJobGraphStore) PutJobGraph(g *jobgraph.JobGraph) error {
	data, err := jobgraph.Encode(g)
	if err != nil {
		return fmt.Errorf("put job graph %s: %w", g.JobID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.graphs[g.JobID] = data
	return nil
}

// RecoverJobGraph decodes the stored copy.
func (s *InMemoryJobGraphStore) RecoverJobGraph(jobID api.JobID) (*jobgraph.JobGraph, error) {
	s.mu.Lock()
	data, ok := s.graphs[jobID]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("recover job graph %s: %w", jobID, ErrJobGraphNotFound)
	}
	return jobgraph.Decode(data)
}

// RemoveJobGraph forgets a graph.
func (s *InMemoryJobGraphStore) RemoveJobGraph(jobID api.JobID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.graphs, jobID)
	return nil
}

// JobIDs lists the stored jobs, sorted by their hex form.
func (s *InMemoryJobGraphStore) JobIDs() ([]api.JobID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]api.JobID, 0, len(s.graphs))
	for id := range s.graphs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b api.JobID) int { return strings.Compare(a.String(), b.String()) })
	return ids, nil
}
