package network

import (
	"context"
	"fmt"
	"sync"
)

// boundedBlockingSubpartition is one subpartition of a BLOCKING partition:
// the producer writes its whole output to a file first, and consumers read
// it afterwards, any number of times. It mirrors Flink's
// BoundedBlockingSubpartition over a FileChannelBoundedData.
//
//	created ──first buffer or finish──► file being written ──finish──► finished: readable
//	   │                                       │                          │
//	   └───────────────────release─────────────┴──────────────────────────┴──► released: file deleted
//
// Unlike a pipelinedSubpartition it has no queue and no backpressure: the
// producer's add writes the buffer to the file and returns. A reader that
// attaches before finish (its producer still runs) hears nothing until
// finish; from then on every reader reads the file from its start, with a
// file handle of its own, so readers do not wait for each other. Reading
// to the end does not consume anything: the data stays until the
// partition is released (ShuffleEnvironment.ReleasePartitionsLocally, or
// the producer failing or being cancelled).
//
// The producer calls add and finish; readers poll their own
// boundedBlockingSubpartitionReader; release may come from any goroutine.
// All fields below mu are guarded by it. The producer writes to the file
// under mu, so a release waits for a write in progress, and never deletes
// a file under a writer. Lock order: a reader's mu comes
// before its subpartition's mu, which comes before its partition's mu and
// the locks of the readers' listeners.
type boundedBlockingSubpartition struct {
	parent *ResultPartition
	index  int

	mu sync.Mutex
	// data is the file, made by the first buffer or by finish: a
	// subpartition that a consumer asked for before any data has none.
	data                  *fileChannelBoundedData
	numDataBuffersWritten int
	isFinished            bool // the EndOfPartition event is written and the file closed: readable
	isReleased            bool // the file is deleted; nobody reads any more
	// readers are the attached readers that have not ended or left; they
	// hear of finish and release.
	readers map[*boundedBlockingSubpartitionReader]struct{}
}

func newBoundedBlockingSubpartition(parent *ResultPartition, index int) *boundedBlockingSubpartition {
	return &boundedBlockingSubpartition{parent: parent, index: index}
}

// add writes a data buffer to the file. It never waits for a consumer, so
// ctx is not needed: a blocking partition has no backpressure. Flink:
// BoundedBlockingSubpartition.add → flushCurrentBuffer → writeBuffer.
func (s *boundedBlockingSubpartition) add(_ context.Context, buffer Buffer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return s.parent.releaseError()
	}
	if err := s.writeLocked(buffer); err != nil {
		return err
	}
	s.numDataBuffersWritten++
	return nil
}

// addEvent refuses an event: the only events are checkpoint barriers,
// and a blocking partition belongs to a batch job, which takes no
// checkpoints. ResultPartition.BroadcastEvent refuses first; this is the
// same rule where the file would be written.
func (s *boundedBlockingSubpartition) addEvent(event Buffer) error {
	return fmt.Errorf("partition %s, subpartition %d: an %s: %w", s.parent.id, s.index, event.DataType(), ErrPartitionNotPipelined)
}

// finish writes the EndOfPartition event, closes the file and tells the
// readers already attached that they may read. Flink:
// BoundedBlockingSubpartition.finish.
func (s *boundedBlockingSubpartition) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return s.parent.releaseError()
	}
	if err := s.writeLocked(endOfPartition); err != nil {
		return err
	}
	if err := s.data.finishWrite(); err != nil {
		return err
	}
	s.isFinished = true
	for reader := range s.readers {
		reader.availabilityListener.notifyDataAvailable()
	}
	return nil
}

// writeLocked appends a buffer to the file, creating the file first if
// this is the subpartition's first buffer. The file is named after the
// partition and the subpartition, plus a random part that keeps every
// name unique.
func (s *boundedBlockingSubpartition) writeLocked(buffer Buffer) error {
	if s.data == nil {
		id := s.parent.id.PartitionID
		pattern := fmt.Sprintf("flink-netty-shuffle-%s-%d-%d-*.channel", id.IntermediateDataSetID, id.PartitionNum, s.index)
		data, err := createFileChannelBoundedData(s.parent.tmpDir, pattern)
		if err != nil {
			return fmt.Errorf("partition %s, subpartition %d: %w", s.parent.id, s.index, err)
		}
		s.data = data
	}
	return s.data.writeBuffer(buffer)
}

// createReadView attaches a new reader, which reads the file from its
// start. If the subpartition is finished the listener hears of it at once;
// otherwise when finish comes. Flink's BoundedBlockingSubpartition refuses
// a reader before finish ("writing of blocking partition not yet
// finished"), because its scheduler never deploys a consumer of a
// blocking partition before the producer finished; see doc.go.
func (s *boundedBlockingSubpartition) createReadView(listener bufferAvailabilityListener) (resultSubpartitionView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return nil, s.parent.releaseError()
	}
	reader := &boundedBlockingSubpartitionReader{parent: s, availabilityListener: listener}
	if s.readers == nil {
		s.readers = make(map[*boundedBlockingSubpartitionReader]struct{})
	}
	s.readers[reader] = struct{}{}
	if s.isFinished {
		listener.notifyDataAvailable()
	}
	return reader, nil
}

// readState tells a reader whether the subpartition is finished and how
// many data buffers its file holds, or the release error once the
// partition is released.
func (s *boundedBlockingSubpartition) readState() (finished bool, numberOfDataBuffers int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return false, 0, s.parent.releaseError()
	}
	return s.isFinished, s.numDataBuffersWritten, nil
}

// openReader opens the file for one reader, once the subpartition is
// finished, and returns how many data buffers it holds; before finish it
// returns a nil reader and no error.
func (s *boundedBlockingSubpartition) openReader() (*boundedDataReader, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.isReleased:
		return nil, 0, s.parent.releaseError()
	case !s.isFinished:
		return nil, 0, nil
	}
	reader, err := s.data.createReader()
	return reader, s.numDataBuffersWritten, err
}

// removeReader forgets a reader that ended or left.
func (s *boundedBlockingSubpartition) removeReader(reader *boundedBlockingSubpartitionReader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.readers, reader)
}

// release deletes the file and wakes the readers, who read the release
// error from now on. Called by ResultPartition.release. A file that cannot
// be deleted is left behind; nothing reads it again.
func (s *boundedBlockingSubpartition) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReleased {
		return
	}
	s.isReleased = true
	if s.data != nil {
		_ = s.data.close()
	}
	for reader := range s.readers {
		reader.availabilityListener.notifyDataAvailable()
	}
	clear(s.readers)
}

// backlog returns nothing: the subpartition queues no buffers, they are
// in its file (Flink's BoundedBlockingSubpartition.getNumberOfQueuedBuffers
// is 0 too).
func (s *boundedBlockingSubpartition) backlog() (now, highWaterMark int) { return 0, 0 }

// boundedBlockingSubpartitionReader is one reader of a blocking
// subpartition: a local input channel's, or a PartitionRequestServer's on
// behalf of a remote one. It mirrors Flink's
// BoundedBlockingSubpartitionReader. It opens the file with its first read
// after finish and closes it after the EndOfPartition event, on an error,
// or when the consumer leaves.
//
// Its consumer polls it from one goroutine; releaseAllResources may come
// from another. All fields below mu are guarded by it.
type boundedBlockingSubpartitionReader struct {
	parent               *boundedBlockingSubpartition
	availabilityListener bufferAvailabilityListener

	mu   sync.Mutex
	data *boundedDataReader // the reader's own handle on the file; nil before the first read and after the end
	// dataBufferBacklog counts the data buffers not read yet, once data is
	// open; the PartitionRequestServer announces it as the backlog.
	dataBufferBacklog int
	isEnded           bool  // the EndOfPartition event was handed out
	isReleased        bool  // the consumer left
	err               error // a failed read; final
}

// getNextBuffer reads the next buffer from the file, once the subpartition
// is finished. After each data buffer more is available: at least the
// EndOfPartition event, which ends the reader (and closes its file), not
// the subpartition. A released partition is read no more, even by a
// reader that has its file open.
func (r *boundedBlockingSubpartitionReader) getNextBuffer() (bufferAndAvailability, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.isReleased:
		return bufferAndAvailability{}, false, ErrInputGateClosed
	case r.err != nil:
		return bufferAndAvailability{}, false, r.err
	case r.isEnded:
		return bufferAndAvailability{}, false, nil
	}
	if ok, err := r.openLocked(); !ok || err != nil {
		return bufferAndAvailability{}, false, err
	}

	buffer, err := r.data.nextBuffer()
	if err != nil {
		r.err = fmt.Errorf("partition %s, subpartition %d: %w", r.parent.parent.id, r.parent.index, err)
		r.closeLocked()
		return bufferAndAvailability{}, false, r.err
	}
	if buffer.IsBuffer() {
		r.dataBufferBacklog--
	} else {
		r.isEnded = true
		r.closeLocked()
	}
	return bufferAndAvailability{buffer: buffer, moreAvailable: buffer.IsBuffer(), buffersInBacklog: r.dataBufferBacklog}, true, nil
}

// openLocked makes sure the reader may read: its partition is not
// released, and its file is open. It reports false while the subpartition
// is not finished.
func (r *boundedBlockingSubpartitionReader) openLocked() (bool, error) {
	if r.data == nil {
		data, numberOfDataBuffers, err := r.parent.openReader()
		if err != nil || data == nil {
			return false, err
		}
		r.data, r.dataBufferBacklog = data, numberOfDataBuffers
		return true, nil
	}
	if _, _, err := r.parent.readState(); err != nil {
		r.closeLocked() // released: let go of the deleted file
		return false, err
	}
	return true, nil
}

// isAvailable reports whether a reader holding the given credit may take
// a buffer now (see resultSubpartitionView.isAvailable): only after
// finish, and a data buffer only with a credit.
func (r *boundedBlockingSubpartitionReader) isAvailable(credit int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.isReleased, r.isEnded:
		return false
	case r.err != nil:
		return true
	}
	finished, numberOfDataBuffers, err := r.parent.readState()
	switch {
	case err != nil:
		return true // released: the reader polls and learns it
	case !finished:
		return false
	}
	remaining := numberOfDataBuffers
	if r.data != nil {
		remaining = r.dataBufferBacklog
	}
	return credit > 0 || remaining == 0 // the next buffer is the event when no data remains
}

// resumeConsumption does nothing: a blocking subpartition holds no
// checkpoint barrier, so it is never blocked.
func (r *boundedBlockingSubpartitionReader) resumeConsumption() {}

// releaseAllResources is the consumer leaving: the reader closes its
// file. The subpartition keeps its data for other readers. Flink:
// BoundedBlockingSubpartitionReader.releaseAllResources.
func (r *boundedBlockingSubpartitionReader) releaseAllResources() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.isReleased = true
	r.closeLocked()
}

// closeLocked closes the reader's file, if open, and detaches the reader
// from its subpartition.
func (r *boundedBlockingSubpartitionReader) closeLocked() {
	if r.data != nil {
		r.data.close()
		r.data = nil
	}
	r.parent.removeReader(r)
}

var (
	_ resultSubpartition     = (*boundedBlockingSubpartition)(nil)
	_ resultSubpartitionView = (*boundedBlockingSubpartitionReader)(nil)
)
