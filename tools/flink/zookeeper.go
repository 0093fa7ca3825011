package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"flinklab/runtime/highavailability/zookeeper"
)

// zookeeperOptions are the options of "start-zookeeper-quorum".
type zookeeperOptions struct {
	port    int    // clientPort
	dataDir string // dataDir
}

func parseStartZooKeeperQuorum(args []string) (zookeeperOptions, error) {
	fs := newFlagSet("start-zookeeper-quorum")
	opts := zookeeperOptions{}
	fs.IntVar(&opts.port, "port", 2181, "")
	fs.StringVar(&opts.dataDir, "data-dir", filepath.Join(os.TempDir(), "flinklab-zookeeper"), "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("start-zookeeper-quorum takes no arguments, got %q", fs.Arg(0))
	}
	if opts.port < 0 || opts.port > 65535 {
		return opts, usagef("--port must be a TCP port, got %d", opts.port)
	}
	return opts, nil
}

// startZooKeeperQuorum runs the installed ZooKeeper server in the
// foreground, a quorum of one, until SIGINT or SIGTERM: Flink's
// bin/start-zookeeper-quorum.sh, which starts the servers its
// conf/zoo.cfg lists. The server's own log goes to stderr.
func startZooKeeperQuorum(opts zookeeperOptions, stdout, stderr io.Writer) int {
	inst, err := zookeeper.FindInstallation()
	if err != nil {
		return exitCode(err, "start-zookeeper-quorum", stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	server, err := zookeeper.StartServer(ctx, inst, zookeeper.ServerConfig{Port: opts.port, DataDir: opts.dataDir}, stderr)
	if err != nil {
		return exitCode(err, "start-zookeeper-quorum", stdout, stderr)
	}
	fmt.Fprintf(stdout, "ZooKeeper serves at %s (data in %s, pid %d).\n", server.Address(), opts.dataDir, server.Pid())
	fmt.Fprintf(stdout, "Start an HA cluster on it with -D %s=zookeeper -D %s=%s -D %s=DIR\n",
		zookeeper.KeyHighAvailabilityType, zookeeper.KeyQuorum, server.Address(), zookeeper.KeyStorageDir)
	select {
	case <-ctx.Done():
		server.Stop()
		return 0
	case <-server.Done():
		fmt.Fprintln(stderr, "The ZooKeeper server ended.")
		return 1
	}
}
