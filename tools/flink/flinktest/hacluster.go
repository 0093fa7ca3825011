//go:build unix

package flinktest

import (
	"maps"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
)

// HACluster is a ZooKeeper HA cluster whose processes the test starts one
// by one: JobManagers (`flink jobmanager`) and TaskManagers (`flink
// taskmanager`, which find the leaders through ZooKeeper), all with the
// same -D options, logging into one directory.
type HACluster struct {
	Bin          string
	LogDir       string
	Conf         map[string]string
	JobManagers  []*Process // every one started, killed ones too; its index is its log index
	TaskManagers []*Process

	leaders *dispatcherLeaderWatch
}

// StartHACluster starts two JobManagers and two TaskManagers with 2 slots
// each, and follows the Dispatcher's leader in ZooKeeper.
func StartHACluster(t testing.TB, bin, logDir string, conf map[string]string) *HACluster {
	t.Helper()
	c := &HACluster{Bin: bin, LogDir: logDir, Conf: conf, leaders: watchDispatcherLeader(t, conf)}
	c.StartJobManager(t)
	c.StartJobManager(t)
	for i := range 2 {
		c.TaskManagers = append(c.TaskManagers, StartProcess(t, bin, "taskmanager", logDir, i,
			append([]string{"--host", "localhost", "--slots", "2"}, HAArgs(conf)...)...))
	}
	return c
}

// StartJobManager starts one more JobManager, on free ports: a standby
// while another leads.
func (c *HACluster) StartJobManager(t testing.TB) *Process {
	t.Helper()
	jm := StartProcess(t, c.Bin, "jobmanager", c.LogDir, len(c.JobManagers),
		append([]string{"--host", "localhost", "--rpc-port", "0", "--rest-port", "0", "--blob-port", "0"}, HAArgs(c.Conf)...)...)
	c.JobManagers = append(c.JobManagers, jm)
	return jm
}

// AwaitLeader waits until ZooKeeper names one of the live JobManagers for
// which ok holds as the Dispatcher's leader, and returns it.
func (c *HACluster) AwaitLeader(t testing.TB, what string, ok func(*Process) bool) *Process {
	t.Helper()
	var leader *Process
	c.leaders.await(t, what, func(address string) bool {
		for _, jm := range c.JobManagers {
			if jm.RPC() == address && !jm.Exited() && ok(jm) {
				leader = jm
				return true
			}
		}
		return false
	})
	return leader
}

// LeaderAndStandby returns the JobManager that leads now, as ZooKeeper
// names it, and the one other live JobManager.
func (c *HACluster) LeaderAndStandby(t testing.TB) (leader, standby *Process) {
	t.Helper()
	leader = c.AwaitLeader(t, "a leader", func(*Process) bool { return true })
	for _, jm := range c.JobManagers {
		if jm != leader && !jm.Exited() {
			require.Nil(t, standby, "two standbys: %s and %s", jm.RPC(), standby)
			standby = jm
		}
	}
	require.NotNil(t, standby, "no standby besides the leader %s", leader.RPC())
	return leader, standby
}

// Stop stops the cluster as stop-cluster.sh does, with SIGTERM, the
// TaskManagers first, so that they deregister while the JobManagers still
// listen; each must exit 0, without a data race, and none may be left.
func (c *HACluster) Stop(t testing.TB) {
	t.Helper()
	c.leaders.Close()
	for _, group := range [][]*Process{c.TaskManagers, c.JobManagers} {
		for _, p := range group {
			if !p.Exited() {
				require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			}
		}
		for _, p := range group {
			p.AwaitExit(t)
		}
	}
	for _, p := range slices.Concat(c.TaskManagers, c.JobManagers) {
		if !p.killed {
			assert.Equal(t, 0, p.cmd.ProcessState.ExitCode(), "%s stopped by SIGTERM", p)
		}
		assert.NotContains(t, p.stderr.String(), "DATA RACE", "%s", p)
		assert.ErrorIs(t, syscall.Kill(p.PID(), 0), syscall.ESRCH, "%s is still there", p)
	}
}

// HAConfiguration is what every process of an HA cluster on the test's
// ZooKeeper is given, as -D options: the quorum, a cluster-id of its own
// (so that tests sharing the ZooKeeper server keep apart, each under its
// own root node), the storage directory for JobGraphs and jars, and the
// session timeout after which a killed leader's nodes are gone.
func HAConfiguration(quorum, storageDir string, sessionTimeout time.Duration) map[string]string {
	return map[string]string{
		zookeeper.KeyHighAvailabilityType: "zookeeper",
		zookeeper.KeyQuorum:               quorum,
		zookeeper.KeyClusterID:            "/e2e-" + api.NewJobID().String(),
		zookeeper.KeyStorageDir:           storageDir,
		zookeeper.KeySessionTimeout:       strconv.FormatInt(sessionTimeout.Milliseconds(), 10),
	}
}

// HAArgs returns the configuration as -D key=value options, sorted by key.
func HAArgs(conf map[string]string) []string {
	var args []string
	for _, key := range slices.Sorted(maps.Keys(conf)) {
		args = append(args, "-D", key+"="+conf[key])
	}
	return args
}
