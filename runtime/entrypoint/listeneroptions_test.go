package entrypoint

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/blob"
	"flinklab/runtime/network"
	"flinklab/runtime/rpc"
)

func TestListenerOptionsDefaults(t *testing.T) {
	o, err := readListenerOptions(nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		key       string
		got, want any
	}{
		{KeyRPCConnectTimeout, o.rpc.ConnectTimeout, 20 * time.Second},
		{KeyRPCReadTimeout, o.rpc.ReadTimeout, 20 * time.Second},
		{KeyRPCIdleTimeout, o.rpc.IdleTimeout, 5 * time.Minute},
		{KeyRPCMaxConnections, o.rpc.MaxConnections, 1000},
		{KeyBlobFetchNumConcurrent, o.blobServer.FetchNumConcurrent, 50},
		{KeyBlobFetchBacklog, o.blobServer.FetchBacklog, 1000},
		{KeyBlobServerReadTimeout, o.blobServer.ReadTimeout, 10 * time.Second},
		{KeyBlobServerWriteTimeout, o.blobServer.WriteTimeout, 5 * time.Minute},
		{KeyBlobClientConnectTimeout, o.blobClient.ConnectTimeout, time.Duration(0)},
		{KeyBlobClientSocketTimeout, o.blobClient.SocketTimeout, 300 * time.Second},
		{KeyNettyClientConnectTimeoutSec, o.dataClientConnectTimeout, 120 * time.Second},
		{KeyNettyServerReadTimeout, o.dataServer.ReadTimeout, 20 * time.Second},
		{KeyNettyServerIdleTimeout, o.dataServer.IdleTimeout, 5 * time.Minute},
		{KeyNettyServerMaxConnections, o.dataServer.MaxConnections, 1000},
	} {
		assert.Equal(t, tc.want, tc.got, tc.key)
	}
	// The idle timeouts are far longer than a heartbeat interval (10 s):
	// connections that carry heartbeats are never idle.
	assert.Greater(t, o.rpc.IdleTimeout, 10*DefaultAskTimeout)
}

func TestListenerOptionsAreRead(t *testing.T) {
	o, err := readListenerOptions(map[string]string{
		KeyRPCConnectTimeout:            "5 s", // Flink's spelling of its default, "20 s"
		KeyRPCReadTimeout:               "1s",
		KeyRPCIdleTimeout:               "2m",
		KeyRPCMaxConnections:            "10",
		KeyBlobFetchNumConcurrent:       "3",
		KeyBlobFetchBacklog:             "7",
		KeyBlobServerReadTimeout:        "500ms",
		KeyBlobServerWriteTimeout:       "30000", // milliseconds, as Flink reads a bare number
		KeyBlobClientConnectTimeout:     "2000",
		KeyBlobClientSocketTimeout:      "60000",
		KeyNettyClientConnectTimeoutSec: "30",
		KeyNettyServerReadTimeout:       "3s",
		KeyNettyServerIdleTimeout:       "1h",
		KeyNettyServerMaxConnections:    "4",
	})
	require.NoError(t, err)
	assert.Equal(t, rpc.TCPConfig{Address: "h:1", ConnectTimeout: 5 * time.Second, ReadTimeout: time.Second, IdleTimeout: 2 * time.Minute, MaxConnections: 10},
		o.rpcConfig("h:1", nil))
	assert.Equal(t, blob.ServerConfig{StorageDir: "d", FetchNumConcurrent: 3, FetchBacklog: 7, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 30 * time.Second},
		o.withBlobServerLimits(blob.ServerConfig{StorageDir: "d"}))
	assert.Equal(t, blob.TCPSourceConfig{ConnectTimeout: 2 * time.Second, SocketTimeout: time.Minute}, o.blobClient)
	assert.Equal(t, network.PartitionRequestServerConfig{ReadTimeout: 3 * time.Second, IdleTimeout: time.Hour, MaxConnections: 4}, o.dataServer)
	assert.Equal(t, 30*time.Second, o.dataClientConnectTimeout)
}

// As in Flink, a blob client timeout of 0 means none: the download
// connects and waits for the BlobServer as long as it takes.
func TestListenerOptionsBlobClientTimeoutsOfZeroMeanNone(t *testing.T) {
	o, err := readListenerOptions(map[string]string{
		KeyBlobClientConnectTimeout: "0",
		KeyBlobClientSocketTimeout:  "0",
	})
	require.NoError(t, err)
	assert.Equal(t, blob.TCPSourceConfig{ConnectTimeout: 0, SocketTimeout: blob.NoSocketTimeout}, o.blobClient)
}

func TestListenerOptionsRefused(t *testing.T) {
	for conf, want := range map[[2]string]string{
		{KeyRPCReadTimeout, "0"}:                   "Could not parse value '0' for key 'pekko.tcp.read-timeout'. Caused by: the duration must be larger than 0",
		{KeyRPCIdleTimeout, "soon"}:                "Could not parse value 'soon' for key 'pekko.tcp.idle-timeout'.",
		{KeyRPCMaxConnections, "0"}:                "Could not parse value '0' for key 'pekko.tcp.max-connections'. Caused by: the value must be at least 1",
		{KeyBlobFetchNumConcurrent, "-5"}:          "Could not parse value '-5' for key 'blob.fetch.num-concurrent'.",
		{KeyBlobFetchBacklog, "many"}:              "Could not parse value 'many' for key 'blob.fetch.backlog'.",
		{KeyBlobClientConnectTimeout, "-1"}:        "a duration must not be negative",
		{KeyBlobClientSocketTimeout, "-1"}:         "a duration must not be negative",
		{KeyNettyClientConnectTimeoutSec, "2 min"}: "Could not parse value '2 min' for key 'taskmanager.network.netty.client.connectTimeoutSec'.",
		{KeyNettyServerIdleTimeout, "0s"}:          "the duration must be larger than 0",
	} {
		_, err := readListenerOptions(map[string]string{conf[0]: conf[1]})
		assert.ErrorContains(t, err, want, "%s=%s", conf[0], conf[1])
	}
}
