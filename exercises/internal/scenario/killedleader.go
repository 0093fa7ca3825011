//go:build unix

package scenario

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// FailoverLogs are what each process of a high-availability cluster wrote
// into its log from the moment its leader JobManager was killed until the
// job ran again under the new leader, whole lines as the log files have
// them.
type FailoverLogs struct {
	OldLeader    string   // the JobManager that was killed
	NewLeader    string   // the standby, which leads now
	TaskManagers []string // each TaskManager's
}

// SessionTimeout is the ZooKeeper session timeout of KilledLeader's
// cluster (high-availability.zookeeper.client.session-timeout): how long
// ZooKeeper keeps the killed leader's session, and its nodes.
const SessionTimeout = 2 * time.Second

// KilledLeader runs the scenario of exercise h05 on real processes of the
// flink command and a real ZooKeeper server (zookeepertest.Shared: the
// test's package needs a TestMain that calls zookeepertest.StopShared),
// and returns the logs of the failover:
//
//   - two JobManagers and two TaskManagers with 2 slots each, started
//     as start-cluster starts them, with ZooKeeper HA and a session
//     timeout of 2 s; one JobManager leads, the other waits;
//   - the job "pipelines" at parallelism 4 (runtime/examples/pipelines:
//     4 pipelines, source to sink, that never exchange a record), submitted
//     through the leader's REST endpoint: every slot runs one pipeline, so
//     both TaskManagers run tasks of it; nothing asks the standby anything;
//   - once every task is RUNNING, the leader is killed with SIGKILL;
//   - the test waits until ZooKeeper names the standby as the leader, and
//     the standby's REST endpoint says that the job runs again, every
//     task; then it reads what each log got since the kill.
//
// It takes 5–10 s once the build of the flink command is cached, 2 s of
// them the session timeout.
func KilledLeader(t *testing.T) FailoverLogs {
	t.Helper()
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	cl := flinktest.StartHACluster(t, bin, t.TempDir(), flinktest.HAConfiguration(server.Address(), t.TempDir(), SessionTimeout))
	leader, standby := cl.LeaderAndStandby(t)

	jar := filepath.Join(t.TempDir(), "Pipelines.jar")
	flinktest.Run(t, bin, "jar", pipelines.ProgramClass, "-o", jar)
	jobID := flinktest.SubmitDetached(t, bin, leader.REST(), jar, 4)
	flinktest.AwaitJob(t, leader.RestClient(), jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	var overview rest.ClusterOverviewWithVersion
	require.NoError(t, leader.RestClient().SendRequest(context.Background(), http.MethodGet, "/overview", &overview))
	require.Equal(t, [2]int{4, 0}, [2]int{overview.SlotsTotal, overview.SlotsAvailable},
		"the job holds every slot (total, free), so that both TaskManagers run its tasks")

	// Where each log stands when the leader dies: what comes after it is
	// the failover's.
	processes := append([]*flinktest.Process{leader, standby}, cl.TaskManagers...)
	at := make([]int, len(processes))
	for i, p := range processes {
		at[i] = len(wholeLines(t, p.LogPath()))
	}
	leader.Kill(t)
	cl.AwaitLeader(t, "the standby as the leader", func(jm *flinktest.Process) bool { return jm == standby })
	flinktest.AwaitJob(t, standby.RestClient(), jobID, "RUNNING again under the new leader, every task", flinktest.EveryTaskRunning)

	since := make([]string, len(processes))
	for i, p := range processes {
		since[i] = wholeLines(t, p.LogPath())[at[i]:]
	}
	cl.Stop(t)
	return FailoverLogs{OldLeader: since[0], NewLeader: since[1], TaskManagers: since[2:]}
}

// wholeLines reads a log file up to the end of its last whole line
// (flinktest.WholeLines).
func wholeLines(t *testing.T, path string) string {
	t.Helper()
	text, err := flinktest.WholeLines(path)
	require.NoError(t, err)
	return text
}
