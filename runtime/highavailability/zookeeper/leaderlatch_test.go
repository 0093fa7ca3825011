package zookeeper_test

import (
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

// startLatch enters a latch for a process of its own and waits until its
// node exists, so that latches started one after the other are in that
// order.
func startLatch(t *testing.T, client *zookeeper.Client, tolerateSuspended bool) (*zookeeper.LeaderLatch, *recordingLatchListener) {
	t.Helper()
	listener := newRecordingLatchListener()
	latch := zookeeper.NewLeaderLatch(client, "leader/latch", listener, tolerateSuspended, quietLogger())
	require.NoError(t, latch.Start())
	t.Cleanup(latch.Close)
	awaitLatchNodes(t, client, func(names []string) bool { return latch.OurPath() != "" && contains(names, path.Base(latch.OurPath())) })
	return latch, listener
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// awaitLatchNodes waits until done holds for the names of the latch's
// children: it looks again when they change, and every 20 ms, as done may
// ask about a latch too (which learns of its node a moment after the
// server has it).
func awaitLatchNodes(t *testing.T, client *zookeeper.Client, done func([]string) bool) []string {
	t.Helper()
	deadline := time.After(waitFor)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		names, _, watch, err := client.Conn().ChildrenW(client.Path("leader/latch"))
		if err == nil && done(names) {
			return names
		}
		select {
		case <-watch:
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the latch nodes are not as expected within %v: %v (%v)", waitFor, names, err)
		}
	}
}

// The lowest latch node leads; each of the others waits for the node
// before its own, so that a standby that leaves changes nothing for the
// leader, and the leader's end makes the next one lead.
func TestTheLowestLatchNodeLeadsAndTheNextTakesOver(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	clients := []*zookeeper.Client{connect(t, server.Address()), connect(t, server.Address()), connect(t, server.Address())}
	var latches []*zookeeper.LeaderLatch
	var listeners []*recordingLatchListener
	for _, c := range clients {
		l, r := startLatch(t, c, false)
		latches, listeners = append(latches, l), append(listeners, r)
	}
	assert.True(t, listeners[0].awaitChange(t, "the first latch leads"))
	assert.False(t, latches[1].HasLeadership())
	assert.False(t, latches[2].HasLeadership())

	names := awaitLatchNodes(t, clients[0], func(n []string) bool { return len(n) == 3 })
	zookeeper.SortLatchNodes(names)
	assert.Equal(t, path.Base(latches[0].OurPath()), names[0], "the leader's node is the lowest")
	assert.Regexp(t, `^_c_[0-9a-f]{32}-latch-\d{10}$`, names[0], "Curator's protected name")

	// The middle standby leaves: the third now waits for the leader's node.
	latches[1].Close()
	awaitLatchNodes(t, clients[0], func(n []string) bool { return len(n) == 2 })
	assert.True(t, latches[0].HasLeadership())
	assert.False(t, latches[2].HasLeadership())

	// The leader's session ends (its process stops): the third leads.
	clients[0].Close()
	assert.True(t, listeners[2].awaitChange(t, "the last latch leads once the leader's session ended"))
	assert.True(t, listeners[1].noChange(), "a latch that left is not told")
}

// A leader cut off from ZooKeeper cannot know whether its node lives: it
// stops leading as soon as its connection is SUSPENDED. ZooKeeper expires
// its session after the session timeout, which deletes its node, and the
// standby leads. When the old leader reconnects, its session is LOST and
// it enters the election again, behind the new leader.
func TestALeaderCutOffStopsLeadingAndTheStandbyLeadsOnceItsSessionExpired(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	proxy := zookeepertest.NewProxy(t, server.Address())
	leaderClient, standbyClient := connect(t, proxy.Address()), connect(t, server.Address())
	leader, leaderEvents := startLatch(t, leaderClient, false)
	_, standbyEvents := startLatch(t, standbyClient, false)
	require.True(t, leaderEvents.awaitChange(t, "the first latch leads"))
	firstNode := path.Base(leader.OurPath())

	proxy.Block()
	assert.False(t, leaderEvents.awaitChange(t, "a suspended leader stops leading"))
	assert.True(t, standbyEvents.awaitChange(t, "the standby leads once the old leader's session expired"))
	names := awaitLatchNodes(t, standbyClient, func(n []string) bool { return len(n) == 1 })
	assert.NotContains(t, names, firstNode, "the expired session's node is gone")

	proxy.Unblock()
	awaitState(t, leaderClient, zookeeper.Reconnected)
	names = awaitLatchNodes(t, standbyClient, func(n []string) bool {
		return len(n) == 2 && leader.OurPath() != "" && contains(n, path.Base(leader.OurPath()))
	})
	zookeeper.SortLatchNodes(names)
	assert.Equal(t, path.Base(leader.OurPath()), names[1], "the old leader's new node comes after the new leader's")
	assert.False(t, leader.HasLeadership())
	assert.True(t, leaderEvents.noChange(), "the old leader does not lead again")
}

// With tolerate-suspended-connections, a leader whose connection comes
// back within the session timeout has kept its session and its node: it
// leads throughout.
func TestATolerantLeaderKeepsLeadingThroughASuspendedConnection(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	proxy := zookeepertest.NewProxy(t, server.Address())
	leaderClient := connect(t, proxy.Address())
	leader, events := startLatch(t, leaderClient, true)
	require.True(t, events.awaitChange(t, "the latch leads"))
	node := leader.OurPath()

	proxy.Block()
	awaitState(t, leaderClient, zookeeper.Suspended)
	proxy.Unblock()
	awaitState(t, leaderClient, zookeeper.Reconnected)

	assert.True(t, leader.HasLeadership())
	assert.Equal(t, node, leader.OurPath(), "the same node, of the same session")
	exists, stat, err := leaderClient.Conn().Exists(node)
	require.NoError(t, err)
	assert.True(t, exists)
	assert.Equal(t, leaderClient.Conn().SessionID(), stat.EphemeralOwner)
	assert.True(t, events.noChange(), "no NotLeader, no second IsLeader")
}
