//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// What happens to a running job on a cluster of real processes: it is
// cancelled with `flink cancel`, or one of its TaskManager processes is
// killed. Both run the ticker, an unbounded job that runs until something
// stops it, on `flink start-cluster --taskmanagers 2 --slots 2`, and wait
// as the end-to-end test above does: on the lines start-cluster prints,
// and by asking the REST endpoint, every wait bounded by e2eTimeout. Each
// takes 2–5 s once the build is cached; -short skips them.

// `flink cancel` cancels a running job: the ticker at parallelism 4, whose
// keyed records cross between the two TaskManager processes, is RUNNING on
// both; `flink cancel JOBID` prints what Flink's CliFrontend prints, the
// JobManager cancels every task on both TaskManagers, the job ends
// CANCELED, its four slots are free again, and `flink list` no longer
// shows it among the running jobs (`flink list -a` among the terminated
// ones).
func TestCancelEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	cl := startTestCluster(t, bin, logDir)
	jar := writeTickerJar(t, bin)

	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "4", jar))
	details := flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	require.Equal(t, 8, details.StatusCounts[api.ExecutionRunning], "4 sources and 4 running-count -> print-sink tasks")
	running := subtasksOf(t, cl.rc, jobID, details)
	assert.Len(t, taskManagersOf(running), 2, "four subtasks fill both TaskManagers: %v", running)

	out := flinktest.Run(t, bin, "cancel", "-m", cl.restAddress, jobID.String())

	assert.Equal(t, "Cancelling job "+jobID.String()+".\nCancelled job "+jobID.String()+".\n", out)
	details = flinktest.AwaitJob(t, cl.rc, jobID, "CANCELED", func(d rest.JobDetailsInfo) bool { return d.State == api.JobCanceled })
	assert.Equal(t, 8, details.StatusCounts[api.ExecutionCanceled], "every task CANCELED: %v", details.StatusCounts)
	assert.Positive(t, details.Timestamps[api.JobCancelling], "the job went through CANCELLING")
	awaitFreeSlots(t, cl.rc, 4)

	assert.Equal(t, "Waiting for response...\nNo running jobs.\nNo scheduled jobs.\n",
		flinktest.Run(t, bin, "list", "-m", cl.restAddress), "flink list: the running and the scheduled jobs only")
	assert.Contains(t, flinktest.Run(t, bin, "list", "-a", "-m", cl.restAddress), " : "+jobID.String()+" : "+ticker.JobName+" (CANCELED)\n")

	pids := cl.pids(t)
	cl.stop(t)
	assertGone(t, pids)

	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	jobName := ticker.JobName + " (" + jobID.String() + ")"
	assert.Contains(t, jmLog, "Job "+jobName+" switched from state RUNNING to CANCELLING.")
	assert.Contains(t, jmLog, "Job "+jobName+" switched from state CANCELLING to CANCELED.")
	for i := range 2 {
		tmLog := readLog(t, logDir, entrypoint.DaemonTaskExecutor, i)
		assert.Contains(t, tmLog, ") switched from RUNNING to CANCELING.", "taskmanager %d cancels its tasks", i)
		assert.Contains(t, tmLog, ") switched from CANCELING to CANCELED.", "taskmanager %d", i)
	}
}

// A TaskManager process dies: SIGKILL, so it cannot say goodbye. The
// cluster runs with short heartbeats (heartbeat.interval 200 ms,
// heartbeat.timeout 1 s) and a fixed-delay restart strategy, given to
// every process as Flink configuration (-D). The ticker at parallelism 2
// fills one TaskManager (the SlotManager fills a TaskManager before it
// takes the next); the test finds which from GET
// /jobs/{jobid}/vertices/{vertexid} (taskmanager-id) and the banner of
// start-cluster (each TaskManager's pid and ResourceID), and kills that
// process.
//
// The JobManager finds out through its heartbeats. A killed process on a
// host that is still up refuses connections, so each heartbeat RPC to it
// fails at once, and after heartbeat.rpc-failure-threshold (2) of them it
// is "no longer reachable" (within about 2 intervals); were its host gone,
// the heartbeat timeout would say so ("Heartbeat of TaskManager with id …
// timed out.", after 1 s). Either way the JobMaster fails the tasks that
// ran there, the job goes RESTARTING, and after the restart delay it runs
// again, every subtask in attempt 1 on the other TaskManager. start-cluster
// reports the lost process and runs on; SIGTERM then stops the rest.
func TestKilledTaskManagerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	cl := startTestCluster(t, bin, logDir,
		"-D", entrypoint.KeyHeartbeatInterval+"=200",
		"-D", entrypoint.KeyHeartbeatTimeout+"=1000",
		"-D", "restart-strategy.type=fixed-delay",
		"-D", "restart-strategy.fixed-delay.attempts=3",
		"-D", "restart-strategy.fixed-delay.delay=200 ms")
	assert.Equal(t, "1000", jobManagerConfig(t, cl.rc)[entrypoint.KeyHeartbeatTimeout], "the JobManager runs with the configured heartbeat timeout")
	jar := writeTickerJar(t, bin)

	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "2", jar))
	details := flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	first := subtasksOf(t, cl.rc, jobID, details)
	require.Len(t, first, 4, "2 sources and 2 running-count -> print-sink tasks")
	onTaskManagers := taskManagersOf(first)
	require.Len(t, onTaskManagers, 1, "parallelism 2 fills one TaskManager: %v", first)
	victim := onTaskManagers[0]
	resourceIDs := cl.taskManagerPIDs(t)
	pid, ok := resourceIDs[victim]
	require.True(t, ok, "start-cluster names no TaskManager %s:\n%s", victim, cl.stdout())
	var survivor string
	for id := range resourceIDs {
		if id != victim {
			survivor = id
		}
	}

	killed := time.Now()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

	// The job restarts on the survivor: every subtask RUNNING there, in
	// attempt 1.
	var again []rest.SubtaskExecutionAttemptDetailsInfo
	details = flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING on "+survivor, func(d rest.JobDetailsInfo) bool {
		if !flinktest.EveryTaskRunning(d) {
			return false
		}
		again = subtasksOf(t, cl.rc, jobID, d)
		return slices.Equal(taskManagersOf(again), []string{survivor})
	})
	for _, s := range again {
		assert.Equal(t, 1, s.Attempt, "subtask %d restarted once", s.Subtask)
		assert.Equal(t, api.ExecutionRunning, s.Status)
	}
	restarting, running := details.Timestamps[api.JobRestarting], details.Timestamps[api.JobRunning]
	assert.GreaterOrEqual(t, restarting, killed.UnixMilli(), "the job went RESTARTING after the kill")
	assert.GreaterOrEqual(t, running, restarting+200, "and RUNNING again after the restart delay")
	awaitRegisteredTaskManagers(t, cl.rc, 1)

	// How the JobManager found out, in its log and in the job's exceptions.
	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	timedOut := fmt.Sprintf(heartbeat.TaskManagerTimedOutAtJobMaster, victim)
	unreachable := fmt.Sprintf(heartbeat.TaskManagerUnreachable, victim)
	assert.True(t, strings.Contains(jmLog, timedOut) || strings.Contains(jmLog, unreachable),
		"the JobManager's log says %q or %q", timedOut, unreachable)
	jobName := ticker.JobName + " (" + jobID.String() + ")"
	assert.Contains(t, jmLog, "Job "+jobName+" switched from state RUNNING to RESTARTING.")
	assert.Contains(t, jmLog, "Job "+jobName+" switched from state RESTARTING to RUNNING.")
	var exceptions rest.JobExceptionsInfoWithHistory
	require.NoError(t, cl.rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/exceptions", &exceptions))
	require.NotNil(t, exceptions.RootException)
	assert.Contains(t, *exceptions.RootException, victim, "the root exception names the lost TaskManager")

	// start-cluster reported the loss and ran on; SIGTERM stops the rest.
	pids := cl.pids(t)
	cl.stop(t)
	assertGone(t, pids)
	assert.Contains(t, cl.stderr.String(), "flink: the taskexecutor daemon (pid "+strconv.Itoa(pid)+") exited by itself (signal: killed); the cluster runs on without it.")
	assert.Contains(t, cl.stdout(), "No taskexecutor daemon (pid: "+strconv.Itoa(pid)+") is running anymore on ")
}

// testCluster is a `flink start-cluster --taskmanagers 2 --slots 2` on
// free ports whose TaskManagers have registered.
type testCluster struct {
	*clusterProcess
	restAddress string
	rc          *client.RestClusterClient
}

func startTestCluster(t testing.TB, bin, logDir string, args ...string) *testCluster {
	t.Helper()
	c := startClusterProcess(t, bin, append([]string{"start-cluster", "--taskmanagers", "2", "--slots", "2",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir}, args...)...)
	restAddress := c.awaitLine(t, regexp.MustCompile(`REST endpoint http://(\S+),`))[1]
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	rc := client.NewRestClusterClient(restAddress)
	awaitRegisteredTaskManagers(t, rc, 2)
	return &testCluster{clusterProcess: c, restAddress: restAddress, rc: rc}
}

// taskManagerPIDs reads the pid of each TaskManager from start-cluster's
// banner, by ResourceID: "Starting taskexecutor daemon on host … (pid
// 4711): ResourceID localhost:40531-3f2a9c, log …".
func (c *testCluster) taskManagerPIDs(t testing.TB) map[string]int {
	t.Helper()
	pids := map[string]int{}
	re := regexp.MustCompile(`Starting taskexecutor daemon on host \S+ \(pid (\d+)\): ResourceID (\S+),`)
	for _, m := range re.FindAllStringSubmatch(c.stdout(), -1) {
		pid, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		pids[m[2]] = pid
	}
	require.Len(t, pids, 2, "two TaskManagers in:\n%s", c.stdout())
	return pids
}

// stop stops start-cluster with SIGTERM, as Ctrl-C would, and waits
// until it has stopped its processes and exited, cleanly.
func (c *testCluster) stop(t testing.TB) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitExit(t)
	assert.Equal(t, 0, c.cmd.ProcessState.ExitCode(), "start-cluster stopped by SIGTERM")
	assert.NotContains(t, c.stderr.String(), "DATA RACE")
}

// assertGone asserts that none of the processes is left.
func assertGone(t testing.TB, pids []int) {
	t.Helper()
	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d is still there", pid)
	}
}

func writeTickerJar(t testing.TB, bin string) string {
	t.Helper()
	jar := filepath.Join(t.TempDir(), "Ticker.jar")
	flinktest.Run(t, bin, "jar", ticker.ProgramClass, "-o", jar)
	return jar
}

// subtasksOf returns the current attempt of every subtask of the job, of
// all its vertices (GET /jobs/{jobid}/vertices/{vertexid}).
func subtasksOf(t testing.TB, rc *client.RestClusterClient, jobID api.JobID, d rest.JobDetailsInfo) []rest.SubtaskExecutionAttemptDetailsInfo {
	t.Helper()
	var subtasks []rest.SubtaskExecutionAttemptDetailsInfo
	for _, v := range d.Vertices {
		var vertex rest.JobVertexDetailsInfo
		require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/vertices/"+v.ID.String(), &vertex))
		subtasks = append(subtasks, vertex.Subtasks...)
	}
	return subtasks
}

// taskManagersOf returns the ResourceIDs the subtasks run on, sorted.
func taskManagersOf(subtasks []rest.SubtaskExecutionAttemptDetailsInfo) []string {
	var ids []string
	for _, s := range subtasks {
		if !slices.Contains(ids, s.TaskManagerID) {
			ids = append(ids, s.TaskManagerID)
		}
	}
	slices.Sort(ids)
	return ids
}

// awaitFreeSlots asks GET /overview until the cluster has n free slots.
func awaitFreeSlots(t testing.TB, rc *client.RestClusterClient, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var overview rest.ClusterOverviewWithVersion
		err := rc.SendRequest(ctx, http.MethodGet, "/overview", &overview)
		if err == nil && overview.SlotsAvailable == n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d slots free after %v, want %d (last error: %v)", overview.SlotsAvailable, e2eTimeout, n, err)
		case <-tick.C:
		}
	}
}

// jobManagerConfig returns GET /jobmanager/config as key → value.
func jobManagerConfig(t testing.TB, rc *client.RestClusterClient) map[string]string {
	t.Helper()
	var entries []rest.ConfigurationInfoEntry
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobmanager/config", &entries))
	conf := map[string]string{}
	for _, e := range entries {
		conf[e.Key] = e.Value
	}
	return conf
}
