package main

import "syscall"

// daemonSysProcAttr puts a process of the cluster into a process group of
// its own, so that a Ctrl-C in the terminal reaches start-cluster alone,
// which then stops the processes in order (TaskManagers first); and asks
// the kernel to send it SIGTERM should start-cluster die without stopping
// it (killed with SIGKILL, say), so that nothing is left running.
func daemonSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
