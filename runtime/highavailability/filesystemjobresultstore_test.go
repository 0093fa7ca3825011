package highavailability_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
)

func finishedResult() api.JobResult {
	return api.JobResult{JobID: api.NewJobID(), JobName: "WordCount", JobStatus: api.JobFinished,
		ApplicationStatus: api.ApplicationSucceeded, NetRuntime: 1500 * time.Millisecond}
}

// A result is written dirty, survives the store (a new JobManager reads
// the same directory), and its cleanup deletes it, as Flink's default
// job-result-store.delete-on-commit does.
func TestAFileSystemJobResultStoreOutlivesItsJobManager(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "job-result-store", "default")
	store, err := highavailability.NewFileSystemJobResultStore(dir, true)
	require.NoError(t, err)
	done, cleaned := finishedResult(), finishedResult()
	require.NoError(t, store.CreateDirtyResult(done))
	require.NoError(t, store.CreateDirtyResult(cleaned))
	require.NoError(t, store.MarkResultAsClean(cleaned.JobID))
	assert.FileExists(t, filepath.Join(dir, done.JobID.String()+"_DIRTY.json"))
	assert.NoFileExists(t, filepath.Join(dir, cleaned.JobID.String()+"_DIRTY.json"))
	data, err := os.ReadFile(filepath.Join(dir, done.JobID.String()+"_DIRTY.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"version":1`)

	recovered, err := highavailability.NewFileSystemJobResultStore(dir, true) // the next leader's
	require.NoError(t, err)
	dirty, err := recovered.DirtyResults()
	require.NoError(t, err)
	assert.Equal(t, []api.JobResult{done}, dirty, "the cleanup of this one is pending: it is not run again")
	assert.True(t, recovered.HasJobResultEntry(done.JobID))
	assert.False(t, recovered.HasJobResultEntry(cleaned.JobID), "deleted on commit")

	assert.ErrorContains(t, recovered.CreateDirtyResult(done), "already has an entry for job "+done.JobID.String())
	unknown := api.NewJobID()
	assert.EqualError(t, recovered.MarkResultAsClean(unknown),
		"Could not mark job "+unknown.String()+" as clean as it is not present in the job result store.")
}

// With delete-on-commit false, a clean result is kept as <jobid>.json:
// the job stays known as done, and is not dirty.
func TestAKeptCleanResultStillRefusesTheJob(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, false)
	require.NoError(t, err)
	r := finishedResult()
	require.NoError(t, store.CreateDirtyResult(r))
	require.NoError(t, store.MarkResultAsClean(r.JobID))
	require.NoError(t, store.MarkResultAsClean(r.JobID), "marking it clean again changes nothing")
	assert.FileExists(t, filepath.Join(dir, r.JobID.String()+".json"))
	got, ok := store.JobResult(r.JobID)
	assert.True(t, ok)
	assert.Equal(t, r, got)
	dirty, err := store.DirtyResults()
	require.NoError(t, err)
	assert.Empty(t, dirty)
	assert.Error(t, store.CreateDirtyResult(r), "a clean result is a result")
}

// A damaged file is named, not skipped: a job whose result cannot be read
// must not be run again as if it had none.
func TestADamagedResultFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, true)
	require.NoError(t, err)
	name := api.NewJobID().String() + "_DIRTY.json"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(`{"result": {"jobId": `), 0o644))
	_, err = store.DirtyResults()
	assert.ErrorContains(t, err, "Could not retrieve JobResults of globally-terminated jobs from JobResultStore")
	assert.ErrorContains(t, err, name)
}
