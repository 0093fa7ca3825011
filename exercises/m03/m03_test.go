// Exercise m03: the Dispatcher's checks on a submitted JobGraph.
//
// Each test submits through the Dispatcher of a real MiniCluster (one
// TaskExecutor, two slots) and looks at what a client and an operator can
// see: the error the submission returns, what the JobGraphStore holds, the
// Dispatcher's log, and whether the job runs.
package m03_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
)

func startCluster(t *testing.T) (*minicluster.MiniCluster, *scenario.Logs) {
	return scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 2})
}

// numbersJob returns a job of three vertices at parallelism 1 whose jar
// is on the BlobServer; unbounded jobs run until cancelled.
func numbersJob(t *testing.T, cluster *minicluster.MiniCluster, unbounded bool) *jobgraph.JobGraph {
	t.Helper()
	collector := numbers.NewCollector()
	t.Cleanup(collector.Close)
	g := numbers.JobGraph(numbers.Config{Count: 3, Parallelism: 1, Unbounded: unbounded, Collector: collector})
	require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
	return g
}

func persisted(t *testing.T, cluster *minicluster.MiniCluster) []api.JobID {
	t.Helper()
	ids, err := cluster.JobGraphStore().JobIDs()
	require.NoError(t, err)
	return ids
}

func TestAValidJobIsPersistedAndRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t)
		job := numbersJob(t, cluster, true)

		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err, "a valid job must be accepted")
		assert.Equal(t, []api.JobID{job.JobID}, persisted(t, cluster),
			"an accepted job is in the JobGraphStore before the submission is acknowledged")
		synctest.Wait()
		status, err := cluster.RequestJobStatus(context.Background(), job.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, status, "the accepted job must run")
	})
}

func TestARunningJobSubmittedAgainIsADuplicate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t)
		job := numbersJob(t, cluster, true)
		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err, "a valid job must be accepted")

		_, err = cluster.SubmitJob(context.Background(), job)
		var duplicate *dispatcher.DuplicateJobSubmissionError
		require.ErrorAs(t, err, &duplicate, "the second submission of a running job")
		assert.False(t, duplicate.GloballyTerminated, "the job is running, not globally terminated")

		synctest.Wait()
		status, err := cluster.RequestJobStatus(context.Background(), job.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, status, "the duplicate must not disturb the running job")
	})
}

func TestAFinishedJobSubmittedAgainIsRefusedAsGloballyTerminated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t)
		job := numbersJob(t, cluster, false)
		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err, "a valid job must be accepted")
		result, err := cluster.RequestJobResult(context.Background(), job.JobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus)
		synctest.Wait() // the job's cleanup has run: its result is in the JobResultStore

		_, err = cluster.SubmitJob(context.Background(), job)
		var duplicate *dispatcher.DuplicateJobSubmissionError
		require.ErrorAs(t, err, &duplicate, "the job already ran to the end")
		assert.True(t, duplicate.GloballyTerminated, "the refusal must say the job reached a globally-terminal state")
		assert.Contains(t, logs.String(), "because the job already reached a globally-terminal state (i.e. FAILED, CANCELED, FINISHED) in a previous execution.",
			"the Dispatcher warns, as Flink's does")
		assert.Empty(t, persisted(t, cluster), "nothing may be persisted for a refused job")
	})
}

func TestAnInvalidJobGraphIsRefusedAndNothingIsPersisted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t)
		job := numbersJob(t, cluster, false)
		job.Vertices()[1].InvokableClassName = "" // a vertex that cannot run

		_, err := cluster.SubmitJob(context.Background(), job)
		var refused *dispatcher.JobSubmissionError
		require.ErrorAs(t, err, &refused, "an invalid JobGraph must be refused with a JobSubmissionException")
		assert.Equal(t, "The JobGraph is invalid.", refused.Message)
		assert.ErrorContains(t, err, "has no invokable class.", "the refusal must say what is wrong")
		assert.Empty(t, persisted(t, cluster), "nothing may be persisted for a refused job")
		_, err = cluster.RequestJobStatus(context.Background(), job.JobID)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound, "a refused job must not run")
	})
}

func TestPartlyConfiguredResourcesAreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t)
		job := numbersJob(t, cluster, false)
		job.Vertices()[0].MinResources = api.ResourceProfile{CPUCores: 1} // one vertex of three

		_, err := cluster.SubmitJob(context.Background(), job)
		var refused *dispatcher.JobSubmissionError
		require.ErrorAs(t, err, &refused)
		assert.Contains(t, refused.Message, "Currently jobs is not supported if parts of the vertices have resources configured.")
		assert.Empty(t, persisted(t, cluster), "nothing may be persisted for a refused job")
	})
}

// The checks run in Flink's order: a job that is both a duplicate and
// broken is refused as a duplicate; a finished job's JobID is refused as
// globally terminated whatever else is wrong with the new JobGraph.
func TestTheChecksRunInFlinksOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t)
		ctx := context.Background()

		finished := numbersJob(t, cluster, false)
		_, err := cluster.SubmitJob(ctx, finished)
		require.NoError(t, err, "a valid job must be accepted")
		_, err = cluster.RequestJobResult(ctx, finished.JobID)
		require.NoError(t, err)
		synctest.Wait()
		running := numbersJob(t, cluster, true)
		_, err = cluster.SubmitJob(ctx, running)
		require.NoError(t, err, "a valid job must be accepted")

		var duplicate *dispatcher.DuplicateJobSubmissionError

		brokenRunning := numbersJob(t, cluster, true)
		brokenRunning.JobID = running.JobID
		brokenRunning.Vertices()[1].InvokableClassName = ""
		_, err = cluster.SubmitJob(ctx, brokenRunning)
		require.ErrorAs(t, err, &duplicate, "the duplicate check comes before validation")
		assert.False(t, duplicate.GloballyTerminated)

		brokenFinished := numbersJob(t, cluster, false)
		brokenFinished.JobID = finished.JobID
		brokenFinished.Vertices()[0].MinResources = api.ResourceProfile{CPUCores: 1}
		_, err = cluster.SubmitJob(ctx, brokenFinished)
		require.ErrorAs(t, err, &duplicate, "the globally-terminal check comes first")
		assert.True(t, duplicate.GloballyTerminated)
	})
}
