package network

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A producer that outruns its consumer is held back by the bounded queue:
// it blocks with BuffersPerSubpartition buffers queued, and moves again as
// the consumer drains them.
func TestBackpressureBlocksProducerAtTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		const bound, n = 2, 10_000
		env := newEnvironment(t, Config{BufferSize: 1024, BuffersPerSubpartition: bound})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()

		// The producer emits 10,000 records (about 90 buffers of 1 KiB).
		var emitted atomic.Int64
		produced := make(chan error, 1)
		go func() {
			for i := range n {
				if err := p.EmitRecord(ctx, testRecord(0, i), 0); err != nil {
					produced <- err
					return
				}
				emitted.Add(1)
			}
			produced <- p.Finish(ctx)
		}()

		// The consumer has not started reading. Once everything has settled,
		// the producer is stuck with the queue full.
		synctest.Wait()
		require.True(t, isBlocked(produced), "the producer must be blocked")
		assert.Equal(t, bound, p.BuffersInFlight(), "buffers queued while blocked")
		assert.Equal(t, bound, p.MaxBuffersInFlight())
		recordsPerBuffer := 1024 / len(testRecord(0, 0)) // an upper bound: prefixes take room too
		assert.LessOrEqual(t, emitted.Load(), int64((bound+1)*recordsPerBuffer),
			"at most the queued buffers and the one being filled")

		// The consumer drains everything, in order, and the producer finishes.
		for i := range n {
			record, err := gate.Next(ctx)
			require.NoError(t, err)
			_, seq := parseTestRecord(t, record)
			require.Equal(t, i, seq)
		}
		_, err = gate.Next(ctx)
		require.ErrorIs(t, err, io.EOF)
		require.NoError(t, <-produced)

		assert.LessOrEqual(t, p.MaxBuffersInFlight(), bound, "the bound held all the way")
		assert.Zero(t, p.BuffersInFlight())
		assert.False(t, env.PartitionManager().isRegistered(id))
	})
}

// A cancelled task must never hang: a producer blocked on a full queue
// returns when its ctx ends.
func TestBlockedEmitReturnsWhenCtxIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: 1})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		defer p.Release()

		ctx, cancel := context.WithCancel(t.Context())
		produced := make(chan error, 1)
		go func() { produced <- produce(ctx, p, 0, 1000, func(int) int { return 0 }) }()
		synctest.Wait()
		require.True(t, isBlocked(produced), "nobody reads: the producer blocks")

		cancel()
		assert.ErrorIs(t, <-produced, context.Canceled)
	})
}

// Flush may block on a full queue just like EmitRecord, and ctx ends it.
func TestBlockedFlushReturnsWhenCtxIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newEnvironment(t, Config{BuffersPerSubpartition: 1})
		p, err := env.CreateResultPartition(newPartitionID(0), 1)
		require.NoError(t, err)
		defer p.Release()

		ctx, cancel := context.WithCancel(t.Context())
		require.NoError(t, p.EmitRecord(ctx, []byte("one"), 0))
		require.NoError(t, p.Flush(ctx)) // fills the queue
		require.NoError(t, p.EmitRecord(ctx, []byte("two"), 0))

		flushed := make(chan error, 1)
		go func() { flushed <- p.Flush(ctx) }()
		synctest.Wait()
		require.True(t, isBlocked(flushed))

		cancel()
		assert.ErrorIs(t, <-flushed, context.Canceled)
	})
}
