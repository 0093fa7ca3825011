//go:build unix

package flinktest

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
)

// dispatcherLeaderWatch follows the Dispatcher's leader in ZooKeeper, as
// start-cluster's leaderWatch (leaders.go) does: the address of the RPC
// service of the JobManager whose Dispatcher leads, from its leader node.
type dispatcherLeaderWatch struct {
	client    *zookeeper.Client
	retriever *zookeeper.LeaderRetriever

	mu      sync.Mutex
	address string        // host:port; "" while no leader is published
	changed chan struct{} // closed at the next change
}

func watchDispatcherLeader(t testing.TB, conf map[string]string) *dispatcherLeaderWatch {
	t.Helper()
	cfg, err := zookeeper.ConfigFromConfiguration(conf)
	require.NoError(t, err)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	zk, err := zookeeper.Connect(cfg, quiet)
	require.NoError(t, err)
	w := &dispatcherLeaderWatch{client: zk, changed: make(chan struct{})}
	w.retriever = zookeeper.NewLeaderRetriever(zk, zookeeper.ComponentDispatcher, cfg.TolerateSuspendedConnections, quiet)
	require.NoError(t, w.retriever.Start(w))
	t.Cleanup(w.Close)
	return w
}

// NotifyLeaderAddress is told each leader the Dispatcher's leader node
// names, e.g. pekko.tcp://flink@localhost:6123/user/rpc/dispatcher_0, or
// "" for none.
func (w *dispatcherLeaderWatch) NotifyLeaderAddress(address string, _ api.LeaderSessionID) {
	hostPort := strings.TrimPrefix(address, "pekko.tcp://flink@")
	hostPort, _, _ = strings.Cut(hostPort, "/")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.address = hostPort
	close(w.changed)
	w.changed = make(chan struct{})
}

// await waits until ok holds for the leader ZooKeeper names, and returns
// it. ZooKeeper's watch tells of each change; the wait is bounded by
// Timeout.
func (w *dispatcherLeaderWatch) await(t testing.TB, what string, ok func(address string) bool) string {
	t.Helper()
	timeout := time.After(Timeout)
	for {
		w.mu.Lock()
		address, changed := w.address, w.changed
		w.mu.Unlock()
		if ok(address) {
			return address
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("ZooKeeper named no %s within %v; it names %q", what, Timeout, address)
		}
	}
}

// Close stops following the leader.
func (w *dispatcherLeaderWatch) Close() {
	w.mu.Lock()
	retriever := w.retriever
	w.retriever = nil
	w.mu.Unlock()
	if retriever != nil {
		_ = retriever.Stop()
		w.client.Close()
	}
}
