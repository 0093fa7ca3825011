// Package flinktest runs the flink command as real processes for tests:
// it builds the command, runs its client actions (`flink run`, `flink
// jar`), starts JobManager and TaskManager daemons one by one as
// start-cluster starts them, follows the Dispatcher's leader in
// ZooKeeper, and asks a REST endpoint until a job is where a test needs
// it. The end-to-end tests of tools/flink use it, and so do the exercises
// whose scenario is a cluster of real processes (h05's kills the leader of
// a high-availability cluster and reads every process's log).
//
// Real processes cannot run inside testing/synctest, so every wait here is
// on real time: on a line a process writes, on ZooKeeper's watch, or by
// asking a REST endpoint again, each bounded by Timeout.
package flinktest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Timeout bounds every wait: a process's start, its exit, a leader, a
// job's state, a client action.
const Timeout = 20 * time.Second

// Build builds the flink command, with the race detector if the test runs
// with it (the packages are then in the build cache already), and returns
// its path. A go command that runs the tests with an overlay (go test
// -overlay, as `learn check` runs an exercise's tests) passes it on in
// GOFLAGS, and the command is built with it too.
//
// In a package whose TestMain goes through Main, the command is built once
// for all its tests: linking it costs seconds of CPU, and every test would
// link the same binary. Elsewhere each test builds its own, in its
// temporary directory.
func Build(t testing.TB) string {
	t.Helper()
	if !shared.enabled {
		return build(t, t.TempDir())
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.bin == "" {
		dir, err := os.MkdirTemp("", "flinklab-flink-")
		require.NoError(t, err)
		shared.dir = dir
		shared.bin = build(t, dir)
	}
	return shared.bin
}

// shared is the command Build built for every test of a package run
// through Main.
var shared struct {
	sync.Mutex
	enabled  bool
	dir, bin string
}

// Main runs a package's tests (m.Run) with one flink command built for all
// of them, and removes it when they are done. It returns m.Run's code.
func Main(m *testing.M) int {
	shared.enabled = true
	code := m.Run()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	return code
}

// build builds the flink command into dir.
func build(t testing.TB, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build flink with: %v", err)
	}
	bin := filepath.Join(dir, "flink")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command(goTool, append(args, "flinklab/tools/flink")...).CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// Env is the environment of the processes a test starts. Built with the
// race detector, a process waits a second before it exits, in case
// another goroutine is about to report a race (GORACE atexit_sleep_ms,
// 1000 by default); a tenth of that is plenty here, and saves seconds per
// process.
func Env() []string {
	return append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=100"))
}

// Run runs the built command, which must succeed, and returns its
// stdout.
func Run(t testing.TB, bin string, args ...string) string {
	t.Helper()
	stdout, stderr, code := RunCode(t, bin, args...)
	require.Equal(t, 0, code, "flink %s:\n%s%s", strings.Join(args, " "), stdout, stderr)
	return stdout
}

// RunCode runs the built command and returns what it printed and its exit
// code, whatever the code.
func RunCode(t testing.TB, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = Env()
	var out, errOut SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := IgnoreExitError(cmd.Run())
	require.NoError(t, err, "flink %s", strings.Join(args, " "))
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// IgnoreExitError returns err unless it only says that the process
// exited with a code other than 0 or by a signal: the caller reads the
// exit code itself.
func IgnoreExitError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil
	}
	return err
}

// SyncBuffer is a strings.Builder safe for concurrent use: what a process
// writes to its stdout or stderr while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
