package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
)

// leaderWatch tells start-cluster's user which JobManager leads, as it
// changes: it follows the Dispatcher's leader in ZooKeeper, as every
// REST endpoint of the cluster does, and prints
//
//	JobManager pid 4242 (REST port 8082) is now the leader
//
// for each new leader it finds among the cluster's JobManagers.
type leaderWatch struct {
	client    *zookeeper.Client
	retriever *zookeeper.LeaderRetriever
	stdout    io.Writer

	mu         sync.Mutex
	jobManager map[string]*daemon // by the host:port of its RPC service
	current    string             // the RPC host:port of the leader ZooKeeper names; "" for none
	printed    string             // the RPC host:port of the last leader printed
}

// watchLeaders connects to the cluster's ZooKeeper and follows its
// Dispatcher leader. Close it when the cluster stops.
func watchLeaders(conf map[string]string, stdout io.Writer) (*leaderWatch, error) {
	cfg, err := zookeeper.ConfigFromConfiguration(conf)
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // the processes log the connection themselves
	client, err := zookeeper.Connect(cfg, quiet)
	if err != nil {
		return nil, err
	}
	w := &leaderWatch{client: client, stdout: stdout, jobManager: map[string]*daemon{}}
	w.retriever = zookeeper.NewLeaderRetriever(client, zookeeper.ComponentDispatcher, cfg.TolerateSuspendedConnections, quiet)
	if err := w.retriever.Start(w); err != nil {
		client.Close()
		return nil, err
	}
	return w, nil
}

// add makes jm one of the JobManagers whose leadership is printed. The
// first JobManager may lead before start-cluster knows its address.
func (w *leaderWatch) add(jm *daemon) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jobManager[jm.field("rpc")] = jm
	w.printLocked()
}

// NotifyLeaderAddress is told each leader the Dispatcher's leader node
// names: an address such as pekko.tcp://flink@127.0.0.1:6123/user/rpc/dispatcher_0.
func (w *leaderWatch) NotifyLeaderAddress(address string, _ api.LeaderSessionID) {
	hostPort := strings.TrimPrefix(address, "pekko.tcp://flink@")
	hostPort, _, _ = strings.Cut(hostPort, "/")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.current = hostPort
	w.printLocked()
}

// printLocked prints the current leader, unless it was printed last or is
// not (yet) known as one of the cluster's JobManagers.
func (w *leaderWatch) printLocked() {
	jm, ok := w.jobManager[w.current]
	if !ok || w.current == w.printed {
		return
	}
	w.printed = w.current
	_, restPort, _ := net.SplitHostPort(jm.field("rest"))
	fmt.Fprintf(w.stdout, "JobManager pid %d (REST port %s) is now the leader\n", jm.pid(), restPort)
}

// Close stops following the leader.
func (w *leaderWatch) Close() {
	_ = w.retriever.Stop()
	w.client.Close()
}
