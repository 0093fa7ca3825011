package scenario

import (
	"testing"

	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
)

// RESTCluster starts a MiniCluster with cfg and its REST endpoint (cfg.REST,
// or the defaults if nil: a free loopback port, a temporary upload
// directory), and closes it when the test ends. Its working directory is
// the test's temporary directory and its log lines go to the returned
// Logs. When the test ends, the cluster's trace goes to the test's log (see
// LogTrace).
//
// REST is real TCP, and a goroutine waiting on a socket is never durably
// blocked, so a synctest bubble cannot hold the endpoint: call RESTCluster
// outside synctest.Test. The cluster then runs on real time; tests that
// use it wait only for answers (an HTTP response, a job's result), never
// sleep and set no timers.
func RESTCluster(t *testing.T, cfg minicluster.Config) (*minicluster.MiniCluster, *Logs) {
	t.Helper()
	if cfg.REST == nil {
		cfg.REST = &rest.Config{}
	}
	return start(t, cfg)
}
