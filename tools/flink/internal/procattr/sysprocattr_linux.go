// Package procattr holds what starting a daemon of the cluster, a
// JobManager or a TaskManager process, asks of the operating system. Both
// start-cluster (cluster.go) and the tests that start the daemons one by
// one (package flinktest) start them so.
package procattr

import "syscall"

// Daemon puts a process of the cluster into a process group of its
// own, so that a Ctrl-C in the terminal reaches start-cluster alone,
// which then stops the processes in order (TaskManagers first). Should
// start-cluster die without stopping them, their Lifeline stops them.
func Daemon() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
