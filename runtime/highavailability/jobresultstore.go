package highavailability

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"flinklab/runtime/api"
)

// JobResultStore keeps the results of globally terminated jobs (Flink's
// JobResultStore). It is the Dispatcher's memory of which JobIDs are done
// for good.
type JobResultStore interface {
	// CreateDirtyResult records a job's result; its cleanup is pending.
	CreateDirtyResult(result api.JobResult) error
	// MarkResultAsClean records that the job's cleanup is done.
	MarkResultAsClean(jobID api.JobID) error
	// HasJobResultEntry reports whether the job has a result, dirty or clean.
	HasJobResultEntry(jobID api.JobID) bool
	// JobResult returns the stored result of a job.
	JobResult(jobID api.JobID) (api.JobResult, bool)
	// DirtyResults returns the results whose cleanup is pending: a
	// Dispatcher that gains leadership finishes their cleanup and does not
	// run those jobs again.
	DirtyResults() ([]api.JobResult, error)
}

// EmbeddedJobResultStore is a JobResultStore in memory (Flink's
// EmbeddedJobResultStore): enough while the cluster's process lives.
type EmbeddedJobResultStore struct {
	mu      sync.Mutex
	results map[api.JobID]jobResultEntry
}

type jobResultEntry struct {
	result api.JobResult
	clean  bool
}

// NewEmbeddedJobResultStore returns an empty store.
func NewEmbeddedJobResultStore() *EmbeddedJobResultStore {
	return &EmbeddedJobResultStore{results: make(map[api.JobID]jobResultEntry)}
}

// CreateDirtyResult records a job's result; a second result for the same
// job is an error.
func (s *EmbeddedJobResultStore) CreateDirtyResult(result api.JobResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.results[result.JobID]; ok {
		return fmt.Errorf("job result store already has an entry for job %s", result.JobID)
	}
	s.results[result.JobID] = jobResultEntry{result: result}
	return nil
}

// MarkResultAsClean marks the job's entry clean.
func (s *EmbeddedJobResultStore) MarkResultAsClean(jobID api.JobID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.results[jobID]
	if !ok {
		return fmt.Errorf("job result store has no entry for job %s", jobID)
	}
	e.clean = true
	s.results[jobID] = e
	return nil
}

// HasJobResultEntry reports whether the job has a result.
func (s *EmbeddedJobResultStore) HasJobResultEntry(jobID api.JobID) bool {
	_, ok := s.JobResult(jobID)
	return ok
}

// JobResult returns the job's stored result.
func (s *EmbeddedJobResultStore) JobResult(jobID api.JobID) (api.JobResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.results[jobID]
	return e.result, ok
}

// DirtyResults returns the results not marked clean, by JobID.
func (s *EmbeddedJobResultStore) DirtyResults() ([]api.JobResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var results []api.JobResult
	for _, e := range s.results {
		if !e.clean {
			results = append(results, e.result)
		}
	}
	slices.SortFunc(results, func(a, b api.JobResult) int { return strings.Compare(a.JobID.String(), b.JobID.String()) })
	return results, nil
}
