package network

import (
	"context"
	"errors"
	"io"
)

// UnionInputGate reads several InputGates as one: the input of an
// operator that reads the union of several streams, one gate per JobEdge.
// It mirrors Flink's UnionInputGate: it hands out records from whichever
// gate has data, taking the gates in turn, waits while none has, and ends
// (io.EOF) once every gate has ended. A gate's error ends it at once.
//
// Like an InputGate it has one reading goroutine. Its gates stay the
// task's: closing them (Task does) wakes a waiting reader with
// ErrInputGateClosed, as it would wake the gate's own.
//
// Checkpoint barriers need nothing of the union: each gate hands its own
// to its CheckpointBarrierHandler, under the gateIdx it was given, from
// inside the union's Next (the union asks the gate, the gate calls the
// handler), and the task resumes a blocked channel on its gate
// (InputGate.ResumeConsumption). A gate blocked after a barrier simply has
// no data; the union reads the others meanwhile.
type UnionInputGate struct {
	gates []*InputGate
	// dataAvailable holds a token when one of the gates queued a channel.
	dataAvailable chan struct{}

	// Owned by the reading goroutine.
	requestedPartitions bool
	finished            []bool
	numberOfFinished    int
	next                int // the gate to ask first, round robin
}

// NewUnionInputGate returns the union of gates, which must not be read
// any other way from now on.
func NewUnionInputGate(gates ...*InputGate) *UnionInputGate {
	u := &UnionInputGate{gates: gates, dataAvailable: make(chan struct{}, 1), finished: make([]bool, len(gates))}
	for _, g := range gates {
		g.mu.Lock()
		g.unionAvailable = u.dataAvailable
		g.mu.Unlock()
	}
	return u
}

// Next returns the next record of any gate, blocking until one arrives. It
// returns io.EOF once every gate has ended, ctx.Err() if ctx ends while it
// waits, and otherwise the first error a gate returns (see InputGate.Next).
// The first call requests every gate's partitions.
func (u *UnionInputGate) Next(ctx context.Context) ([]byte, error) {
	if !u.requestedPartitions {
		for _, g := range u.gates {
			if err := g.RequestPartitions(ctx); err != nil {
				return nil, err
			}
		}
		u.requestedPartitions = true
	}
	for {
		for range u.gates {
			i := u.next
			u.next = (u.next + 1) % len(u.gates)
			if u.finished[i] {
				continue
			}
			record, ok, err := u.gates[i].pollNext(ctx)
			switch {
			case errors.Is(err, io.EOF):
				u.finished[i] = true
				u.numberOfFinished++
			case err != nil:
				return nil, err
			case ok:
				return record, nil
			}
		}
		if u.numberOfFinished == len(u.gates) {
			return nil, io.EOF
		}
		select {
		case <-u.dataAvailable: // data, or a gate closed: its pollNext says which
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
