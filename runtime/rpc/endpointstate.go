package rpc

import "fmt"

// endpointState is the lifecycle of an Endpoint. Flink's PekkoRpcActor
// keeps the same in its State: it is STOPPED until START, then STARTED,
// TERMINATING and TERMINATED. We name the states by the calls that make
// them, Start and Stop.
//
//	CREATED ──Start──► STARTED ──Stop──► STOPPING ──stopNow──► STOPPED
//	   │                                                          ▲
//	   └──────────────────Stop, before any Start──────────────────┘
//	                      (no main thread ever runs)
//
// CREATED: messages wait in the mailbox. STARTED: the main thread drains
// it. STOPPING: Stop has put onStop and stopNow behind the messages already
// waiting; the main thread runs them, and messages sent now are dropped
// when stopNow runs. STOPPED, the only terminal state: the mailbox is
// closed for good, the timers are stopped and the endpoint's context is
// cancelled. A second Start or Stop is not a transition: it does nothing
// (see Endpoint.Start and Endpoint.Stop).
type endpointState int

// The endpoint states, in the order an endpoint goes through them.
const (
	endpointCreated  endpointState = iota // NewEndpoint: the mailbox fills, nothing runs it
	endpointStarted                       // Start launched the main thread
	endpointStopping                      // the first Stop came after Start: the main thread finishes the mailbox
	endpointStopped                       // the mailbox is closed for good
)

var endpointStateNames = [...]string{
	endpointCreated:  "CREATED",
	endpointStarted:  "STARTED",
	endpointStopping: "STOPPING",
	endpointStopped:  "STOPPED",
}

// String returns the state's name, e.g. "STOPPING".
func (s endpointState) String() string {
	if s < 0 || int(s) >= len(endpointStateNames) {
		return fmt.Sprintf("endpointState(%d)", int(s))
	}
	return endpointStateNames[s]
}

// IsTerminal reports whether the endpoint is done: STOPPED.
func (s endpointState) IsTerminal() bool { return s == endpointStopped }

// endpointTransitions lists every legal move of an endpoint.
var endpointTransitions = map[endpointState][]endpointState{
	endpointCreated:  {endpointStarted, endpointStopped},
	endpointStarted:  {endpointStopping},
	endpointStopping: {endpointStopped},
}

// transitionToLocked moves the endpoint to state to; e.mu is held. It is
// the one place the state changes. An illegal move is a bug in this
// package, not something a caller can cause (a second Start or Stop never
// gets here), so it panics.
func (e *Endpoint) transitionToLocked(to endpointState) {
	from := e.state
	for _, allowed := range endpointTransitions[from] {
		if allowed == to {
			e.state = to
			return
		}
	}
	panic(fmt.Sprintf("rpc: endpoint %s may not switch from state %s to %s", e.name, from, to))
}
