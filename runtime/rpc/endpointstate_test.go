package rpc

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

var allEndpointStates = []endpointState{endpointCreated, endpointStarted, endpointStopping, endpointStopped}

func TestEndpointStateNames(t *testing.T) {
	want := []string{"CREATED", "STARTED", "STOPPING", "STOPPED"}
	for i, s := range allEndpointStates {
		assert.Equal(t, want[i], s.String())
		assert.Equal(t, s == endpointStopped, s.IsTerminal(), "%s", s)
	}
	assert.Equal(t, "endpointState(7)", endpointState(7).String())
}

// Every pair of states is either a legal move, made by the call named
// here, or refused with a panic: an illegal move is a broken invariant.
func TestEndpointTransitions(t *testing.T) {
	allowed := map[[2]endpointState]string{
		{endpointCreated, endpointStarted}:  "Start",
		{endpointCreated, endpointStopped}:  "Stop before any Start",
		{endpointStarted, endpointStopping}: "Stop",
		{endpointStopping, endpointStopped}: "stopNow, the main thread's last message",
	}
	for _, from := range allEndpointStates {
		for _, to := range allEndpointStates {
			by, legal := allowed[[2]endpointState{from, to}]
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				e := NewEndpoint("transitions")
				defer e.cancel()
				e.state = from
				if !legal {
					assert.PanicsWithValue(t,
						fmt.Sprintf("rpc: endpoint transitions may not switch from state %s to %s", from, to),
						func() { e.transitionToLocked(to) })
					assert.Equal(t, from, e.state, "a refused move changes nothing")
					return
				}
				assert.NotPanics(t, func() { e.transitionToLocked(to) }, "made by %s", by)
				assert.Equal(t, to, e.state)
			})
		}
	}
}

// The calls walk the diagram: a second Start or Stop is no move at all.
func TestEndpointLifecycleWalksTheDiagram(t *testing.T) {
	state := func(e *Endpoint) endpointState {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.state
	}

	t.Run("started, then stopped", func(t *testing.T) {
		e := NewEndpoint("walk")
		assert.Equal(t, endpointCreated, state(e))
		release := make(chan struct{})
		e.Start(func() { <-release }) // hold the main thread in onStart
		assert.Equal(t, endpointStarted, state(e))
		e.Start(nil)
		assert.Equal(t, endpointStarted, state(e), "a second Start does nothing")
		e.Stop(nil)
		assert.Equal(t, endpointStopping, state(e), "the main thread has the mailbox to finish")
		e.Stop(nil)
		assert.Equal(t, endpointStopping, state(e), "a second Stop does nothing")
		close(release)
		<-e.Terminated()
		assert.Equal(t, endpointStopped, state(e))
		e.Start(nil)
		e.Stop(nil)
		assert.Equal(t, endpointStopped, state(e))
	})

	t.Run("stopped before it started", func(t *testing.T) {
		e := NewEndpoint("walk")
		e.Stop(nil)
		assert.Equal(t, endpointStopped, state(e))
		<-e.Terminated()
		e.Start(nil)
		assert.Equal(t, endpointStopped, state(e), "Start after Stop launches nothing")
	})
}
