//go:build !linux

// Package procattr holds what starting a daemon of the cluster, a
// JobManager or a TaskManager process, asks of the operating system.
package procattr

import "syscall"

// Daemon: elsewhere than on Linux, the processes of the cluster
// share their parent's process group, and nothing stops them if the
// parent is killed with SIGKILL.
func Daemon() *syscall.SysProcAttr { return nil }
