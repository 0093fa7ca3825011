package dispatcher

import (
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// MemoryExecutionGraphInfoStore keeps the graphs of ended jobs in memory
// (Flink's MemoryExecutionGraphInfoStore). Nothing bounds the memory the
// graphs take but their number and their age: a job with tens of
// thousands of subtasks takes tens of MB here until it expires or is
// evicted. Flink's MiniCluster uses one without either bound.
type MemoryExecutionGraphInfoStore struct {
	graphs *expiringCache[*gateway.ArchivedExecutionGraph]
}

// NewMemoryExecutionGraphInfoStore returns a store that forgets a job
// expirationTime after it was stored (never if ≤ 0) and keeps at most
// maximumCapacity jobs (no bound if ≤ 0, as in Flink).
func NewMemoryExecutionGraphInfoStore(expirationTime time.Duration, maximumCapacity int) *MemoryExecutionGraphInfoStore {
	if maximumCapacity <= 0 {
		maximumCapacity = unbounded
	}
	return &MemoryExecutionGraphInfoStore{
		graphs: newExpiringCache[*gateway.ArchivedExecutionGraph](expirationTime, maximumCapacity, nil),
	}
}

// Size is how many jobs the store holds.
func (s *MemoryExecutionGraphInfoStore) Size() int { return s.graphs.len() }

// Get returns the graph of a stored job.
func (s *MemoryExecutionGraphInfoStore) Get(jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	g, ok := s.graphs.get(jobID)
	if !ok {
		return nil, jobNotFound(jobID)
	}
	return g, nil
}

// Put stores the graph of a job that reached a terminal state.
func (s *MemoryExecutionGraphInfoStore) Put(g *gateway.ArchivedExecutionGraph) error {
	if !g.State.IsTerminalState() {
		return fmt.Errorf("The job %s(%s) is not in a terminal state. Instead it is in state %s.", g.JobName, g.JobID, g.State)
	}
	s.graphs.put(g.JobID, g)
	return nil
}

// AvailableJobDetails summarizes every stored job, oldest first.
func (s *MemoryExecutionGraphInfoStore) AvailableJobDetails() []gateway.JobDetails {
	graphs := s.graphs.values()
	details := make([]gateway.JobDetails, len(graphs))
	for i, g := range graphs {
		details[i] = gateway.JobDetailsOf(g)
	}
	return details
}

// CleanUp forgets the jobs that have expired.
func (s *MemoryExecutionGraphInfoStore) CleanUp() { s.graphs.cleanUp() }

// Close forgets every job.
func (s *MemoryExecutionGraphInfoStore) Close() error {
	s.graphs.removeAll()
	return nil
}
