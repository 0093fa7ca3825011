//go:build unix

package flinktest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
	"flinklab/tools/flink/internal/procattr"
)

// Process is a `flink jobmanager` or `flink taskmanager` daemon the test
// started itself.
type Process struct {
	Action string // "jobmanager" or "taskmanager"
	Index  int    // the <index> of its log file

	cmd    *exec.Cmd
	ready  map[string]string // what its ready line said: rpc=… rest=… blob=… log=…, or resource-id=… log=…
	stderr *SyncBuffer       // its log lines, and what the race detector reports
	done   chan struct{}     // closed once it has exited
	killed bool              // by the test, with SIGKILL
}

// StartProcess starts the built command's action as start-cluster starts
// it (see cluster.go's startDaemon): with the log directory, its log
// index, a pipe as file descriptor 3 on which it writes one ready line
// once it is up, and its lifeline as 4. It returns then.
func StartProcess(t testing.TB, bin, action, logDir string, index int, args ...string) *Process {
	t.Helper()
	readyR, readyW, err := os.Pipe()
	require.NoError(t, err)
	defer readyR.Close()
	p := &Process{Action: action, Index: index, stderr: &SyncBuffer{}, done: make(chan struct{})}
	lifeline, err := procattr.Lifeline() // the process ends with the test binary
	require.NoError(t, err)
	p.cmd = exec.Command(bin, append([]string{action,
		"--log-dir", logDir, "--log-index", strconv.Itoa(index),
		"--ready-fd", "3", "--lifeline-fd", strconv.Itoa(procattr.LifelineFD)}, args...)...)
	p.cmd.Env = Env()
	p.cmd.Stderr = p.stderr
	p.cmd.ExtraFiles = []*os.File{readyW, lifeline} // fd 3 and 4 in the child
	p.cmd.SysProcAttr = procattr.Daemon()
	err = p.cmd.Start()
	_ = readyW.Close() // the child's copy is the only one left: its exit ends the read
	require.NoError(t, err)
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.Exited() { // the test failed before it stopped the process
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})

	_ = readyR.SetReadDeadline(time.Now().Add(Timeout))
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

func (p *Process) String() string {
	return fmt.Sprintf("%s %d (pid %d)", p.Action, p.Index, p.PID())
}

// PID is the process's ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// RPC is a JobManager's RPC address, host:port.
func (p *Process) RPC() string { return p.ready["rpc"] }

// REST is a JobManager's REST address, host:port.
func (p *Process) REST() string { return p.ready["rest"] }

// ResourceID is a TaskManager's ResourceID.
func (p *Process) ResourceID() string { return p.ready["resource-id"] }

// LogPath is the path of the process's log file.
func (p *Process) LogPath() string { return p.ready["log"] }

// RestClient is a client of a JobManager's REST endpoint.
func (p *Process) RestClient() *client.RestClusterClient {
	return client.NewRestClusterClient(p.REST())
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill kills the process with SIGKILL and waits until it is gone.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	p.killed = true
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	p.AwaitExit(t)
}

// AwaitExit waits until the process has exited.
func (p *Process) AwaitExit(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(Timeout):
		t.Fatalf("%s did not exit within %v", p, Timeout)
	}
}
