//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// The end-to-end test runs a real standalone cluster: this command, built
// into a temporary directory, started as `flink start-cluster
// --taskmanagers 2` on free ports, which starts a JobManager process and
// two TaskManager processes; then `flink run` and `flink list` as further
// processes; then SIGTERM, after which no process may be left.
//
// Real processes cannot run inside testing/synctest, so the test waits on
// real time: for the lines the cluster prints and for answers of its REST
// endpoint, each wait bounded by e2eTimeout, polling where nothing can
// tell the test that something happened (a TaskManager's registration).
// It takes 2–5 s once the build is cached; -short skips it.
//
// The job is WordCount at parallelism 1: its TaskManager downloads the
// jar from the JobManager's BlobServer over TCP, and its exchange (the
// keyBy) stays within one slot. (Records between TaskManagers need the
// producer's data address in the JobMaster's shuffle descriptors; see
// runtime/entrypoint's TestRecordsCrossTaskManagers.) Its print sink
// prints on the TaskManager, into the .out file start-cluster gave it,
// and the test counts the words there.

// e2eTimeout bounds every wait of these tests, as it bounds those of
// package flinktest.
const e2eTimeout = flinktest.Timeout

func TestStandaloneClusterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()

	// flink start-cluster --taskmanagers 2, on free ports.
	c := startClusterProcess(t, bin, "start-cluster", "--taskmanagers", "2", "--slots", "2",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir)
	restAddress := c.awaitLine(t, regexp.MustCompile(`REST endpoint http://(\S+),`))[1]
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	pids := c.pids(t)
	require.Len(t, pids, 3, "a JobManager and two TaskManagers:\n%s", c.stdout())
	rc := client.NewRestClusterClient(restAddress)
	awaitRegisteredTaskManagers(t, rc, 2)

	// flink run -p 4 WordCount.jar, attached: it waits for the job. Four
	// subtasks fill both TaskManagers, so the keyed records cross from one
	// process to the other over TCP.
	jar := filepath.Join(t.TempDir(), "WordCount.jar")
	flinktest.Run(t, bin, "jar", "wordcount", "-o", jar)
	runOut, runErr, runCode := flinktest.RunCode(t, bin, "run", "-m", restAddress, "-p", "4", jar)
	jobID := flinktest.SubmittedJobID(t, runOut)

	require.Equal(t, 0, runCode, "flink run:\n%s%s", runOut, runErr)
	assert.Contains(t, runOut, "Job with JobID "+jobID.String()+" has finished.")
	assert.Contains(t, runOut, "Submission trace:")
	assert.NotContains(t, runErr, "DATA RACE")
	var status rest.JobStatusInfo
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/status", &status))
	assert.Equal(t, api.JobFinished, status.Status)
	assert.Equal(t, wordCounts(), printedCounts(t, logDir), "the counts the print sink printed on the TaskManagers")

	// flink list -a shows it.
	listOut := flinktest.Run(t, bin, "list", "-a", "-m", restAddress)
	assert.Contains(t, listOut, " : "+jobID.String()+" : WordCount (FINISHED)")

	// SIGTERM stops everything, the TaskManagers first, each deregistering.
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitExit(t)
	assert.Equal(t, 0, c.cmd.ProcessState.ExitCode(), "start-cluster stopped by SIGTERM")
	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d is still there", pid)
	}
	assert.NotContains(t, c.stderr.String(), "DATA RACE")
	assert.Contains(t, c.stdout(), "Stopping taskexecutor daemon (pid: "+strconv.Itoa(pids[2])+")")
	assert.Contains(t, c.stdout(), "Stopping standalonesession daemon (pid: "+strconv.Itoa(pids[0])+")")

	// What a learner reads in the logs.
	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	for _, line := range []string{
		"Starting StandaloneSessionClusterEntrypoint.",
		"Actor system started at pekko.tcp://flink@localhost:",
		"Started BLOB server at ",
		"Rest endpoint listening at ",
		"Received JobGraph submission 'WordCount' (" + jobID.String() + ").",
		"Closing TaskExecutor connection ",
		"RECEIVED SIGNAL 15: SIGTERM. Shutting down as requested.",
		"Terminating cluster entrypoint process StandaloneSessionClusterEntrypoint with exit code 0.",
	} {
		assert.Contains(t, jmLog, line)
	}
	for i := range 2 {
		tmLog := readLog(t, logDir, entrypoint.DaemonTaskExecutor, i)
		assert.Contains(t, tmLog, "Starting TaskManager with ResourceID: localhost:")
		assert.Contains(t, tmLog, "Successful registration at resource manager pekko.tcp://flink@localhost:")
		assert.Contains(t, tmLog, "Stopped TaskExecutor ")
	}
}

// flink run-application: an application cluster runs WordCount and ends
// with it, exit code 0, nothing left running.
func TestRunApplicationEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	jar := filepath.Join(t.TempDir(), "WordCount.jar")
	flinktest.Run(t, bin, "jar", "wordcount", "-o", jar)

	out := flinktest.Run(t, bin, "run-application", "--taskmanagers", "2", "-p", "1",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir, jar)

	assert.Contains(t, out, "The application's JobManager exited with exit code 0.")
	for _, pid := range regexp.MustCompile(`\(pid (\d+)\)`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(pid[1])
		assert.ErrorIs(t, syscall.Kill(n, 0), syscall.ESRCH, "process %d is still there", n)
	}
	assert.Equal(t, wordCounts(), printedCounts(t, logDir))
	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneJob, 0)
	assert.Contains(t, jmLog, "Starting StandaloneApplicationClusterEntryPoint.")
	assert.Contains(t, jmLog, "Shutting StandaloneApplicationClusterEntryPoint down with application status SUCCEEDED. Diagnostics null.")
}

// clusterProcess is a running `flink start-cluster`.
type clusterProcess struct {
	cmd    *exec.Cmd
	lines  chan string // its stdout, line by line
	mu     sync.Mutex
	seen   []string // every line read so far
	stderr *flinktest.SyncBuffer
	exited chan struct{}
}

func startClusterProcess(t testing.TB, bin string, args ...string) *clusterProcess {
	t.Helper()
	c := &clusterProcess{
		cmd:    exec.Command(bin, args...),
		lines:  make(chan string, 100),
		stderr: &flinktest.SyncBuffer{},
		exited: make(chan struct{}),
	}
	c.cmd.Stderr = c.stderr
	c.cmd.Env = flinktest.Env()
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			c.lines <- scanner.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil { // the test failed before it stopped the cluster
			_ = c.cmd.Process.Kill() // its processes' lifeline ends: they stop too
			_ = c.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("start-cluster's stdout:\n%s\nstderr:\n%s", c.stdout(), c.stderr.String())
		}
	})
	return c
}

// awaitLine reads stdout until a line matches re, and returns the match.
func (c *clusterProcess) awaitLine(t testing.TB, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(e2eTimeout)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("start-cluster ended before printing a line matching %q", re)
			}
			c.mu.Lock()
			c.seen = append(c.seen, line)
			c.mu.Unlock()
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("start-cluster printed no line matching %q within %v", re, e2eTimeout)
		}
	}
}

// pids returns the processes start-cluster said it started.
func (c *clusterProcess) pids(t testing.TB) []int {
	t.Helper()
	var pids []int
	for _, m := range regexp.MustCompile(`\(pid (\d+)\)`).FindAllStringSubmatch(c.stdout(), -1) {
		pid, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// awaitExit waits for start-cluster to exit, reading the rest of its
// stdout.
func (c *clusterProcess) awaitExit(t testing.TB) {
	t.Helper()
	timeout := time.After(e2eTimeout)
	for {
		select {
		case line, ok := <-c.lines:
			if ok {
				c.mu.Lock()
				c.seen = append(c.seen, line)
				c.mu.Unlock()
				continue
			}
			require.NoError(t, flinktest.IgnoreExitError(c.cmd.Wait()))
			return
		case <-timeout:
			t.Fatalf("start-cluster did not exit within %v of SIGTERM", e2eTimeout)
		}
	}
}

func (c *clusterProcess) stdout() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.seen, "\n")
}

// awaitRegisteredTaskManagers asks GET /taskmanagers until n TaskManagers
// have registered.
func awaitRegisteredTaskManagers(t testing.TB, rc *client.RestClusterClient, n int) {
	t.Helper()
	awaitTaskManagersInfo(t, rc, fmt.Sprintf("%d TaskManagers registered", n), func(info rest.TaskManagersInfo) bool {
		return len(info.TaskManagers) == n
	})
}

// awaitTaskManagersInfo asks GET /taskmanagers until its answer is done:
// TaskManagers register, and then report their slots, over TCP from
// processes of their own, and nothing but the ResourceManager's answer
// tells when. The polling is bounded by e2eTimeout, and a timeout says
// what was wanted and what the last answer was.
func awaitTaskManagersInfo(t testing.TB, rc *client.RestClusterClient, want string, done func(rest.TaskManagersInfo) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var info rest.TaskManagersInfo
		err := rc.SendRequest(ctx, http.MethodGet, "/taskmanagers", &info)
		if err == nil && done(info) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("want %s within %v; the last answer: %+v (error: %v)", want, e2eTimeout, info.TaskManagers, err)
		case <-tick.C:
		}
	}
}

// wordCounts counts the words of WordCount's text as the job does.
func wordCounts() map[string]int {
	counts := map[string]int{}
	for _, line := range strings.Split(wordcount.Text(), "\n") {
		for _, word := range wordcount.Tokenize(line) {
			counts[word]++
		}
	}
	return counts
}

// printedCounts reads what the print sinks printed into the TaskManagers'
// .out files, "(word,n)" or "3> (word,n)" per record, and keeps the last
// count of each word.
func printedCounts(t *testing.T, logDir string) map[string]int {
	t.Helper()
	record := regexp.MustCompile(`^(?:\d+> )?\((\w+),(\d+)\)$`)
	counts := map[string]int{}
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, i)+".out"))
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if m := record.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[2])
				counts[m[1]] = max(counts[m[1]], n)
			}
		}
	}
	return counts
}

func readLog(t *testing.T, dir, daemon string, index int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, entrypoint.LogFileBase(daemon, index)+".log"))
	require.NoError(t, err)
	return string(data)
}
