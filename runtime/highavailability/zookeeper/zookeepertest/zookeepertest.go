// Package zookeepertest starts a real ZooKeeper server for a test: the
// one the machine has installed (see zookeeper.FindInstallation). A test
// that needs it fails under CI=true when none is installed, since CI
// installs it (.ci/run), and is skipped elsewhere, saying how to get it.
package zookeepertest

import (
	"context"
	"os"
	"testing"

	"flinklab/runtime/highavailability/zookeeper"
)

// Start starts a ZooKeeper server on a free port with its data in a
// temporary directory, and stops it when the test ends.
func Start(t testing.TB) *zookeeper.Server {
	t.Helper()
	inst, err := zookeeper.FindInstallation()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must have a ZooKeeper server: %v", err)
		}
		t.Skipf("this test needs a ZooKeeper server: %v", err)
	}
	server, err := zookeeper.StartServer(context.Background(), inst, zookeeper.ServerConfig{DataDir: t.TempDir(), LogLevel: "warn"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Stop)
	return server
}
