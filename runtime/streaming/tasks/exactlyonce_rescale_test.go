package tasks

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/state"
)

// Rescaling, the way an operator does it: the bounded ticker runs at one
// parallelism, checkpointing into files that outlive the job
// (RETAIN_ON_CANCELLATION); three seconds in, as a checkpoint completes,
// a TaskManager dies, and with no restart allowed the job FAILS. Its
// sinks on that TaskManager never heard of the completion: their
// transactions of that checkpoint are still pending, and the pending
// files of later checkpoints and the in-progress files are leftovers.
// The job is submitted again at another parallelism, from the retained
// checkpoint (flink run -s <chk-n>). The checkpoint's SPLIT_DISTRIBUTE
// list hands each pending transaction of the old subtasks to exactly one
// new subtask, which commits it; each old writer's leftovers are aborted
// by the new subtask its index falls to. The part files of both jobs
// together hold every count exactly once.
func TestTheTickerRestoredAtAnotherParallelismCommitsEveryCountOnce(t *testing.T) {
	for _, rescale := range []struct{ from, to int }{{3, 2}, {2, 3}, {3, 1}} {
		t.Run(fmt.Sprintf("%d to %d", rescale.from, rescale.to), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir, checkpoints := memoryDir(t), memoryDir(t)
				cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
				cfg.Interval = 100 * time.Millisecond
				cfg.CheckpointsDir = checkpoints
				cfg.Retention = checkpoint.RetainOnCancellation
				logs := &logbuf.Buffer{}
				cluster, err := minicluster.New(minicluster.Config{
					NumTaskManagers:        3,
					NumSlotsPerTaskManager: 1,
					WorkingDir:             t.TempDir(),
					Heartbeat:              heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second},
					RestartStrategy:        failover.Config{Type: failover.TypeNoRestart}, // the first failure fails the job
					Checkpointing:          cfg,
					Logger:                 slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
				})
				require.NoError(t, err)
				require.NoError(t, cluster.Start())
				t.Cleanup(func() { require.NoError(t, cluster.Close()) })
				synctest.Wait()
				args := []string{"--output", "file", "--path", dir, "--count", fmt.Sprint(exactlyOnceEvents), "--rate", fmt.Sprint(exactlyOnceRate)}

				first := planJobGraph(t, ticker.ProgramClass, args, rescale.from)
				require.NoError(t, cluster.UploadJar(first, jarBytes(t, ticker.ProgramClass, nil)))
				_, err = cluster.SubmitJob(context.Background(), first)
				require.NoError(t, err)
				time.Sleep(3 * time.Second)
				awaitNextCompletedCheckpoint(t, cluster, first.JobID)
				cluster.KillTaskManager(taskManagerOfSubtask(t, cluster, first.JobID, rescale.from-1, nil))
				result, err := cluster.RequestJobResult(context.Background(), first.JobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFailed, result.JobStatus)
				require.NoError(t, cluster.StartTaskManager())

				second := planJobGraph(t, ticker.ProgramClass, args, rescale.to)
				second.SavepointRestoreSettings = jobgraph.SavepointRestoreSettingsForPath(latestRetainedCheckpoint(t, checkpoints, first.JobID), false)
				require.NoError(t, cluster.UploadJar(second, jarBytes(t, ticker.ProgramClass, nil)))
				_, err = cluster.SubmitJob(context.Background(), second)
				require.NoError(t, err)
				result, err = cluster.RequestJobResult(context.Background(), second.JobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
				assert.Contains(t, logs.String(), fmt.Sprintf("file-sink (%d/%d)#0", rescale.to, rescale.to), "the job ran at the new parallelism")

				assert.Equal(t, everyCountOnce(), committedLines(t, dir))
				for _, hidden := range []string{inProgressDir, pendingDir} {
					leftovers, err := os.ReadDir(filepath.Join(dir, hidden))
					require.NoError(t, err)
					assert.Empty(t, leftovers, "%s: every transaction was committed or aborted", hidden)
				}
			})
		})
	}
}

// latestRetainedCheckpoint returns the directory of the job's retained
// checkpoint with the highest ID.
func latestRetainedCheckpoint(t *testing.T, checkpoints string, jobID api.JobID) string {
	t.Helper()
	metadata, err := filepath.Glob(filepath.Join(checkpoints, jobID.String(), state.CheckpointDirPrefix+"*", state.MetadataFileName))
	require.NoError(t, err)
	require.NotEmpty(t, metadata, "the failed job's checkpoints are retained")
	latest, latestID := "", int64(-1)
	for _, m := range metadata {
		chk := filepath.Dir(m)
		id, err := strconv.ParseInt(strings.TrimPrefix(filepath.Base(chk), state.CheckpointDirPrefix), 10, 64)
		require.NoError(t, err)
		if id > latestID {
			latest, latestID = chk, id
		}
	}
	return latest
}
