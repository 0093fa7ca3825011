//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/rest"
)

// checkInvariants checks invariants (a), (b) and (c) once the ticker is
// RUNNING again under leader, with details the leader's answer saying so.
func (c *haCluster) checkInvariants(t *testing.T, kill int, leader *daemonProcess, jobID api.JobID, details rest.JobDetailsInfo) {
	t.Helper()
	// (a) Exactly one live JobManager's DefaultDispatcherRunner leads, by
	// its log, and it is the one ZooKeeper names.
	var leading []string
	for _, jm := range c.jobManagers {
		if !jm.exited() && dispatcherRunnerLeads(t, jm) {
			leading = append(leading, jm.rpc())
		}
	}
	require.Equal(t, []string{leader.rpc()}, leading, "kill %d: the live JobManagers whose DefaultDispatcherRunner was granted the leadership and not revoked since", kill)

	// (b) The leader runs the ticker, under its JobID, every task RUNNING,
	// and no other job.
	require.Equal(t, jobID, details.JobID)
	require.True(t, everyTaskRunning(details), "kill %d: %s %v", kill, details.State, details.StatusCounts)
	jobs, err := leader.rc().ListJobs(context.Background())
	require.NoError(t, err)
	require.Len(t, jobs, 1, "kill %d: the leader's jobs: %+v", kill, jobs)
	assert.Equal(t, api.JobRunning, jobs[0].JobState, "kill %d", kill)

	// (c) One current attempt per subtask in the REST endpoint's vertex
	// view, and on the TaskManagers exactly one attempt per subtask that
	// has not reached a terminal state: RUNNING, of the leader's
	// ExecutionGraph, on the TaskManager the REST endpoint names.
	current := map[string]rest.SubtaskExecutionAttemptDetailsInfo{}
	for _, v := range details.Vertices {
		var vertex rest.JobVertexDetailsInfo
		require.NoError(t, leader.rc().SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/vertices/"+v.ID.String(), &vertex))
		require.Len(t, vertex.Subtasks, v.Parallelism, "kill %d: %s: one current attempt per subtask", kill, v.Name)
		for _, s := range vertex.Subtasks {
			name := fmt.Sprintf("%s (%d/%d)", v.Name, s.Subtask+1, v.Parallelism)
			require.NotContains(t, current, name, "kill %d: two current attempts of %s", kill, name)
			assert.Empty(t, s.OtherConcurrentAttempts, "kill %d: %s", kill, name)
			current[name] = s
		}
	}
	executionGraph := executionGraphOf(t, leader.logPath(), jobID)
	live := liveAttempts(t, c.taskManagers)
	require.Len(t, live, len(current), "kill %d: the subtasks with live attempts on the TaskManagers: %v", kill, live)
	for name, s := range current {
		attempts := live[name]
		require.Len(t, attempts, 1, "kill %d: the live attempts of %s on the TaskManagers", kill, name)
		assert.Equal(t, api.ExecutionRunning, attempts[0].state, "kill %d: %s", kill, name)
		assert.True(t, strings.HasPrefix(attempts[0].id, executionGraph+"_"), "kill %d: %s's live attempt %s is of the leader's ExecutionGraph %s", kill, name, attempts[0].id, executionGraph)
		assert.Equal(t, s.TaskManagerID, attempts[0].taskManager, "kill %d: %s runs where the REST endpoint says", kill, name)
	}
}

// haCluster is a ZooKeeper HA cluster whose processes the test starts one
// by one: JobManagers (`flink jobmanager`) and TaskManagers (`flink
// taskmanager`, which find the leaders through ZooKeeper), all with the
// same -D options, logging into one directory.
type haCluster struct {
	bin          string
	logDir       string
	conf         map[string]string
	jobManagers  []*daemonProcess // every one started, killed ones too; its index is its log index
	taskManagers []*daemonProcess
	leaders      *dispatcherLeaderWatch
}

// startHACluster starts two JobManagers and two TaskManagers with 2 slots
// each, and follows the Dispatcher's leader in ZooKeeper.
func startHACluster(t testing.TB, bin, logDir string, conf map[string]string) *haCluster {
	t.Helper()
	c := &haCluster{bin: bin, logDir: logDir, conf: conf, leaders: watchDispatcherLeader(t, conf)}
	c.startJobManager(t)
	c.startJobManager(t)
	for i := range 2 {
		c.taskManagers = append(c.taskManagers, startDaemonProcess(t, bin, "taskmanager", logDir, i,
			append([]string{"--host", "localhost", "--slots", "2"}, haArgs(conf)...)...))
	}
	return c
}

// startJobManager starts one more JobManager, on free ports: a standby
// while another leads.
func (c *haCluster) startJobManager(t testing.TB) *daemonProcess {
	t.Helper()
	jm := startDaemonProcess(t, c.bin, "jobmanager", c.logDir, len(c.jobManagers),
		append([]string{"--host", "localhost", "--rpc-port", "0", "--rest-port", "0", "--blob-port", "0"}, haArgs(c.conf)...)...)
	c.jobManagers = append(c.jobManagers, jm)
	return jm
}

// awaitLeader waits until ZooKeeper names one of the live JobManagers for
// which ok holds as the Dispatcher's leader, and returns it.
func (c *haCluster) awaitLeader(t testing.TB, what string, ok func(*daemonProcess) bool) *daemonProcess {
	t.Helper()
	var leader *daemonProcess
	c.leaders.await(t, what, func(address string) bool {
		for _, jm := range c.jobManagers {
			if jm.rpc() == address && !jm.exited() && ok(jm) {
				leader = jm
				return true
			}
		}
		return false
	})
	return leader
}

// leaderAndStandby returns the JobManager that leads now, as ZooKeeper
// names it, and the one other live JobManager.
func (c *haCluster) leaderAndStandby(t testing.TB) (leader, standby *daemonProcess) {
	t.Helper()
	leader = c.awaitLeader(t, "a leader", func(*daemonProcess) bool { return true })
	for _, jm := range c.jobManagers {
		if jm != leader && !jm.exited() {
			require.Nil(t, standby, "two standbys: %s and %s", jm.rpc(), standby)
			standby = jm
		}
	}
	require.NotNil(t, standby, "no standby besides the leader %s", leader.rpc())
	return leader, standby
}

// stop stops the cluster as stop-cluster.sh does, with SIGTERM, the
// TaskManagers first, so that they deregister while the JobManagers still
// listen; each must exit 0, without a data race, and none may be left.
func (c *haCluster) stop(t testing.TB) {
	t.Helper()
	c.leaders.Close()
	for _, group := range [][]*daemonProcess{c.taskManagers, c.jobManagers} {
		for _, p := range group {
			if !p.exited() {
				require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			}
		}
		for _, p := range group {
			p.awaitExit(t)
		}
	}
	for _, p := range slices.Concat(c.taskManagers, c.jobManagers) {
		if !p.killed {
			assert.Equal(t, 0, p.cmd.ProcessState.ExitCode(), "%s stopped by SIGTERM", p)
		}
		assert.NotContains(t, p.stderr.String(), "DATA RACE", "%s", p)
		assert.ErrorIs(t, syscall.Kill(p.pid(), 0), syscall.ESRCH, "%s is still there", p)
	}
}

// daemonProcess is a `flink jobmanager` or `flink taskmanager` process the
// test started itself.
type daemonProcess struct {
	action string
	index  int // the <index> of its log file
	cmd    *exec.Cmd
	ready  map[string]string // what its ready line said: rpc=… rest=… blob=… log=…, or resource-id=… log=…
	stderr *syncBuffer       // its log lines, and what the race detector reports
	done   chan struct{}     // closed once it has exited
	killed bool              // by the test, with SIGKILL
}

// startDaemonProcess starts the built command's action as start-cluster
// starts it (see cluster.go's startDaemon): with the log directory, its
// log index, and a pipe as file descriptor 3 on which it writes one ready
// line once it is up. It returns then.
func startDaemonProcess(t testing.TB, bin, action, logDir string, index int, args ...string) *daemonProcess {
	t.Helper()
	readyR, readyW, err := os.Pipe()
	require.NoError(t, err)
	defer readyR.Close()
	p := &daemonProcess{action: action, index: index, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{action,
		"--log-dir", logDir, "--log-index", strconv.Itoa(index), "--ready-fd", "3"}, args...)...)
	p.cmd.Env = processEnv()
	p.cmd.Stderr = p.stderr
	p.cmd.ExtraFiles = []*os.File{readyW} // fd 3 in the child
	p.cmd.SysProcAttr = daemonSysProcAttr()
	err = p.cmd.Start()
	_ = readyW.Close() // the child's copy is the only one left: its exit ends the read
	require.NoError(t, err)
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() { // the test failed before it stopped the process
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})

	_ = readyR.SetReadDeadline(time.Now().Add(e2eTimeout))
	line, err := bufio.NewReader(readyR).ReadString('\n')
	require.NoError(t, err, "%s did not say it was up:\n%s", p, p.stderr.String())
	p.ready = map[string]string{}
	for _, field := range strings.Fields(line) {
		if key, value, ok := strings.Cut(field, "="); ok {
			p.ready[key] = value
		}
	}
	return p
}

func (p *daemonProcess) String() string {
	return fmt.Sprintf("%s %d (pid %d)", p.action, p.index, p.pid())
}

func (p *daemonProcess) pid() int        { return p.cmd.Process.Pid }
func (p *daemonProcess) rpc() string     { return p.ready["rpc"] }
func (p *daemonProcess) rest() string    { return p.ready["rest"] }
func (p *daemonProcess) logPath() string { return p.ready["log"] }

func (p *daemonProcess) rc() *client.RestClusterClient { return client.NewRestClusterClient(p.rest()) }

func (p *daemonProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill kills the process with SIGKILL and waits until it is gone.
func (p *daemonProcess) kill(t testing.TB) {
	t.Helper()
	p.killed = true
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	p.awaitExit(t)
}

func (p *daemonProcess) awaitExit(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(e2eTimeout):
		t.Fatalf("%s did not exit within %v", p, e2eTimeout)
	}
}

// dispatcherLeaderWatch follows the Dispatcher's leader in ZooKeeper, as
// start-cluster's leaderWatch (leaders.go) does: the address of the RPC
// service of the JobManager whose Dispatcher leads, from its leader node.
type dispatcherLeaderWatch struct {
	client    *zookeeper.Client
	retriever *zookeeper.LeaderRetriever

	mu      sync.Mutex
	address string        // host:port; "" while no leader is published
	changed chan struct{} // closed at the next change
}

func watchDispatcherLeader(t testing.TB, conf map[string]string) *dispatcherLeaderWatch {
	t.Helper()
	cfg, err := zookeeper.ConfigFromConfiguration(conf)
	require.NoError(t, err)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	zk, err := zookeeper.Connect(cfg, quiet)
	require.NoError(t, err)
	w := &dispatcherLeaderWatch{client: zk, changed: make(chan struct{})}
	w.retriever = zookeeper.NewLeaderRetriever(zk, zookeeper.ComponentDispatcher, cfg.TolerateSuspendedConnections, quiet)
	require.NoError(t, w.retriever.Start(w))
	t.Cleanup(w.Close)
	return w
}

// NotifyLeaderAddress is told each leader the Dispatcher's leader node
// names, e.g. pekko.tcp://flink@localhost:6123/user/rpc/dispatcher_0, or
// "" for none.
func (w *dispatcherLeaderWatch) NotifyLeaderAddress(address string, _ api.LeaderSessionID) {
	hostPort := strings.TrimPrefix(address, "pekko.tcp://flink@")
	hostPort, _, _ = strings.Cut(hostPort, "/")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.address = hostPort
	close(w.changed)
	w.changed = make(chan struct{})
}

// await waits until ok holds for the leader ZooKeeper names, and returns
// it. ZooKeeper's watch tells of each change; the wait is bounded by
// e2eTimeout.
func (w *dispatcherLeaderWatch) await(t testing.TB, what string, ok func(address string) bool) string {
	t.Helper()
	timeout := time.After(e2eTimeout)
	for {
		w.mu.Lock()
		address, changed := w.address, w.changed
		w.mu.Unlock()
		if ok(address) {
			return address
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("ZooKeeper named no %s within %v; it names %q", what, e2eTimeout, address)
		}
	}
}

// Close stops following the leader.
func (w *dispatcherLeaderWatch) Close() {
	w.mu.Lock()
	retriever := w.retriever
	w.retriever = nil
	w.mu.Unlock()
	if retriever != nil {
		_ = retriever.Stop()
		w.client.Close()
	}
}

// submitDetached submits a job jar with `flink run -d` and returns its
// JobID.
func submitDetached(t testing.TB, bin, restAddress, jar string, parallelism int) api.JobID {
	t.Helper()
	out := runFlink(t, bin, "run", "-d", "-m", restAddress, "-p", strconv.Itoa(parallelism), jar)
	m := submitted.FindStringSubmatch(out)
	require.NotNil(t, m, "no JobID in:\n%s", out)
	jobID, err := api.ParseJobID(m[1])
	require.NoError(t, err)
	return jobID
}

// logLines reads a process's log and returns its whole lines: a line the
// process is writing at that moment is left out.
func logLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	text = text[:strings.LastIndexByte(text, '\n')+1]
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// dispatcherRunnerLeads reports whether the JobManager's log says its
// DefaultDispatcherRunner was granted the leadership and not revoked
// since.
func dispatcherRunnerLeads(t testing.TB, jm *daemonProcess) bool {
	t.Helper()
	leads := false
	for _, line := range logLines(t, jm.logPath()) {
		switch {
		case strings.Contains(line, "DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id "):
			leads = true
		case strings.Contains(line, "DefaultDispatcherRunner [] - DefaultDispatcherRunner was revoked the leadership with leader id "):
			leads = false
		}
	}
	return leads
}

// executionGraphOf returns the ID of the ExecutionGraph the JobManager's
// JobMaster built last for the job: "Created execution graph EG for job
// JOBID.". Every attempt of its tasks has an ID that begins "EG_".
func executionGraphOf(t testing.TB, jobManagerLog string, jobID api.JobID) string {
	t.Helper()
	re := regexp.MustCompile(`JobMaster \[\] - Created execution graph (\S+) for job ` + jobID.String() + `\.$`)
	executionGraph := ""
	for _, line := range logLines(t, jobManagerLog) {
		if m := re.FindStringSubmatch(line); m != nil {
			executionGraph = m[1]
		}
	}
	require.NotEmpty(t, executionGraph, "no ExecutionGraph for job %s in %s", jobID, jobManagerLog)
	return executionGraph
}

// taskSwitch is a TaskManager's log line of a task that switched from
// one ExecutionState to another, e.g.
//
//	2026-12-02 06:44:48,832 INFO  Task [] - Source: sensor-events (1/2)#0 (61a6…_f93b…_0_0) switched from DEPLOYING to INITIALIZING.
//
// with the timestamp, the subtask's name (with its index), the attempt's
// ID, and both states.
var taskSwitch = regexp.MustCompile(`^(\S+ \S+) \w+ +Task \[\] - (.+ \(\d+/\d+\))#\d+ \((\S+)\) switched from ([A-Z]+) to ([A-Z]+)`)

// taskAttempt is one attempt of a subtask as a TaskManager's log tells it.
type taskAttempt struct {
	id          string
	state       api.ExecutionState
	taskManager string // the ResourceID of the TaskManager it is on
}

// liveAttempts reads the TaskManagers' logs and returns, by subtask
// ("NAME (i/n)"), its attempts that have not reached a terminal state.
// A terminal state is final: an attempt that reached one stays there,
// whatever line of it comes after.
func liveAttempts(t testing.TB, taskManagers []*daemonProcess) map[string][]taskAttempt {
	t.Helper()
	type key struct{ subtask, id string }
	attempts := map[key]*taskAttempt{}
	var order []key
	for _, tm := range taskManagers {
		for _, line := range logLines(t, tm.logPath()) {
			m := taskSwitch.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			var to api.ExecutionState
			require.NoError(t, to.UnmarshalText([]byte(m[5])), "%s: %s", tm, line)
			k := key{m[2], m[3]}
			a, ok := attempts[k]
			if !ok {
				a = &taskAttempt{id: m[3], taskManager: tm.ready["resource-id"]}
				attempts[k] = a
				order = append(order, k)
			}
			if !a.state.IsTerminal() {
				a.state = to
			}
		}
	}
	live := map[string][]taskAttempt{}
	for _, k := range order {
		if a := attempts[k]; !a.state.IsTerminal() {
			live[k.subtask] = append(live[k.subtask], *a)
		}
	}
	return live
}

// logTime is the time a log line was written, from its timestamp
// ("2026-12-02 06:44:48,832", the local time, to the millisecond).
func logTime(t testing.TB, line string) time.Time {
	t.Helper()
	if len(line) < len("2006-01-02 15:04:05,000") {
		t.Fatalf("no timestamp in log line %q", line)
	}
	ts, err := time.ParseInLocation("2006-01-02 15:04:05,000", line[:len("2006-01-02 15:04:05,000")], time.Local)
	require.NoError(t, err, "log line %q", line)
	return ts
}

// firstLogLine returns the first line of a log that contains s.
func firstLogLine(t testing.TB, path, s string) string {
	t.Helper()
	for _, line := range logLines(t, path) {
		if strings.Contains(line, s) {
			return line
		}
	}
	t.Fatalf("%s has no line %q", filepath.Base(path), s)
	return ""
}
