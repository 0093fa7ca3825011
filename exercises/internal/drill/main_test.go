package drill

import (
	"os"
	"testing"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// TestMain builds the flink command of the failover drills once for all
// of them (flinktest.Main), and stops their ZooKeeper server, if one ran.
func TestMain(m *testing.M) {
	code := flinktest.Main(m)
	zookeepertest.StopShared()
	os.Exit(code)
}
