package drill

import (
	"os"
	"testing"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

// TestMain stops the ZooKeeper server of the failover drills, if one ran.
func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}
