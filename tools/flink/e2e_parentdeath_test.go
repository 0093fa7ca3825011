package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/entrypoint"
	"flinklab/tools/flink/flinktest"
)

// A start-cluster killed with SIGKILL cannot stop its daemons, and each
// runs in a process group of its own, out of reach of a Ctrl-C meant
// for start-cluster. Their lifeline stops them: each says in its log
// that its parent has gone, and shuts down as on SIGTERM.
func TestAKilledStartClusterTakesItsDaemonsWithIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	c := startClusterProcess(t, bin, "start-cluster", "--taskmanagers", "1",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir)
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	pids := c.pids(t)
	require.Len(t, pids, 2, "a JobManager and a TaskManager:\n%s", c.stdout())
	parent := c.cmd.Process.Pid

	require.NoError(t, c.cmd.Process.Kill())
	_ = c.cmd.Wait()

	for _, daemon := range []struct{ name, last string }{
		{entrypoint.DaemonStandaloneSession, "Terminating cluster entrypoint process StandaloneSessionClusterEntrypoint"},
		{entrypoint.DaemonTaskExecutor, "Stopped TaskExecutor "},
	} {
		path := filepath.Join(logDir, entrypoint.LogFileBase(daemon.name, 0)+".log")
		t.Cleanup(func() {
			if t.Failed() {
				data, _ := os.ReadFile(path)
				t.Logf("%s:\n%s", path, data)
			}
		})
		log := flinktest.AwaitLogFile(t, path, daemon.last)
		require.Contains(t, log, "The process that started this one (pid "+strconv.Itoa(parent)+") has exited: shutting down with it.", daemon.name)
	}
	for _, pid := range pids {
		awaitProcessGone(t, pid)
	}
}

// awaitProcessGone waits until pid has exited: signal 0 finds no such
// process, or (on Linux) it is a zombie its new parent has yet to reap.
func awaitProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.After(flinktest.Timeout)
	tick := time.NewTicker(10 * time.Millisecond) // a real process: polled, within a deadline
	defer tick.Stop()
	for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) && !isZombie(pid) {
		select {
		case <-deadline:
			t.Fatalf("process %d still runs %v after start-cluster was killed", pid, flinktest.Timeout)
		case <-tick.C:
		}
	}
}

// isZombie reads the state of pid from /proc/<pid>/stat ("pid (comm)
// STATE …"); false where there is no /proc.
func isZombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
