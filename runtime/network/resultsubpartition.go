package network

import "context"

// resultSubpartition is one subpartition of a ResultPartition: what one
// consumer subtask reads. It mirrors Flink's abstract ResultSubpartition,
// and has two kinds, one per ResultPartitionType:
//
//	pipelinedSubpartition          PIPELINED_BOUNDED   a bounded queue, read once while it is written
//	boundedBlockingSubpartition    BLOCKING            a file, read any number of times after Finish
//
// The producing task's goroutine calls add and finish; readers come
// through createReadView; release and backlog may be called from any
// goroutine.
type resultSubpartition interface {
	// add hands a data buffer over. A pipelined subpartition may wait for
	// room in its queue (backpressure), bounded by ctx; a blocking one
	// writes the buffer to its file and never waits.
	add(ctx context.Context, buffer Buffer) error
	// finish adds the EndOfPartition event: the producer is done.
	finish() error
	// addEvent appends an event buffer (a checkpoint barrier) behind the
	// buffers added before it. It never waits: an event needs no room in
	// the bounded queue. A blocking subpartition refuses it
	// (ErrPartitionNotPipelined).
	addEvent(event Buffer) error
	// createReadView attaches a reader, which listener hears from when
	// there is something to read.
	createReadView(listener bufferAvailabilityListener) (resultSubpartitionView, error)
	// release drops the subpartition's data and wakes its readers, who
	// then read the partition's release error.
	release()
	// backlog returns the data buffers queued now and the most ever
	// queued. A blocking subpartition queues nothing: its buffers are in
	// its file.
	backlog() (now, highWaterMark int)
}

// resultSubpartitionView is one reader's handle on a subpartition (Flink:
// ResultSubpartitionView). The ResultPartitionManager hands it out; a
// local input channel, or a PartitionRequestServer's reader on behalf of
// a remote one, polls it from one goroutine, and releases it when done.
type resultSubpartitionView interface {
	// getNextBuffer takes the next buffer, if there is one; ok is false
	// when there is none yet. An error is final.
	getNextBuffer() (next bufferAndAvailability, ok bool, err error)
	// isAvailable reports whether a reader holding the given credit may
	// take a buffer now: a data buffer needs a credit, an event does not,
	// a subpartition blocked by an aligned checkpoint barrier is not
	// available at all, and a released subpartition is always available,
	// so that the reader polls and learns the release error. A PartitionRequestServer asks
	// this before it polls for a remote consumer. Flink:
	// ResultSubpartitionView.getAvailabilityAndBacklog.
	isAvailable(credit int) bool
	// resumeConsumption unblocks a subpartition that handed out an
	// AlignedCheckpointBarrier, and tells the listener if data waits.
	// Resuming one that is not blocked changes nothing. Flink:
	// ResultSubpartitionView.resumeConsumption.
	resumeConsumption()
	// releaseAllResources detaches the reader; it may be called from any
	// goroutine. A pipelined subpartition drops the rest of its data and
	// counts as consumed; a blocking one keeps its data for the next
	// reader.
	releaseAllResources()
}

// bufferAndAvailability is one buffer taken by a reader, whether more may
// be taken behind it (never right after an aligned checkpoint barrier,
// which blocks its subpartition), and how many data buffers are queued
// (the backlog a PartitionRequestServer announces). Flink:
// InputChannel.BufferAndAvailability and ResultSubpartition.BufferAndBacklog.
type bufferAndAvailability struct {
	buffer           Buffer
	moreAvailable    bool
	buffersInBacklog int
}

// bufferAvailabilityListener is told when a subpartition that was empty
// has a buffer again, or was released (Flink: BufferAvailabilityListener).
// A local input channel listens directly; a PartitionRequestServer's
// creditBasedViewReader listens on behalf of a remote one.
// notifyDataAvailable is called with the subpartition's lock held and must
// not call back into the subpartition.
type bufferAvailabilityListener interface {
	notifyDataAvailable()
}
