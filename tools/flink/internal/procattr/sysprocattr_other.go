//go:build !linux

// Package procattr holds what starting a daemon of the cluster, a
// JobManager or a TaskManager process, asks of the operating system.
package procattr

import "syscall"

// Daemon: elsewhere than on Linux, the processes of the cluster share
// their parent's process group, so a Ctrl-C reaches them all at once.
// Should start-cluster die without stopping them, their Lifeline stops
// them, as on Linux.
func Daemon() *syscall.SysProcAttr { return nil }
