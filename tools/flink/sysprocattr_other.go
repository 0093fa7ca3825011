//go:build !linux

package main

import "syscall"

// daemonSysProcAttr: elsewhere than on Linux, the processes of the
// cluster share start-cluster's process group, and nothing stops them if
// start-cluster is killed with SIGKILL.
func daemonSysProcAttr() *syscall.SysProcAttr { return nil }
