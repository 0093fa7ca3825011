package zookeeper

import (
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ConnectionState is how a client's connection to ZooKeeper stands, in
// the terms of Curator, the client Flink uses, whose states Flink's HA
// services react to.
type ConnectionState int

const (
	// Latent: no session yet (Curator's LATENT, before the first).
	Latent ConnectionState = iota
	// Connected: the first session is established.
	Connected
	// Suspended: the connection broke. The session may live on at the
	// server, with its ephemeral nodes, for up to the session timeout;
	// the client cannot tell whether it still leads.
	Suspended
	// Reconnected: connected again, with the same session or, after
	// Lost, a new one.
	Reconnected
	// Lost: the session is gone. The server expired it, or the
	// connection stayed suspended for a whole session timeout (Curator
	// then gives it up without asking the server). Its ephemeral nodes,
	// a leader's latch node among them, are gone or about to be.
	Lost
)

func (s ConnectionState) String() string {
	return [...]string{"LATENT", "CONNECTED", "SUSPENDED", "RECONNECTED", "LOST"}[s]
}

// Client is one process's connection to ZooKeeper (Flink's
// CuratorFramework): the cluster's namespace, and the connection state
// its listeners follow.
type Client struct {
	conn *zk.Conn
	cfg  Config
	log  *slog.Logger

	mu        sync.Mutex
	state     ConnectionState
	sessions  int // sessions established so far
	listeners map[int]func(ConnectionState)
	nextID    int
	lost      *time.Timer // while Suspended: declares Lost after the session timeout
	closed    bool

	// heardAt is when the last request that ZooKeeper answered in session
	// heardSession was sent: the server had heard from that session then,
	// so it lives at least until heardAt + the session timeout. See
	// SessionAlive.
	heardAt      time.Time
	heardSession int64
	stop         chan struct{}
}

// Connect connects to cfg's quorum and waits for the first session, for
// cfg.ConnectionTimeout at most. Flink: ZooKeeperUtils.startCuratorFramework.
func Connect(cfg Config, logger *slog.Logger) (*Client, error) {
	if logger == nil {
		logger = slog.Default()
	}
	servers := cfg.Servers()
	if len(servers) == 0 {
		return nil, errors.New("No valid ZooKeeper quorum has been specified. You can specify the quorum via the configuration key '" + KeyQuorum + "'.")
	}
	c := &Client{cfg: cfg, log: logger.With("logger", "ZooKeeperUtils"), listeners: map[int]func(ConnectionState){}}
	cnxn := logger.With("logger", "ClientCnxn")
	conn, events, err := zk.Connect(servers, cfg.SessionTimeout,
		zk.WithLogger(printfLogger{cnxn}), zk.WithLogInfo(true))
	if err != nil {
		return nil, err
	}
	c.conn = conn
	c.stop = make(chan struct{})
	connected := make(chan struct{})
	go c.follow(events, connected)
	go c.probe()
	c.log.Info(fmt.Sprintf("Using '%s' as Zookeeper namespace.", cfg.Namespace()))
	select {
	case <-connected:
		return c, nil
	case <-time.After(cfg.ConnectionTimeout):
		conn.Close()
		return nil, fmt.Errorf("Could not connect to ZooKeeper (%s) within the connection timeout of %v.", cfg.Quorum, cfg.ConnectionTimeout)
	}
}

// probe asks ZooKeeper something every third of the session timeout and
// notes when each answered request was sent (heardAt).
func (c *Client) probe() {
	tick := time.NewTicker(c.cfg.SessionTimeout / 3)
	defer tick.Stop()
	for {
		c.ask()
		select {
		case <-tick.C:
		case <-c.stop:
			return
		}
	}
}

// SessionAlive reports whether the ZooKeeper session of the given ID is
// surely alive now: ZooKeeper answered a request of that session sent
// less than the session timeout ago, so it cannot have expired the
// session yet. A process that was paused (a long garbage collection,
// SIGSTOP) longer than the session timeout learns from this, before any
// event of the ZooKeeper client reaches it, that another process may lead
// by now: the leadership it remembers is not to be acted on. Nor is one
// won in a session the client has since replaced by a new one, whose
// ephemeral nodes are gone.
//
// Differs from Flink: Curator's LeaderLatch acts on connection events
// alone, and Flink counts on fencing for what an old leader does before
// they arrive. This lease is a second guard, for the acts fencing cannot
// stop: the end of a job, written to the JobResultStore, and the leader
// information in ZooKeeper.
//
// If the client has not heard from that session lately, SessionAlive asks
// ZooKeeper now, waiting for the session timeout at most.
func (c *Client) SessionAlive(session int64) bool {
	if session == 0 {
		return false
	}
	if c.heardLately(session) {
		return true
	}
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		c.ask()
	}()
	select {
	case <-asked:
	case <-time.After(c.cfg.SessionTimeout):
	}
	return c.heardLately(session)
}

// ask sends ZooKeeper a request and, if it is answered, notes when it was
// sent and in which session it was answered.
func (c *Client) ask() {
	sent := time.Now()
	if _, _, err := c.conn.Exists("/"); err != nil {
		return
	}
	session := c.conn.SessionID()
	c.mu.Lock()
	defer c.mu.Unlock()
	if sent.After(c.heardAt) {
		c.heardAt, c.heardSession = sent, session
	}
}

// heardLately reports whether ZooKeeper answered a request of session
// sent less than the session timeout ago.
func (c *Client) heardLately(session int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heardSession == session && time.Since(c.heardAt) < c.cfg.SessionTimeout
}

// printfLogger writes the ZooKeeper client's own lines ("connected to
// …", "authenticated: id=…") at DEBUG, as ZooKeeper's ClientCnxn.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...))
}

// follow turns the client's session events into connection states.
func (c *Client) follow(events <-chan zk.Event, connected chan struct{}) {
	first := true
	for ev := range events {
		if ev.Type != zk.EventSession {
			continue
		}
		switch ev.State {
		case zk.StateHasSession:
			if first {
				first = false
				close(connected)
			}
			c.transition(func(s ConnectionState, sessions int) (ConnectionState, bool) {
				if sessions == 0 {
					return Connected, true
				}
				return Reconnected, s == Suspended || s == Lost
			}, true)
		case zk.StateDisconnected:
			c.transition(func(s ConnectionState, _ int) (ConnectionState, bool) {
				return Suspended, s == Connected || s == Reconnected
			}, false)
		case zk.StateExpired:
			c.transition(func(s ConnectionState, _ int) (ConnectionState, bool) { return Lost, s != Lost }, false)
		}
	}
}

// transition moves to the state next decides, if it says so, and tells
// the listeners; newSession counts an established session.
func (c *Client) transition(next func(ConnectionState, int) (ConnectionState, bool), newSession bool) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	state, change := next(c.state, c.sessions)
	if newSession {
		c.sessions++
	}
	if !change {
		c.mu.Unlock()
		return
	}
	c.state = state
	if c.lost != nil {
		c.lost.Stop()
		c.lost = nil
	}
	if state == Suspended {
		// Curator gives a suspended session up after the session timeout,
		// whether or not the server has said so yet.
		c.lost = time.AfterFunc(c.cfg.SessionTimeout, func() {
			c.transition(func(s ConnectionState, _ int) (ConnectionState, bool) { return Lost, s == Suspended }, false)
		})
	}
	listeners := make([]func(ConnectionState), 0, len(c.listeners))
	for _, l := range c.listeners {
		listeners = append(listeners, l)
	}
	c.mu.Unlock()
	for _, l := range listeners {
		l(state)
	}
}

// OnConnectionStateChange calls listener with each new connection state
// until the returned function is called. It must not block.
func (c *Client) OnConnectionStateChange(listener func(ConnectionState)) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	c.listeners[id] = listener
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.listeners, id)
	}
}

// State returns the connection's state now.
func (c *Client) State() ConnectionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Conn is the ZooKeeper connection itself.
func (c *Client) Conn() *zk.Conn { return c.conn }

// Path returns the absolute path of p in the cluster's namespace:
// "leader/latch" is "/flink/default/leader/latch".
func (c *Client) Path(p string) string { return path.Join(c.cfg.Namespace(), p) }

// EnsurePath creates the persistent nodes of p that do not exist yet (as
// Curator's creatingParentsIfNeeded does).
func (c *Client) EnsurePath(p string) error {
	full := c.Path(p)
	at := ""
	for part := range strings.SplitSeq(strings.Trim(full, "/"), "/") {
		at += "/" + part
		if _, err := c.conn.Create(at, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", at, err)
		}
	}
	return nil
}

// DeleteRecursively deletes p and every node under it; a node already
// gone is no error (Curator's deletingChildrenIfNeeded, ZKPaths.deleteChildren).
func (c *Client) DeleteRecursively(p string) error {
	return c.deleteRecursively(c.Path(p))
}

func (c *Client) deleteRecursively(full string) error {
	children, _, err := c.conn.Children(full)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", full, err)
	}
	for _, child := range children {
		if err := c.deleteRecursively(full + "/" + child); err != nil {
			return err
		}
	}
	if err := c.conn.Delete(full, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("delete %s: %w", full, err)
	}
	return nil
}

// DeleteIfEmpty deletes p if it has no children; a node that has some, or
// is gone, is no error.
func (c *Client) DeleteIfEmpty(p string) error {
	err := c.conn.Delete(c.Path(p), -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrNotEmpty) {
		return fmt.Errorf("delete %s: %w", c.Path(p), err)
	}
	return nil
}

// Close ends the session: the server deletes its ephemeral nodes at once.
func (c *Client) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.lost != nil {
		c.lost.Stop()
	}
	c.mu.Unlock()
	close(c.stop)
	c.conn.Close()
}
