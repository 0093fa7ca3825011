package network

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// ResultPartition is what one producer subtask writes: one subpartition per
// consumer subtask. It mirrors Flink's ResultPartition, with the buffer
// writing of BufferWritingResultPartition, and its type decides what its
// subpartitions are:
//
//	PIPELINED_BOUNDED  a bounded queue each (pipelinedSubpartition), read once,
//	                   while being written (Flink: PipelinedResultPartition)
//	BLOCKING           a file each (boundedBlockingSubpartition), read after Finish,
//	                   any number of times (Flink: BoundedBlockingResultPartition)
//
// EmitRecord, BroadcastRecord, BroadcastEvent, Flush and Finish belong to
// the producing task's goroutine: one writer, which fills the buffers
// without locks. ID, NumberOfSubpartitions, Fail, Release and the
// counters may be called from any goroutine.
//
// Lifecycle of a pipelined partition:
//
//	created (registered) ──Finish──► finished ──every subpartition consumed──► released
//	        │                           │
//	        └──────Fail / Release───────┴──────────────────────────────────────► released
//
// and of a blocking one, which reading never releases:
//
//	created (registered) ──Finish──► finished: readable, any number of times
//	        │                           │
//	        └──────Fail / Release───────┴──Release (ShuffleEnvironment.ReleasePartitionsLocally)──► released
//
// A released partition is unregistered from its ResultPartitionManager, its
// queues are dropped (or its files deleted) and everyone waiting on it
// wakes up.
//
// Creating a partition costs the same whatever its number of
// subpartitions: each subpartition is made on first use (see subpartition),
// and the buffer builders with the first record.
type ResultPartition struct {
	id                     api.ResultPartitionID
	partitionType          jobgraph.ResultPartitionType
	partitionManager       *ResultPartitionManager
	numberOfSubpartitions  int
	bufferSize             int
	buffersPerSubpartition int    // the bound of every pipelined subpartition queue
	tmpDir                 string // where a blocking partition's files go

	// Owned by the producing goroutine.
	bufferBuilders []bufferBuilder // one per subpartition: the buffer being filled; nil until the first record
	isFinished     bool

	// released is closed when the partition is released; producers blocked
	// on a full queue wait on it. isReleased mirrors it for a cheap check
	// on every record.
	released   chan struct{}
	isReleased atomic.Bool

	// spaceAvailable holds a token after a consumer took a buffer from a
	// full queue, or left; the producer blocked in pipelinedSubpartition.add
	// waits for it. One channel serves every subpartition, because only one
	// goroutine produces, and it waits on one queue at a time. A token may
	// thus come from another subpartition's consumer than the one the
	// producer waits for; that is harmless, because the producer checks its
	// own queue again after every token and waits again if it is still full.
	// No wake-up is lost either: a consumer that finds the slot taken leaves
	// it to the token already there, which wakes the producer just the same.
	// (Flink's producer likewise waits on one thing per partition: its
	// LocalBufferPool becoming available.)
	spaceAvailable chan struct{}

	mu sync.Mutex
	// subpartitions holds the subpartitions made so far, by index; the
	// slice itself is made with the first. Once the partition is released
	// no more are made, so release may read it without mu.
	subpartitions                   []resultSubpartition
	releaseCause                    error // nil after Release, the cause after Fail
	numberOfUnconsumedSubpartitions int   // pipelined only: a blocking partition is never consumed
}

func newResultPartition(id api.ResultPartitionID, numberOfSubpartitions int, partitionType jobgraph.ResultPartitionType, cfg Config) *ResultPartition {
	return &ResultPartition{
		id:                              id,
		partitionType:                   partitionType,
		partitionManager:                cfg.PartitionManager,
		numberOfSubpartitions:           numberOfSubpartitions,
		bufferSize:                      cfg.BufferSize,
		buffersPerSubpartition:          cfg.BuffersPerSubpartition,
		tmpDir:                          cfg.TmpDir,
		released:                        make(chan struct{}),
		spaceAvailable:                  make(chan struct{}, 1),
		numberOfUnconsumedSubpartitions: numberOfSubpartitions,
	}
}

// ID returns the partition's ResultPartitionID.
func (p *ResultPartition) ID() api.ResultPartitionID { return p.id }

// NumberOfSubpartitions returns how many subpartitions (consumer channels)
// the partition has.
func (p *ResultPartition) NumberOfSubpartitions() int { return p.numberOfSubpartitions }

// PartitionType returns how the partition is produced and consumed:
// PIPELINED_BOUNDED or BLOCKING.
func (p *ResultPartition) PartitionType() jobgraph.ResultPartitionType { return p.partitionType }

// subpartition returns the subpartition of the given index, making it on
// first use: the producer's first buffer for it, Finish, a checkpoint
// barrier (BroadcastEvent), or its consumer's request, whichever comes
// first. A released partition makes no more and returns its release
// error. The index must be in range.
//
// Differs from Flink: Flink's ResultPartitionFactory creates every
// subpartition with the partition.
func (p *ResultPartition) subpartition(index int) (resultSubpartition, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.isReleased.Load() {
		return nil, p.releaseErrorLocked()
	}
	if p.subpartitions == nil {
		p.subpartitions = make([]resultSubpartition, p.numberOfSubpartitions)
	}
	s := p.subpartitions[index]
	if s == nil {
		s = p.newSubpartition(index)
		p.subpartitions[index] = s
	}
	return s, nil
}

// newSubpartition makes the subpartition the partition's type asks for
// (Flink: ResultPartitionFactory.createSubpartitions).
func (p *ResultPartition) newSubpartition(index int) resultSubpartition {
	if p.partitionType.IsBlocking() {
		return newBoundedBlockingSubpartition(p, index)
	}
	return newPipelinedSubpartition(p, index)
}

// createdSubpartitions returns a copy of the subpartitions made so far
// (nil where none was made yet), so that the caller can take their locks
// without holding p.mu, as the lock order demands.
func (p *ResultPartition) createdSubpartitions() []resultSubpartition {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.subpartitions)
}

// EmitRecord appends one serialized record to the given subpartition's
// current buffer. When the record does not fit, the full buffer is handed
// to the subpartition first. A pipelined subpartition queues it; if its
// queue is full, EmitRecord blocks until the consumer takes a buffer
// (backpressure), ctx ends (ctx.Err()), or the partition is released
// (ErrPartitionReleased, or ErrProducerFailed after Fail). A blocking
// subpartition writes it to its file and never blocks. The record's bytes
// are copied; the caller may reuse its slice at once.
func (p *ResultPartition) EmitRecord(ctx context.Context, record []byte, subpartition int) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	// Before the first record there are no buffer builders, so this one
	// comparison per record catches both the first record and a
	// subpartition out of range.
	if subpartition < 0 || subpartition >= len(p.bufferBuilders) {
		if err := p.checkSubpartition(subpartition); err != nil {
			return err
		}
	}
	return p.appendRecord(ctx, record, subpartition)
}

// BroadcastRecord appends the record to every subpartition, as a broadcast
// edge (or a watermark) needs. It may block like EmitRecord.
func (p *ResultPartition) BroadcastRecord(ctx context.Context, record []byte) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	p.createBufferBuilders()
	for subpartition := range p.numberOfSubpartitions {
		if err := p.appendRecord(ctx, record, subpartition); err != nil {
			return err
		}
	}
	return nil
}

// checkSubpartition fails if the subpartition is out of range, and
// otherwise makes the buffer builders if this is the first record.
func (p *ResultPartition) checkSubpartition(subpartition int) error {
	if subpartition < 0 || subpartition >= p.numberOfSubpartitions {
		return fmt.Errorf("emit record to partition %s: subpartition %d out of range [0, %d)",
			p.id, subpartition, p.numberOfSubpartitions)
	}
	p.createBufferBuilders()
	return nil
}

// createBufferBuilders makes the buffer builders, one per subpartition,
// with the partition's first record: a partition that never carries a
// record never pays for them.
func (p *ResultPartition) createBufferBuilders() {
	if p.bufferBuilders == nil {
		p.bufferBuilders = make([]bufferBuilder, p.numberOfSubpartitions)
	}
}

// appendRecord is the hot path: a few comparisons and a copy per record,
// and a queue hand-over (with its locks) only once per buffer. The
// buffer builders exist already.
func (p *ResultPartition) appendRecord(ctx context.Context, record []byte, subpartition int) error {
	builder := &p.bufferBuilders[subpartition]
	size := serializedSize(record)
	if builder.fits(size) {
		builder.append(record, p.bufferSize)
		return nil
	}

	// The record does not fit the current buffer: hand that over first, so
	// the order of records is kept.
	if err := p.flushSubpartition(ctx, subpartition); err != nil {
		return err
	}
	if size > p.bufferSize {
		// A record larger than a whole buffer travels in a buffer of its own.
		return p.addBuffer(ctx, subpartition, newSingleRecordBuffer(record))
	}
	builder.append(record, p.bufferSize)
	return nil
}

// Flush hands every partly filled buffer to its queue, so the consumers see
// the records written so far without waiting for the buffers to fill up.
// It may block like EmitRecord. Flink calls flushAll from its OutputFlusher
// every execution.buffer-timeout (100 ms by default); here the task decides
// when to flush.
func (p *ResultPartition) Flush(ctx context.Context) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	return p.flushAll(ctx)
}

func (p *ResultPartition) flushAll(ctx context.Context) error {
	for subpartition := range p.bufferBuilders { // none before the first record
		if err := p.flushSubpartition(ctx, subpartition); err != nil {
			return err
		}
	}
	return nil
}

// flushSubpartition hands one partly filled buffer to its queue. The
// builder is reset only after the hand-over succeeded, so nothing is lost
// when it fails.
func (p *ResultPartition) flushSubpartition(ctx context.Context, subpartition int) error {
	builder := &p.bufferBuilders[subpartition]
	if builder.isEmpty() {
		return nil
	}
	if err := p.addBuffer(ctx, subpartition, builder.build()); err != nil {
		return err
	}
	builder.reset()
	return nil
}

// addBuffer hands a data buffer to a subpartition's queue, making the
// subpartition if this is its first buffer.
func (p *ResultPartition) addBuffer(ctx context.Context, subpartition int, buffer Buffer) error {
	s, err := p.subpartition(subpartition)
	if err != nil {
		return err
	}
	return s.add(ctx, buffer)
}

// BroadcastEvent puts a checkpoint barrier into every subpartition, behind
// every record emitted before it: it first hands every partly filled
// buffer over (as Flush does, and with Flush's waiting: a full queue holds
// it back, bounded by ctx, as it holds back EmitRecord), then appends the
// barrier to each subpartition's queue. The barrier itself never waits: an
// event needs no room in the bounded queue, just as the EndOfPartition
// event needs none. Its data type follows its options
// (AlignedCheckpointBarrier when they need alignment, EventBuffer
// otherwise), and decides whether the subpartitions block after handing it
// out; see doc.go, "Checkpoint barriers".
//
// A barrier goes to every consumer, so every subpartition not made yet is
// made now. A BLOCKING partition refuses it (ErrPartitionNotPipelined);
// a released or finished one fails as EmitRecord does. Flink:
// BufferWritingResultPartition.broadcastEvent (which finishes the buffer
// builders rather than flushing them; here handing a buffer over is what
// makes it visible).
func (p *ResultPartition) BroadcastEvent(ctx context.Context, barrier CheckpointBarrier) error {
	if !p.partitionType.IsPipelined() {
		return fmt.Errorf("broadcast %s to %s partition %s: %w", barrier, p.partitionType, p.id, ErrPartitionNotPipelined)
	}
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	event, err := newCheckpointBarrierBuffer(barrier)
	if err != nil {
		return fmt.Errorf("partition %s: %w", p.id, err)
	}
	// The records emitted before the barrier go first; the order within a
	// subpartition is the order of its queue.
	if err := p.flushAll(ctx); err != nil {
		return err
	}
	for index := range p.numberOfSubpartitions {
		s, err := p.subpartition(index)
		if err != nil {
			return err
		}
		if err := s.addEvent(event); err != nil {
			return err
		}
	}
	return nil
}

// Finish flushes every subpartition and ends each with the EndOfPartition
// event: the producer is done. A subpartition that never carried a buffer
// and has no consumer yet is made now, to hold the event its consumer will
// end with. A pipelined partition stays registered until its consumers
// have read everything, a blocking one until it is released; either way a
// producing task must not Release it after a successful Finish. A
// blocking partition becomes readable here: its files are complete.
// Flink: ResultPartition.finish.
func (p *ResultPartition) Finish(ctx context.Context) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	if err := p.flushAll(ctx); err != nil {
		return err
	}
	for index := range p.numberOfSubpartitions {
		s, err := p.subpartition(index)
		if err != nil {
			return err
		}
		if err := s.finish(); err != nil {
			return err
		}
	}
	p.isFinished = true
	return nil
}

// checkInProduceState fails the call if the partition takes no more data.
func (p *ResultPartition) checkInProduceState() error {
	if p.isReleased.Load() {
		return p.releaseError()
	}
	if p.isFinished {
		return fmt.Errorf("partition %s: %w", p.id, ErrPartitionFinished)
	}
	return nil
}

// Fail releases the partition because the producer failed. Every consumer
// still reading it gets an error wrapping both ErrProducerFailed and cause.
// Queued data is dropped. Flink: ResultPartition.fail.
func (p *ResultPartition) Fail(cause error) {
	if cause == nil {
		cause = errors.New("unknown cause")
	}
	p.release(cause)
}

// Release releases the partition: it is unregistered, its queues are
// dropped (a blocking partition's files deleted), and a blocked producer
// and any waiting consumers wake up with ErrPartitionReleased. Release is
// idempotent and may be called from any goroutine; a cancelled producer
// calls it, and ShuffleEnvironment.ReleasePartitionsLocally.
func (p *ResultPartition) Release() { p.release(nil) }

// release is the one way a partition ends: by Release, Fail, the
// ShuffleEnvironment, or because every subpartition was consumed.
func (p *ResultPartition) release(cause error) {
	p.mu.Lock()
	if p.isReleased.Load() {
		p.mu.Unlock()
		return
	}
	p.releaseCause = cause
	p.isReleased.Store(true)
	close(p.released)
	subpartitions := p.subpartitions // final: no subpartition is made after release
	p.mu.Unlock()

	for _, s := range subpartitions {
		if s != nil {
			s.release()
		}
	}
	p.partitionManager.unregisterResultPartition(p)
}

// releaseError returns what producers and consumers of a released
// partition get.
func (p *ResultPartition) releaseError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.releaseErrorLocked()
}

func (p *ResultPartition) releaseErrorLocked() error {
	if p.releaseCause != nil {
		return fmt.Errorf("partition %s: %w: %w", p.id, ErrProducerFailed, p.releaseCause)
	}
	return fmt.Errorf("partition %s: %w", p.id, ErrPartitionReleased)
}

// onConsumedSubpartition counts one pipelined subpartition whose consumer
// read the EndOfPartition event or left. When all are done nobody will
// read the partition again, and it is released. A blocking subpartition
// never calls it: it may be read again. Flink:
// ResultPartition.onConsumedSubpartition → ResultPartitionManager.onConsumedPartition.
func (p *ResultPartition) onConsumedSubpartition() {
	p.mu.Lock()
	p.numberOfUnconsumedSubpartitions--
	allConsumed := p.numberOfUnconsumedSubpartitions == 0
	p.mu.Unlock()
	if allConsumed {
		p.release(nil)
	}
}

// notifySpaceAvailable leaves a token for the producer, which may be
// waiting in pipelinedSubpartition.add for room in a queue.
func (p *ResultPartition) notifySpaceAvailable() {
	select {
	case p.spaceAvailable <- struct{}{}:
	default: // a token is already waiting
	}
}

// createSubpartitionView attaches a reader to one subpartition, making the
// subpartition if the producer has not used it yet.
func (p *ResultPartition) createSubpartitionView(index int, listener bufferAvailabilityListener) (resultSubpartitionView, error) {
	if index < 0 || index >= p.numberOfSubpartitions {
		return nil, fmt.Errorf("partition %s has no subpartition %d (it has %d)", p.id, index, p.numberOfSubpartitions)
	}
	s, err := p.subpartition(index)
	if err != nil {
		return nil, err
	}
	return s.createReadView(listener)
}

// BuffersInFlight returns the number of data buffers handed to the
// subpartition queues and not yet taken by a consumer, summed over all
// subpartitions. The buffers being filled by the producer or read by a
// consumer are not in flight, and neither are those in a blocking
// partition's files: it is always 0 for a blocking partition.
func (p *ResultPartition) BuffersInFlight() int {
	total := 0
	for _, s := range p.createdSubpartitions() {
		if s != nil {
			now, _ := s.backlog()
			total += now
		}
	}
	return total
}

// MaxBuffersInFlight returns the most data buffers any one subpartition
// queue has held at once since the partition was created. It never exceeds
// Config.BuffersPerSubpartition: that bound is what makes backpressure.
func (p *ResultPartition) MaxBuffersInFlight() int {
	highest := 0
	for _, s := range p.createdSubpartitions() {
		if s != nil {
			_, highWaterMark := s.backlog()
			highest = max(highest, highWaterMark)
		}
	}
	return highest
}
