package zookeeper_test

import (
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

// The tests run against a real ZooKeeper server (zookeepertest.Shared);
// waitFor bounds each wait for something the server or a client does.
const waitFor = 15 * time.Second

// sessionTimeout is short, so that a session that is cut off expires
// within a test.
const sessionTimeout = 2 * time.Second

// TestMain stops the ZooKeeper server the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}

// configFor is the configuration of the test's processes: the shared
// server, or a proxy to it, at address, and a namespace of the test's own.
func configFor(t *testing.T, address string) zookeeper.Config {
	cfg := zookeeper.DefaultConfig()
	cfg.Quorum = address
	cfg.ClusterID = "/" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + clusterSuffix(t)
	cfg.SessionTimeout = sessionTimeout
	return cfg
}

// clusterSuffix is the same for every process of one test run, and new in
// each: a test run again (-count) must not find what the last run left.
func clusterSuffix(t *testing.T) string {
	suffixes.mu.Lock()
	defer suffixes.mu.Unlock()
	if suffixes.of == nil {
		suffixes.of = map[*testing.T]string{}
	}
	if _, ok := suffixes.of[t]; !ok {
		suffixes.of[t] = api.NewJobID().String()[:8]
	}
	return suffixes.of[t]
}

var suffixes struct {
	mu sync.Mutex
	of map[*testing.T]string
}

// connect opens one process's client to address, closed when the test ends.
func connect(t *testing.T, address string) *zookeeper.Client {
	t.Helper()
	c, err := zookeeper.Connect(configFor(t, address), quietLogger())
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// quietLogger discards the clients' logs; FLINKLAB_ZK_DEBUG=1 shows them,
// down to DEBUG, on stderr.
func quietLogger() *slog.Logger {
	if os.Getenv("FLINKLAB_ZK_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// recordingLatchListener remembers whether its latch leads, and signals
// each change.
type recordingLatchListener struct{ changes chan bool }

func newRecordingLatchListener() *recordingLatchListener {
	return &recordingLatchListener{changes: make(chan bool, 16)}
}

func (l *recordingLatchListener) IsLeader()  { l.changes <- true }
func (l *recordingLatchListener) NotLeader() { l.changes <- false }

// awaitChange returns the next change, or fails after waitFor.
func (l *recordingLatchListener) awaitChange(t *testing.T, what string) bool {
	t.Helper()
	select {
	case leads := <-l.changes:
		return leads
	case <-time.After(waitFor):
		t.Fatalf("no change of leadership within %v: %s", waitFor, what)
		return false
	}
}

// noChange reports whether no change is pending.
func (l *recordingLatchListener) noChange() bool { return len(l.changes) == 0 }

// recordingContender remembers its grants and revocations.
type recordingContender struct{ events chan api.LeaderSessionID } // zero: revoked

func newRecordingContender() *recordingContender {
	return &recordingContender{events: make(chan api.LeaderSessionID, 16)}
}

func (c *recordingContender) GrantLeadership(id api.LeaderSessionID) { c.events <- id }
func (c *recordingContender) RevokeLeadership()                      { c.events <- api.LeaderSessionID{} }

func (c *recordingContender) await(t *testing.T, what string) api.LeaderSessionID {
	t.Helper()
	select {
	case id := <-c.events:
		return id
	case <-time.After(waitFor):
		t.Fatalf("not told within %v: %s", waitFor, what)
		return api.LeaderSessionID{}
	}
}

// recordingRetrievalListener remembers every leader it is told of.
type recordingRetrievalListener struct {
	leaders chan zookeeper.LeaderInformation
}

func newRecordingRetrievalListener() *recordingRetrievalListener {
	return &recordingRetrievalListener{leaders: make(chan zookeeper.LeaderInformation, 16)}
}

func (l *recordingRetrievalListener) NotifyLeaderAddress(address string, id api.LeaderSessionID) {
	l.leaders <- zookeeper.LeaderInformation{Address: address, SessionID: id}
}

// awaitLeader waits until the listener is told of want, skipping what
// it was told before.
func (l *recordingRetrievalListener) awaitLeader(t *testing.T, want zookeeper.LeaderInformation) {
	t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case got := <-l.leaders:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("not told of leader %+v within %v", want, waitFor)
		}
	}
}

// awaitState waits until the client's connection is in state.
func awaitState(t *testing.T, c *zookeeper.Client, state zookeeper.ConnectionState) {
	t.Helper()
	changed := make(chan zookeeper.ConnectionState, 16)
	remove := c.OnConnectionStateChange(func(s zookeeper.ConnectionState) { changed <- s })
	defer remove()
	if c.State() == state {
		return
	}
	deadline := time.After(waitFor)
	for {
		select {
		case s := <-changed:
			if s == state {
				return
			}
		case <-deadline:
			t.Fatalf("the connection is not %s within %v: %s", state, waitFor, c.State())
		}
	}
}
