//go:build unix

package main

import (
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/entrypoint"
	"flinklab/runtime/rest"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/tools/flink/flinktest"
)

// The AdaptiveScheduler on a cluster of real processes: the ticker at
// parallelism 4 on two TaskManagers × 2 slots. Stop one TaskManager
// (SIGTERM: it says goodbye): its tasks fail, the job restarts and runs on
// at parallelism 2 with the slots that are left. Start another with
// `flink taskmanager`: once the scaling interval has passed, the job
// restarts at parallelism 4. The stabilization timeout and the scaling
// interval are Flink's options, short here (-D).
func TestAdaptiveSchedulerRescalesWithTheTaskManagersEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	heartbeats := []string{"-D", entrypoint.KeyHeartbeatInterval + "=200", "-D", entrypoint.KeyHeartbeatTimeout + "=1000"}
	cl := startTestCluster(t, bin, logDir, append(heartbeats,
		"-D", adaptive.KeyScheduler+"=adaptive",
		"-D", adaptive.KeyResourceStabilizationTimeout+"=500 ms",
		"-D", adaptive.KeyScalingIntervalMin+"=1 s",
		"-D", "restart-strategy.type=fixed-delay",
		"-D", "restart-strategy.fixed-delay.attempts=5",
		"-D", "restart-strategy.fixed-delay.delay=200 ms")...)
	jobManager := regexp.MustCompile(`daemon on host \S+ \(pid \d+\): RPC (\S+), REST endpoint \S+, BLOB server (\S+),`).FindStringSubmatch(cl.stdout())
	require.NotNil(t, jobManager, "no RPC and BLOB addresses in:\n%s", cl.stdout())
	jar := writeTickerJar(t, bin)

	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "4", jar))
	runningAt := func(p int) func(rest.JobDetailsInfo) bool {
		return func(d rest.JobDetailsInfo) bool {
			if !flinktest.EveryTaskRunning(d) {
				return false
			}
			for _, v := range d.Vertices {
				if v.Parallelism != p {
					return false
				}
			}
			return true
		}
	}
	flinktest.AwaitJob(t, cl.rc, jobID, "RUNNING at parallelism 4", runningAt(4))

	// Stop one TaskManager.
	pids := cl.taskManagerPIDs(t)
	var victim string
	for id := range pids {
		victim = id
		break
	}
	require.NoError(t, syscall.Kill(pids[victim], syscall.SIGTERM))
	flinktest.AwaitJob(t, cl.rc, jobID, "RUNNING at parallelism 2", runningAt(2))

	// Another joins.
	newcomer := startClusterProcess(t, bin, append([]string{"taskmanager", "-m", jobManager[1], "--slots", "2", "--log-dir", logDir,
		"--blob-server", jobManager[2]}, heartbeats...)...)
	t.Cleanup(func() { _ = newcomer.cmd.Process.Signal(syscall.SIGTERM); newcomer.awaitExit(t) })
	flinktest.AwaitJob(t, cl.rc, jobID, "RUNNING at parallelism 4 again", runningAt(4))

	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	assert.Contains(t, jmLog, "Restarting job.", "the lost TaskManager's tasks failed, and the job restarted")
	assert.Contains(t, jmLog, "Can change the parallelism of the job. Restarting the job.")
	assert.Equal(t, 3, strings.Count(jmLog, "switched from state CREATED to RUNNING."), "three ExecutionGraphs: at 4, at 2, at 4")
	cl.stop(t)
}
