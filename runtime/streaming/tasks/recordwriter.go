package tasks

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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

// partitionObserver, when a test sets it, is shown every partition a
// record writer is made for, so that the test can read the partition's
// counters (MaxBuffersInFlight) while the job runs. A test sets it before
// the job starts and clears it after the job ended; tasks only read it.
var partitionObserver func(*network.ResultPartition)

func newRecordWriterOutput(edge streaming.OutEdge, streamEdge *streaming.StreamEdge, partition *network.ResultPartition,
	subtaskIndex int) (*recordWriterOutput, error) {
	if partitionObserver != nil {
		partitionObserver(partition)
	}
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
// network buffer before its task flushes it: Flink's
// execution.buffer-timeout (100 ms). Every task that writes to the
// network runs an outputFlusher with it; besides, a rate-limited generator
// flushes after every tick, and every task flushes after its last record.
const DefaultBufferTimeout = 100 * time.Millisecond

// disabledBufferTimeout is the buffer timeout of a task that never flushes
// on a timer, only when a buffer is full and after its last record: every
// task of a BATCH job (Flink's ExecutionOptions.DISABLED_NETWORK_BUFFER_TIMEOUT).
const disabledBufferTimeout time.Duration = -1

// outputFlusher makes a task flush its outputs every buffer timeout, busy
// or idle. It mirrors Flink's OutputFlusher thread, with one difference: a
// ResultPartition has a single writer, the task's goroutine, so the
// flusher cannot flush by itself. It asks the task to, every buffer
// timeout, in two ways:
//
//   - It sets the chain's flushRequested flag. A busy task looks at the
//     flag after every record, an atomic load
//     (operatorChain.flushOutputsIfRequested), and flushes between two
//     records. A source never comes back to its task between records, so
//     its chain looks after each record the source emits
//     (sourceOutput), even when a Filter drops it.
//   - It cancels the context an idle OneInputStreamTask waits for input
//     with (waitContext): the wait ends without a record, the task
//     flushes, and waits again with a fresh context.
//
// Either way the flush runs on the task's goroutine. That costs an atomic
// load per record and a context per timeout.
type outputFlusher struct {
	parent         context.Context
	flushRequested *atomic.Bool
	stop           chan struct{}
	wg             sync.WaitGroup

	mu         sync.Mutex
	cancelWait context.CancelFunc
}

// startOutputFlusher starts the flusher's goroutine, which sets
// flushRequested every bufferTimeout. stopAndWait ends it.
func startOutputFlusher(ctx context.Context, bufferTimeout time.Duration, flushRequested *atomic.Bool) *outputFlusher {
	f := &outputFlusher{parent: ctx, flushRequested: flushRequested, stop: make(chan struct{})}
	f.wg.Go(func() {
		ticker := time.NewTicker(bufferTimeout)
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				f.mu.Lock()
				f.flushRequested.Store(true) // before the cancel: the woken task sees it
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
// ends with the task's ctx, or at the flusher's next tick.
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
