//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// Checkpoints on a cluster of real processes, tried as a user would: the
// cluster is started with -D execution.checkpointing.interval=200ms, the
// ticker runs at parallelism 2 (both subtasks on one TaskManager, which the
// SlotManager fills first), and that TaskManager is killed with SIGKILL.
// The job fails over to the other TaskManager and restores its latest
// completed checkpoint, whose state the dead TaskManager wrote into
// state.checkpoints.dir: every sensor's count goes on from where that
// checkpoint left it. No count goes back to 1, and none jumps: the first
// count printed after the restore is at most one past the last one printed
// before the kill.
func TestTheTickerResumesItsCountsAfterATaskManagerIsKilledEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir, checkpoints := t.TempDir(), t.TempDir()
	cl := startTestCluster(t, bin, logDir,
		"-D", entrypoint.KeyHeartbeatInterval+"=200", "-D", entrypoint.KeyHeartbeatTimeout+"=1000",
		"-D", "execution.checkpointing.interval=200ms",
		"-D", "state.checkpoints.dir="+checkpoints)
	jar := filepath.Join(t.TempDir(), "Ticker.jar")
	flinktest.Run(t, bin, "jar", ticker.ProgramClass, "-o", jar)
	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "2", jar, "--rate", "40"))

	details := flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, 0, "Completed checkpoint 5 for job "+jobID.String())
	subtasks := subtasksByName(t, cl.rc, details)
	victim := subtasks["Source: sensor-events (1/2)"].TaskManagerID
	victimIndex, survivorIndex := taskManagerIndexes(t, cl, victim)
	require.NoError(t, syscall.Kill(cl.taskManagerPIDs(t)[victim], syscall.SIGKILL))

	jmLog := awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, 0, "Restoring job "+jobID.String()+" from Checkpoint ")
	assert.Regexp(t, `Restoring job `+jobID.String()+` from Checkpoint \d+ @ \d+ for `+jobID.String()+` located at `+regexp.QuoteMeta(filepath.Join(checkpoints, jobID.String()))+`/chk-\d+\.`, jmLog)
	flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING again, in attempt 1", func(d rest.JobDetailsInfo) bool {
		if !flinktest.EveryTaskRunning(d) {
			return false
		}
		for _, s := range subtasksByName(t, cl.rc, d) {
			if s.Attempt != 1 {
				return false
			}
		}
		return true
	})

	before := printedTickerCounts(t, logDir, victimIndex)
	var after map[string][]int64
	deadline := time.Now().Add(30 * time.Second)
	for tick := time.NewTicker(50 * time.Millisecond); ; <-tick.C {
		after = printedTickerCounts(t, logDir, survivorIndex)
		if len(after) == ticker.NumSensors || time.Now().After(deadline) {
			tick.Stop()
			break
		}
	}
	require.Len(t, before, ticker.NumSensors, "every sensor counted before the kill")
	require.Len(t, after, ticker.NumSensors, "every sensor counted again after the restore")
	for sensor, counts := range after {
		last := before[sensor][len(before[sensor])-1]
		first := counts[0]
		assert.Greater(t, first, int64(1), "%s: its count does not start again at 1", sensor)
		assert.LessOrEqual(t, first, last+1, "%s: no count skipped: the restore is at or before the kill", sensor)
	}
	cl.stop(t)
}

// printedTickerCounts reads the counts the ticker's print sink wrote into
// the .out file of TaskManager index ("2> (sensor-3,17)"), per sensor, in
// order.
func printedTickerCounts(t *testing.T, logDir string, index int) map[string][]int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, index)+".out"))
	require.NoError(t, err)
	counts := map[string][]int64{}
	for _, m := range regexp.MustCompile(`(?m)^(?:\d+> )?\((sensor-\d+),(\d+)\)$`).FindAllSubmatch(data, -1) {
		n, err := strconv.ParseInt(string(m[2]), 10, 64)
		require.NoError(t, err)
		counts[string(m[1])] = append(counts[string(m[1])], n)
	}
	return counts
}

// taskManagerIndexes returns the index (in the log file names) of the
// TaskManager whose ResourceID is victim, and of the other one, as
// start-cluster printed them.
func taskManagerIndexes(t *testing.T, cl *testCluster, victim string) (victimIndex, survivorIndex int) {
	t.Helper()
	re := regexp.MustCompile(`ResourceID (\S+), log \S+-taskexecutor-(\d)-`)
	for _, m := range re.FindAllStringSubmatch(cl.stdout(), -1) {
		if m[1] == victim {
			i, _ := strconv.Atoi(m[2])
			return i, 1 - i
		}
	}
	t.Fatalf("start-cluster started no TaskManager %s:\n%s", victim, cl.stdout())
	return
}
