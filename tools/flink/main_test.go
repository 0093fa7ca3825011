package main

import (
	"os"
	"testing"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// TestMain builds the flink command once for every test of this package
// (flinktest.Main), and stops the ZooKeeper server that the
// high-availability tests and benchmarks share (zookeepertest.Shared) once
// they have all run: the first test that asks for it starts it, and it
// outlives each test so that the next one need not wait for a Java runtime
// to start.
func TestMain(m *testing.M) {
	code := flinktest.Main(m)
	zookeepertest.StopShared()
	os.Exit(code)
}
