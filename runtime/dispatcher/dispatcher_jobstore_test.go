package dispatcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// fileJobStore is a session cluster's job store, in dir, with room for
// maxCapacity jobs.
func fileJobStore(dir string, maxCapacity int) JobStoreConfig {
	cfg := DefaultJobStoreConfig()
	cfg.Dir, cfg.MaxCapacity = dir, maxCapacity
	return cfg
}

// storedFiles lists the graphs' files of the job stores in dir.
func storedFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "executionGraphStore-*", "*"))
	require.NoError(t, err)
	return files
}

// runToTheEnd submits a job, ends it in state and waits until the
// Dispatcher has handled its end and cleaned it up.
func (h *harness) runToTheEnd(t *testing.T, state api.JobStatus) api.JobID {
	t.Helper()
	g := validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), g))
	h.runner(g.JobID).finish(state)
	result, err := h.d.RequestJobResult(context.Background(), g.JobID)
	require.NoError(t, err)
	require.Equal(t, state, result.JobStatus)
	synctest.Wait() // the cleanup runs in the background
	return g.JobID
}

// A job the store has forgotten is unknown to the Dispatcher, whatever
// one asks, as in Flink, where the Dispatcher answers
// FlinkJobNotFoundException (and the REST endpoint 404). Only the
// JobResultStore still remembers that it ran: its JobID cannot be used
// again.
func TestAJobTheStoreForgotIsUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWithJobStore(t, fileJobStore(t.TempDir(), 1))
		ctx := context.Background()
		forgotten := h.runToTheEnd(t, api.JobFinished)
		kept := h.runToTheEnd(t, api.JobCanceled) // the store is full: the first job goes

		_, err := h.d.RequestJob(ctx, forgotten)
		assert.EqualError(t, err, "FlinkJobNotFoundException: Could not find Flink job ("+forgotten.String()+")")
		_, err = h.d.RequestJobStatus(ctx, forgotten)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound)
		_, err = h.d.RequestJobResult(ctx, forgotten)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound)
		assert.ErrorIs(t, h.d.CancelJob(ctx, forgotten), gateway.ErrJobNotFound)

		ids, err := h.d.ListJobs(ctx)
		require.NoError(t, err)
		assert.Equal(t, []api.JobID{kept}, ids)
		g, err := h.d.RequestJob(ctx, kept)
		require.NoError(t, err)
		assert.Equal(t, api.JobCanceled, g.State)
		assert.NoError(t, h.d.CancelJob(ctx, kept), "a CANCELED job in the store is acknowledged")

		resubmitted := validJob()
		resubmitted.JobID = forgotten
		var dup *DuplicateJobSubmissionError
		require.ErrorAs(t, h.d.SubmitJob(ctx, resubmitted), &dup)
		assert.True(t, dup.GloballyTerminated, "the JobResultStore remembers the job")
	})
}

// The Dispatcher makes its store forget the expired jobs every
// jobstore.expiration-time, even when nobody asks: their files go.
func TestTheDispatcherCleansUpExpiredJobsOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		h := newHarnessWithJobStore(t, fileJobStore(dir, 10))

		first := h.runToTheEnd(t, api.JobFinished)
		require.Len(t, storedFiles(t, dir), 1)
		time.Sleep(time.Hour) // fake time: the cleanup is due
		synctest.Wait()
		assert.Empty(t, storedFiles(t, dir), "the store has cleaned up on its own")

		time.Sleep(30 * time.Minute) // fake time: half-way to the next cleanup
		second := h.runToTheEnd(t, api.JobFailed)
		time.Sleep(30 * time.Minute) // fake time: the next cleanup is due
		synctest.Wait()
		assert.Len(t, storedFiles(t, dir), 1, "a job stored half an hour ago stays")
		time.Sleep(time.Hour) // fake time: and the one after that
		synctest.Wait()
		assert.Empty(t, storedFiles(t, dir))

		for _, jobID := range []api.JobID{first, second} {
			_, err := h.d.RequestJobStatus(context.Background(), jobID)
			assert.ErrorIs(t, err, gateway.ErrJobNotFound)
		}
	})
}

// A Dispatcher without jobstore.* keeps every job, as Flink's MiniCluster
// does.
func TestTheDefaultJobStoreKeepsEveryJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		var ended []api.JobID
		for range 20 {
			ended = append(ended, h.runToTheEnd(t, api.JobFinished))
		}
		time.Sleep(24 * time.Hour) // fake time
		ids, err := h.d.ListJobs(context.Background())
		require.NoError(t, err)
		assert.ElementsMatch(t, ended, ids)
	})
}

func TestClosingTheDispatcherRemovesItsJobStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		h := newHarnessWithJobStore(t, fileJobStore(dir, 10))
		h.runToTheEnd(t, api.JobFinished)
		require.Len(t, storedFiles(t, dir), 1)

		require.NoError(t, h.d.Close())
		matches, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		assert.Empty(t, matches, "the store's directory is removed")
	})
}

// A Dispatcher that cannot start (its name is taken in the RPC service)
// leaves no job store behind.
func TestADispatcherThatDidNotStartLeavesNoJobStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		h := newHarnessWithJobStore(t, fileJobStore(dir, 10))
		second, err := New(Config{JobStore: fileJobStore(dir, 10)}, h.d.deps) // the same RPC service, the same name
		require.NoError(t, err)
		stores, err := filepath.Glob(filepath.Join(dir, "executionGraphStore-*"))
		require.NoError(t, err)
		require.Len(t, stores, 2, "each Dispatcher makes its store")

		require.Error(t, second.Start())
		after, err := filepath.Glob(filepath.Join(dir, "executionGraphStore-*"))
		require.NoError(t, err)
		assert.Len(t, after, 1, "the second store's directory is left behind")
	})
}

// The jobs overview lists a running job as its runner has it and an
// ended one as the store keeps it in memory: even with no graph cached
// and its file gone, the ended job is listed, so listing never reads a
// graph back from disk.
func TestTheOverviewListsEndedJobsFromMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		store := fileJobStore(dir, 10)
		store.CacheSize = 0
		h := newHarnessWithJobStore(t, store)
		ctx := context.Background()
		ended := h.runToTheEnd(t, api.JobCanceled)
		running := validJob()
		require.NoError(t, h.d.SubmitJob(ctx, running))

		files := storedFiles(t, dir)
		require.Len(t, files, 1)
		require.NoError(t, os.Remove(files[0]))

		details, err := h.d.RequestMultipleJobDetails(ctx)
		require.NoError(t, err)
		states := map[api.JobID]api.JobStatus{}
		for _, d := range details {
			states[d.JobID] = d.State
		}
		assert.Equal(t, map[api.JobID]api.JobStatus{ended: api.JobCanceled, running.JobID: api.JobRunning}, states)
	})
}
