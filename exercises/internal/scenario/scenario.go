// Package scenario is what the exercises' tests share: a MiniCluster started
// inside the test's synctest bubble, its log lines kept for assertions, and
// the trace of submission steps written to the test's log, where
// `go run ./tools/learn check` finds it and lays it next to the reference
// trace of the same scenario.
package scenario

import (
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/minicluster"
	"flinklab/runtime/trace"
)

// TracePrefix starts each trace line in a test's log: the prefix, then one
// trace.Event as JSON.
const TracePrefix = "learn-trace: "

// Cluster starts a MiniCluster with cfg inside the test's synctest bubble
// (call it from synctest.Test), waits until its TaskExecutors have
// registered, and closes it when the test ends. Its working directory is the
// test's temporary directory and its log lines go to the returned Logs. When
// the test ends, the cluster's trace goes to the test's log (see LogTrace),
// once everything the test set off has come to rest: the same test writes
// the same trace every run, however far its last job got when the test's
// own goroutine returned.
func Cluster(t *testing.T, cfg minicluster.Config) (*minicluster.MiniCluster, *Logs) {
	t.Helper()
	cluster, logs := start(t, cfg)
	t.Cleanup(synctest.Wait) // runs before start's cleanup, which logs the trace
	synctest.Wait()          // the TaskExecutors have registered at the ResourceManager
	return cluster, logs
}

// start starts a MiniCluster with cfg in the test's temporary directory,
// its log lines going to the returned Logs, and closes it when the test
// ends, after writing its trace to the test's log.
func start(t *testing.T, cfg minicluster.Config) (*minicluster.MiniCluster, *Logs) {
	t.Helper()
	logs := &Logs{}
	cfg.WorkingDir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cluster, err := minicluster.New(cfg)
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() {
		LogTrace(t, cluster.Trace().Events())
		require.NoError(t, cluster.Close())
	})
	return cluster, logs
}

// LogTrace writes events to the test's log, one line each, TracePrefix and
// the event as JSON.
func LogTrace(t *testing.T, events []trace.Event) {
	t.Helper()
	for _, e := range events {
		line, err := json.Marshal(e)
		require.NoError(t, err)
		t.Log(TracePrefix + string(line))
	}
}

// Logs collects a cluster's log lines; it is safe for concurrent use.
type Logs struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything logged so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
