package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	"flinklab/runtime/state"
	"flinklab/tools/flink/flinktest"
)

// startCheckpointingMiniCluster is startMiniCluster with a checkpoint every
// 200 ms and savepoints into savepointDir ("": none configured).
func startCheckpointingMiniCluster(t *testing.T, savepointDir string) *minicluster.MiniCluster {
	t.Helper()
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval, cfg.SavepointDir = 200*time.Millisecond, savepointDir
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             t.TempDir(),
		Checkpointing:          cfg,
		REST:                   &rest.Config{},
		Logger:                 slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { assert.NoError(t, cluster.Close()) })
	return cluster
}

// savepointPath is the path `flink savepoint` and `flink stop` printed.
var savepointPath = regexp.MustCompile(`Savepoint completed\. Path: (\S+)\n`)

// awaitCompletedCheckpoint waits, asking GET /jobs/{jobid}/checkpoints,
// until the job has completed a checkpoint: its tasks run, and a
// savepoint can be taken. Bounded by actionTimeout.
func awaitCompletedCheckpoint(t *testing.T, cluster *minicluster.MiniCluster, jobID api.JobID) {
	t.Helper()
	rc := client.NewRestClusterClient(cluster.RESTAddress())
	deadline := time.Now().Add(actionTimeout)
	for tick := time.NewTicker(20 * time.Millisecond); ; <-tick.C {
		var stats checkpoint.CheckpointStatsSnapshot
		err := rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/checkpoints", &stats)
		if err == nil && stats.Counts.Completed > 0 {
			tick.Stop()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s completed no checkpoint within %v (last error: %v)", jobID, actionTimeout, err)
		}
	}
}

// awaitEverySensorCounted waits until ticker.Results has counts of every
// sensor, and returns them by sensor. Bounded by actionTimeout.
func awaitEverySensorCounted(t *testing.T) map[string][]int64 {
	t.Helper()
	deadline := time.Now().Add(actionTimeout)
	for tick := time.NewTicker(20 * time.Millisecond); ; <-tick.C {
		counts := map[string][]int64{}
		for _, c := range ticker.Results.Values() {
			counts[c.F0] = append(counts[c.F0], c.F1)
		}
		if len(counts) == ticker.NumSensors {
			tick.Stop()
			return counts
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ticker counted %d sensors within %v, want %d", len(counts), actionTimeout, ticker.NumSensors)
		}
	}
}

// The ticker, savepointed, stopped with a savepoint and run again from
// it, all from the command line, as Flink's CLI prints it; the second run
// counts on from the savepoint.
func TestSavepointStopAndRunFromASavepoint(t *testing.T) {
	savepoints := t.TempDir()
	cluster := startCheckpointingMiniCluster(t, savepoints)
	jar := writeJarOf(t, ticker.ProgramClass)
	ticker.Results.Clear()

	code, out, errOut := flink(t, "run", "-d", "-m", cluster.RESTAddress(), "-p", "2", jar, "--rate", "100", "--output", ticker.OutputCollect)
	require.Equal(t, 0, code, out+errOut)
	jobID := flinktest.SubmittedJobID(t, out)
	awaitCompletedCheckpoint(t, cluster, jobID)

	code, out, errOut = flink(t, "savepoint", "-m", cluster.RESTAddress(), jobID.String(), filepath.Join(savepoints, "manual"))
	require.Equal(t, 0, code, out+errOut)
	assert.Regexp(t, `^Triggering savepoint for job `+jobID.String()+`\.\nWaiting for response\.\.\.\n`+
		`Savepoint completed\. Path: `+regexp.QuoteMeta(filepath.Join(savepoints, "manual"))+`/savepoint-`+jobID.String()[:6]+`-[0-9a-f]{12}\n`+
		`You can resume your program from this savepoint with the run command\.\n$`, out)
	_, err := os.Stat(filepath.Join(savepointPath.FindStringSubmatch(out)[1], state.MetadataFileName))
	assert.NoError(t, err)

	code, out, errOut = flink(t, "stop", "-m", cluster.RESTAddress(), jobID.String())
	require.Equal(t, 0, code, out+errOut)
	assert.Regexp(t, `^Suspending job "`+jobID.String()+`" with a CANONICAL savepoint\.\n`+
		`Savepoint completed\. Path: `+regexp.QuoteMeta(savepoints)+`/savepoint-\w+-\w+\n$`, out)
	stopped := savepointPath.FindStringSubmatch(out)[1]
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobFinished, result.JobStatus)
	reached := map[string][]int64{}
	for _, c := range ticker.Results.Values() {
		reached[c.F0] = append(reached[c.F0], c.F1)
	}

	ticker.Results.Clear()
	code, out, errOut = flink(t, "run", "-d", "-s", stopped, "-m", cluster.RESTAddress(), "-p", "2", jar, "--rate", "100", "--output", ticker.OutputCollect)
	require.Equal(t, 0, code, out+errOut)
	restored := flinktest.SubmittedJobID(t, out)
	resumed := awaitEverySensorCounted(t)
	for sensor, counts := range resumed {
		assert.NotContains(t, counts, int64(1), "%s: its count did not start again at 1", sensor)
		assert.Contains(t, reached[sensor], counts[0]-1, "%s: its first count follows on from one the first run reached", sensor)
	}
	code, _, _ = flink(t, "cancel", "-m", cluster.RESTAddress(), restored.String())
	assert.Equal(t, 0, code)
}

// The command line's failures, in Flink's words: a savepoint without a
// directory, of an unknown job, and a stop of a job without checkpointing.
func TestSavepointAndStopFailures(t *testing.T) {
	cluster := startCheckpointingMiniCluster(t, "")
	jar := writeJarOf(t, ticker.ProgramClass)
	code, out, errOut := flink(t, "run", "-d", "-m", cluster.RESTAddress(), jar, "--output", ticker.OutputCollect)
	require.Equal(t, 0, code, out+errOut)
	jobID := flinktest.SubmittedJobID(t, out)
	awaitCompletedCheckpoint(t, cluster, jobID)

	code, out, errOut = flink(t, "savepoint", "-m", cluster.RESTAddress(), jobID.String())
	assert.Equal(t, 1, code)
	assert.Equal(t, "Triggering savepoint for job "+jobID.String()+".\nWaiting for response...\n", out)
	assert.Contains(t, errOut, "Failed to trigger a savepoint for the job "+jobID.String()+".\nCaused by: IllegalStateException: "+
		"No savepoint directory configured. You can either specify a directory while cancelling via -s :targetDirectory "+
		"or configure a cluster-wide default via key 'execution.checkpointing.savepoint-dir'.")

	unknown := api.NewJobID()
	code, _, errOut = flink(t, "stop", "-m", cluster.RESTAddress(), "-p", t.TempDir(), unknown.String())
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `Could not stop with a savepoint job "`+unknown.String()+`".`+"\nCaused by: FlinkJobNotFoundException: "+
		"Could not find Flink job ("+unknown.String()+")")

	code, out, _ = flink(t, "stop")
	assert.Equal(t, 1, code)
	assert.Equal(t, "Missing JobId\n\nUse the help option (-h or --help) to get help on the command.\n", out)
}

// A job without checkpointing has no savepoints: Flink's words for a job
// without statistics.
func TestSavepointOfAJobWithoutCheckpointing(t *testing.T) {
	cluster := startMiniCluster(t)
	jar := writeJarOf(t, ticker.ProgramClass)
	code, out, errOut := flink(t, "run", "-d", "-m", cluster.RESTAddress(), jar, "--output", ticker.OutputCollect)
	require.Equal(t, 0, code, out+errOut)
	jobID := flinktest.SubmittedJobID(t, out)
	flinktest.AwaitJob(t, client.NewRestClusterClient(cluster.RESTAddress()), jobID, "every task RUNNING", flinktest.EveryTaskRunning)

	code, _, errOut = flink(t, "stop", "-m", cluster.RESTAddress(), "-p", t.TempDir(), jobID.String())
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "Caused by: IllegalStateException: Checkpointing has not been enabled.")
	code, _, _ = flink(t, "cancel", "-m", cluster.RESTAddress(), jobID.String())
	assert.Equal(t, 0, code)
}
