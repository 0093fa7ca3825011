// Exercise h01: the leader latch's decision.
//
// The first tests hand DecideLeadership the latch nodes as ZooKeeper lists
// them (in no order, each with the random protection prefix Curator puts
// in front of "latch-") and check what it concludes. The last runs three
// real leader latches on the ZooKeeper server the machine has installed
// and watches who leads as processes leave.
package h01_test

import (
	"log/slog"
	"os"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}

// node is a latch node of Curator's protected form: "_c_" and a GUID, then
// "-latch-" and the ten digits of ZooKeeper's sequence number.
func node(guid string, sequence string) string {
	return "_c_" + guid + "-latch-" + sequence
}

var (
	// Three processes' nodes. Their GUIDs sort in the reverse order of
	// their sequence numbers: only the numbers tell who came first.
	first  = node("f0000000000000000000000000000000", "0000000007")
	second = node("a0000000000000000000000000000000", "0000000008")
	third  = node("50000000000000000000000000000000", "0000000009")
)

func TestTheLowestSequenceNumberLeads(t *testing.T) {
	for _, tc := range []struct {
		name     string
		children []string
	}{
		{"listed in order", []string{first, second, third}},
		{"listed in ZooKeeper's order, which is none", []string{third, first, second}},
		{"alone", []string{first}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(t, tc.children, first)
			assert.Equal(t, zookeeper.LatchDecision{Leads: true}, got,
				"the node with sequence number 0000000007 was created first: its process leads")
		})
	}
}

func TestAStandbyWatchesTheNodeJustBeforeItsOwn(t *testing.T) {
	children := []string{third, second, first}
	assert.Equal(t, zookeeper.LatchDecision{Watch: first}, decide(t, children, second),
		"the second in line waits for the leader's node")
	assert.Equal(t, zookeeper.LatchDecision{Watch: second}, decide(t, children, third),
		"the third waits for the second's node, not the leader's: a leader's end must wake one process, not all")
}

func TestTheOrderIsTheSequenceNumberNotTheName(t *testing.T) {
	// A node that a newer Curator wrote and one an older one wrote without
	// the protection prefix: by name "_c_…" sorts before "latch-…"; by
	// sequence number the unprotected node came first.
	old := "latch-0000000003"
	newer := node("00000000000000000000000000000000", "0000000004")
	assert.Equal(t, zookeeper.LatchDecision{Leads: true}, decide(t, []string{newer, old}, old))
	assert.Equal(t, zookeeper.LatchDecision{Watch: old}, decide(t, []string{newer, old}, newer))
}

func TestALatchWhoseNodeIsGoneStartsOver(t *testing.T) {
	// The session of this process expired while it was cut off: ZooKeeper
	// removed its ephemeral node, and the others went on without it.
	got := decide(t, []string{second, third}, first)
	assert.Equal(t, zookeeper.LatchDecision{Missing: true}, got,
		"a latch that cannot find its node must not lead, nor watch: it enters the election again with a new node")
	assert.Equal(t, zookeeper.LatchDecision{Missing: true}, decide(t, nil, first))
}

func TestTheDecisionLeavesTheNodesAsListed(t *testing.T) {
	children := []string{third, first, second}
	decide(t, children, second)
	assert.Equal(t, []string{third, first, second}, children, "the caller's slice is ZooKeeper's answer: read it, do not reorder it")
}

// decide asks your DecideLeadership, and fails the test if it panics.
func decide(t *testing.T, children []string, ours string) zookeeper.LatchDecision {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("deciding who leads must not panic: %v", r)
		}
	}()
	return zookeeper.DecideLeadership(children, ours)
}

// Three processes enter the election of a real ZooKeeper, one after the
// other. The first leads. When the second leaves, nothing changes for the
// others; when the leader leaves, the third leads.
func TestThreeLatchesOnZooKeeper(t *testing.T) {
	decide(t, []string{first}, first) // the latches below call it on goroutines of their own
	server := zookeepertest.Shared(t)
	cfg := zookeeper.DefaultConfig()
	cfg.Quorum = server.Address()
	cfg.ClusterID = "/h01-" + api.NewJobID().String() // a namespace of its own on the shared server
	var latches []*zookeeper.LeaderLatch
	var listeners []*leadership
	for range 3 {
		client, err := zookeeper.Connect(cfg, quiet())
		require.NoError(t, err)
		t.Cleanup(client.Close)
		listener := &leadership{changed: make(chan bool, 8)}
		latch := zookeeper.NewLeaderLatch(client, "leader/latch", listener, false, quiet())
		require.NoError(t, latch.Start())
		t.Cleanup(latch.Close)
		awaitNode(t, latch)
		latches, listeners = append(latches, latch), append(listeners, listener)
	}

	require.True(t, listeners[0].await(t), "the first process leads")
	assert.False(t, latches[1].HasLeadership(), "the second waits")
	assert.False(t, latches[2].HasLeadership(), "the third waits")

	latches[1].Close() // the second process leaves
	assert.True(t, latches[0].HasLeadership(), "a standby's end changes nothing for the leader")
	latches[0].Close() // the leader leaves
	require.True(t, listeners[2].await(t), "the third process leads once the leader's node is gone")
}

// leadership records what a latch tells its listener.
type leadership struct {
	changed chan bool
}

func (l *leadership) IsLeader()  { l.changed <- true }
func (l *leadership) NotLeader() { l.changed <- false }

// await waits until the latch tells a change, and returns it.
func (l *leadership) await(t *testing.T) bool {
	t.Helper()
	select {
	case leads := <-l.changed:
		return leads
	case <-time.After(10 * time.Second):
		t.Fatal("the latch told nothing within 10 s")
		return false
	}
}

// awaitNode waits until the latch has its node, so that latches started
// one after the other are in that order.
func awaitNode(t *testing.T, latch *zookeeper.LeaderLatch) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for path.Base(latch.OurPath()) == "." {
		if time.Now().After(deadline) {
			t.Fatal("the latch has no node after 10 s")
		}
		<-tick.C
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
