package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks/typeutils"
)

// exchange is one producer subtask's partition and a gate per channel.
type exchange struct {
	partition *network.ResultPartition
	gates     []*network.InputGate
}

func newExchange(t *testing.T, channels int) *exchange {
	t.Helper()
	shuffle, err := network.NewShuffleEnvironment(network.Config{BufferSize: 128})
	require.NoError(t, err)
	id := api.ResultPartitionID{PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID()}}
	partition, err := shuffle.CreateResultPartition(id, channels)
	require.NoError(t, err)
	e := &exchange{partition: partition}
	for c := range channels {
		gate := shuffle.CreateInputGate(gateway.InputGateDeploymentDescriptor{
			ConsumedSubpartitionIndex: c,
			ShuffleDescriptors:        []gateway.ShuffleDescriptor{{ResultPartitionID: id}},
		})
		t.Cleanup(gate.Close)
		e.gates = append(e.gates, gate)
	}
	return e
}

// readAll reads every gate to the end, concurrently, and deserializes.
func (e *exchange) readAll(t *testing.T, serializer typeutils.TypeSerializer) [][]any {
	t.Helper()
	got := make([][]any, len(e.gates))
	errs := make([]error, len(e.gates))
	var wg sync.WaitGroup
	for c, gate := range e.gates {
		wg.Go(func() {
			for {
				data, err := gate.Next(context.Background())
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					errs[c] = err
					return
				}
				record, err := serializer.Deserialize(data)
				if err != nil {
					errs[c] = err
					return
				}
				got[c] = append(got[c], record)
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	return got
}

func tupleEdge(partitioner streaming.StreamPartitioner) *streaming.StreamEdge {
	return &streaming.StreamEdge{
		Source:      &streaming.StreamNode{ID: 2, OperatorName: "Flat Map", OutputType: reflect.TypeFor[streaming.Tuple2[string, int]]()},
		Target:      &streaming.StreamNode{ID: 4, OperatorName: "Keyed Aggregation"},
		Partitioner: partitioner,
	}
}

// At a chain's output the edge's partitioner picks the consumer of each
// record, and the record crosses as bytes.
func TestRecordWriterOutputRoutesByPartitioner(t *testing.T) {
	word := func(record any) any { return record.(streaming.Tuple2[string, int]).F0 }
	var records []any
	for i, w := range []string{"to", "be", "or", "not", "to", "be", "that", "is", "the", "question", "to", "be"} {
		records = append(records, streaming.Tuple2Of(w, i))
	}
	indexes := func(c int, got [][]any) []int {
		var out []int
		for _, r := range got[c] {
			out = append(out, r.(streaming.Tuple2[string, int]).F1)
		}
		return out
	}

	tests := []struct {
		name        string
		partitioner streaming.StreamPartitioner
		subtask     int
		check       func(t *testing.T, got [][]any)
	}{
		{"HASH sends all records of a key to the owner of its key group",
			&streaming.KeyGroupStreamPartitioner{KeySelector: word, MaxParallelism: 128}, 0,
			func(t *testing.T, got [][]any) {
				channelOf := map[string]int{}
				total := 0
				for c, records := range got {
					for _, r := range records {
						w := r.(streaming.Tuple2[string, int]).F0
						if previous, seen := channelOf[w]; seen {
							assert.Equal(t, previous, c, "all records of %q go to one channel", w)
						}
						channelOf[w] = c
						assert.Equal(t, streaming.AssignKeyToParallelOperator(w, 128, 4), c, "channel of %q", w)
						total++
					}
				}
				assert.Equal(t, len(records), total)
			}},
		{"BROADCAST sends every record to every channel",
			&streaming.BroadcastPartitioner{}, 0,
			func(t *testing.T, got [][]any) {
				for c := range got {
					assert.Equal(t, records, got[c], "channel %d", c)
				}
			}},
		{"REBALANCE goes round robin, starting behind the subtask index",
			&streaming.RebalancePartitioner{}, 1,
			func(t *testing.T, got [][]any) {
				assert.Equal(t, []int{2, 6, 10}, indexes(0, got))
				assert.Equal(t, []int{3, 7, 11}, indexes(1, got))
				assert.Equal(t, []int{0, 4, 8}, indexes(2, got))
				assert.Equal(t, []int{1, 5, 9}, indexes(3, got))
			}},
		{"RESCALE goes round robin from channel 0",
			&streaming.RescalePartitioner{}, 3,
			func(t *testing.T, got [][]any) {
				assert.Equal(t, []int{0, 4, 8}, indexes(0, got))
				assert.Equal(t, []int{3, 7, 11}, indexes(3, got))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExchange(t, 4)
			edge := tupleEdge(tt.partitioner)
			w, err := newRecordWriterOutput(streaming.OutEdge{SourceNodeID: 2, TargetNodeID: 4, Partitioner: tt.partitioner.String()}, edge, e.partition, tt.subtask)
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				for _, r := range records {
					if err := w.collect(r); err != nil {
						done <- err
						return
					}
				}
				done <- e.partition.Finish(context.Background())
			}()
			got := e.readAll(t, w.serializer)
			require.NoError(t, <-done)
			tt.check(t, got)
		})
	}
	assert.IsType(t, &streaming.RebalancePartitioner{}, tests[2].partitioner)
	assert.Equal(t, 0, tests[2].partitioner.(*streaming.RebalancePartitioner).NextChannelToSendTo,
		"each subtask works on a copy of the edge's partitioner")
}

// A record the edge's serializer cannot handle fails the task where it is
// built, not on the first record.
func TestRecordWriterOutputNeedsASerializableType(t *testing.T) {
	e := newExchange(t, 1)
	edge := &streaming.StreamEdge{
		Source:      &streaming.StreamNode{ID: 1, OperatorName: "Map", OutputType: reflect.TypeFor[unserializable]()},
		Target:      &streaming.StreamNode{ID: 2, OperatorName: "Filter"},
		Partitioner: &streaming.RebalancePartitioner{},
	}
	_, err := newRecordWriterOutput(streaming.OutEdge{SourceNodeID: 1, TargetNodeID: 2}, edge, e.partition, 0)
	require.ErrorIs(t, err, typeutils.ErrNotSerializable)
	assert.ErrorContains(t, err, "the records of (Map-1 -> Filter-2, REBALANCE) cannot leave the task")
	e.partition.Release()
}

// Every buffer timeout the output flusher raises the flush flag, which a
// busy task looks at between records, and ends the task's wait for input,
// which wakes an idle one.
func TestOutputFlusherAsksForAFlushEveryBufferTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var flushRequested atomic.Bool
		flusher := startOutputFlusher(ctx, DefaultBufferTimeout, &flushRequested)
		defer flusher.stopAndWait()

		start := time.Now()
		for i := 1; i <= 3; i++ {
			wait := flusher.waitContext()
			assert.False(t, flushRequested.Load(), "flush %d: too early", i)
			<-wait.Done()
			assert.Equal(t, time.Duration(i)*DefaultBufferTimeout, time.Since(start), fmt.Sprintf("flush %d", i))
			assert.True(t, flushRequested.Swap(false), "flush %d: the flag is up when the wait ends", i)
		}
		assert.NoError(t, ctx.Err(), "the task's own ctx is untouched")
	})
}
