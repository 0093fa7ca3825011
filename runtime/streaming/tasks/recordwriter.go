package tasks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks/typeutils"
)

// recordWriterOutput is an output that leaves the chain: it serializes each
// record and writes it into the task's ResultPartition for that out edge,
// to the subpartition (the consumer subtask) the edge's partitioner picks,
// or to every subpartition on a broadcast edge. It mirrors Flink's
// RecordWriterOutput around a ChannelSelectorRecordWriter (or a
// BroadcastRecordWriter).
//
// It belongs to the task's goroutine: the partition has one writer, and
// the serialization buffer is reused for every record, so the fast
// serializers allocate nothing here. EmitRecord copies the bytes into the
// network buffer.
type recordWriterOutput struct {
	edge             streaming.OutEdge
	partition        *network.ResultPartition
	partitioner      streaming.StreamPartitioner // this subtask's copy
	isBroadcast      bool
	numberOfChannels int
	serializer       typeutils.TypeSerializer
	serializeBuffer  []byte
	// ctx is the ctx of Invoke, set before the first record (setContext):
	// a task blocked on a full downstream queue (backpressure) still stops
	// when it is cancelled.
	ctx context.Context
}

func newRecordWriterOutput(edge streaming.OutEdge, streamEdge *streaming.StreamEdge, partition *network.ResultPartition,
	subtaskIndex int) (*recordWriterOutput, error) {
	serializer, err := typeutils.CreateSerializer(streamEdge.Source.OutputType)
	if err != nil {
		return nil, fmt.Errorf("the records of %v cannot leave the task: %w", streamEdge, err)
	}
	partitioner := streamEdge.Partitioner.Copy()
	if rebalance, ok := partitioner.(*streaming.RebalancePartitioner); ok {
		// Flink starts each producer at a random channel so that they do
		// not all hit the same consumer first; starting at the subtask
		// index spreads them too, and keeps runs reproducible.
		rebalance.NextChannelToSendTo = subtaskIndex
	}
	return &recordWriterOutput{
		edge:             edge,
		partition:        partition,
		partitioner:      partitioner,
		isBroadcast:      partitioner.IsBroadcast(),
		numberOfChannels: partition.NumberOfSubpartitions(),
		serializer:       serializer,
		serializeBuffer:  make([]byte, 0, 256),
		ctx:              context.Background(),
	}, nil
}

func (w *recordWriterOutput) collect(record any) error {
	data, err := w.serializer.Serialize(record, w.serializeBuffer[:0])
	if err != nil {
		return err
	}
	w.serializeBuffer = data
	if w.isBroadcast {
		return w.partition.BroadcastRecord(w.ctx, data)
	}
	channel := w.partitioner.SelectChannel(record, w.numberOfChannels)
	return w.partition.EmitRecord(w.ctx, data, channel)
}

// flush hands the partly filled network buffers to the consumers.
func (w *recordWriterOutput) flush(ctx context.Context) error { return w.partition.Flush(ctx) }

// DefaultBufferTimeout is how long a record may wait in a partly filled
// network buffer of a OneInputStreamTask before the task flushes it:
// Flink's execution.buffer-timeout (100 ms). Sources flush themselves (a
// rate-limited generator after every tick, bounded sources at the end).
const DefaultBufferTimeout = 100 * time.Millisecond

// outputFlusher makes a OneInputStreamTask flush its outputs every buffer
// timeout, busy or idle. It mirrors Flink's OutputFlusher thread, with one
// difference: a ResultPartition has a single writer, the task's goroutine,
// so the flusher cannot flush by itself. Instead it cancels the context
// the task waits for input with (waitContext); the task sees its wait end
// without a record, flushes, and waits again with a fresh context. That
// costs one context per timeout, nothing per record.
type outputFlusher struct {
	parent context.Context
	stop   chan struct{}
	wg     sync.WaitGroup

	mu         sync.Mutex
	cancelWait context.CancelFunc
}

// startOutputFlusher starts the flusher's goroutine. stopAndWait ends it.
func startOutputFlusher(ctx context.Context, bufferTimeout time.Duration) *outputFlusher {
	f := &outputFlusher{parent: ctx, stop: make(chan struct{})}
	f.wg.Go(func() {
		ticker := time.NewTicker(bufferTimeout)
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				f.mu.Lock()
				if f.cancelWait != nil {
					f.cancelWait()
				}
				f.mu.Unlock()
			case <-f.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return f
}

// waitContext returns a context for the task's next waits for input: it
// ends with the task's ctx, or when the flusher asks for a flush.
func (f *outputFlusher) waitContext() context.Context {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancelWait != nil {
		f.cancelWait()
	}
	var ctx context.Context
	ctx, f.cancelWait = context.WithCancel(f.parent)
	return ctx
}

// stopAndWait ends the flusher's goroutine and waits for it.
func (f *outputFlusher) stopAndWait() {
	close(f.stop)
	f.wg.Wait()
	f.mu.Lock()
	if f.cancelWait != nil {
		f.cancelWait()
	}
	f.mu.Unlock()
}
