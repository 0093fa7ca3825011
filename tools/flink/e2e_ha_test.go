//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// High availability on a cluster of real processes. `flink start-cluster
// --jobmanagers 2` with ZooKeeper HA starts two JobManager processes: both
// enter the leader election of their DefaultDispatcherRunner and
// ResourceManagerServiceImpl (a ZooKeeper LeaderLatch), one is granted the
// leadership, and the other waits as a standby whose REST endpoint answers
// through the leader's Dispatcher. The leader keeps every submitted
// JobGraph in ZooKeeper (DefaultJobGraphStore) and its jar in the HA
// storage directory; when a job finishes, it writes the job's result to
// the JobResultStore and removes its JobGraph.
//
// When the leader is killed with SIGKILL it cannot say goodbye: its
// ZooKeeper session expires after the session timeout
// (high-availability.zookeeper.client.session-timeout, 2 s here), which
// deletes its ephemeral latch and leader nodes; then the standby is
// granted the leadership, recovers the JobGraphs that have no result yet
// ("Successfully recovered 1 persisted job graphs.") and runs them again
// with the same JobID, on the TaskManagers, which find the new
// ResourceManager and JobMaster through ZooKeeper. A job that had FINISHED
// is not run again.
//
// The test waits on the lines start-cluster prints, on the JobManager's
// log and on the REST endpoint's answers, each wait bounded by e2eTimeout.
// It takes 7–9 s with the race detector once the build is cached, 2 s of
// them the session timeout; -short skips it, and it is skipped (or, with CI=true, fails) where no
// ZooKeeper is installed.
func TestHighAvailabilityClusterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	ha := flinktest.HAConfiguration(server.Address(), t.TempDir(), 2*time.Second)

	// flink start-cluster --jobmanagers 2 --taskmanagers 2 --slots 2, with
	// ZooKeeper HA, on free ports.
	c := startClusterProcess(t, bin, append([]string{"start-cluster", "--jobmanagers", "2", "--taskmanagers", "2", "--slots", "2",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir}, flinktest.HAArgs(ha)...)...)
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	jobManagers := startedJobManagers(t, c)
	require.Len(t, jobManagers, 2, "a leader and a standby:\n%s", c.stdout())
	pids := c.pids(t)
	require.Len(t, pids, 4, "two JobManagers and two TaskManagers:\n%s", c.stdout())

	// start-cluster names the leader; the other JobManager is the standby.
	leaderPID, _ := awaitLeaderLine(t, c, `\d+`)
	leader, standby := jobManagers[0], jobManagers[1]
	if leader.pid != leaderPID {
		leader, standby = standby, leader
	}
	require.Equal(t, leaderPID, leader.pid, "the leader is one of the two JobManagers: %+v", jobManagers)
	// The TaskManagers find the ResourceManager leader through ZooKeeper
	// and register there, as the leader's REST endpoint tells.
	awaitRegisteredTaskManagers(t, client.NewRestClusterClient(leader.rest), 2)
	rc := client.NewRestClusterClient(standby.rest) // the standby's REST endpoint answers through the leader's Dispatcher

	// The ticker (unbounded) at parallelism 2 and WordCount (bounded) at
	// parallelism 1 are submitted through the standby's REST endpoint.
	tickerJar := writeTickerJar(t, bin)
	wordCountJar := filepath.Join(t.TempDir(), "WordCount.jar")
	flinktest.Run(t, bin, "jar", wordcount.ProgramClass, "-o", wordCountJar)
	tickerID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", standby.rest, "-p", "2", tickerJar))
	wordCountID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", standby.rest, "-p", "1", wordCountJar))

	// The ticker runs; WordCount runs to its end and prints exact counts.
	flinktest.AwaitJob(t, rc, tickerID, "every task RUNNING", flinktest.EveryTaskRunning)
	flinktest.AwaitJob(t, rc, wordCountID, "FINISHED", func(d rest.JobDetailsInfo) bool { return d.State == api.JobFinished })
	require.Equal(t, wordCounts(), printedCounts(t, logDir), "the counts WordCount printed before the failover")
	printedBefore := printedRecords(t, logDir)

	// From now on, the status of both jobs is asked every 10 ms, through
	// the standby's REST endpoint, until the ticker runs again.
	statuses := watchJobStatuses(rc, tickerID, wordCountID)

	// SIGKILL the leader: no goodbye, no revoked leadership, only a
	// ZooKeeper session that expires.
	require.NoError(t, syscall.Kill(leader.pid, syscall.SIGKILL))

	// The standby is granted the leadership: start-cluster prints it, once
	// ZooKeeper names it as the Dispatcher's leader.
	_, restPort := awaitLeaderLine(t, c, strconv.Itoa(standby.pid))
	assert.True(t, strings.HasSuffix(standby.rest, ":"+restPort), "the new leader's REST port %s is the standby's %s", restPort, standby.rest)

	// The new leader recovered the ticker from ZooKeeper, and only the
	// ticker: WordCount's JobGraph was removed when it finished.
	newLeaderLog := awaitLog(t, logDir, entrypoint.DaemonStandaloneSession, standby.index, "Successfully recovered 1 persisted job graphs.")
	assert.Contains(t, newLeaderLog, "Trying to recover job with job id "+tickerID.String()+".")
	assert.Contains(t, newLeaderLog, "Recovered JobGraph(jobId: "+tickerID.String()+").")
	assert.NotContains(t, newLeaderLog, "Trying to recover job with job id "+wordCountID.String()+".")

	// The ticker runs again, with the same JobID, every task RUNNING, as
	// the new leader's REST endpoint says.
	details := flinktest.AwaitJob(t, rc, tickerID, "RUNNING again, every task", flinktest.EveryTaskRunning)
	assert.Equal(t, tickerID, details.JobID)
	assert.Equal(t, 4, details.StatusCounts[api.ExecutionRunning], "2 sources and 2 running-count -> print-sink tasks")
	assert.Len(t, subtasksOf(t, rc, tickerID, details), 4, "one current attempt per subtask")

	// At no point was the ticker FAILED, or in any other terminal state,
	// nor unknown: while no leader was known the REST endpoint answered
	// 500 or 503, and otherwise a status the job can leave.
	answers := statuses.stop()
	t.Logf("the ticker's status as the REST endpoint answered it, in order: %v", answers[tickerID])
	t.Logf("WordCount's status as the REST endpoint answered it, in order: %v", answers[wordCountID])
	require.NotEmpty(t, answers[tickerID])
	assert.Equal(t, statusAnswer{status: api.JobRunning}, answers[tickerID][0], "the ticker before the kill")
	for _, a := range answers[tickerID] {
		switch {
		case a.err != "":
			t.Errorf("the ticker's status: %s", a.err)
		case a.httpStatus != 0:
			assert.GreaterOrEqual(t, a.httpStatus, http.StatusInternalServerError, "the ticker's status: no error but 500 or 503, while no leader is known: %v", answers[tickerID])
		default:
			assert.False(t, a.status.IsTerminalState(), "the ticker was %s during the failover: %v", a.status, answers[tickerID])
		}
	}

	// A FINISHED job stays FINISHED and is not run again. Its status is
	// FINISHED for as long as the leader that ran it answers; the new
	// leader answers 404, as Flink's Dispatcher does: a finished job's
	// ArchivedExecutionGraph lives in the ExecutionGraphInfoStore of the
	// process that ran it, and the JobResultStore keeps only what the next
	// leader needs to know not to run it again. No answer is another
	// status, the job is not among the new leader's jobs, its TaskManager
	// printed nothing more, and the counts are still exact.
	require.NotEmpty(t, answers[wordCountID])
	assert.Equal(t, statusAnswer{status: api.JobFinished}, answers[wordCountID][0], "WordCount before the kill")
	for _, a := range answers[wordCountID] {
		switch {
		case a.err != "":
			t.Errorf("WordCount's status: %s", a.err)
		case a.httpStatus != 0:
			assert.True(t, a.httpStatus == http.StatusNotFound || a.httpStatus >= http.StatusInternalServerError,
				"WordCount's status: only 404 (unknown to the new leader) or 500/503 (no leader known): %v", answers[wordCountID])
		default:
			assert.Equal(t, api.JobFinished, a.status, "WordCount's status: %v", answers[wordCountID])
		}
	}
	var jobs client.JobsOverview
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/overview", &jobs))
	for _, job := range jobs.Jobs {
		if job.JobID == wordCountID {
			assert.Equal(t, api.JobFinished, job.JobState, "WordCount among the new leader's jobs")
		}
	}
	assert.Equal(t, printedBefore, printedRecords(t, logDir), "WordCount printed records after the failover: it ran again")
	assert.Equal(t, wordCounts(), printedCounts(t, logDir), "the counts WordCount printed, after the failover")

	// flink ha-trace reads the cause from the logs: the old leader's log
	// stops with no word of losing the leadership, and the standby was
	// granted it a session timeout later.
	trace := flinktest.Run(t, bin, "ha-trace", "--log-dir", logDir)
	assert.Contains(t, trace, fmt.Sprintf("cause: leader-killed — standalonesession-%d's log stops at ", leader.index))
	assert.Contains(t, trace, fmt.Sprintf("and standalonesession-%d was granted it ", standby.index))

	// SIGTERM stops start-cluster and every process it started that is
	// still there. It exits 0: a JobManager that exited by itself while
	// another ran on was reported when it went ("exited by itself ... the
	// cluster runs on without it") and at the stop ("No standalonesession
	// daemon ... is running anymore"), and only the processes start-cluster
	// stops itself decide its exit code.
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitExit(t)
	assert.Equal(t, 0, c.cmd.ProcessState.ExitCode(), "start-cluster stopped by SIGTERM after one of its JobManagers was killed")
	assert.Contains(t, c.stderr.String(), fmt.Sprintf("the standalonesession daemon (pid %d) exited by itself (signal: killed); the cluster runs on without it.", leader.pid))
	assert.Contains(t, c.stdout(), fmt.Sprintf("No standalonesession daemon (pid: %d) is running anymore", leader.pid))
	assert.Contains(t, c.stdout(), fmt.Sprintf("Stopping standalonesession daemon (pid: %d)", standby.pid))
	assertGone(t, pids)
	assert.NotContains(t, c.stderr.String(), "DATA RACE")
}

// startedJobManager is a JobManager process as start-cluster announced it:
// "Starting standalonesession daemon on host H (pid P): RPC …, REST
// endpoint http://HOST:PORT, …". index is the <index> of its log file.
type startedJobManager struct {
	index int
	pid   int
	rest  string
}

func startedJobManagers(t *testing.T, c *clusterProcess) []startedJobManager {
	t.Helper()
	re := regexp.MustCompile(`Starting standalonesession daemon on host \S+ \(pid (\d+)\): RPC \S+, REST endpoint http://(\S+),`)
	var jobManagers []startedJobManager
	for i, m := range re.FindAllStringSubmatch(c.stdout(), -1) {
		pid, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		jobManagers = append(jobManagers, startedJobManager{index: i, pid: pid, rest: m[2]})
	}
	return jobManagers
}

// awaitLeaderLine returns the pid and REST port of the JobManager
// start-cluster names as the leader, "JobManager pid P (REST port R) is
// now the leader", for a pid matching pidPattern: from the lines it has
// printed already, or else from the next ones. (The first leader may be
// printed before or after the second JobManager's start line.)
func awaitLeaderLine(t *testing.T, c *clusterProcess, pidPattern string) (pid int, restPort string) {
	t.Helper()
	re := regexp.MustCompile(`^JobManager pid (` + pidPattern + `) \(REST port (\d+)\) is now the leader$`)
	var m []string
	for _, line := range strings.Split(c.stdout(), "\n") {
		if m = re.FindStringSubmatch(line); m != nil {
			break
		}
	}
	if m == nil {
		m = c.awaitLine(t, re)
	}
	pid, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return pid, m[2]
}

// awaitLog waits until the log of a daemon of the cluster in logDir has a
// line containing want, and returns the log (flinktest.AwaitLogFile).
func awaitLog(t testing.TB, logDir, daemon string, index int, want string) string {
	t.Helper()
	return flinktest.AwaitLogFile(t, filepath.Join(logDir, entrypoint.LogFileBase(daemon, index)+".log"), want)
}

// printedRecords counts the "(word,n)" records the print sinks printed
// into the TaskManagers' .out files: a job that ran again would print more.
func printedRecords(t *testing.T, logDir string) int {
	t.Helper()
	record := regexp.MustCompile(`(?m)^(?:\d+> )?\(\w+,\d+\)$`)
	n := 0
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, i)+".out"))
		require.NoError(t, err)
		n += len(record.FindAllIndex(data, -1))
	}
	return n
}

// statusAnswer is one answer of GET /jobs/{jobid}/status: a status, or
// the HTTP status of an error, or an error without one.
type statusAnswer struct {
	status     api.JobStatus
	httpStatus int
	err        string
}

func (a statusAnswer) String() string {
	switch {
	case a.err != "":
		return a.err
	case a.httpStatus != 0:
		return fmt.Sprintf("HTTP %d", a.httpStatus)
	default:
		return a.status.String()
	}
}

// jobStatusWatch asks a REST endpoint for the status of some jobs every
// 10 ms, on a goroutine of its own, and keeps each answer that differs
// from the one before it, so that a status a job passed through on the
// way is seen even when nobody waits for it.
type jobStatusWatch struct {
	stopped chan struct{}
	done    chan struct{}
	answers map[api.JobID][]statusAnswer // the goroutine's until done is closed
}

// watchJobStatuses starts asking, and returns once every job's status has
// been answered once: what the jobs were before whatever the test does
// next.
func watchJobStatuses(rc *client.RestClusterClient, jobIDs ...api.JobID) *jobStatusWatch {
	w := &jobStatusWatch{stopped: make(chan struct{}), done: make(chan struct{}), answers: map[api.JobID][]statusAnswer{}}
	asked := make(chan struct{})
	go func() {
		defer close(w.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for first := true; ; first = false {
			for _, jobID := range jobIDs {
				a := askJobStatus(rc, jobID)
				if seen := w.answers[jobID]; len(seen) == 0 || seen[len(seen)-1] != a {
					w.answers[jobID] = append(seen, a)
				}
			}
			if first {
				close(asked)
			}
			select {
			case <-w.stopped:
				return
			case <-tick.C:
			}
		}
	}()
	<-asked
	return w
}

func askJobStatus(rc *client.RestClusterClient, jobID api.JobID) statusAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	var status rest.JobStatusInfo
	err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/status", &status)
	var restErr *client.RestError
	switch {
	case err == nil:
		return statusAnswer{status: status.Status}
	case errors.As(err, &restErr):
		return statusAnswer{httpStatus: restErr.Status}
	default:
		return statusAnswer{err: err.Error()}
	}
}

// stop stops asking and returns every job's answers, in order.
func (w *jobStatusWatch) stop() map[api.JobID][]statusAnswer {
	close(w.stopped)
	<-w.done
	return w.answers
}
