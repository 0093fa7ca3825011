package highavailability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// isClean peeks at the entry: the interface does not expose it.
func isClean(s *EmbeddedJobResultStore, jobID api.JobID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.results[jobID].clean
}

func TestJobResultStoreDirtyThenClean(t *testing.T) {
	store := NewEmbeddedJobResultStore()
	jobID := api.NewJobID()
	result := api.JobResult{
		JobID: jobID, JobName: "WordCount",
		JobStatus: api.JobFinished, ApplicationStatus: api.ApplicationSucceeded,
	}
	assert.False(t, store.HasJobResultEntry(jobID))

	require.NoError(t, store.CreateDirtyResult(result))
	assert.True(t, store.HasJobResultEntry(jobID))
	assert.False(t, isClean(store, jobID), "a new entry is dirty: cleanup is pending")
	got, ok := store.JobResult(jobID)
	require.True(t, ok)
	assert.Equal(t, result, got)

	require.NoError(t, store.MarkResultAsClean(jobID))
	assert.True(t, isClean(store, jobID))
	require.NoError(t, store.MarkResultAsClean(jobID), "marking a clean entry again is fine, as in Flink")
	assert.True(t, store.HasJobResultEntry(jobID), "a clean entry still blocks a resubmission")
	got, ok = store.JobResult(jobID)
	require.True(t, ok)
	assert.Equal(t, result, got)
}

func TestJobResultStoreRejectsADuplicateEntry(t *testing.T) {
	store := NewEmbeddedJobResultStore()
	jobID := api.NewJobID()
	first := api.JobResult{JobID: jobID, JobStatus: api.JobFailed, FailureCause: "boom"}
	require.NoError(t, store.CreateDirtyResult(first))

	err := store.CreateDirtyResult(api.JobResult{JobID: jobID, JobStatus: api.JobFinished})
	require.Error(t, err)
	assert.Contains(t, err.Error(), jobID.String())
	got, _ := store.JobResult(jobID)
	assert.Equal(t, first, got, "the first result stays")

	// Also once the entry is clean.
	require.NoError(t, store.MarkResultAsClean(jobID))
	assert.Error(t, store.CreateDirtyResult(first))
}

func TestJobResultStoreCannotCleanAMissingEntry(t *testing.T) {
	store := NewEmbeddedJobResultStore()
	jobID := api.NewJobID()
	err := store.MarkResultAsClean(jobID)
	require.Error(t, err)
	assert.Contains(t, err.Error(), jobID.String())
	assert.False(t, store.HasJobResultEntry(jobID), "marking must not create an entry")
	_, ok := store.JobResult(jobID)
	assert.False(t, ok)
}
