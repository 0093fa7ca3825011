package highavailability

import (
	"errors"
	"slices"
	"sync"

	"flinklab/runtime/api"
)

// LeaderContender is a component that wants to lead (Flink's
// LeaderContender). Its methods must not block.
type LeaderContender interface {
	// GrantLeadership makes the contender the leader for the given session.
	GrantLeadership(sessionID api.LeaderSessionID)
	// RevokeLeadership takes the leadership away again.
	RevokeLeadership()
}

// LeaderElection is one contender's handle on an election (Flink's
// LeaderElection).
type LeaderElection interface {
	// StartLeaderElection enters contender into the election.
	StartLeaderElection(contender LeaderContender) error
	// ConfirmLeadership publishes that the leader of sessionID serves at
	// address. Retrieval listeners learn of the leader only now.
	ConfirmLeadership(sessionID api.LeaderSessionID, address string)
	// HasLeadership reports whether sessionID is the current leadership.
	HasLeadership(sessionID api.LeaderSessionID) bool
	// Close leaves the election; a leader gives its leadership up.
	Close() error
}

// LeaderRetrievalListener learns who leads (Flink's LeaderRetrievalListener).
// Its method must not block.
type LeaderRetrievalListener interface {
	NotifyLeaderAddress(address string, sessionID api.LeaderSessionID)
}

// LeaderRetrievalService tells listeners about leader changes (Flink's
// LeaderRetrievalService).
type LeaderRetrievalService interface {
	Start(listener LeaderRetrievalListener) error
	Stop() error
}

// EmbeddedLeaderService runs one election inside the process: the first
// contender becomes leader at once, later contenders wait as standbys and
// take over, in order, when the leader leaves.
type EmbeddedLeaderService struct {
	mu         sync.Mutex
	contenders []LeaderContender // contenders[0] leads when session is set
	session    api.LeaderSessionID
	confirmed  *leaderInfo
	listeners  map[*retrieval]struct{}
}

type leaderInfo struct {
	address string
	session api.LeaderSessionID
}

// NewEmbeddedLeaderService returns an election nobody has entered yet.
func NewEmbeddedLeaderService() *EmbeddedLeaderService {
	return &EmbeddedLeaderService{listeners: make(map[*retrieval]struct{})}
}

// NewLeaderElection returns a handle for one contender.
func (s *EmbeddedLeaderService) NewLeaderElection() LeaderElection { return &election{service: s} }

// NewLeaderRetrieval returns a retrieval service for one listener.
func (s *EmbeddedLeaderService) NewLeaderRetrieval() LeaderRetrievalService {
	return &retrieval{service: s}
}

// grantNextLocked picks the next leader, if any, and returns a function
// that notifies it outside the lock.
func (s *EmbeddedLeaderService) grantNextLocked() func() {
	if len(s.contenders) == 0 {
		s.session = api.LeaderSessionID{}
		return func() {}
	}
	s.session = api.NewLeaderSessionID()
	leader, session := s.contenders[0], s.session
	return func() { leader.GrantLeadership(session) }
}

type election struct {
	service   *EmbeddedLeaderService
	contender LeaderContender
}

func (e *election) StartLeaderElection(contender LeaderContender) error {
	s := e.service
	s.mu.Lock()
	if e.contender != nil {
		s.mu.Unlock()
		return errors.New("leader election already started")
	}
	e.contender = contender
	s.contenders = append(s.contenders, contender)
	grant := func() {}
	if len(s.contenders) == 1 {
		grant = s.grantNextLocked()
	}
	s.mu.Unlock()
	grant()
	return nil
}

func (e *election) ConfirmLeadership(sessionID api.LeaderSessionID, address string) {
	s := e.service
	s.mu.Lock()
	if sessionID != s.session || len(s.contenders) == 0 || s.contenders[0] != e.contender {
		s.mu.Unlock()
		return // a stale confirmation: that leadership is over
	}
	s.confirmed = &leaderInfo{address: address, session: sessionID}
	listeners := s.listenersLocked()
	s.mu.Unlock()
	for _, l := range listeners {
		l.NotifyLeaderAddress(address, sessionID)
	}
}

func (e *election) HasLeadership(sessionID api.LeaderSessionID) bool {
	s := e.service
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.contenders) > 0 && s.contenders[0] == e.contender && s.session == sessionID
}

func (e *election) Close() error {
	s := e.service
	s.mu.Lock()
	idx := -1
	for i, c := range s.contenders {
		if c == e.contender && e.contender != nil {
			idx = i
		}
	}
	if idx < 0 {
		s.mu.Unlock()
		return nil
	}
	// Flink's EmbeddedLeaderService#removeContender drops the contender
	// from its set of contenders. slices.Delete also clears the slot the
	// shorter slice no longer covers: a plain append would leave the
	// contender there, in the array the service keeps for as long as the
	// cluster runs, and a JobMaster's runner holds its whole ended job.
	s.contenders = slices.Delete(s.contenders, idx, idx+1)
	if idx != 0 { // a standby left; the leader stays
		s.mu.Unlock()
		return nil
	}
	s.confirmed = nil
	revoked := e.contender
	grant := s.grantNextLocked()
	listeners := s.listenersLocked()
	s.mu.Unlock()
	revoked.RevokeLeadership()
	for _, l := range listeners {
		l.NotifyLeaderAddress("", api.LeaderSessionID{})
	}
	grant()
	return nil
}

func (s *EmbeddedLeaderService) listenersLocked() []LeaderRetrievalListener {
	out := make([]LeaderRetrievalListener, 0, len(s.listeners))
	for r := range s.listeners {
		out = append(out, r.listener)
	}
	return out
}

type retrieval struct {
	service  *EmbeddedLeaderService
	listener LeaderRetrievalListener
}

func (r *retrieval) Start(listener LeaderRetrievalListener) error {
	s := r.service
	s.mu.Lock()
	if r.listener != nil {
		s.mu.Unlock()
		return errors.New("leader retrieval already started")
	}
	r.listener = listener
	s.listeners[r] = struct{}{}
	confirmed := s.confirmed
	s.mu.Unlock()
	if confirmed != nil {
		listener.NotifyLeaderAddress(confirmed.address, confirmed.session)
	}
	return nil
}

func (r *retrieval) Stop() error {
	s := r.service
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, r)
	return nil
}
