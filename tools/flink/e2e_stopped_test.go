//go:build unix

package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// The leader JobManager is stopped as stop-cluster.sh stops one, with
// SIGTERM, while its job runs. It closes its ZooKeeper session on the way
// out, and its latch node goes with it: the standby is granted the
// leadership at once, not a session timeout later (60 s by Flink's
// default, 2 s here), recovers the job and runs it. flink ha-trace reads the cause from the logs:
// leader-stopped, the old leader's shutdown line before the next grant.
func TestAStoppedLeaderHandsOverAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	const sessionTimeout = 2 * time.Second
	cl := flinktest.StartHACluster(t, bin, t.TempDir(), flinktest.HAConfiguration(server.Address(), t.TempDir(), sessionTimeout))
	leader, standby := cl.LeaderAndStandby(t)
	tickerID := flinktest.SubmitDetached(t, bin, leader.REST(), writeTickerJar(t, bin), 2)
	flinktest.AwaitJob(t, leader.RestClient(), tickerID, "every task RUNNING", flinktest.EveryTaskRunning)

	require.NoError(t, syscall.Kill(leader.PID(), syscall.SIGTERM))
	leader.AwaitExit(t)
	cl.AwaitLeader(t, "the standby leads", func(jm *flinktest.Process) bool { return jm == standby })
	flinktest.AwaitJob(t, standby.RestClient(), tickerID, "RUNNING under the new leader, every task", flinktest.EveryTaskRunning)

	handover := logTime(t, firstLogLine(t, standby.LogPath(), "DefaultDispatcherRunner was granted leadership")).Sub(
		logTime(t, firstLogLine(t, leader.LogPath(), "Shutting StandaloneSessionClusterEntrypoint down with application status")))
	assert.Less(t, handover, sessionTimeout, "the standby is granted the leadership when the stopped leader's session closes, not when it expires")

	trace := flinktest.Run(t, bin, "ha-trace", "--log-dir", cl.LogDir)
	assert.Contains(t, trace, "cause: leader-stopped — standalonesession-0 was shut down")
	assert.Contains(t, trace, "diagnosis: the failover is complete: standalonesession-1 leads under session ")
	cl.Stop(t)
}
