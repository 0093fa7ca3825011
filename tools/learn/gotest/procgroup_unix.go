//go:build unix

package gotest

import (
	"os/exec"
	"syscall"
)

// stopWholeRun makes the end of ctx stop go test and everything it
// started. go test runs the test binary as a child of its own; killing go
// alone (what exec.CommandContext does) would leave a test that blocks
// running until its -timeout, minutes later, after every cancelled check
// of `learn watch`. So go test gets a process group of its own, and the
// whole group is killed.
func stopWholeRun(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
