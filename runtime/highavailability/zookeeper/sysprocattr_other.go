//go:build !linux

package zookeeper

import "syscall"

// serverSysProcAttr: only Linux can tie the server's life to its parent's.
func serverSysProcAttr() *syscall.SysProcAttr { return nil }
