package network

import (
	"io"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// An all-to-all edge of parallelism n has n² producer/consumer pairs. None
// of them may cost anything before data flows: creating a partition of
// 10,000 subpartitions, or a gate of 10,000 channels, costs what creating
// one of a single subpartition or channel costs.

func TestCreatingAPartitionCostsNothingPerSubpartition(t *testing.T) {
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	var p *ResultPartition
	create := func(subpartitions int) func() {
		return func() { p = newResultPartition(id, subpartitions, jobgraph.PipelinedBounded, env.cfg) }
	}

	assert.Equal(t, testing.AllocsPerRun(100, create(1)), testing.AllocsPerRun(100, create(10_000)),
		"allocations do not grow with the number of subpartitions")
	assert.LessOrEqual(t, testing.AllocsPerRun(100, create(10_000)), 3.0,
		"the partition and its two channels, released and spaceAvailable")
	assert.Less(t, bytesPerRun(100, create(10_000)), uint64(1024),
		"not even a slice of 10,000 pointers")
	assert.Nil(t, p.createdSubpartitions())
	assert.Equal(t, 10_000, p.NumberOfSubpartitions())
}

func TestCreatingAGateCostsNothingPerChannel(t *testing.T) {
	env := newEnvironment(t, Config{})
	ids := make([]api.ResultPartitionID, 10_000)
	for i := range ids {
		ids[i] = newPartitionID(i)
	}
	one, many := gateDescriptor(0, ids[0]), gateDescriptor(0, ids...)
	var gate *InputGate
	create := func() { gate = env.CreateInputGate(many) }

	assert.Equal(t, testing.AllocsPerRun(100, func() { gate = env.CreateInputGate(one) }), testing.AllocsPerRun(100, create),
		"allocations do not grow with the number of channels")
	assert.Less(t, bytesPerRun(100, create), uint64(1024), "no channel, no copy of the partition IDs")

	assert.Nil(t, gate.channels, "no channel before the partitions are requested")
	assert.Nil(t, gate.inputChannelsWithData)
	assert.Equal(t, 10_000, gate.NumberOfInputChannels())
	assert.Same(t, &many.ShuffleDescriptors[0], &gate.shuffleDescriptors[0],
		"the gate reads the deployment descriptor's shuffle descriptors, shared with the other consumers")
	gate.Close() // a gate that never requested anything closes all the same
}

// bytesPerRun returns the heap bytes one call of f allocates, averaged over
// runs calls. Like testing.AllocsPerRun, it warms f up with one call first.
func bytesPerRun(runs int, f func()) uint64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// created reports, per index, whether the subpartition was made.
func created(p *ResultPartition) []bool {
	made := make([]bool, p.NumberOfSubpartitions())
	for i, s := range p.createdSubpartitions() {
		made[i] = s != nil
	}
	return made
}

// A subpartition comes into being with its first buffer, its consumer's
// request, or Finish, and not before.
func TestSubpartitionIsMadeOnFirstUse(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 4)
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, false, false}, created(p))

	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 0), 0))
	assert.Equal(t, []bool{false, false, false, false}, created(p), "the record waits in its buffer builder")
	require.NoError(t, p.Flush(ctx))
	assert.Equal(t, []bool{true, false, false, false}, created(p), "the first buffer makes subpartition 0")

	gates := make([]*InputGate, 4)
	for c := range gates {
		gates[c] = env.CreateInputGate(gateDescriptor(c, id))
		defer gates[c].Close()
	}
	require.NoError(t, gates[2].RequestPartitions(ctx))
	assert.Equal(t, []bool{true, false, true, false}, created(p), "the consumer's request makes subpartition 2")
	assert.Len(t, gates[2].channels, 1, "the request made the channel")

	require.NoError(t, p.Finish(ctx))
	assert.Equal(t, []bool{true, true, true, true}, created(p), "Finish makes the rest, for their EndOfPartition")

	for c, gate := range gates {
		records, err := readAll(ctx, gate)
		require.ErrorIs(t, err, io.EOF, "consumer %d", c)
		if c == 0 {
			assert.Equal(t, [][]byte{testRecord(0, 0)}, records)
		} else {
			assert.Empty(t, records, "consumer %d", c)
		}
	}
	assert.False(t, env.PartitionManager().isRegistered(id), "every subpartition was consumed")
}

// A released partition makes no more subpartitions: a late request gets
// the release error, and nothing is allocated for it.
func TestReleasedPartitionMakesNoSubpartition(t *testing.T) {
	env := newEnvironment(t, Config{})
	p, err := env.CreateResultPartition(newPartitionID(0), 2)
	require.NoError(t, err)
	p.Release()

	_, err = p.createSubpartitionView(1, nil)
	assert.ErrorIs(t, err, ErrPartitionReleased)
	assert.ErrorIs(t, p.Finish(t.Context()), ErrPartitionReleased)
	assert.Nil(t, p.createdSubpartitions())
}

// All subpartitions of a partition share one wake-up channel for their
// producer. A token left by the consumer of another subpartition wakes the
// producer for nothing: it finds its own queue still full and waits again,
// until its own consumer makes room.
func TestProducerWokenForAnotherSubpartitionWaitsOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: 1})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 2)
		require.NoError(t, err)
		gates := []*InputGate{env.CreateInputGate(gateDescriptor(0, id)), env.CreateInputGate(gateDescriptor(1, id))}
		for _, gate := range gates {
			defer gate.Close()
		}

		// Subpartition 1's queue is full; the producer then fills
		// subpartition 0's and blocks on it.
		require.NoError(t, p.EmitRecord(ctx, testRecord(1, 0), 1))
		require.NoError(t, p.Flush(ctx))
		const n = 100
		produced := make(chan error, 1)
		go func() { produced <- produce(ctx, p, 0, n, func(int) int { return 0 }) }()
		synctest.Wait()
		require.True(t, isBlocked(produced))

		// Consumer 1 takes the buffer from its full queue: a token.
		record, err := gates[1].Next(ctx)
		require.NoError(t, err)
		assert.Equal(t, testRecord(1, 0), record)
		synctest.Wait()
		assert.True(t, isBlocked(produced), "the token was for another queue: still blocked")
		assert.Equal(t, 1, p.BuffersInFlight(), "subpartition 0's queue is still full")

		// Consumer 0 reads: the producer runs to the end.
		records, err := readAll(ctx, gates[0])
		require.ErrorIs(t, err, io.EOF)
		assert.Len(t, records, n)
		require.NoError(t, <-produced)
		_, err = gates[1].Next(ctx)
		assert.ErrorIs(t, err, io.EOF)
	})
}
