package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"flinklab/runtime/entrypoint"
	"flinklab/tools/flink/internal/procattr"
)

// How long start-cluster waits for a process it started to be up, and for
// one it stopped to be gone before it kills it. A JobManager or a
// TaskManager is up in well under a second and stops within its RPC
// timeout (10 s, for the goodbyes of a TaskExecutor whose JobManager is
// gone); the bounds only keep a broken process from hanging the cluster.
const (
	daemonStartTimeout = 60 * time.Second
	daemonStopTimeout  = 30 * time.Second
)

// startCluster is "start-cluster": Flink's bin/start-cluster.sh, in the
// foreground. It starts the JobManager, waits until it serves, starts the
// TaskManagers pointing at its RPC address, and then waits: for SIGINT or
// SIGTERM, which stop the cluster (bin/stop-cluster.sh: the TaskManagers
// first, so they deregister while the JobManager still listens), or for
// the JobManager to exit by itself, which stops the TaskManagers too.
// A TaskManager that exits by itself (it crashed, or was killed) is
// reported, and the cluster runs on without it, as a Flink cluster does:
// the JobManager notices through its heartbeats, and the jobs that ran
// there restart on the TaskManagers that are left, if their restart
// strategy lets them. Nothing it started outlives it.
func startCluster(opts clusterOptions, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)

	if err := checkTaskManagerMemory(opts); err != nil {
		fmt.Fprintln(stderr, "flink:", err)
		return 1
	}
	c := newCluster(opts, stdout, stderr)
	fmt.Fprintln(c.stdout, "Starting cluster.")
	jm, ok := c.start("jobmanager", entrypoint.DaemonStandaloneSession)
	if !ok {
		return 1
	}
	fmt.Fprintf(c.stdout, "The cluster runs in the foreground. Submit jobs with: flink run -m %s <jar-file>. Stop it with Ctrl-C (SIGINT) or SIGTERM.\n",
		jm.field("rest"))

	code := 0
	if c.await(signals) {
		fmt.Fprintf(stderr, "flink: the %s daemon (pid %d) exited by itself (%s); stopping the cluster.\n", jm.daemon, jm.pid(), jm.cmd.ProcessState)
		code = 1
	}
	if !c.stop() {
		code = 1
	}
	return code
}

// runApplication is "run-application": an application cluster on this
// machine, in the foreground. The JobManager (standalone-job) runs the
// program's job and exits when the job ends; then the TaskManagers are
// stopped, and the exit code is the JobManager's (0, or Flink's 1443 for
// a FAILED job, which a shell sees as 163).
func runApplication(opts clusterOptions, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)

	if err := checkTaskManagerMemory(opts); err != nil {
		fmt.Fprintln(stderr, "flink:", err)
		return 1
	}
	c := newCluster(opts, stdout, stderr)
	fmt.Fprintln(stdout, "Starting application cluster.")
	jm, ok := c.start("standalone-job", entrypoint.DaemonStandaloneJob)
	if !ok {
		return 1
	}
	fmt.Fprintf(stdout, "The application runs; follow it at http://%s. Ctrl-C (SIGINT) or SIGTERM stops the cluster.\n", jm.field("rest"))

	code := 1 // stopped before the application ended
	if c.await(signals) {
		code = jm.cmd.ProcessState.ExitCode()
		fmt.Fprintf(stdout, "The application's JobManager exited with exit code %d.\n", code)
	}
	c.stop()
	return code
}

// checkTaskManagerMemory computes the memory of the TaskManagers the
// cluster would start, from the -D options and --slots they would get,
// and returns why they could not start, if they could not: Flink's
// IllegalConfigurationException ("TaskManager memory configuration failed:
// ..."). Flink's taskmanager.sh computes it before it starts a
// TaskManager's JVM (BashJavaUtils) and stops there; start-cluster checks
// it before it starts any process, so a cluster whose TaskManagers could
// not start does not start at all.
func checkTaskManagerMemory(opts clusterOptions) error {
	_, err := entrypoint.TaskManagerConfig{
		NumberOfSlots: opts.slots,
		Configuration: opts.properties.configuration(),
	}.ProcessSpec()
	if err != nil {
		return fmt.Errorf("the TaskManagers cannot start: %w", err)
	}
	return nil
}

// cluster is the set of processes start-cluster (or run-application)
// started, in the order it started them.
type cluster struct {
	opts           clusterOptions
	stdout, stderr io.Writer
	stderrMu       sync.Mutex // the processes' log lines share stderr
	daemons        []*daemon
	jobManagers    int          // how many of the daemons are JobManagers still running
	exited         chan *daemon // each daemon, once it has exited
	leaders        *leaderWatch // with ZooKeeper HA: prints each new leader; nil otherwise
	// certificatesDir holds the certificates of internal TLS that
	// start-cluster made for the cluster; "" if it made none.
	certificatesDir string
}

func newCluster(opts clusterOptions, stdout, stderr io.Writer) *cluster {
	return &cluster{opts: opts, stdout: &lockedWriter{w: stdout}, stderr: stderr,
		exited: make(chan *daemon, opts.jobManagers+opts.taskManagers)}
}

// start starts the JobManagers (the action of this binary that runs one,
// as daemonName) and then the TaskManagers, and returns the first
// JobManager. If one does not start, the error goes to stderr, what did
// start is stopped, and ok is false.
func (c *cluster) start(action, daemonName string) (jm *daemon, ok bool) {
	err := c.provideInternalCertificates()
	if err == nil {
		err = c.watchLeaders()
	}
	for i := 0; err == nil && i < c.opts.jobManagers; i++ {
		var started *daemon
		if started, err = c.startJobManager(action, daemonName, i); i == 0 {
			jm = started
		}
	}
	if err == nil {
		err = c.startTaskManagers(jm)
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "flink:", err)
		c.stop()
		return nil, false
	}
	return jm, true
}

// watchLeaders follows the leader of a ZooKeeper HA cluster, to print
// each JobManager that becomes the leader.
func (c *cluster) watchLeaders() error {
	if !c.opts.highlyAvailable() {
		return nil
	}
	leaders, err := watchLeaders(c.opts.properties.configuration(), c.stdout)
	if err != nil {
		return fmt.Errorf("could not follow the leader in ZooKeeper: %w", err)
	}
	c.leaders = leaders
	return nil
}

// await waits for SIGINT or SIGTERM, or for the last JobManager to exit
// by itself, and reports whether it was the latter. A TaskManager, or a
// JobManager that is not the last, that exits by itself meanwhile (it
// crashed, or was killed) is reported on stderr, and the cluster runs on
// without it: a standby JobManager takes over from a leader that went.
func (c *cluster) await(signals <-chan os.Signal) (lastJobManagerExited bool) {
	for {
		select {
		case <-signals:
			return false
		case d := <-c.exited:
			if d.jobManager {
				if c.jobManagers--; c.jobManagers == 0 {
					return true
				}
			}
			c.stderrMu.Lock()
			fmt.Fprintf(c.stderr, "flink: the %s daemon (pid %d) exited by itself (%s); the cluster runs on without it.\n", d.daemon, d.pid(), d.cmd.ProcessState)
			c.stderrMu.Unlock()
		}
	}
}

// startJobManager starts the index-th JobManager process and waits until
// it serves. The JobManagers of an HA cluster take consecutive ports from
// the ones given (as Flink's rest.bind-port range does), unless those are
// 0, a free port.
func (c *cluster) startJobManager(action, daemonName string, index int) (*daemon, error) {
	port := func(p int) string {
		if p == 0 {
			return "0"
		}
		return strconv.Itoa(p + index)
	}
	args := []string{
		"--host", c.opts.host,
		"--rpc-port", port(c.opts.rpcPort),
		"--rest-port", port(c.opts.restPort),
		"--blob-port", port(c.opts.blobPort),
	}
	args = append(args, c.opts.properties.args()...)
	if action == "standalone-job" {
		jar, err := filepath.Abs(c.opts.jarFile)
		if err != nil {
			return nil, err
		}
		args = append(args, "-p", strconv.Itoa(c.opts.parallelism), jar)
		args = append(args, c.opts.args...)
	}
	jm, err := c.startDaemon(action, daemonName, index, args)
	if err != nil {
		return nil, err
	}
	jm.jobManager = true
	c.jobManagers++
	fmt.Fprintf(c.stdout, "Starting %s daemon on host %s (pid %d): RPC %s, REST endpoint http://%s, BLOB server %s, log %s\n",
		daemonName, hostname(), jm.pid(), jm.field("rpc"), jm.field("rest"), jm.field("blob"), jm.field("log"))
	if c.leaders != nil {
		c.leaders.add(jm)
	}
	return jm, nil
}

// startTaskManagers starts the TaskManagers and waits until each runs.
// Each registers at the JobManager's RPC address, or, with ZooKeeper HA,
// at the leader's, which it finds through ZooKeeper, and downloads jars
// from the BlobServer the ResourceManager leader names.
func (c *cluster) startTaskManagers(jm *daemon) error {
	var leaders []string
	if !c.opts.highlyAvailable() {
		leaders = []string{"--jobmanager", jm.field("rpc"), "--blob-server", jm.field("blob")}
	}
	for i := range c.opts.taskManagers {
		tm, err := c.startDaemon("taskmanager", entrypoint.DaemonTaskExecutor, i, append(append(leaders,
			"--host", c.opts.host,
			"--slots", strconv.Itoa(c.opts.slots),
		), c.opts.properties.args()...))
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "Starting %s daemon on host %s (pid %d): ResourceID %s, log %s, output %s\n",
			entrypoint.DaemonTaskExecutor, hostname(), tm.pid(), tm.field("resource-id"), tm.field("log"), tm.out)
	}
	return nil
}

// stop stops every process still running, the last started first: the
// TaskManagers, then the JobManagers, each with SIGTERM, and with SIGKILL
// if it has not exited daemonStopTimeout later. It reports whether each
// of them stopped cleanly, with exit code 0.
func (c *cluster) stop() (clean bool) {
	if c.leaders != nil {
		c.leaders.Close()
		c.leaders = nil
	}
	clean = true
	for i := len(c.daemons) - 1; i >= 0; i-- {
		d := c.daemons[i]
		if d.hasExited() {
			// Flink's stop-cluster.sh says so of a daemon that is gone.
			fmt.Fprintf(c.stdout, "No %s daemon (pid: %d) is running anymore on %s.\n", d.daemon, d.pid(), hostname())
			continue
		}
		fmt.Fprintf(c.stdout, "Stopping %s daemon (pid: %d) on host %s.\n", d.daemon, d.pid(), hostname())
		d.stop()
		if code := d.cmd.ProcessState.ExitCode(); code != 0 {
			fmt.Fprintf(c.stderr, "flink: the %s daemon (pid %d) exited with exit code %d.\n", d.daemon, d.pid(), code)
			clean = false
		}
	}
	c.removeInternalCertificates()
	return clean
}

// daemon is one process of the cluster: this binary, started with one of
// the cluster's actions.
type daemon struct {
	daemon     string // Flink's daemon name: standalonesession, taskexecutor, standalonejob
	jobManager bool
	out        string // the .out file: its standard output
	cmd        *exec.Cmd
	ready      map[string]string // what its ready line said: rpc=…, rest=…, log=…
	done       chan struct{}     // closed once it has exited
	err        error             // how it exited; read after done
}

// startDaemon starts this binary with action and args, logging into the
// log directory under the index-th name of its daemon. Its standard
// output goes to the .out file next to its log (what print sinks print),
// its log lines also to start-cluster's stderr, each prefixed with its
// name. It returns once the process has said it is up, on the pipe it
// gets as file descriptor 3 (--ready-fd 3).
func (c *cluster) startDaemon(action, daemonName string, index int, args []string) (*daemon, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.opts.logDir, 0o755); err != nil {
		return nil, err
	}
	base := entrypoint.LogFileBase(daemonName, index)
	out, err := os.Create(filepath.Join(c.opts.logDir, base+".out"))
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own copy
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer readyR.Close()

	lifeline, err := procattr.Lifeline()
	if err != nil {
		return nil, err
	}

	cmdArgs := append([]string{action,
		"--log-dir", c.opts.logDir, "--log-index", strconv.Itoa(index),
		"--ready-fd", "3", "--lifeline-fd", strconv.Itoa(procattr.LifelineFD)}, args...)
	cmd := exec.Command(self, cmdArgs...)
	cmd.Stdout = out
	stderr := &lineWriter{mu: &c.stderrMu, w: c.stderr, prefix: fmt.Sprintf("%s-%d | ", daemonName, index)}
	cmd.Stderr = stderr
	cmd.ExtraFiles = []*os.File{readyW, lifeline} // fd 3 and 4 in the child
	cmd.SysProcAttr = procattr.Daemon()
	err = cmd.Start()
	_ = readyW.Close() // the child's copy is the only one left: its exit ends our read
	if err != nil {
		return nil, err
	}
	d := &daemon{daemon: daemonName, out: out.Name(), cmd: cmd, done: make(chan struct{})}
	c.daemons = append(c.daemons, d)
	go func() {
		d.err = cmd.Wait()
		stderr.flush() // the last line of a process that died in the middle of it
		close(d.done)
		c.exited <- d
	}()

	_ = readyR.SetReadDeadline(time.Now().Add(daemonStartTimeout))
	line, err := bufio.NewReader(readyR).ReadString('\n')
	if err != nil {
		logFile := filepath.Join(c.opts.logDir, base+".log")
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the %s daemon (pid %d) exited before it was up: see %s", daemonName, d.pid(), logFile)
		}
		return nil, fmt.Errorf("the %s daemon (pid %d) was not up after %v: see %s", daemonName, d.pid(), daemonStartTimeout, logFile)
	}
	d.ready = map[string]string{}
	for _, field := range strings.Fields(line) {
		if key, value, ok := strings.Cut(field, "="); ok {
			d.ready[key] = value
		}
	}
	return d, nil
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

func (d *daemon) field(key string) string { return d.ready[key] }

func (d *daemon) hasExited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// stop asks the process to stop (SIGTERM: it shuts down gracefully) and
// waits until it has exited, killing it after daemonStopTimeout.
func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(daemonStopTimeout)
	defer timer.Stop()
	select {
	case <-d.done:
	case <-timer.C:
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}

// lineWriter writes what a process writes to stderr to a shared writer,
// whole lines at a time, each behind the process's name.
type lineWriter struct {
	mu      *sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte // the start of a line not yet ended
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.mu.Lock()
		_, err := fmt.Fprintf(l.w, "%s%s\n", l.prefix, l.partial[:i])
		l.mu.Unlock()
		l.partial = l.partial[i+1:]
		if err != nil {
			return len(p), err
		}
	}
}

// flush writes what is left of a line that never ended. Call it once the
// process has exited and its stderr is read to the end (after cmd.Wait).
func (l *lineWriter) flush() {
	if len(l.partial) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s%s\n", l.prefix, l.partial)
	l.partial = nil
}

func hostname() string {
	if name, err := os.Hostname(); err == nil {
		return name
	}
	return "localhost"
}

// lockedWriter is start-cluster's stdout: the leader's changes are
// printed from the goroutine that follows ZooKeeper.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
