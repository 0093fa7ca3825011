package gateway

import (
	"context"
	"fmt"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
)

// LeaderGatewayRetriever follows the leader of one component and hands
// out its gateway (Flink's LeaderGatewayRetriever, an RpcGatewayRetriever
// of the webmonitor): the REST endpoint of every JobManager asks it for
// the Dispatcher and the ResourceManager that lead now, in its own
// process or in another. It connects to a leader the first time it is
// asked for it, with connect, which is given the leader's address and
// session (a fenced gateway carries the session as its token).
//
// While no leader is known, Gateway fails with ErrNoLeader, which the
// REST endpoint answers 503. All methods are safe for concurrent use.
type LeaderGatewayRetriever[G any] struct {
	retrieval highavailability.LeaderRetrievalService
	connect   func(ctx context.Context, address string, session api.LeaderSessionID) (G, error)

	mu        sync.Mutex
	address   string // "" while no leader is known
	session   api.LeaderSessionID
	leader    G
	connected bool // leader is the gateway of address and session
}

// NewLeaderGatewayRetriever starts following the leader with retrieval.
// Close stops it.
func NewLeaderGatewayRetriever[G any](retrieval highavailability.LeaderRetrievalService,
	connect func(ctx context.Context, address string, session api.LeaderSessionID) (G, error)) (*LeaderGatewayRetriever[G], error) {
	r := &LeaderGatewayRetriever[G]{retrieval: retrieval, connect: connect}
	if err := retrieval.Start(r); err != nil {
		return nil, fmt.Errorf("start the leader retrieval: %w", err)
	}
	return r, nil
}

// NotifyLeaderAddress is told each new leader, and "" when none is known.
func (r *LeaderGatewayRetriever[G]) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if address == r.address && session == r.session {
		return
	}
	var none G
	r.address, r.session, r.leader, r.connected = address, session, none, false
}

// Gateway returns the gateway of the leader, connecting to it the first
// time it is asked for.
func (r *LeaderGatewayRetriever[G]) Gateway(ctx context.Context) (G, error) {
	r.mu.Lock()
	address, session, leader, connected := r.address, r.session, r.leader, r.connected
	r.mu.Unlock()
	if address == "" {
		var none G
		return none, ErrNoLeader
	}
	if connected {
		return leader, nil
	}
	leader, err := r.connect(ctx, address, session)
	if err != nil {
		return leader, err
	}
	r.mu.Lock()
	if r.address == address && r.session == session {
		r.leader, r.connected = leader, true
	}
	r.mu.Unlock()
	return leader, nil
}

// Close stops following the leader.
func (r *LeaderGatewayRetriever[G]) Close() error { return r.retrieval.Stop() }
