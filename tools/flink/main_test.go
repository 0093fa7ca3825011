package main

import (
	"os"
	"testing"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

// TestMain stops the ZooKeeper server that the high-availability tests and
// benchmarks of this package share (zookeepertest.Shared), once they have
// all run: the first test that asks for it starts it, and it outlives each
// test so that the next one need not wait for a Java runtime to start.
func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}
