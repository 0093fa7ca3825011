package zookeeper

import "syscall"

// serverSysProcAttr asks the kernel to kill the ZooKeeper server should
// the process that started it die without stopping it (a test binary
// that timed out, a flink start-zookeeper-quorum killed with SIGKILL), so
// that no server is left running.
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
