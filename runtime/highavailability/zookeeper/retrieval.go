package zookeeper

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/go-zookeeper/zk"

	"flinklab/runtime/highavailability"
)

// LeaderRetriever follows the leader of one component: it watches
// leader/<component>/connection_info and tells its listener each leader
// it finds there, and "no leader" when the node goes. Flink's
// ZooKeeperLeaderRetrievalDriver under a DefaultLeaderRetrievalService.
//
// A connection that is SUSPENDED cannot tell who leads: the listener is
// told "no leader" at once, or, with tolerateSuspended, only when the
// session is LOST (Flink's LeaderInformationClearancePolicy). On
// RECONNECTED the node is read again.
type LeaderRetriever struct {
	client            *Client
	component         string
	tolerateSuspended bool
	log               *slog.Logger

	mu       sync.Mutex
	listener highavailability.LeaderRetrievalListener
	last     LeaderInformation
	stop     chan struct{}
	done     chan struct{}
	wake     chan struct{} // read the node again
}

var _ highavailability.LeaderRetrievalService = (*LeaderRetriever)(nil)

// NewLeaderRetriever returns a retriever of component's leader.
func NewLeaderRetriever(client *Client, component string, tolerateSuspended bool, logger *slog.Logger) *LeaderRetriever {
	if logger == nil {
		logger = slog.Default()
	}
	return &LeaderRetriever{
		client: client, component: component, tolerateSuspended: tolerateSuspended,
		log:  logger.With("logger", "ZooKeeperLeaderRetrievalDriver"),
		stop: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1),
	}
}

// Start begins to watch and tells listener of every change.
func (r *LeaderRetriever) Start(listener highavailability.LeaderRetrievalListener) error {
	r.mu.Lock()
	if r.listener != nil {
		r.mu.Unlock()
		return errors.New("leader retrieval already started")
	}
	r.listener = listener
	r.mu.Unlock()
	remove := r.client.OnConnectionStateChange(r.onConnectionState)
	go func() {
		defer close(r.done)
		defer remove()
		r.run()
	}()
	return nil
}

func (r *LeaderRetriever) onConnectionState(state ConnectionState) {
	switch state {
	case Suspended:
		r.log.Warn("Connection to ZooKeeper suspended. Can no longer retrieve the leader from ZooKeeper.")
		if !r.tolerateSuspended {
			r.notify(LeaderInformation{})
		}
	case Lost:
		r.log.Warn("Connection to ZooKeeper lost. Can no longer retrieve the leader from ZooKeeper.")
		r.notify(LeaderInformation{})
	case Reconnected:
		r.log.Info("Connection to ZooKeeper was reconnected. Leader retrieval can be restarted.")
		r.poke()
	}
}

// poke asks the watching goroutine to read the node again.
func (r *LeaderRetriever) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run reads the node, tells the listener, and waits for the node to
// change, to be created or deleted, or for a reconnection.
func (r *LeaderRetriever) run() {
	conn, p := r.client.Conn(), r.client.Path(connectionInfoPath(r.component))
	for {
		var watch <-chan zk.Event
		data, _, w, err := conn.GetW(p)
		switch {
		case err == nil:
			// Step h3: the leader is retrieved: a TaskManager, a JobMaster
			// or a REST endpoint reads where the leader serves and its
			// session, and watches the node for the next change.
			watch = w
			var info LeaderInformation
			if json.Unmarshal(data, &info) != nil {
				r.log.Warn(fmt.Sprintf("Could not read the leader information of component '%s': %q", r.component, data))
				info = LeaderInformation{}
			}
			r.notify(info)
		case errors.Is(err, zk.ErrNoNode):
			exists, _, w, existsErr := conn.ExistsW(p)
			if existsErr == nil {
				watch = w
				if exists {
					continue // created meanwhile: read it
				}
			}
			r.notify(LeaderInformation{})
		}
		// On an error without a watch, a reconnection wakes us.
		select {
		case <-watch:
		case <-r.wake:
		case <-r.stop:
			return
		}
	}
}

// notify tells the listener of a leader different from the last one.
func (r *LeaderRetriever) notify(info LeaderInformation) {
	r.mu.Lock()
	if info == r.last || r.listener == nil {
		r.mu.Unlock()
		return
	}
	r.last = info
	listener := r.listener
	r.mu.Unlock()
	listener.NotifyLeaderAddress(info.Address, info.SessionID)
}

// Stop ends the watching.
func (r *LeaderRetriever) Stop() error {
	r.mu.Lock()
	started := r.listener != nil
	r.mu.Unlock()
	select {
	case <-r.stop:
		return nil
	default:
	}
	close(r.stop)
	if started {
		<-r.done
	}
	return nil
}
