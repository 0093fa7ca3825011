package zookeeper_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/zookeeper"
)

func TestConfigTakesFlinksKeysAndDefaults(t *testing.T) {
	t.Parallel()
	c, err := zookeeper.ConfigFromConfiguration(map[string]string{zookeeper.KeyQuorum: "zk-1:2181, zk-2:2181"})
	require.NoError(t, err)
	assert.Equal(t, []string{"zk-1:2181", "zk-2:2181"}, c.Servers())
	assert.Equal(t, "/flink/default", c.Namespace())
	assert.Equal(t, 60*time.Second, c.SessionTimeout)
	assert.Equal(t, 15*time.Second, c.ConnectionTimeout)
	assert.False(t, c.TolerateSuspendedConnections)

	c, err = zookeeper.ConfigFromConfiguration(map[string]string{
		zookeeper.KeyQuorum:                "localhost:2181",
		zookeeper.KeyRoot:                  "/teams/payments",
		zookeeper.KeyClusterID:             "fraud-detection",
		zookeeper.KeySessionTimeout:        "2000",
		zookeeper.KeyConnectionTimeout:     "5 s",
		zookeeper.KeyTolerateSuspendedConn: "true",
	})
	require.NoError(t, err)
	assert.Equal(t, "/teams/payments/fraud-detection", c.Namespace())
	assert.Equal(t, 2*time.Second, c.SessionTimeout, "Flink's int options are in ms")
	assert.Equal(t, 5*time.Second, c.ConnectionTimeout)
	assert.True(t, c.TolerateSuspendedConnections)
}

func TestConfigRefusesWhatZooKeeperCannotUse(t *testing.T) {
	t.Parallel()
	_, err := zookeeper.ConfigFromConfiguration(map[string]string{})
	assert.EqualError(t, err, "No valid ZooKeeper quorum has been specified. You can specify the quorum via the configuration key 'high-availability.zookeeper.quorum'.")
	for key, value := range map[string]string{
		zookeeper.KeySessionTimeout:        "soon",
		zookeeper.KeyConnectionTimeout:     "-5",
		zookeeper.KeyTolerateSuspendedConn: "sometimes",
	} {
		_, err := zookeeper.ConfigFromConfiguration(map[string]string{zookeeper.KeyQuorum: "localhost:2181", key: value})
		assert.EqualError(t, err, "Could not parse value '"+value+"' for key '"+key+"'.")
	}
}
