package zookeeper

import (
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// LatchListener learns when its LeaderLatch gains and loses the
// leadership (Curator's LeaderLatchListener). Its methods are called on
// the latch's goroutine, in order, and must not block.
type LatchListener interface {
	IsLeader()
	NotLeader()
}

// LeaderLatch is Curator's LeaderLatch, the election Flink's
// ZooKeeperLeaderElectionDriver runs: every process that wants to lead
// creates an EPHEMERAL_SEQUENTIAL node under the latch path,
//
//	/flink/default/leader/latch/_c_<guid>-latch-0000000007
//
// and the one whose sequence number is the lowest leads. Each of the others
// watches only the node just before its own, so that a leader's end wakes
// one process, not all of them: when that node goes, the process looks
// again, and leads if its own node is now the lowest.
//
// An ephemeral node lives as long as its session: a leader that dies, or
// that ZooKeeper stops hearing from for the session timeout, loses its
// node, and its successor leads. A leader whose connection is SUSPENDED
// cannot know whether its node still exists, so it stops leading at once
// (unless tolerateSuspended), and on RECONNECTED it enters the election
// again with a new node.
type LeaderLatch struct {
	client            *Client
	latchPath         string // relative to the namespace: "leader/latch"
	listener          LatchListener
	tolerateSuspended bool
	log               *slog.Logger

	events chan latchEvent
	stop   chan struct{}
	done   chan struct{}

	mu            sync.Mutex
	started       bool
	hasLeadership bool
	ourPath       string // our latch node, "" while we have none
	ourSession    int64  // the ZooKeeper session our node lives in
}

// latchEvent is what the latch's goroutine reacts to.
type latchEvent struct {
	reset bool            // enter the election anew, with a new node
	check bool            // a node before ours may have gone: look again
	state ConnectionState // otherwise: the connection changed
}

// NewLeaderLatch returns a latch under latchPath (relative to the
// client's namespace) that tells listener when it leads.
func NewLeaderLatch(client *Client, latchPath string, listener LatchListener, tolerateSuspended bool, logger *slog.Logger) *LeaderLatch {
	if logger == nil {
		logger = slog.Default()
	}
	return &LeaderLatch{
		client: client, latchPath: latchPath, listener: listener, tolerateSuspended: tolerateSuspended,
		log:    logger.With("logger", "LeaderLatch"),
		events: make(chan latchEvent, 16), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Start enters the election.
func (l *LeaderLatch) Start() error {
	if err := l.client.EnsurePath(l.latchPath); err != nil {
		return err
	}
	l.mu.Lock()
	l.started = true
	l.mu.Unlock()
	removeListener := l.client.OnConnectionStateChange(func(s ConnectionState) { l.post(latchEvent{state: s}) })
	go func() {
		defer close(l.done)
		defer removeListener()
		l.run()
	}()
	l.post(latchEvent{reset: true})
	return nil
}

// post queues an event for the latch's goroutine, unless it has stopped.
func (l *LeaderLatch) post(ev latchEvent) {
	select {
	case l.events <- ev:
	case <-l.stop:
	}
}

func (l *LeaderLatch) run() {
	for {
		select {
		case <-l.stop:
			return
		case ev := <-l.events:
			switch {
			case ev.reset:
				l.reset()
			case ev.check:
				l.checkLeadership()
			default:
				l.handleStateChange(ev.state)
			}
		}
	}
}

// handleStateChange is Curator's: an error state ends the leadership, a
// reconnection enters the election anew unless the latch still leads
// (which only a tolerated suspension lets it).
func (l *LeaderLatch) handleStateChange(s ConnectionState) {
	switch s {
	case Suspended:
		if !l.tolerateSuspended {
			l.setLeadership(false)
		}
	case Lost:
		l.setLeadership(false)
	case Reconnected:
		if !l.tolerateSuspended || !l.HasLeadership() {
			l.reset()
		}
	}
}

// reset gives up the latch's node, if it has one, and creates a new one.
func (l *LeaderLatch) reset() {
	l.setLeadership(false)
	conn := l.client.Conn()
	l.mu.Lock()
	old := l.ourPath
	l.ourPath = ""
	l.mu.Unlock()
	if old != "" {
		if err := conn.Delete(old, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			l.log.Debug(fmt.Sprintf("Could not delete the old latch node %s: %v", old, err))
		}
	}
	created, err := conn.CreateProtectedEphemeralSequential(l.client.Path(l.latchPath)+"/latch-", nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		// A connection that broke is followed by RECONNECTED, which resets.
		l.log.Debug(fmt.Sprintf("Could not create a latch node under %s: %v", l.client.Path(l.latchPath), err))
		return
	}
	l.mu.Lock()
	l.ourPath, l.ourSession = created, conn.SessionID()
	l.mu.Unlock()
	l.checkLeadership()
}

// checkLeadership leads if our node is the lowest, and otherwise watches
// the node just before ours.
func (l *LeaderLatch) checkLeadership() {
	l.mu.Lock()
	ours := path.Base(l.ourPath)
	l.mu.Unlock()
	if ours == "." || ours == "/" {
		return // no node: a reset is due
	}
	conn := l.client.Conn()
	for {
		children, _, err := conn.Children(l.client.Path(l.latchPath))
		if err != nil {
			l.log.Debug(fmt.Sprintf("Could not read the latch nodes: %v", err))
			return
		}
		decision := DecideLeadership(children, ours)
		switch {
		case decision.Missing:
			l.log.Error("Can't find our node. Resetting.")
			l.reset()
			return
		case decision.Leads:
			l.setLeadership(true)
			return
		}
		l.setLeadership(false)
		predecessor := l.client.Path(path.Join(l.latchPath, decision.Watch))
		exists, _, watch, err := conn.ExistsW(predecessor)
		if err != nil {
			l.log.Debug(fmt.Sprintf("Could not watch %s: %v", predecessor, err))
			return
		}
		if !exists {
			continue // gone already: look again
		}
		go func() {
			select {
			case ev := <-watch:
				if ev.Type == zk.EventNodeDeleted {
					l.post(latchEvent{check: true})
				}
			case <-l.stop:
			}
		}()
		return
	}
}

// LatchDecision is what a latch concludes from the latch nodes it reads.
type LatchDecision struct {
	// Leads: our node has the lowest sequence number.
	Leads bool
	// Watch is, when we do not lead, the node just before ours, whose
	// end makes us look again.
	Watch string
	// Missing: our node is not among the latch nodes (its session
	// expired, or it was deleted): the latch must enter the election
	// again with a new node.
	Missing bool
}

// DecideLeadership is the decision of Curator's LeaderLatch#checkLeadership:
// the latch nodes (children of the latch path, in the order ZooKeeper
// lists them: no order at all) and the name of ours, e.g.
// "_c_3f0e…-latch-0000000007", decide whether we lead, and whom we watch
// if we do not.
func DecideLeadership(children []string, ours string) LatchDecision {
	// Step h1: the leader is elected. Latch nodes are ordered by their
	// sequence number (ZooKeeper's ten digits after "latch-"), not by their
	// whole names, whose protection prefix is random. The lowest leads;
	// each of the others watches only the node just before its own.
	sorted := slices.Clone(children)
	SortLatchNodes(sorted)
	i := slices.Index(sorted, ours)
	switch {
	case i < 0:
		return LatchDecision{Missing: true}
	case i == 0:
		return LatchDecision{Leads: true}
	}
	return LatchDecision{Watch: sorted[i-1]}
}

// SortLatchNodes sorts latch nodes by their sequence number, the part
// after "latch-", as Curator does: the protection prefix with its random
// GUID says nothing about the order.
func SortLatchNodes(names []string) {
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(sequenceOf(a), sequenceOf(b)) })
}

func sequenceOf(name string) string {
	if i := strings.LastIndex(name, "latch-"); i >= 0 {
		return name[i+len("latch-"):]
	}
	return name
}

func (l *LeaderLatch) setLeadership(leads bool) {
	l.mu.Lock()
	changed := l.hasLeadership != leads
	l.hasLeadership = leads
	l.mu.Unlock()
	switch {
	case changed && leads:
		l.listener.IsLeader()
	case changed:
		l.listener.NotLeader()
	}
}

// HasLeadership reports whether the latch leads now.
func (l *LeaderLatch) HasLeadership() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hasLeadership
}

// OurPath is the latch's node, "" while it has none.
// Leads reports whether the latch leads and the ZooKeeper session its
// node lives in is surely alive now (Client.SessionAlive): what a process
// may act on as a leader. HasLeadership alone is what the latch last
// concluded, which a paused process has not had the chance to revise.
func (l *LeaderLatch) Leads() bool {
	l.mu.Lock()
	leads, session := l.hasLeadership, l.ourSession
	l.mu.Unlock()
	return leads && l.client.SessionAlive(session)
}

func (l *LeaderLatch) OurPath() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ourPath
}

// Close leaves the election: the latch's node is deleted, so that the
// next process leads at once. As Curator's default (CloseMode.SILENT), the
// listener is not told.
func (l *LeaderLatch) Close() {
	select {
	case <-l.stop:
		return
	default:
	}
	close(l.stop)
	l.mu.Lock()
	started := l.started
	l.mu.Unlock()
	if started {
		<-l.done
	}
	l.mu.Lock()
	ours := l.ourPath
	l.ourPath, l.hasLeadership = "", false
	l.mu.Unlock()
	if ours != "" {
		if err := l.client.Conn().Delete(ours, -1); err != nil {
			l.log.Debug(fmt.Sprintf("Could not delete the latch node %s: %v", ours, err))
		}
	}
}
