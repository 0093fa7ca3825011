//go:build unix

package drill

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/highavailability/hatrace"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/logging"
	"flinklab/tools/flink/flinktest"
)

// sessionTimeout is the drill cluster's
// high-availability.zookeeper.client.session-timeout: how long ZooKeeper
// keeps the session of a leader that neither acts nor answers. Flink's
// default is 60 s; 2 s makes the same failover, sooner.
const sessionTimeout = 2 * time.Second

// ProduceFailover runs spec's failover drill on a cluster of real
// processes and writes their logs to dir (see the package doc): a
// ZooKeeper server, two JobManagers (the first one leads) and two
// TaskManagers of the flink command, the ticker running at the spec's
// parallelism, then the incident. Every wait is on something a process
// says, in its log or over REST, bounded by flinktest.Timeout. Call it
// from a test whose package's TestMain stops the ZooKeeper server
// (zookeepertest.StopShared).
func ProduceFailover(t *testing.T, spec Spec, dir string) {
	spec, _, err := spec.withDefaults()
	require.NoError(t, err)
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	logDir, storageDir := t.TempDir(), t.TempDir()
	conf := flinktest.HAConfiguration(server.Address(), storageDir, sessionTimeout)
	cluster := flinktest.StartHACluster(t, bin, logDir, conf)
	leader, standby := cluster.LeaderAndStandby(t)
	require.Equal(t, 0, leader.Index, "the first JobManager started leads, as the drill's answer says")

	// The ticker runs, every subtask of it, under the leader.
	jar := filepath.Join(t.TempDir(), "Ticker.jar")
	flinktest.Run(t, bin, "jar", ticker.ProgramClass, "-o", jar)
	jobID := flinktest.SubmitDetached(t, bin, leader.REST(), jar, spec.Parallelism)
	flinktest.AwaitJob(t, leader.RestClient(), jobID, "every task RUNNING", flinktest.EveryTaskRunning)

	leads := leader // the JobManager that leads once the incident is over
	switch hatrace.Kind(spec.Failover) {
	case hatrace.LeaderKilled:
		leader.Kill(t)
		leads = failOver(t, cluster, standby, jobID)
	case hatrace.LeaderPaused:
		require.NoError(t, syscall.Kill(leader.PID(), syscall.SIGSTOP))
		leads = failOver(t, cluster, standby, jobID)
		require.NoError(t, syscall.Kill(leader.PID(), syscall.SIGCONT))
		leader.AwaitLog(t, "Job "+jobID.String()+" reached terminal state SUSPENDED.")
	}
	// Every TaskManager has registered at the ResourceManager of the
	// JobManager that leads: the story of the logs is complete.
	for _, tm := range cluster.TaskManagers {
		tm.AwaitLog(t, "Successful registration at resource manager pekko.tcp://flink@"+leads.RPC()+"/")
	}

	processes := slices.Concat(cluster.JobManagers, cluster.TaskManagers)
	words := machineWords(t, logDir, storageDir, conf[zookeeper.KeyClusterID])
	require.NoError(t, writeProcessLogs(dir, processes, spec.start(), words))
	cluster.Stop(t)
}

// failOver waits until the standby leads and runs the job again, every
// task of it, and returns the standby.
func failOver(t *testing.T, cluster *flinktest.HACluster, standby *flinktest.Process, jobID api.JobID) *flinktest.Process {
	t.Helper()
	cluster.AwaitLeader(t, "the standby leads", func(jm *flinktest.Process) bool { return jm == standby })
	flinktest.AwaitJob(t, standby.RestClient(), jobID, "RUNNING under the new leader, every task", flinktest.EveryTaskRunning)
	return standby
}

// machineWords rewords what would name this machine and this run as a
// test in the processes' logs: the test's directories, the cluster-id it
// drew, the working directory and the user. The host's name is in the log
// files' names only, which writeProcessLogs gives anew: the processes run
// with --host localhost.
func machineWords(t *testing.T, logDir, storageDir, clusterID string) *strings.Replacer {
	t.Helper()
	words := []string{logDir, "/opt/flink/log", storageDir, "/mnt/nfs/flink/ha", clusterID, "/default"}
	if wd, err := os.Getwd(); err == nil {
		words = append(words, wd, "/opt/flink")
	}
	if u, err := user.Current(); err == nil {
		words = append(words, " OS current user: "+u.Username, " OS current user: flink")
	}
	if tmp := os.TempDir(); tmp != "/tmp" { // where each JobManager keeps its BLOBs and uploads
		words = append(words, tmp, "/tmp")
	}
	return strings.NewReplacer(words...)
}

// writeProcessLogs writes each process's log, as it is now, into
// dir/log, named as Flink names the log files of a host called localhost
// and a user called flinklab, each line reworded and its time moved to
// the drill's clock, which begins at start.
func writeProcessLogs(dir string, processes []*flinktest.Process, start time.Time, words *strings.Replacer) error {
	logs := make([][]string, len(processes))
	var first time.Time
	for i, p := range processes {
		lines, err := completeLines(p.LogPath())
		if err != nil {
			return err
		}
		logs[i] = lines
		if t, ok := recordTime(lines[0]); ok && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	shift := start.Sub(first)
	for i, p := range processes {
		daemon := entrypoint.DaemonStandaloneSession
		if p.Action == "taskmanager" {
			daemon = entrypoint.DaemonTaskExecutor
		}
		var b strings.Builder
		for _, line := range logs[i] {
			if t, ok := recordTime(line); ok {
				line = t.Add(shift).Format(logging.TimeLayout) + line[len(logging.TimeLayout):]
			}
			b.WriteString(line + "\n")
		}
		if err := (output{dir: dir, reword: words}).write(logFile(daemon, p.Index), b.String()); err != nil {
			return err
		}
	}
	return nil
}

// completeLines reads the whole lines of a log file that its process may
// still be writing (flinktest.WholeLines).
func completeLines(path string) ([]string, error) {
	text, err := flinktest.WholeLines(path)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return nil, fmt.Errorf("%s: no complete line", path)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nil
}

var recordStart = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} `)

// recordTime is the time a record's line begins with; false for a line
// that continues a record.
func recordTime(line string) (time.Time, bool) {
	if !recordStart.MatchString(line) {
		return time.Time{}, false
	}
	t, err := time.Parse(logging.TimeLayout, line[:len(logging.TimeLayout)])
	return t, err == nil
}
