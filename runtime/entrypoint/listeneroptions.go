package entrypoint

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/blob"
	"flinklab/runtime/network"
	"flinklab/runtime/rpc"
	"flinklab/runtime/security"
)

// The limits of the three listeners a cluster's processes open to each
// other (RPC, BLOB, data) and of their clients: deadlines for what a peer
// sends, and bounds on connections. Where Flink has an option, the key
// and default are Flink's; the others are ours, named in Flink's style,
// and marked so below. Packages rpc, blob and network explain each limit
// in their doc.go ("Limits").
const (
	// KeyRPCConnectTimeout is pekko.tcp.timeout (Flink's; 20 s): how long
	// dialling another process's RPC service may take, TLS handshake
	// included.
	KeyRPCConnectTimeout = "pekko.tcp.timeout"
	// KeyRPCReadTimeout is pekko.tcp.read-timeout (ours; 20 s): the first
	// frame of an incoming connection must arrive within it of the accept,
	// every later frame within it of its first byte.
	KeyRPCReadTimeout = "pekko.tcp.read-timeout"
	// KeyRPCIdleTimeout is pekko.tcp.idle-timeout (ours; 5 min): an
	// incoming connection that brings no frame for this long, while none
	// of its calls runs, is closed. An outgoing one closes itself after
	// half of it without a call, before its peer would.
	KeyRPCIdleTimeout = "pekko.tcp.idle-timeout"
	// KeyRPCMaxConnections is pekko.tcp.max-connections (ours; 1000): the
	// incoming connections the RPC service serves at once. Each
	// TaskManager holds one to the JobManager, so it bounds the size of
	// the cluster too.
	KeyRPCMaxConnections = "pekko.tcp.max-connections"

	// KeyBlobFetchNumConcurrent is blob.fetch.num-concurrent (Flink's; 50):
	// the connections the BlobServer serves at once.
	KeyBlobFetchNumConcurrent = "blob.fetch.num-concurrent"
	// KeyBlobFetchBacklog is blob.fetch.backlog (Flink's; 1000). It is
	// checked and shown in the BlobServer's start-up line; the listen
	// backlog is the operating system's (package blob).
	KeyBlobFetchBacklog = "blob.fetch.backlog"
	// KeyBlobServerReadTimeout is blob.server.read-timeout (ours; 10 s):
	// how long the BlobServer waits for a connection's request.
	KeyBlobServerReadTimeout = "blob.server.read-timeout"
	// KeyBlobServerWriteTimeout is blob.server.write-timeout (ours;
	// 5 min): how long one write of a BLOB waits for a client that does
	// not read.
	KeyBlobServerWriteTimeout = "blob.server.write-timeout"
	// KeyBlobClientConnectTimeout is blob.client.connect.timeout (Flink's;
	// 0, none): how long a TaskManager's download may take to connect.
	KeyBlobClientConnectTimeout = "blob.client.connect.timeout"
	// KeyBlobClientSocketTimeout is blob.client.socket.timeout (Flink's;
	// 300000 ms): how long a download waits for the BlobServer to send
	// anything; 0 means as long as it takes.
	KeyBlobClientSocketTimeout = "blob.client.socket.timeout"

	// KeyNettyClientConnectTimeoutSec is
	// taskmanager.network.netty.client.connectTimeoutSec (Flink's; 120, in
	// seconds): how long dialling another TaskManager's data port may take.
	KeyNettyClientConnectTimeoutSec = "taskmanager.network.netty.client.connectTimeoutSec"
	// KeyNettyServerReadTimeout is
	// taskmanager.network.netty.server.read-timeout (ours; 20 s), as
	// pekko.tcp.read-timeout for the data port.
	KeyNettyServerReadTimeout = "taskmanager.network.netty.server.read-timeout"
	// KeyNettyServerIdleTimeout is
	// taskmanager.network.netty.server.idle-timeout (ours; 5 min): a
	// connection to the data port that reads no subpartition and sends
	// nothing for this long is closed.
	KeyNettyServerIdleTimeout = "taskmanager.network.netty.server.idle-timeout"
	// KeyNettyServerMaxConnections is
	// taskmanager.network.netty.server.max-connections (ours; 1000): the
	// connections the data port serves at once.
	KeyNettyServerMaxConnections = "taskmanager.network.netty.server.max-connections"
)

// listenerOptions are the limits of a process's listeners and clients, as
// the options above set them, and their TLS, as security.ssl.internal.*
// sets it (package security). Each field holds only these parts of its
// package's config; where to listen and the logger are the caller's.
type listenerOptions struct {
	rpc        rpc.TCPConfig
	blobServer blob.ServerConfig
	blobClient blob.TCPSourceConfig
	dataServer network.PartitionRequestServerConfig
	// dataClientConnectTimeout and dataClientTLS are the
	// ShuffleEnvironment's ConnectTimeout and ClientTLS.
	dataClientConnectTimeout time.Duration
	dataClientTLS            *tls.Config
}

// readListenerOptions reads the options above, on top of the defaults,
// and refuses a value that does not parse or is out of range, so that a
// process with a wrong option does not start.
//
// Differs from Flink:
//
//   - Flink's BlobServer logs a warning and takes the default for a
//     blob.fetch.num-concurrent or blob.fetch.backlog below 1; here the
//     process does not start.
//   - Flink reads blob.client.connect.timeout and blob.client.socket.timeout
//     as integers of milliseconds, 0 meaning none, and takes a negative
//     one until the first download fails with it (Java's Socket refuses a
//     negative timeout). Here both take a bare number of milliseconds too,
//     0 meaning none, but also a duration ("30 s"), as the other timeouts
//     do, and a negative value stops the process at its start.
func readListenerOptions(conf map[string]string) (listenerOptions, error) {
	o := listenerOptions{
		rpc: rpc.TCPConfig{
			ConnectTimeout: rpc.DefaultConnectTimeout,
			ReadTimeout:    rpc.DefaultReadTimeout,
			IdleTimeout:    rpc.DefaultIdleTimeout,
			MaxConnections: rpc.DefaultMaxConnections,
		},
		blobServer: blob.ServerConfig{
			FetchNumConcurrent: blob.DefaultFetchNumConcurrent,
			FetchBacklog:       blob.DefaultFetchBacklog,
			ReadTimeout:        blob.DefaultServerReadTimeout,
			WriteTimeout:       blob.DefaultServerWriteTimeout,
		},
		blobClient: blob.TCPSourceConfig{SocketTimeout: blob.DefaultSocketTimeout},
		dataServer: network.PartitionRequestServerConfig{
			ReadTimeout:    network.DefaultServerReadTimeout,
			IdleTimeout:    network.DefaultServerIdleTimeout,
			MaxConnections: network.DefaultServerMaxConnections,
		},
		dataClientConnectTimeout: network.DefaultClientConnectTimeout,
	}
	for _, option := range []struct {
		key   string
		value *time.Duration
	}{
		{KeyRPCConnectTimeout, &o.rpc.ConnectTimeout},
		{KeyRPCReadTimeout, &o.rpc.ReadTimeout},
		{KeyRPCIdleTimeout, &o.rpc.IdleTimeout},
		{KeyBlobServerReadTimeout, &o.blobServer.ReadTimeout},
		{KeyBlobServerWriteTimeout, &o.blobServer.WriteTimeout},
		{KeyNettyServerReadTimeout, &o.dataServer.ReadTimeout},
		{KeyNettyServerIdleTimeout, &o.dataServer.IdleTimeout},
	} {
		var err error
		if *option.value, err = positiveDurationOption(conf, option.key, *option.value); err != nil {
			return o, err
		}
	}
	var err error
	// 0, Flink's default, means no connect timeout.
	if o.blobClient.ConnectTimeout, err = durationOption(conf, KeyBlobClientConnectTimeout, 0); err != nil {
		return o, err
	}
	// 0 means no socket timeout, as Java's SO_TIMEOUT 0 does.
	if o.blobClient.SocketTimeout, err = durationOption(conf, KeyBlobClientSocketTimeout, o.blobClient.SocketTimeout); err != nil {
		return o, err
	}
	if o.blobClient.SocketTimeout == 0 {
		o.blobClient.SocketTimeout = blob.NoSocketTimeout
	}
	for _, option := range []struct {
		key   string
		value *int
	}{
		{KeyRPCMaxConnections, &o.rpc.MaxConnections},
		{KeyBlobFetchNumConcurrent, &o.blobServer.FetchNumConcurrent},
		{KeyBlobFetchBacklog, &o.blobServer.FetchBacklog},
		{KeyNettyServerMaxConnections, &o.dataServer.MaxConnections},
	} {
		if *option.value, err = positiveIntOption(conf, option.key, *option.value); err != nil {
			return o, err
		}
	}
	seconds, err := positiveIntOption(conf, KeyNettyClientConnectTimeoutSec, int(o.dataClientConnectTimeout/time.Second))
	if err != nil {
		return o, err
	}
	o.dataClientConnectTimeout = time.Duration(seconds) * time.Second
	return o, o.readInternalTLS(conf)
}

// readInternalTLS reads the TLS of the three kinds of internal
// connection: each is nil (plaintext) unless security.ssl.internal.enabled
// is true and the connection's own switch is not false. A store that is
// missing or unreadable stops the process, as in Flink.
func (o *listenerOptions) readInternalTLS(conf map[string]string) (err error) {
	if o.rpc.ServerTLS, o.rpc.ClientTLS, err = security.InternalTLS(conf, security.RPC); err != nil {
		return err
	}
	if o.blobServer.TLS, o.blobClient.TLS, err = security.InternalTLS(conf, security.Blob); err != nil {
		return err
	}
	o.dataServer.TLS, o.dataClientTLS, err = security.InternalTLS(conf, security.Data)
	return err
}

// rpcConfig is the configuration of a process's RPC service listening at
// address, with the limits read.
func (o listenerOptions) rpcConfig(address string, logger *slog.Logger) rpc.TCPConfig {
	cfg := o.rpc
	cfg.Address, cfg.Logger = address, logger
	return cfg
}

// withBlobServerLimits returns cfg with the BlobServer's limits and TLS
// read.
func (o listenerOptions) withBlobServerLimits(cfg blob.ServerConfig) blob.ServerConfig {
	cfg.FetchNumConcurrent = o.blobServer.FetchNumConcurrent
	cfg.FetchBacklog = o.blobServer.FetchBacklog
	cfg.ReadTimeout = o.blobServer.ReadTimeout
	cfg.WriteTimeout = o.blobServer.WriteTimeout
	cfg.TLS = o.blobServer.TLS
	return cfg
}

// positiveIntOption reads an integer option that must be at least 1.
// Absent, it is def.
func positiveIntOption(conf map[string]string, key string, def int) (int, error) {
	v, ok := conf[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err == nil && n < 1 {
		err = errors.New("the value must be at least 1")
	}
	if err != nil {
		return 0, optionError(key, v, err)
	}
	return n, nil
}
