// Exercise h04: a job's result, from dirty to clean.
//
// The tests use a FileSystemJobResultStore in the test's temporary
// directory, as a JobManager keeps it in high-availability.storageDir,
// and look at its files the way an operator would (ls). The last one lets
// a new leader find a dirty result and finish the cleanup.
package h04_test

import (
	"errors"
	"log/slog"
	"os"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// files lists the store's directory, as `ls` would.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// markClean asks your MarkResultAsClean, and fails the test if it panics.
func markClean(t *testing.T, store *highavailability.FileSystemJobResultStore, id api.JobID) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("marking a result clean must not panic: %v", r)
		}
	}()
	return store.MarkResultAsClean(id)
}

func finished(id api.JobID) api.JobResult {
	return api.JobResult{JobID: id, JobStatus: api.JobFinished}
}

// With job-result-store.delete-on-commit false, a result whose cleanup is
// done stays, renamed: the job is known to have ended, and it is no
// longer dirty.
func TestACleanResultIsKeptUnderItsCleanName(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, false)
	require.NoError(t, err)
	id := api.NewJobID()
	require.NoError(t, store.CreateDirtyResult(finished(id)))
	require.Equal(t, []string{id.String() + "_DIRTY.json"}, files(t, dir))

	require.NoError(t, markClean(t, store, id), "a dirty result must be marked clean")
	assert.Equal(t, []string{id.String() + ".json"}, files(t, dir), "the dirty file becomes the clean one")
	dirty, err := store.DirtyResults()
	require.NoError(t, err)
	assert.Empty(t, dirty, "a clean result is no longer dirty: no next leader cleans it up again")
	result, ok := store.JobResult(id)
	require.True(t, ok, "the result is still there to read")
	assert.Equal(t, api.JobFinished, result.JobStatus)
}

// With delete-on-commit true, Flink's default, nothing of a clean job
// stays behind.
func TestWithDeleteOnCommitACleanResultGoes(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, true)
	require.NoError(t, err)
	id := api.NewJobID()
	require.NoError(t, store.CreateDirtyResult(finished(id)))

	require.NoError(t, markClean(t, store, id), "a dirty result must be marked clean")
	assert.Empty(t, files(t, dir), "delete-on-commit: the result goes")
	assert.False(t, store.HasJobResultEntry(id))
}

// Two cleanups of one job may both finish: the leader that died after
// marking the result clean, and the next, which read it dirty a moment
// before. The second mark is not an error.
func TestMarkingACleanResultAgainIsFine(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, false)
	require.NoError(t, err)
	id := api.NewJobID()
	require.NoError(t, store.CreateDirtyResult(finished(id)))
	require.NoError(t, markClean(t, store, id))

	assert.NoError(t, markClean(t, store, id), "marking a clean result again must not fail")
	assert.Equal(t, []string{id.String() + ".json"}, files(t, dir))
}

// A job the store has no result of cannot be marked clean, in Flink's
// words.
func TestAJobWithoutAResultCannotBeMarkedClean(t *testing.T) {
	dir := t.TempDir()
	store, err := highavailability.NewFileSystemJobResultStore(dir, false)
	require.NoError(t, err)
	id := api.NewJobID()

	err = markClean(t, store, id)
	require.Error(t, err, "a job with no result must not be marked clean")
	assert.Contains(t, err.Error(), "Could not mark job "+id.String()+" as clean as it is not present in the job result store.")
	assert.Empty(t, files(t, dir), "nothing is written")
}

// The leader that saw a job FINISH wrote its result dirty and died before
// its cleanup was done. The next leader does not run the job again: it
// removes the JobGraph, and marks the result clean.
func TestTheNextLeaderFinishesTheCleanup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		results, err := highavailability.NewFileSystemJobResultStore(dir, false)
		require.NoError(t, err)
		graphs := jobmanager.NewInMemoryJobGraphStore()
		g := jobgraph.New("finished")
		g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", 1))
		require.NoError(t, graphs.PutJobGraph(g))
		require.NoError(t, results.CreateDirtyResult(finished(g.JobID)))

		runner := dispatcher.NewRunner(dispatcher.Config{Logger: slog.New(slog.DiscardHandler)}, dispatcher.Deps{
			RPC:            rpc.NewLocalService(),
			JobGraphStore:  graphs,
			JobResultStore: results,
			CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
				return nil, errors.New("the finished job must not run again")
			},
		}, highavailability.NewEmbeddedLeaderService().NewLeaderElection())
		require.NoError(t, runner.Start())
		defer runner.Close()
		synctest.Wait()

		require.NotNil(t, runner.Leader(), "the new leader runs")
		ids, err := graphs.JobIDs()
		require.NoError(t, err)
		assert.Empty(t, ids, "the finished job's JobGraph is removed")
		assert.Equal(t, []string{g.JobID.String() + ".json"}, files(t, dir), "and its result marked clean")
	})
}
