package dispatcher_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/gateway"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// The ticker runs at parallelism 2 with a checkpoint every 200 ms and
// state.savepoints.dir set, on a MiniCluster in a synctest bubble. A
// savepoint is taken while it runs, and it runs on; then it is stopped
// with a savepoint and ends FINISHED. Submitted again from that savepoint,
// it goes on counting: its sources resume at their positions, its counts
// at their values, so no sensor's count starts again at 1, and the first
// count of each sensor follows on from one the first run reached.
func TestStopWithSavepointAndRestartFromIt(t *testing.T) {
	for _, schedulerType := range []string{adaptive.SchedulerTypeDefault, adaptive.SchedulerTypeAdaptive} {
		t.Run(schedulerType, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				savepoints := t.TempDir()
				cluster, logs := startCluster(t, schedulerType, checkpointing(savepoints))
				d, ctx := cluster.Dispatcher(), context.Background()
				ticker.Results.Clear()

				// The first run; a savepoint while it runs.
				first := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsNone)
				time.Sleep(2 * time.Second)
				path, err := d.TriggerSavepointAndGetLocation(ctx, first, "", gateway.ModeSavepoint)
				require.NoError(t, err)
				assertSavepointAt(t, savepoints, first, path)
				assert.Contains(t, logs.String(), "Triggering savepoint for job "+first.String()+".")
				status, err := d.RequestJobStatus(ctx, first)
				require.NoError(t, err)
				assert.Equal(t, api.JobRunning, status, "a savepoint leaves the job running")
				stats, err := d.RequestCheckpointStats(ctx, first)
				require.NoError(t, err)
				require.NotNil(t, stats.Latest.Savepoint)
				assert.Equal(t, path, stats.Latest.Savepoint.ExternalPath)
				assert.Equal(t, "SAVEPOINT", stats.Latest.Savepoint.CheckpointType)

				// Stop with a savepoint: the job ends FINISHED.
				time.Sleep(time.Second)
				stopped, err := d.StopWithSavepointAndGetLocation(ctx, first, "", gateway.ModeSuspendWithSavepoint)
				require.NoError(t, err)
				assertSavepointAt(t, savepoints, first, stopped)
				result, err := cluster.RequestJobResult(ctx, first)
				require.NoError(t, err)
				assert.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
				assert.Contains(t, logs.String(), "Triggering stop-with-savepoint for job "+first.String()+".")
				stats, err = d.RequestCheckpointStats(ctx, first)
				require.NoError(t, err, "an ended job's statistics come from the job store")
				require.NotNil(t, stats.Latest.Savepoint)
				assert.Equal(t, "SYNC_SAVEPOINT", stats.Latest.Savepoint.CheckpointType)
				reached := countsBySensor(ticker.Results.Values())
				require.Len(t, reached, ticker.NumSensors)

				// The second run, from the stop's savepoint.
				ticker.Results.Clear()
				second := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsForPath(stopped, false))
				time.Sleep(2 * time.Second)
				assert.Contains(t, logs.String(), fmt.Sprintf("Starting job %s from savepoint %s ()", second, stopped))
				assert.Contains(t, logs.String(), fmt.Sprintf("Restoring job %s from Savepoint ", second))
				resumed := countsBySensor(ticker.Results.Values())
				require.Len(t, resumed, ticker.NumSensors, "every sensor counts again")
				for sensor, counts := range resumed {
					assert.NotContains(t, counts, int64(1), "%s: its count did not start again at 1", sensor)
					assert.Contains(t, reached[sensor], counts[0]-1, "%s: its first count follows on from one the first run reached", sensor)
				}
				stats, err = d.RequestCheckpointStats(ctx, second)
				require.NoError(t, err)
				require.NotNil(t, stats.Latest.Restored)
				assert.True(t, stats.Latest.Restored.IsSavepoint)
				require.NoError(t, d.CancelJob(ctx, second))
				_, err = cluster.RequestJobResult(ctx, second)
				require.NoError(t, err)
			})
		})
	}
}

// Every way a savepoint fails, on a real cluster: the job runs on.
func TestSavepointFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, adaptive.SchedulerTypeDefault, checkpointing(""))
		d, ctx := cluster.Dispatcher(), context.Background()
		jobID := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsNone)
		time.Sleep(time.Second)

		_, err := d.TriggerSavepointAndGetLocation(ctx, api.NewJobID(), t.TempDir(), gateway.ModeSavepoint)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound, "an unknown job")
		_, err = d.TriggerSavepointAndGetLocation(ctx, jobID, "", gateway.ModeSavepoint)
		assert.ErrorIs(t, err, checkpoint.ErrNoSavepointDirectory, "no directory, and no state.savepoints.dir")
		_, err = d.StopWithSavepointAndGetLocation(ctx, jobID, "", gateway.ModeSuspendWithSavepoint)
		assert.ErrorIs(t, err, checkpoint.ErrNoSavepointDirectory)
		assert.Contains(t, logs.String(), "Trying to cancel job "+jobID.String()+" with savepoint, but no savepoint directory configured.")

		// A directory that cannot be made: the savepoint fails, the
		// periodic checkpoints go on.
		blocked := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(blocked, nil, 0o644))
		_, err = d.StopWithSavepointAndGetLocation(ctx, jobID, filepath.Join(blocked, "savepoints"), gateway.ModeSuspendWithSavepoint)
		assert.ErrorIs(t, err, checkpoint.ErrCheckpoint)
		stats, err := d.RequestCheckpointStats(ctx, jobID)
		require.NoError(t, err)
		completed := stats.Counts.Completed
		time.Sleep(time.Second)
		stats, err = d.RequestCheckpointStats(ctx, jobID)
		require.NoError(t, err)
		assert.Greater(t, stats.Counts.Completed, completed, "the periodic checkpoints start again")
		status, err := d.RequestJobStatus(ctx, jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, status)

		// The job's end: its JobMaster is gone, the job is not found.
		require.NoError(t, d.CancelJob(ctx, jobID))
		_, err = cluster.RequestJobResult(ctx, jobID)
		require.NoError(t, err)
		_, err = d.StopWithSavepointAndGetLocation(ctx, jobID, t.TempDir(), gateway.ModeSuspendWithSavepoint)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound, "a job that has ended")
	})
}

// A job without checkpointing has no coordinator: no savepoint, no
// statistics, and it cannot start from a savepoint.
func TestSavepointsOfAJobWithoutCheckpointing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, adaptive.SchedulerTypeDefault, checkpoint.CheckpointCoordinatorConfiguration{})
		d, ctx := cluster.Dispatcher(), context.Background()
		jobID := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsNone)
		time.Sleep(time.Second)

		_, err := d.TriggerSavepointAndGetLocation(ctx, jobID, t.TempDir(), gateway.ModeSavepoint)
		assert.ErrorIs(t, err, gateway.ErrCheckpointingDisabled)
		stats, err := d.RequestCheckpointStats(ctx, jobID)
		require.NoError(t, err)
		assert.Nil(t, stats)
		graph, err := d.RequestJob(ctx, jobID)
		require.NoError(t, err)
		assert.Nil(t, graph.CheckpointCoordinatorConfiguration)
		require.NoError(t, d.CancelJob(ctx, jobID))

		restored := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsForPath(t.TempDir(), false))
		result, err := cluster.RequestJobResult(ctx, restored)
		require.NoError(t, err)
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Contains(t, result.FailureCause, "Checkpointing has not been enabled.")
	})
}

// A savepoint that is not there fails the job that should start from it.
func TestStartingFromAMissingSavepointFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, adaptive.SchedulerTypeDefault, checkpointing(""))
		missing := filepath.Join(t.TempDir(), "savepoint-000000-000000000000")
		jobID := submitTicker(t, cluster, jobgraph.SavepointRestoreSettingsForPath(missing, false))
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Contains(t, result.FailureCause, missing)
	})
}

// checkpointing is a checkpoint every 200 ms, kept in the JobManager's
// memory, and savepoints into savepointDir ("": none configured).
func checkpointing(savepointDir string) checkpoint.CheckpointCoordinatorConfiguration {
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = 200 * time.Millisecond
	cfg.SavepointDir = savepointDir
	return cfg
}

// startCluster starts 2 TaskManagers × 2 slots with the given scheduler
// and checkpointing, and returns the cluster and its log.
func startCluster(t *testing.T, schedulerType string, cfg checkpoint.CheckpointCoordinatorConfiguration) (*minicluster.MiniCluster, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             t.TempDir(),
		Checkpointing:          cfg,
		SchedulerType:          schedulerType,
		Logger:                 slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { require.NoError(t, cluster.Close()) })
	synctest.Wait()
	return cluster, logs
}

// submitTicker submits the ticker (unbounded, 100 events a second, its
// counts collected into ticker.Results) at parallelism 2, from the given
// savepoint, and returns its ID.
func submitTicker(t *testing.T, cluster *minicluster.MiniCluster, restore jobgraph.SavepointRestoreSettings) api.JobID {
	t.Helper()
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--rate", "100", "--output", ticker.OutputCollect}, 2)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	jg.SavepointRestoreSettings = restore
	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, ticker.ProgramClass, nil))
	require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))
	jobID, err := cluster.SubmitJob(context.Background(), jg)
	require.NoError(t, err)
	return jobID
}

// assertSavepointAt checks that path is a savepoint of job in dir, named
// as Flink names it, with its _metadata.
func assertSavepointAt(t *testing.T, dir string, job api.JobID, path string) {
	t.Helper()
	assert.Equal(t, dir, filepath.Dir(path))
	assert.Regexp(t, `^savepoint-`+job.String()[:6]+`-[0-9a-f]{12}$`, filepath.Base(path))
	_, err := os.Stat(filepath.Join(path, state.MetadataFileName))
	assert.NoError(t, err, "the savepoint's _metadata")
	if _, err := checkpoint.LoadCheckpointMetadata(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the savepoint's _metadata does not load: %v", err)
	}
}

// countsBySensor is each sensor's counts, in the order they came.
func countsBySensor(results []streaming.Tuple2[string, int64]) map[string][]int64 {
	counts := map[string][]int64{}
	for _, c := range results {
		counts[c.F0] = append(counts[c.F0], c.F1)
	}
	return counts
}
