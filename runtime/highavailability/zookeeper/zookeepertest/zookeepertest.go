// Package zookeepertest starts a real ZooKeeper server for the tests of a
// test binary (Shared): the one the machine has installed (see
// zookeeper.FindInstallation). A test that needs it fails under CI=true
// when none is installed, since CI installs it (.ci/run), and is skipped
// elsewhere, saying how to get it.
package zookeepertest

import (
	"context"
	"os"
	"sync"
	"testing"

	"flinklab/runtime/highavailability/zookeeper"
)

// One server for all the tests of a test binary: starting one costs a
// second or two, a Java runtime's start. Tests that share it keep apart
// by each using a namespace of its own (high-availability.cluster-id).
var shared struct {
	once   sync.Once
	dir    string
	server *zookeeper.Server
	err    error
}

// Shared returns the server of the test binary, started by the first
// test that asks. The package's TestMain calls StopShared after its tests.
func Shared(t testing.TB) *zookeeper.Server {
	t.Helper()
	shared.once.Do(func() {
		var inst zookeeper.Installation
		if inst, shared.err = zookeeper.FindInstallation(); shared.err != nil {
			return
		}
		if shared.dir, shared.err = os.MkdirTemp("", "flinklab-zookeeper-"); shared.err != nil {
			return
		}
		shared.server, shared.err = zookeeper.StartServer(context.Background(), inst,
			zookeeper.ServerConfig{DataDir: shared.dir, LogLevel: "warn"}, nil)
	})
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must have a ZooKeeper server: %v", shared.err)
		}
		t.Skipf("this test needs a ZooKeeper server: %v", shared.err)
	}
	return shared.server
}

// StopShared stops the shared server, if a test started it, and removes
// its data.
func StopShared() {
	if shared.server != nil {
		shared.server.Stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}
