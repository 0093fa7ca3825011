package tasks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	"flinklab/runtime/minicluster"
	"flinklab/runtime/state"
)

// The ticker counts 2,000 events over 5 sensors, 100 a second, at
// parallelism 2 on one TaskManager of two, with a checkpoint every 200 ms
// (kept in the JobManager's memory, or in files). Five seconds in, that
// TaskManager is killed. The job fails over to the other one and restores
// the latest completed checkpoint: the sources go on from their positions,
// the counts from their values. So no count of any sensor starts again at
// 1, every sensor's counts run 1, 2, 3, … without a gap, and when the job
// has finished each sensor's last count is exactly 400: no event counted
// twice, none lost, though the restarted sources emitted some of them
// again (the counts after the restore repeat those emitted since the
// checkpoint: the collect sink is not transactional).
func TestTheTickerResumesItsCountsFromTheLatestCheckpointAfterAFailover(t *testing.T) {
	for _, storage := range []string{"memory", "files"} {
		t.Run(storage, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ticker.Results.Clear()
				dir := ""
				if storage == "files" {
					dir = t.TempDir()
				}
				cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
				cfg.Interval = 200 * time.Millisecond
				cfg.CheckpointsDir = dir
				cluster, logs := startCheckpointingCluster(t, cfg)

				jg := planJobGraph(t, ticker.ProgramClass, []string{"--rate", "100", "--count", "2000", "--output", "collect"}, 2)
				require.NoError(t, cluster.UploadJar(jg, jarBytes(t, ticker.ProgramClass, nil)))
				jobID, err := cluster.SubmitJob(context.Background(), jg)
				require.NoError(t, err)
				time.Sleep(5 * time.Second)
				synctest.Wait()
				require.Contains(t, logs.String(), "Completed checkpoint")
				before := ticker.Results.Len()
				require.Greater(t, before, 300, "the ticker runs")
				require.Less(t, before, 1000)

				cluster.KillTaskManager(taskManagerOf(t, cluster, jobID))
				result, err := cluster.RequestJobResult(context.Background(), jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
				assert.Contains(t, logs.String(), fmt.Sprintf("Restoring job %s from Checkpoint ", jobID))

				counts := map[string][]int64{}
				for _, c := range ticker.Results.Values() {
					counts[c.F0] = append(counts[c.F0], c.F1)
				}
				require.Len(t, counts, ticker.NumSensors)
				for sensor, seq := range counts {
					seen := map[int64]bool{}
					high := int64(0)
					for _, c := range seq {
						seen[c] = true
						high = max(high, c)
					}
					assert.Equal(t, 1, countOf(seq, 1), "%s: its count started at 1 once, and never again", sensor)
					assert.Equal(t, int64(400), seq[len(seq)-1], "%s: its last count", sensor)
					for c := int64(1); c <= high; c++ {
						if !seen[c] {
							t.Errorf("%s: count %d is missing: an event was lost", sensor, c)
							break
						}
					}
				}
				if dir != "" {
					chk, err := filepath.Glob(filepath.Join(dir, jobID.String(), state.CheckpointDirPrefix+"*", state.MetadataFileName))
					require.NoError(t, err)
					assert.Empty(t, chk, "a finished job's checkpoints are deleted (no externalized retention)")
					for _, sub := range []string{state.CheckpointSharedStateDir, state.CheckpointTaskOwnedStateDir} {
						_, err := os.Stat(filepath.Join(dir, jobID.String(), sub))
						assert.NoError(t, err, "the job's %s directory", sub)
					}
				}
			})
		})
	}
}

func countOf(seq []int64, v int64) int {
	n := 0
	for _, c := range seq {
		if c == v {
			n++
		}
	}
	return n
}

// startCheckpointingCluster starts 2 TaskManagers × 2 slots that notice a
// lost TaskManager within 2 s and restart jobs after 500 ms, with the
// checkpointing options cfg.
func startCheckpointingCluster(t *testing.T, cfg checkpoint.CheckpointCoordinatorConfiguration) (*minicluster.MiniCluster, *logbuf.Buffer) {
	t.Helper()
	return startClusterWith(t, minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		Heartbeat:              heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second},
		RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 500 * time.Millisecond}},
		Checkpointing: cfg,
	})
}

// taskManagerOf returns the index of the TaskManager the job's first
// subtask runs on.
func taskManagerOf(t *testing.T, cluster *minicluster.MiniCluster, jobID api.JobID) int {
	t.Helper()
	graph, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
	require.NoError(t, err)
	runsOn := graph.Vertices[0].Subtasks[0].TaskManager
	for i, te := range cluster.TaskExecutors() {
		if te.ResourceID() == runsOn {
			return i
		}
	}
	t.Fatalf("the job runs on %s, which is no TaskManager of the cluster", runsOn)
	return -1
}
