//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// Checkpoints survive the JobManager, on a cluster of real processes:
// `flink start-cluster --jobmanagers 2` with ZooKeeper HA, checkpointing
// every 200 ms into state.checkpoints.dir. The leader's JobMaster writes
// each completed checkpoint to the HA storage directory, with a node in
// ZooKeeper that points at it, under /jobs/<jobid>/checkpoints. The leader
// is killed with SIGKILL: no goodbye, its JobMaster's store is never shut
// down, its locks go with its expired session. The standby is granted the
// leadership, recovers the job, and its JobMaster's store finds the
// checkpoint in ZooKeeper: the job restores it ("Restoring job … from
// Checkpoint n @ … located at …/chk-n."), and the ticker's counts, which
// the TaskManagers print into their .out files, go on from where that
// checkpoint left them: no sensor's count goes back to 1.
func TestTheTickerResumesFromItsCheckpointAfterTheLeaderIsKilledEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	logDir, checkpoints := t.TempDir(), t.TempDir()
	ha := flinktest.HAConfiguration(server.Address(), t.TempDir(), 2*time.Second)
	ha["execution.checkpointing.interval"] = "200ms"
	ha["state.checkpoints.dir"] = checkpoints
	c := startClusterProcess(t, bin, append([]string{"start-cluster", "--jobmanagers", "2", "--taskmanagers", "2", "--slots", "2",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir}, flinktest.HAArgs(ha)...)...)
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	jobManagers := startedJobManagers(t, c)
	require.Len(t, jobManagers, 2, "a leader and a standby:\n%s", c.stdout())
	leaderPID, _ := awaitLeaderLine(t, c, `\d+`)
	leader, standby := jobManagers[0], jobManagers[1]
	if leader.pid != leaderPID {
		leader, standby = standby, leader
	}
	rc := client.NewRestClusterClient(leader.rest)
	awaitRegisteredTaskManagers(t, rc, 2)
	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", leader.rest, "-p", "2",
		writeTickerJar(t, bin), "--rate", "40"))
	flinktest.AwaitJob(t, rc, jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, leader.index, "Completed checkpoint 3 for job "+jobID.String())

	require.NoError(t, syscall.Kill(leader.pid, syscall.SIGKILL))
	before := highestPrintedCounts(t, logDir)
	require.Len(t, before, ticker.NumSensors, "every sensor counted under the first leader")
	awaitLeaderLine(t, c, strconv.Itoa(standby.pid))

	log := awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, standby.index, "Restoring job "+jobID.String()+" from Checkpoint ")
	namespace := "flink/" + strings.Trim(ha[zookeeper.KeyClusterID], "/") + "/jobs/" + jobID.String() + "/checkpoints"
	assert.Contains(t, log, "Found 1 checkpoints in ZooKeeperStateHandleStore{namespace='"+namespace+"'}.")
	assert.Regexp(t, `Restoring job `+jobID.String()+` from Checkpoint \d+ @ \d+ for `+jobID.String()+` located at `+
		regexp.QuoteMeta(filepath.Join(checkpoints, jobID.String()))+`/chk-\d+\.`, log)
	flinktest.AwaitJob(t, client.NewRestClusterClient(standby.rest), jobID, "RUNNING under the new leader, every task", flinktest.EveryTaskRunning)
	awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, standby.index, "Completed checkpoint ")

	// The counts go on past where they were when the leader was killed,
	// and none started again at 1.
	deadline := time.Now().Add(flinktest.Timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !countedPast(highestPrintedCounts(t, logDir), before) {
		require.False(t, time.Now().After(deadline), "the counts did not go past %v within %v", before, flinktest.Timeout)
		<-tick.C
	}
	for sensor, n := range printedOnes(t, logDir) {
		assert.Equal(t, 1, n, "%s printed count 1 once: its count did not start again", sensor)
	}

	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitExit(t)
	assert.NotContains(t, c.stderr.String(), "DATA RACE")
}

// tickerCount is a count the ticker's print sink wrote into a
// TaskManager's .out file: "2> (sensor-3,17)".
var tickerCount = regexp.MustCompile(`(?m)^(?:\d+> )?\((sensor-\d+),(\d+)\)$`)

// eachPrintedCount calls each with every count the two TaskManagers of
// the cluster in logDir printed so far.
func eachPrintedCount(t *testing.T, logDir string, each func(sensor string, count int64)) {
	t.Helper()
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, i)+".out"))
		require.NoError(t, err)
		for _, m := range tickerCount.FindAllSubmatch(data, -1) {
			n, err := strconv.ParseInt(string(m[2]), 10, 64)
			require.NoError(t, err)
			each(string(m[1]), n)
		}
	}
}

// highestPrintedCounts returns each sensor's highest printed count.
func highestPrintedCounts(t *testing.T, logDir string) map[string]int64 {
	t.Helper()
	highest := map[string]int64{}
	eachPrintedCount(t, logDir, func(sensor string, n int64) { highest[sensor] = max(highest[sensor], n) })
	return highest
}

// printedOnes returns how often each sensor's count 1 was printed.
func printedOnes(t *testing.T, logDir string) map[string]int {
	t.Helper()
	ones := map[string]int{}
	eachPrintedCount(t, logDir, func(sensor string, n int64) {
		if n == 1 {
			ones[sensor]++
		}
	})
	return ones
}

// countedPast reports whether every sensor of before has a higher count now.
func countedPast(now, before map[string]int64) bool {
	for sensor, n := range before {
		if now[sensor] <= n {
			return false
		}
	}
	return true
}
