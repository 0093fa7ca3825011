//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/entrypoint"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// The leader JobManager is paused with SIGSTOP, as a long garbage
// collection or a frozen VM pauses a real one, for longer than its
// ZooKeeper session timeout (2 s). It neither acts nor answers; ZooKeeper
// expires its session, and the standby leads and runs the job. Then the
// paused leader resumes with SIGCONT, with the state of a leader: its
// Dispatcher, its JobMaster and the messages that waited for it. It must
// not act as the leader: it learns that its session is gone and stops
// leading, its job is SUSPENDED (not FAILED: nothing goes to the
// JobResultStore), and no task of it deploys. The job runs on under the
// new leader, one attempt per subtask, every one of the new leader's
// ExecutionGraph.
func TestAPausedLeaderIsFencedOffWhenItResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	storageDir := t.TempDir()
	cl := flinktest.StartHACluster(t, bin, t.TempDir(), flinktest.HAConfiguration(server.Address(), storageDir, 2*time.Second))
	leader, standby := cl.LeaderAndStandby(t)
	awaitRegisteredTaskManagers(t, leader.RestClient(), 2)
	tickerID := flinktest.SubmitDetached(t, bin, leader.REST(), writeTickerJar(t, bin), 2)
	flinktest.AwaitJob(t, leader.RestClient(), tickerID, "every task RUNNING", flinktest.EveryTaskRunning)

	// The leader is paused; the standby leads once its session expires.
	require.NoError(t, syscall.Kill(leader.PID(), syscall.SIGSTOP))
	cl.AwaitLeader(t, "the standby leads", func(jm *flinktest.Process) bool { return jm == standby })
	flinktest.AwaitJob(t, standby.RestClient(), tickerID, "RUNNING under the new leader, every task", flinktest.EveryTaskRunning)

	// The paused leader resumes, and learns that it no longer leads.
	require.NoError(t, syscall.Kill(leader.PID(), syscall.SIGCONT))
	awaitLog(t, cl.LogDir, entrypoint.DaemonStandaloneSession, leader.Index, "Job "+tickerID.String()+" reached terminal state SUSPENDED.")
	assert.False(t, dispatcherRunnerLeads(t, leader), "the resumed JobManager's Dispatcher must not lead")
	results, err := os.ReadDir(filepath.Join(storageDir, "job-result-store", strings.Trim(cl.Conf[zookeeper.KeyClusterID], "/")))
	require.NoError(t, err)
	assert.Empty(t, results, "the job did not end: the old leader must not write a result")
	details := flinktest.AwaitJob(t, standby.RestClient(), tickerID, "still RUNNING under the new leader, every task", flinktest.EveryTaskRunning)
	checkInvariants(t, cl, 1, standby, tickerID, details)

	// flink ha-trace reads the failover from the logs: the standby elected
	// (h1), the job recovered (h4), every TaskManager registered there
	// (h5); and its cause: the old leader learned it had lost the
	// leadership after the standby was granted it, silent in between.
	trace := flinktest.Run(t, bin, "ha-trace", "--log-dir", cl.LogDir)
	assert.Regexp(t, `(?s)h1  standalonesession-1 .*h4  standalonesession-1 .*h5  taskexecutor-\d .*h5  taskexecutor-\d `, trace)
	assert.Contains(t, trace, "cause: leader-paused — standalonesession-0 learned that it had lost the leadership ")
	assert.Contains(t, trace, "its log is silent for ")
	assert.Contains(t, trace, "diagnosis: the failover is complete: standalonesession-1 leads under session ")
	for _, line := range logLines(t, leader.LogPath()) {
		assert.NotContains(t, line, "reached terminal state FAILED", "the old leader must not fail the job")
	}

	cl.Stop(t)
}
