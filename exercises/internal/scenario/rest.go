package scenario

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
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

// InProcessREST creates a REST endpoint for cluster, as the MiniCluster
// creates its own (minicluster.Config.REST), keeping uploads in uploadDir
// and logging to logger, and returns its handlers, to be called without a
// socket: inside a synctest bubble (to let a five-minute start-up period
// pass in no time) a goroutine waiting on a socket would hold the
// bubble's clock still. The endpoint is closed when the test ends.
func InProcessREST(t *testing.T, cluster *minicluster.MiniCluster, uploadDir string, logger *slog.Logger) http.Handler {
	t.Helper()
	server, err := rest.NewServer(rest.Config{UploadDir: uploadDir, Logger: logger}, rest.Deps{
		Dispatcher:      cluster.Dispatcher(),
		ResourceManager: cluster.ResourceManager(),
		BlobServer:      cluster.BlobServer(),
		Programs:        client.StreamingProgramRunner{},
		Trace:           cluster.Trace(),
		Faults:          cluster.Faults(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, server.Close(context.Background())) })
	return server.Handler()
}
