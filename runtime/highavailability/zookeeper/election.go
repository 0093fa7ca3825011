package zookeeper

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
)

// The components that lead, as the nodes under leader/ name them.
const (
	ComponentResourceManager = "resource_manager"
	ComponentDispatcher      = "dispatcher"
	ComponentRestServer      = "rest_server"
)

// ComponentJob is the component of one job's JobMaster: "job-<jobid>".
func ComponentJob(jobID api.JobID) string { return "job-" + jobID.String() }

// latchPath is the one latch of the cluster, relative to the namespace.
const latchPath = "leader/latch"

// connectionInfoPath is where the leader of a component publishes itself.
func connectionInfoPath(component string) string {
	return path.Join("leader", component, "connection_info")
}

// LeaderInformation is what a leader publishes of itself: the address it
// serves at and its leader session, its fencing token. Differs from
// Flink: Flink writes the address with writeUTF and the UUID with Java
// serialization; here it is JSON, which `zkCli.sh get` shows as it is.
type LeaderInformation struct {
	Address   string              `json:"address"`
	SessionID api.LeaderSessionID `json:"sessionId"`
}

// IsEmpty reports whether no leader is known.
func (i LeaderInformation) IsEmpty() bool { return i.Address == "" && i.SessionID.IsZero() }

// LeaderElectionService is one process's part in the cluster's leader
// election: Flink's DefaultLeaderElectionService over a
// ZooKeeperLeaderElectionDriver (Flink 1.18+). The process enters the
// election once, with one LeaderLatch; every component of the process
// (its ResourceManager, Dispatcher, REST endpoint, JobMasters) is a
// contender under a component ID, and when the latch leads, all of them
// are granted the leadership under one new leader session, and when it
// stops leading, all of them are revoked. A contender confirms with its
// address, and only then is the leader information published, as an
// EPHEMERAL node leader/<component>/connection_info that goes with the
// session.
//
// Everything that touches ZooKeeper runs on one goroutine, in order
// (Flink's leadershipOperationExecutor): contenders are called there and
// must not block.
type LeaderElectionService struct {
	client *Client
	log    *slog.Logger
	latch  *LeaderLatch

	ops  chan func()
	stop chan struct{}
	done chan struct{}

	// Only the operations goroutine touches these.
	contenders map[string]highavailability.LeaderContender
	issued     api.LeaderSessionID // zero while the process does not lead
	confirmed  map[string]LeaderInformation

	mu        sync.Mutex
	leads     api.LeaderSessionID // issued, for HasLeadership
	closeOnce sync.Once
}

// NewLeaderElectionService enters the election through client.
func NewLeaderElectionService(client *Client, tolerateSuspended bool, logger *slog.Logger) (*LeaderElectionService, error) {
	if logger == nil {
		logger = slog.Default()
	}
	s := &LeaderElectionService{
		client: client, log: logger.With("logger", "DefaultLeaderElectionService"),
		ops: make(chan func(), 64), stop: make(chan struct{}), done: make(chan struct{}),
		contenders: map[string]highavailability.LeaderContender{}, confirmed: map[string]LeaderInformation{},
	}
	go s.run()
	s.latch = NewLeaderLatch(client, latchPath, (*latchListener)(s), tolerateSuspended, logger)
	driverLog := logger.With("logger", "ZooKeeperLeaderElectionDriver")
	client.OnConnectionStateChange(func(state ConnectionState) { logConnectionState(driverLog, state) })
	if err := s.latch.Start(); err != nil {
		s.Close()
		return nil, err
	}
	s.log.Info(fmt.Sprintf("A connection to the HA backend was established through LeaderElectionDriver %s.", "ZooKeeperLeaderElectionDriver"))
	return s, nil
}

// logConnectionState writes the driver's line for a connection state.
func logConnectionState(log *slog.Logger, state ConnectionState) {
	switch state {
	case Connected:
		log.Debug("Connected to ZooKeeper quorum. Leader election can start.")
	case Suspended:
		log.Warn("Connection to ZooKeeper suspended, waiting for reconnection.")
	case Reconnected:
		log.Info("Connection to ZooKeeper was reconnected. Leader election can be restarted.")
	case Lost:
		log.Warn("Connection to ZooKeeper lost. The contender no longer participates in the leader election.")
	}
}

func (s *LeaderElectionService) run() {
	defer close(s.done)
	for {
		select {
		case op := <-s.ops:
			op()
		case <-s.stop:
			return
		}
	}
}

// do runs op on the operations goroutine, unless the service is closed.
func (s *LeaderElectionService) do(op func()) {
	select {
	case s.ops <- op:
	case <-s.stop:
	}
}

// latchListener is the service as the latch's listener.
type latchListener LeaderElectionService

// IsLeader: a fresh leader session for every contender (Flink's driver
// calls onGrantLeadership(UUID.randomUUID())).
func (l *latchListener) IsLeader() {
	s := (*LeaderElectionService)(l)
	s.do(func() {
		s.issued = api.NewLeaderSessionID()
		s.setLeads(s.issued)
		for _, c := range s.contenders {
			c.GrantLeadership(s.issued)
		}
	})
}

// NotLeader: every contender is revoked, and the published information
// forgotten (its ephemeral nodes go with the session, or are replaced by
// the next leader's).
func (l *latchListener) NotLeader() {
	s := (*LeaderElectionService)(l)
	s.do(func() {
		if s.issued.IsZero() {
			return
		}
		s.issued = api.LeaderSessionID{}
		s.setLeads(s.issued)
		clear(s.confirmed)
		for _, c := range s.contenders {
			c.RevokeLeadership()
		}
	})
}

func (s *LeaderElectionService) setLeads(id api.LeaderSessionID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leads = id
}

// NewLeaderElection returns the handle of the contender for component.
func (s *LeaderElectionService) NewLeaderElection(component string) highavailability.LeaderElection {
	return &leaderElection{service: s, component: component}
}

type leaderElection struct {
	service   *LeaderElectionService
	component string
}

var _ highavailability.LeaderElection = (*leaderElection)(nil)

// StartLeaderElection registers the contender; one that registers while
// the process leads is granted at once.
func (e *leaderElection) StartLeaderElection(contender highavailability.LeaderContender) error {
	s := e.service
	result := make(chan error, 1)
	s.do(func() {
		if _, ok := s.contenders[e.component]; ok {
			result <- fmt.Errorf("a contender is registered under component '%s' already", e.component)
			return
		}
		s.contenders[e.component] = contender
		s.log.Info(fmt.Sprintf("LeaderContender has been registered under component '%s' for %s.", e.component, "ZooKeeperLeaderElectionDriver"))
		if !s.issued.IsZero() {
			contender.GrantLeadership(s.issued)
		}
		result <- nil
	})
	select {
	case err := <-result:
		return err
	case <-s.stop:
		return errors.New("the leader election service is closed")
	}
}

// ConfirmLeadership publishes the contender's address, if the process
// still leads under sessionID; an old confirmation is ignored (Flink:
// "Received an old confirmation call of leader session ID …").
func (e *leaderElection) ConfirmLeadership(sessionID api.LeaderSessionID, address string) {
	s := e.service
	s.do(func() {
		if sessionID != s.issued || s.issued.IsZero() {
			s.log.Debug(fmt.Sprintf("Received an old confirmation call of leader session ID %s for component '%s' (current issued session ID is %s).",
				sessionID, e.component, s.issued))
			return
		}
		// Step h2: the leader publishes where it serves, under its
		// session: leader/<component>/connection_info, an ephemeral node.
		info := LeaderInformation{Address: address, SessionID: sessionID}
		if err := s.publish(e.component, info); err != nil {
			s.log.Warn(fmt.Sprintf("Could not publish the leader information of component '%s': %v", e.component, err))
			return
		}
		s.confirmed[e.component] = info
	})
}

// publish writes the component's leader information as an EPHEMERAL node
// of this session, only while the latch leads. A node of another session
// (a leader before us whose session has not expired yet) is deleted and
// written anew. Flink: ZooKeeperLeaderElectionDriver.publishLeaderInformation.
func (s *LeaderElectionService) publish(component string, info LeaderInformation) error {
	if !s.latch.Leads() {
		return errors.New("the process does not lead")
	}
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	conn, p := s.client.Conn(), s.client.Path(connectionInfoPath(component))
	if err := s.client.EnsurePath(path.Dir(connectionInfoPath(component))); err != nil {
		return err
	}
	for {
		_, stat, err := conn.Get(p)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			_, err = conn.Create(p, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
			if errors.Is(err, zk.ErrNodeExists) {
				continue
			}
			return err
		case err != nil:
			return err
		case stat.EphemeralOwner == conn.SessionID():
			_, err = conn.Set(p, data, stat.Version)
			return err
		default:
			if err := conn.Delete(p, stat.Version); err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrBadVersion) {
				return err
			}
		}
	}
}

// HasLeadership reports whether the process leads under sessionID.
func (e *leaderElection) HasLeadership(sessionID api.LeaderSessionID) bool {
	s := e.service
	s.mu.Lock()
	defer s.mu.Unlock()
	return !sessionID.IsZero() && s.leads == sessionID && s.latch.Leads()
}

// Close deregisters the contender; if the process leads, its leader
// information is deleted.
func (e *leaderElection) Close() error {
	s := e.service
	s.do(func() {
		c, ok := s.contenders[e.component]
		if !ok {
			return
		}
		delete(s.contenders, e.component)
		s.log.Info(fmt.Sprintf("Deregistering contender with component '%s' from the DefaultLeaderElectionService.", e.component))
		if !s.issued.IsZero() {
			c.RevokeLeadership()
			delete(s.confirmed, e.component)
			s.deleteLeaderInformation(e.component)
		}
	})
	return nil
}

// deleteLeaderInformation deletes the component's leader information if
// it is this process's, of the session it leads under: a process that was
// paused and does not know yet that it lost the leadership must not delete
// what the next leader wrote there. (Flink deletes it if the latch says
// the process leads.)
func (s *LeaderElectionService) deleteLeaderInformation(component string) {
	p := s.client.Path(connectionInfoPath(component))
	data, stat, err := s.client.Conn().Get(p)
	if err != nil {
		return
	}
	var info LeaderInformation
	if json.Unmarshal(data, &info) != nil || info.SessionID != s.issued || !s.latch.Leads() {
		return
	}
	_ = s.client.Conn().Delete(p, stat.Version)
}

// Close leaves the election: the latch's node is deleted, so that a
// standby leads at once, and the contenders still registered are revoked:
// none of them leads from now on.
func (s *LeaderElectionService) Close() {
	s.closeOnce.Do(func() {
		if s.latch != nil {
			s.latch.Close()
		}
		revoked := make(chan struct{})
		s.do(func() {
			defer close(revoked)
			if s.issued.IsZero() {
				return
			}
			s.issued = api.LeaderSessionID{}
			s.setLeads(s.issued)
			for _, c := range s.contenders {
				c.RevokeLeadership()
			}
		})
		<-revoked
		close(s.stop)
		<-s.done
	})
}
