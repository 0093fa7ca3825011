package network

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"flinklab/runtime/api"
)

// ResultPartition is what one producer subtask writes: one subpartition per
// consumer subtask, each a bounded queue of buffers. It mirrors Flink's
// ResultPartition (precisely its PipelinedResultPartition, with the buffer
// writing of BufferWritingResultPartition).
//
// EmitRecord, BroadcastRecord, Flush and Finish belong to the producing
// task's goroutine: one writer, which fills the buffers without locks. ID,
// NumberOfSubpartitions, Fail, Release and the counters may be called from
// any goroutine.
//
// Lifecycle:
//
//	created (registered) ──Finish──► finished ──every subpartition consumed──► released
//	        │                           │
//	        └──────Fail / Release───────┴──────────────────────────────────────► released
//
// A released partition is unregistered from its ResultPartitionManager, its
// queues are dropped and everyone waiting on it wakes up.
type ResultPartition struct {
	id               api.ResultPartitionID
	partitionManager *ResultPartitionManager
	bufferSize       int
	subpartitions    []*pipelinedSubpartition

	// Owned by the producing goroutine.
	bufferBuilders []bufferBuilder // one per subpartition: the buffer being filled
	isFinished     bool

	// released is closed when the partition is released; producers blocked
	// on a full queue wait on it. isReleased mirrors it for a cheap check
	// on every record.
	released   chan struct{}
	isReleased atomic.Bool

	mu                              sync.Mutex
	releaseCause                    error // nil after Release, the cause after Fail
	numberOfUnconsumedSubpartitions int
}

func newResultPartition(id api.ResultPartitionID, numberOfSubpartitions int, cfg Config) *ResultPartition {
	p := &ResultPartition{
		id:                              id,
		partitionManager:                cfg.PartitionManager,
		bufferSize:                      cfg.BufferSize,
		subpartitions:                   make([]*pipelinedSubpartition, numberOfSubpartitions),
		bufferBuilders:                  make([]bufferBuilder, numberOfSubpartitions),
		released:                        make(chan struct{}),
		numberOfUnconsumedSubpartitions: numberOfSubpartitions,
	}
	for i := range p.subpartitions {
		p.subpartitions[i] = newPipelinedSubpartition(p, i, cfg.BuffersPerSubpartition)
	}
	return p
}

// ID returns the partition's ResultPartitionID.
func (p *ResultPartition) ID() api.ResultPartitionID { return p.id }

// NumberOfSubpartitions returns how many subpartitions (consumer channels)
// the partition has.
func (p *ResultPartition) NumberOfSubpartitions() int { return len(p.subpartitions) }

// EmitRecord appends one serialized record to the given subpartition's
// current buffer. When the record does not fit, the full buffer is handed
// to the subpartition's queue first; if that queue is full, EmitRecord
// blocks until the consumer takes a buffer (backpressure), ctx ends
// (ctx.Err()), or the partition is released (ErrPartitionReleased, or
// ErrProducerFailed after Fail). The record's bytes are copied; the caller
// may reuse its slice at once.
func (p *ResultPartition) EmitRecord(ctx context.Context, record []byte, subpartition int) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	if subpartition < 0 || subpartition >= len(p.subpartitions) {
		return fmt.Errorf("emit record to partition %s: subpartition %d out of range [0, %d)",
			p.id, subpartition, len(p.subpartitions))
	}
	return p.appendRecord(ctx, record, subpartition)
}

// BroadcastRecord appends the record to every subpartition, as a broadcast
// edge (or a watermark) needs. It may block like EmitRecord.
func (p *ResultPartition) BroadcastRecord(ctx context.Context, record []byte) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	for subpartition := range p.subpartitions {
		if err := p.appendRecord(ctx, record, subpartition); err != nil {
			return err
		}
	}
	return nil
}

// appendRecord is the hot path: a few comparisons and a copy per record,
// and a queue hand-over (with its lock) only once per buffer.
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
		return p.subpartitions[subpartition].add(ctx, newSingleRecordBuffer(record))
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
	for subpartition := range p.subpartitions {
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
	if err := p.subpartitions[subpartition].add(ctx, builder.build()); err != nil {
		return err
	}
	builder.reset()
	return nil
}

// Finish flushes every subpartition and ends each with the EndOfPartition
// event: the producer is done. The partition stays registered until its
// consumers have read everything, so a producing task must not Release it
// after a successful Finish. Flink: ResultPartition.finish.
func (p *ResultPartition) Finish(ctx context.Context) error {
	if err := p.checkInProduceState(); err != nil {
		return err
	}
	if err := p.flushAll(ctx); err != nil {
		return err
	}
	for _, s := range p.subpartitions {
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
// dropped, and a blocked producer and any waiting consumers wake up with
// ErrPartitionReleased. Release is idempotent and may be called from any
// goroutine; a cancelled producer calls it.
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
	p.mu.Unlock()

	for _, s := range p.subpartitions {
		s.release()
	}
	p.partitionManager.unregisterResultPartition(p)
}

// releaseError returns what producers and consumers of a released
// partition get.
func (p *ResultPartition) releaseError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.releaseCause != nil {
		return fmt.Errorf("partition %s: %w: %w", p.id, ErrProducerFailed, p.releaseCause)
	}
	return fmt.Errorf("partition %s: %w", p.id, ErrPartitionReleased)
}

// onConsumedSubpartition counts one subpartition whose consumer read the
// EndOfPartition event or left. When all are done nobody will read the
// partition again, and it is released. Flink:
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

// createSubpartitionView attaches a reader to one subpartition.
func (p *ResultPartition) createSubpartitionView(index int, listener bufferAvailabilityListener) (*pipelinedSubpartitionView, error) {
	if index < 0 || index >= len(p.subpartitions) {
		return nil, fmt.Errorf("partition %s has no subpartition %d (it has %d)", p.id, index, len(p.subpartitions))
	}
	return p.subpartitions[index].createReadView(listener)
}

// BuffersInFlight returns the number of data buffers handed to the
// subpartition queues and not yet taken by a consumer, summed over all
// subpartitions. The buffers being filled by the producer or read by a
// consumer are not in flight.
func (p *ResultPartition) BuffersInFlight() int {
	total := 0
	for _, s := range p.subpartitions {
		now, _ := s.backlog()
		total += now
	}
	return total
}

// MaxBuffersInFlight returns the most data buffers any one subpartition
// queue has held at once since the partition was created. It never exceeds
// Config.BuffersPerSubpartition: that bound is what makes backpressure.
func (p *ResultPartition) MaxBuffersInFlight() int {
	highest := 0
	for _, s := range p.subpartitions {
		_, highWaterMark := s.backlog()
		highest = max(highest, highWaterMark)
	}
	return highest
}
