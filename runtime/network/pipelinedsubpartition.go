package network

import (
	"context"
	"fmt"
	"sync"
)

// pipelinedSubpartition is the bounded queue of buffers between a producer
// and the one consumer of one subpartition. It mirrors Flink's
// PipelinedSubpartition: buffers are handed over as soon as they are built,
// and the consumer reads them while the producer is still writing.
//
// A subpartition is made on first use (see ResultPartition.subpartition):
// by the producer's first buffer for it, by Finish, by a checkpoint
// barrier, or by its consumer's request. An all-to-all edge of
// parallelism n has n² subpartitions, and a job whose tasks never
// exchange data should not pay for them.
//
// Two goroutines meet here: the producer calls add, addEvent and finish,
// the consumer reads through its pipelinedSubpartitionView. Release may
// come from any goroutine. All fields below mu are guarded by it.
//
// An aligned checkpoint barrier blocks the subpartition (Flink's
// isBlocked): once pollBuffer has handed it out, the reader gets nothing
// more, whatever its credit, until it calls resumeConsumption. The
// producer meanwhile fills the queue up to its bound and then waits in
// add: that is how alignment holds back an input whose barrier came
// early (doc.go, "Checkpoint barriers").
//
//	not blocked ──pollBuffer hands out an AlignedCheckpointBarrier──► blocked
//	     ▲                                                              │
//	     └────────────────────────resumeConsumption────────────────────┘
//
// Lock order: a subpartition's mu may be held while taking its
// ResultPartition's mu or its reader's InputGate mu, never the other way
// round. (ResultPartition.subpartition makes a subpartition under the
// partition's mu, but never locks it there.)
type pipelinedSubpartition struct {
	parent *ResultPartition
	index  int

	mu sync.Mutex
	// buffers is the queue: at most capacity (the partition's
	// buffersPerSubpartition) data buffers, with checkpoint barriers
	// between them, then at most one EndOfPartition event. Events take no
	// room: they are added without waiting. It is allocated by the first
	// add, addEvent or finish, not with the subpartition: a consumer's
	// request makes the subpartition, which may then never carry a buffer.
	buffers []Buffer
	// buffersInBacklog counts the data buffers in the queue (events do not
	// count). Flink keeps the same counter to announce the backlog to the
	// consumer in credit-based flow control.
	buffersInBacklog int
	// maxBuffersInBacklog is the high-water mark of buffersInBacklog.
	maxBuffersInBacklog int
	isFinished          bool // the EndOfPartition event was added
	isReleased          bool // the partition was released: queue dropped, no more data
	hasReadView         bool // a consumer attached; readView is its handle
	isReadViewReleased  bool // the consumer left (its InputGate was closed)
	isConsumed          bool // the consumer read the event or left; counted once by the parent
	isBlocked           bool // an AlignedCheckpointBarrier was handed out: nothing more until resumeConsumption
	// readView is the consumer's handle, valid once hasReadView is set. It
	// lives inside the subpartition, which saves an allocation per pair:
	// a pipelined subpartition has at most one reader, ever.
	readView pipelinedSubpartitionView
}

func newPipelinedSubpartition(parent *ResultPartition, index int) *pipelinedSubpartition {
	return &pipelinedSubpartition{parent: parent, index: index}
}

// add hands a data buffer to the consumer. While the queue holds
// Config.BuffersPerSubpartition buffers the producer waits here: this wait
// is backpressure. It returns ctx.Err() if ctx ends first, and the release
// error if the partition is released; in both cases the buffer was not
// added.
//
// The producer waits on its partition's spaceAvailable, which any of the
// partition's consumers may have filled, so waking up proves nothing: it
// checks its own queue again after every token. See
// ResultPartition.spaceAvailable.
func (s *pipelinedSubpartition) add(ctx context.Context, buffer Buffer) error {
	capacity := s.parent.buffersPerSubpartition
	s.mu.Lock()
	for s.buffersInBacklog >= capacity && !s.isReleased && !s.isReadViewReleased {
		s.mu.Unlock()
		select {
		case <-s.parent.spaceAvailable:
		case <-s.parent.released:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()

	switch {
	case s.isReleased:
		return s.parent.releaseError()
	case s.isReadViewReleased:
		// The consumer is gone; drop the data, as Flink does, and let the
		// producer run on until it is cancelled or the partition released.
		return nil
	}
	if s.buffers == nil {
		s.buffers = make([]Buffer, 0, capacity+1)
	}
	s.buffers = append(s.buffers, buffer)
	s.buffersInBacklog++
	s.maxBuffersInBacklog = max(s.maxBuffersInBacklog, s.buffersInBacklog)
	s.notifyDataAvailableLocked()
	return nil
}

// finish adds the EndOfPartition event. It never waits: the event carries
// no data and comes once, so the queue has room for it beyond capacity.
func (s *pipelinedSubpartition) finish() error { return s.addEvent(endOfPartition) }

// addEvent appends an event behind everything queued: a checkpoint
// barrier (ResultPartition.BroadcastEvent) or the EndOfPartition event
// (finish). It never waits: an event takes no room in the bounded queue,
// which bounds data buffers only, so a producer whose consumer is slow or
// blocked still gets its barrier in (Flink's events do not come from the
// LocalBufferPool either). A consumer that left drops it, as it drops
// data.
func (s *pipelinedSubpartition) addEvent(event Buffer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.isReleased:
		return s.parent.releaseError()
	case s.isReadViewReleased:
		return nil
	}
	s.buffers = append(s.buffers, event)
	if event.DataType() == EndOfPartitionEvent {
		s.isFinished = true
	}
	s.notifyDataAvailableLocked()
	return nil
}

// notifyDataAvailableLocked tells the reader, if there is one, that the
// queue went from empty to non-empty. While the queue stays non-empty the
// reader learns of more data from getNextBuffer's moreAvailable. A
// blocked subpartition tells nothing: the reader could not take the
// buffer; resumeConsumption tells it instead. Flink:
// PipelinedSubpartition.shouldNotifyDataAvailable.
func (s *pipelinedSubpartition) notifyDataAvailableLocked() {
	if len(s.buffers) == 1 && !s.isBlocked && s.hasReadView && !s.isReadViewReleased {
		s.readView.availabilityListener.notifyDataAvailable()
	}
}

// createReadView attaches the one consumer a pipelined subpartition may
// have. If data is already queued the listener hears of it at once.
func (s *pipelinedSubpartition) createReadView(listener bufferAvailabilityListener) (resultSubpartitionView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.isReleased:
		return nil, s.parent.releaseError()
	case s.hasReadView:
		return nil, fmt.Errorf("subpartition %d of partition %s is being (or already has been) consumed, "+
			"but pipelined subpartitions can only be consumed once", s.index, s.parent.id)
	}
	s.hasReadView = true
	s.readView = pipelinedSubpartitionView{parent: s, availabilityListener: listener}
	if len(s.buffers) > 0 {
		listener.notifyDataAvailable()
	}
	return &s.readView, nil
}

// pollBuffer takes the next buffer for the reader. ok is false when the
// queue is empty, or blocked. Taking an AlignedCheckpointBarrier blocks
// the subpartition, so nothing more is available behind it; taking the
// EndOfPartition event consumes the subpartition. Flink:
// PipelinedSubpartition.pollBuffer.
func (s *pipelinedSubpartition) pollBuffer() (next bufferAndAvailability, ok bool, err error) {
	s.mu.Lock()
	switch {
	case s.isReleased:
		s.mu.Unlock()
		return bufferAndAvailability{}, false, s.parent.releaseError()
	case s.isReadViewReleased:
		s.mu.Unlock()
		return bufferAndAvailability{}, false, ErrInputGateClosed
	case s.isBlocked, len(s.buffers) == 0:
		s.mu.Unlock()
		return bufferAndAvailability{}, false, nil
	}
	wasFull := s.buffersInBacklog >= s.parent.buffersPerSubpartition
	buffer := s.popLocked()
	if buffer.DataType().isBlockingUpstream() {
		s.isBlocked = true
	}
	next = bufferAndAvailability{buffer: buffer, moreAvailable: !s.isBlocked && len(s.buffers) > 0, buffersInBacklog: s.buffersInBacklog}
	consumed := buffer.DataType() == EndOfPartitionEvent && s.markConsumedLocked()
	s.mu.Unlock()

	if wasFull {
		s.parent.notifySpaceAvailable()
	}
	if consumed {
		s.parent.onConsumedSubpartition()
	}
	return next, true, nil
}

// isAvailable reports whether a reader holding the given credit may take
// a buffer now (see resultSubpartitionView.isAvailable): a blocked
// subpartition never is, so a PartitionRequestServer whose reader gets
// credit while blocked looks once and lets it be. Flink:
// PipelinedSubpartition.getAvailabilityAndBacklog.
func (s *pipelinedSubpartition) isAvailable(credit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.isReleased:
		return true
	case s.isBlocked, len(s.buffers) == 0:
		return false
	default:
		return credit > 0 || !s.buffers[0].IsBuffer()
	}
}

// resumeConsumption unblocks the subpartition after an aligned checkpoint
// barrier: the consumer has the barrier on all its channels (or gave up
// the checkpoint). If buffers were queued meanwhile, the reader hears of
// them now, since add told it nothing while it was blocked. Resuming a
// subpartition that is not blocked changes nothing (Flink's checkState
// fails instead). Flink: PipelinedSubpartition.resumeConsumption, with
// LocalInputChannel.resumeConsumption's notifyChannelNonEmpty.
func (s *pipelinedSubpartition) resumeConsumption() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.isBlocked {
		return
	}
	s.isBlocked = false
	if len(s.buffers) > 0 && !s.isReleased && s.hasReadView && !s.isReadViewReleased {
		s.readView.availabilityListener.notifyDataAvailable()
	}
}

// popLocked removes the head of the queue. The queue is at most a few
// buffers long, so shifting it is cheaper than any ring.
func (s *pipelinedSubpartition) popLocked() Buffer {
	buffer := s.buffers[0]
	copy(s.buffers, s.buffers[1:])
	s.buffers[len(s.buffers)-1] = Buffer{}
	s.buffers = s.buffers[:len(s.buffers)-1]
	if buffer.IsBuffer() {
		s.buffersInBacklog--
	}
	return buffer
}

// dropBuffersLocked forgets every queued buffer.
func (s *pipelinedSubpartition) dropBuffersLocked() {
	clear(s.buffers)
	s.buffers = s.buffers[:0]
	s.buffersInBacklog = 0
}

// markConsumedLocked records that the consumer is done with the
// subpartition and reports whether this is news for the parent.
func (s *pipelinedSubpartition) markConsumedLocked() bool {
	if s.isConsumed {
		return false
	}
	s.isConsumed = true
	return true
}

// releaseReadView is the consumer leaving before the end. Its queued
// buffers are dropped, the subpartition counts as consumed, and a blocked
// producer is woken. The count comes first: if this was the partition's
// last consumer, the partition is released before the producer wakes, so
// that it learns so (ErrPartitionReleased) rather than running on with
// its data dropped.
func (s *pipelinedSubpartition) releaseReadView() {
	s.mu.Lock()
	s.isReadViewReleased = true
	s.dropBuffersLocked()
	consumed := s.markConsumedLocked()
	s.mu.Unlock()

	if consumed {
		s.parent.onConsumedSubpartition()
	}
	s.parent.notifySpaceAvailable()
}

// release drops the queue and tells a reader still waiting for data, so it
// wakes up and reads the release error. Called by ResultPartition.release.
func (s *pipelinedSubpartition) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return
	}
	s.isReleased = true
	s.dropBuffersLocked()
	if s.hasReadView && !s.isReadViewReleased && !s.isConsumed {
		s.readView.availabilityListener.notifyDataAvailable()
	}
}

// backlog returns the data buffers queued now and the most ever queued.
func (s *pipelinedSubpartition) backlog() (now, highWaterMark int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buffersInBacklog, s.maxBuffersInBacklog
}

// pipelinedSubpartitionView is the consumer's handle on one subpartition
// (Flink: PipelinedSubpartitionView). The ResultPartitionManager hands it
// out; the reader polls it and releases it when done. It is a field of its
// subpartition, not allocated on its own.
type pipelinedSubpartitionView struct {
	parent               *pipelinedSubpartition
	availabilityListener bufferAvailabilityListener
}

// getNextBuffer takes the next buffer, if one is queued.
func (v *pipelinedSubpartitionView) getNextBuffer() (bufferAndAvailability, bool, error) {
	return v.parent.pollBuffer()
}

// isAvailable reports whether a reader with the given credit may take a
// buffer now (see pipelinedSubpartition.isAvailable).
func (v *pipelinedSubpartitionView) isAvailable(credit int) bool { return v.parent.isAvailable(credit) }

// resumeConsumption unblocks the subpartition after an aligned checkpoint
// barrier (see pipelinedSubpartition.resumeConsumption).
func (v *pipelinedSubpartitionView) resumeConsumption() { v.parent.resumeConsumption() }

// releaseAllResources detaches the reader. After the EndOfPartition event
// it changes nothing; before it, the rest of the data is dropped.
func (v *pipelinedSubpartitionView) releaseAllResources() { v.parent.releaseReadView() }

var (
	_ resultSubpartition     = (*pipelinedSubpartition)(nil)
	_ resultSubpartitionView = (*pipelinedSubpartitionView)(nil)
)
