//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/rest"
	"flinklab/runtime/state"
	"flinklab/tools/flink/flinktest"
)

// Stop with a savepoint and start again from it, on a cluster of real
// processes, as a user does it: the cluster checkpoints every 200 ms and
// has a state.savepoints.dir; the ticker runs detached at parallelism 2
// and prints its counts into the TaskManagers' .out files. `flink stop`
// takes a savepoint and the job ends FINISHED; `flink run -s` starts the
// ticker again from that savepoint, and it counts on: no sensor's count
// starts again at 1, and each sensor's first count follows on from one
// the first run printed.
func TestStopWithSavepointAndRunFromItEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir, savepoints := t.TempDir(), t.TempDir()
	cl := startTestCluster(t, bin, logDir,
		"-D", "execution.checkpointing.interval=200ms", "-D", "state.savepoints.dir="+savepoints)
	jar := filepath.Join(t.TempDir(), "Ticker.jar")
	flinktest.Run(t, bin, "jar", ticker.ProgramClass, "-o", jar)

	first := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "2", jar, "--rate", "40"))
	flinktest.AwaitJob(t, cl.rc, first, "every task RUNNING", flinktest.EveryTaskRunning)
	awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, 0, "Completed checkpoint 3 for job "+first.String())

	out := flinktest.Run(t, bin, "stop", "-m", cl.restAddress, first.String())
	m := regexp.MustCompile(`^Suspending job "` + first.String() + `" with a CANONICAL savepoint\.\n` +
		`Savepoint completed\. Path: (` + regexp.QuoteMeta(savepoints) + `/savepoint-` + first.String()[:6] + `-[0-9a-f]{12})\n$`).FindStringSubmatch(out)
	require.NotNil(t, m, "flink stop printed:\n%s", out)
	savepoint := m[1]
	_, err := os.Stat(filepath.Join(savepoint, state.MetadataFileName))
	require.NoError(t, err, "the savepoint's _metadata")
	flinktest.AwaitJob(t, cl.rc, first, "FINISHED", func(d rest.JobDetailsInfo) bool { return d.State == api.JobFinished })
	jmLog := awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, 0, "Job "+first.String()+" reached terminal state FINISHED.")
	assert.Contains(t, jmLog, "Triggering stop-with-savepoint for job "+first.String()+".")
	reached, printed := printedTickerCountsFrom(t, logDir, nil)

	second := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-s", savepoint, "-m", cl.restAddress, "-p", "2", jar, "--rate", "40"))
	flinktest.AwaitJob(t, cl.rc, second, "every task RUNNING", flinktest.EveryTaskRunning)
	jmLog = awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, 0, fmt.Sprintf("Starting job %s from savepoint %s ()", second, savepoint))
	assert.Contains(t, jmLog, fmt.Sprintf("Restoring job %s from Savepoint ", second))

	var resumed map[string][]int64
	deadline := time.Now().Add(e2eTimeout)
	for tick := time.NewTicker(50 * time.Millisecond); ; <-tick.C {
		resumed, _ = printedTickerCountsFrom(t, logDir, printed)
		if len(resumed) == ticker.NumSensors || time.Now().After(deadline) {
			tick.Stop()
			break
		}
	}
	require.Len(t, reached, ticker.NumSensors, "every sensor counted before the stop")
	require.Len(t, resumed, ticker.NumSensors, "every sensor counts again after the restore")
	for sensor, counts := range resumed {
		assert.NotContains(t, counts, int64(1), "%s: its count does not start again at 1", sensor)
		assert.Contains(t, reached[sensor], counts[0]-1, "%s: its first count follows on from one the first run printed", sensor)
	}

	var stats checkpoint.CheckpointStatsSnapshot
	require.NoError(t, cl.rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+second.String()+"/checkpoints", &stats))
	require.NotNil(t, stats.Latest.Restored)
	assert.True(t, stats.Latest.Restored.IsSavepoint)
	assert.Equal(t, savepoint, stats.Latest.Restored.ExternalPath)
	flinktest.Run(t, bin, "cancel", "-m", cl.restAddress, second.String())
	cl.stop(t)
}

// printedTickerCountsFrom reads the counts the ticker's print sink wrote
// into both TaskManagers' .out files ("2> (sensor-3,17)"), per sensor, in
// order, from the given offset of each file on (nil: from the start). It
// returns them, and each file's size, where the next read starts.
func printedTickerCountsFrom(t *testing.T, logDir string, from map[int]int64) (map[string][]int64, map[int]int64) {
	t.Helper()
	counts, sizes := map[string][]int64{}, map[int]int64{}
	line := regexp.MustCompile(`(?m)^(?:\d+> )?\((sensor-\d+),(\d+)\)$`)
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, i)+".out"))
		require.NoError(t, err)
		if end := bytesUpToTheLastLine(data); end < len(data) {
			data = data[:end] // a line being written counts in the next read
		}
		sizes[i] = int64(len(data))
		for _, m := range line.FindAllSubmatch(data[from[i]:], -1) {
			n, err := strconv.ParseInt(string(m[2]), 10, 64)
			require.NoError(t, err)
			counts[string(m[1])] = append(counts[string(m[1])], n)
		}
	}
	return counts, sizes
}

// bytesUpToTheLastLine is the length of data up to and with its last
// line break.
func bytesUpToTheLastLine(data []byte) int {
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] == '\n' {
			return i + 1
		}
	}
	return 0
}
