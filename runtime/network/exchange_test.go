package network

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

func TestRecordsRoundTripOneToOne(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{BufferSize: 128}) // small buffers: many hand-overs
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()

	const n = 1000
	produced := make(chan error, 1)
	go func() { produced <- produce(ctx, p, 7, n, func(int) int { return 0 }) }()

	records, err := readAll(ctx, gate)
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, <-produced)
	require.Len(t, records, n)
	for i, record := range records {
		producer, seq := parseTestRecord(t, record)
		assert.Equal(t, 7, producer)
		assert.Equal(t, i, seq, "records arrive in the order they were emitted")
	}

	// Every subpartition was consumed, so the partition is gone.
	assert.False(t, env.PartitionManager().isRegistered(id))
	_, err = gate.Next(ctx)
	assert.ErrorIs(t, err, io.EOF, "the end is final")
}

// Two producers, three consumers, all-to-all: producer p sends record i to
// subpartition i%3, and consumer c reads subpartition c of both partitions.
// The producers live on two TaskExecutors sharing one partition manager, as
// in the embedded cluster.
func TestAllToAllTwoProducersThreeConsumers(t *testing.T) {
	ctx := t.Context()
	const producers, consumers, perProducer = 2, 3, 3000
	manager := NewResultPartitionManager()
	envs := []*ShuffleEnvironment{
		newEnvironment(t, Config{PartitionManager: manager, BufferSize: 256}),
		newEnvironment(t, Config{PartitionManager: manager, BufferSize: 256}),
	}

	ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1)}
	var wg sync.WaitGroup
	produceErrs := make([]error, producers)
	for p := range producers {
		partition, err := envs[p].CreateResultPartition(ids[p], consumers)
		require.NoError(t, err)
		wg.Go(func() {
			produceErrs[p] = produce(ctx, partition, p, perProducer, func(i int) int { return i % consumers })
		})
	}

	got := make([][][]byte, consumers)
	readErrs := make([]error, consumers)
	for c := range consumers {
		gate := envs[c%2].CreateInputGate(gateDescriptor(c, ids...))
		require.Equal(t, producers, gate.NumberOfInputChannels())
		wg.Go(func() {
			defer gate.Close()
			got[c], readErrs[c] = readAll(ctx, gate)
		})
	}
	wg.Wait()

	for p := range producers {
		require.NoError(t, produceErrs[p], "producer %d", p)
	}
	for c := range consumers {
		require.ErrorIs(t, readErrs[c], io.EOF, "consumer %d", c)
		// Group by producer: each producer's records addressed to c, in order.
		perProducerSeqs := make([][]int, producers)
		for _, record := range got[c] {
			producer, seq := parseTestRecord(t, record)
			perProducerSeqs[producer] = append(perProducerSeqs[producer], seq)
		}
		var want []int
		for i := c; i < perProducer; i += consumers {
			want = append(want, i)
		}
		for p := range producers {
			assert.Equal(t, want, perProducerSeqs[p], "consumer %d, records of producer %d", c, p)
		}
	}
	assert.Zero(t, manager.numberOfRegisteredPartitions(), "consumed partitions are unregistered")
}

func TestConsumerRequestsBeforeProducerRegisters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{})
		id := newPartitionID(0)

		// The consumer is deployed first and starts reading.
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()
		type result struct {
			records [][]byte
			err     error
		}
		consumed := make(chan result, 1)
		go func() {
			records, err := readAll(ctx, gate)
			consumed <- result{records, err}
		}()
		synctest.Wait()
		require.True(t, isBlocked(consumed), "the consumer waits for the producer to register")

		// The producer registers its partition and writes.
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		require.NoError(t, produce(ctx, p, 0, 3, func(int) int { return 0 }))

		r := <-consumed
		require.ErrorIs(t, r.err, io.EOF)
		assert.Equal(t, [][]byte{testRecord(0, 0), testRecord(0, 1), testRecord(0, 2)}, r.records)
		assert.Zero(t, env.PartitionManager().numberOfPendingRequests(), "no waiter is left behind")
	})
}

func TestRequestForUnregisteredPartitionEndsWithCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newEnvironment(t, Config{})
		gate := env.CreateInputGate(gateDescriptor(0, newPartitionID(0)))
		defer gate.Close()

		ctx, cancel := context.WithCancel(t.Context())
		failed := make(chan error, 1)
		go func() {
			_, err := gate.Next(ctx)
			failed <- err
		}()
		synctest.Wait()
		require.True(t, isBlocked(failed))

		cancel()
		assert.ErrorIs(t, <-failed, context.Canceled)
		assert.Zero(t, env.PartitionManager().numberOfPendingRequests(), "the abandoned wait is forgotten")
	})
}

// A partition that is not registered within the time a remote consumer
// would retry is gone (its TaskExecutor was lost and released it): the
// local consumer fails as Flink's does once its backoff is used up, and
// one registered before then is read.
func TestLocalRequestGivesUpAfterTheRequestBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newEnvironment(t, Config{}) // backoffs 100 ms … 10 s: 22.7 s in all
		gone, late := newPartitionID(0), newPartitionID(1)
		next := func(id api.ResultPartitionID) <-chan error {
			gate := env.CreateInputGate(gateDescriptor(0, id))
			t.Cleanup(gate.Close)
			result := make(chan error, 1)
			go func() {
				_, err := readAll(t.Context(), gate)
				result <- err
			}()
			return result
		}
		start := time.Now()
		goneResult, lateResult := next(gone), next(late)

		time.Sleep(22*time.Second + 600*time.Millisecond)
		synctest.Wait()
		require.True(t, isBlocked(goneResult), "it waits as long as a remote consumer retries")
		p, err := env.CreateResultPartition(late, 1)
		require.NoError(t, err)
		require.NoError(t, p.Finish(t.Context()))
		assert.ErrorIs(t, <-lateResult, io.EOF, "a partition registered in time is read")

		err = <-goneResult
		assert.ErrorIs(t, err, ErrPartitionNotFound)
		assert.ErrorContains(t, err, "Partition "+gone.String()+" not found.")
		assert.Equal(t, 22700*time.Millisecond, time.Since(start))
		assert.Zero(t, env.PartitionManager().numberOfPendingRequests(), "no waiter is left behind")
	})
}

func TestEndOfInputOnlyAfterEveryChannelEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{})
		ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1)}
		first, err := env.CreateResultPartition(ids[0], 1)
		require.NoError(t, err)
		second, err := env.CreateResultPartition(ids[1], 1)
		require.NoError(t, err)
		gate := env.CreateInputGate(gateDescriptor(0, ids...))
		defer gate.Close()

		var mu sync.Mutex
		var got [][]byte
		ended := make(chan error, 1)
		go func() {
			for {
				record, err := gate.Next(ctx)
				if err != nil {
					ended <- err
					return
				}
				mu.Lock()
				got = append(got, record)
				mu.Unlock()
			}
		}()

		// The first producer finishes; the second flushes but is not done.
		require.NoError(t, produce(ctx, first, 0, 2, func(int) int { return 0 }))
		require.NoError(t, second.EmitRecord(ctx, testRecord(1, 0), 0))
		require.NoError(t, second.Flush(ctx))
		synctest.Wait()

		mu.Lock()
		assert.Len(t, got, 3, "every record written so far was read")
		mu.Unlock()
		require.True(t, isBlocked(ended), "one channel ended, the other did not: no end of input yet")

		require.NoError(t, second.Finish(ctx))
		assert.ErrorIs(t, <-ended, io.EOF)
	})
}

// A channel that always has data must not starve another: the gate takes
// one buffer from each channel with data in turn.
func TestChannelsAreReadFairly(t *testing.T) {
	ctx := t.Context()
	const bufferSize = 90 // ten 8-byte records (9 bytes with the prefix) per buffer
	env := newEnvironment(t, Config{BufferSize: bufferSize, BuffersPerSubpartition: 2})
	ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1)}
	gate := env.CreateInputGate(gateDescriptor(0, ids...))
	defer gate.Close()

	// Both producers fill their queues (two buffers each) before the
	// consumer reads a thing.
	for p, id := range ids {
		partition, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		for i := range 20 {
			require.NoError(t, partition.EmitRecord(ctx, testRecord(p, i), 0))
		}
		require.NoError(t, partition.Flush(ctx))
		require.NoError(t, partition.Finish(ctx))
	}

	var producers []int
	for range 40 {
		record, err := gate.Next(ctx)
		require.NoError(t, err)
		producer, _ := parseTestRecord(t, record)
		producers = append(producers, producer)
	}
	switches := 0
	for i := 1; i < len(producers); i++ {
		if producers[i] != producers[i-1] {
			switches++
		}
	}
	assert.Equal(t, 3, switches, "buffers alternate between channels: %v", producers)
	_, err := gate.Next(ctx)
	assert.ErrorIs(t, err, io.EOF)
}

func TestBigRecordsGetBuffersOfTheirOwn(t *testing.T) {
	ctx := t.Context()
	const bufferSize = 1024
	env := newEnvironment(t, Config{BufferSize: bufferSize})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()

	records := [][]byte{
		[]byte("small before"),
		bytes.Repeat([]byte{'a'}, 100*1024), // a hundred buffers' worth
		[]byte("small between"),
		bytes.Repeat([]byte{'b'}, bufferSize-2),   // exactly fills a buffer with its 2-byte prefix
		bytes.Repeat([]byte{'c'}, bufferSize-1),   // one byte too many: a buffer of its own
		{},                                        // empty records are records too
		bytes.Repeat([]byte{'d'}, 3*bufferSize+7), // another big one
		[]byte("small after"),
	}
	produced := make(chan error, 1)
	go func() {
		for _, r := range records {
			if err := p.EmitRecord(ctx, r, 0); err != nil {
				produced <- err
				return
			}
		}
		produced <- p.Finish(ctx)
	}()

	got, err := readAll(ctx, gate)
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, <-produced)
	require.Len(t, got, len(records))
	for i := range records {
		assert.True(t, bytes.Equal(records[i], got[i]), "record %d: %d bytes, want %d", i, len(got[i]), len(records[i]))
	}
}

func TestEmittedRecordIsCopied(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()

	scratch := []byte("first")
	require.NoError(t, p.EmitRecord(ctx, scratch, 0))
	copy(scratch, "XXXXX") // the caller reuses its serialization buffer
	require.NoError(t, p.Finish(ctx))

	record, err := gate.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, []byte("first"), record)
}

func TestBroadcastReachesEverySubpartition(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 3)
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, p.BroadcastRecord(ctx, testRecord(0, i)))
	}
	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 99), 1)) // and one for subpartition 1 only
	require.NoError(t, p.Finish(ctx))

	for c := range 3 {
		gate := env.CreateInputGate(gateDescriptor(c, id))
		got, err := readAll(ctx, gate)
		gate.Close()
		require.ErrorIs(t, err, io.EOF)
		want := [][]byte{testRecord(0, 0), testRecord(0, 1), testRecord(0, 2), testRecord(0, 3), testRecord(0, 4)}
		if c == 1 {
			want = append(want, testRecord(0, 99))
		}
		assert.Equal(t, want, got, "consumer %d", c)
	}
	assert.False(t, env.PartitionManager().isRegistered(id))
}

func TestGateWithoutChannelsEndsAtOnce(t *testing.T) {
	env := newEnvironment(t, Config{})
	gate := env.CreateInputGate(gateDescriptor(0))
	defer gate.Close()
	_, err := gate.Next(t.Context())
	assert.ErrorIs(t, err, io.EOF)
}
