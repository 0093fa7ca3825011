package network

import (
	"context"
	"io"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoExchanges makes two partitions of one subpartition each, and a gate
// reading each.
func twoExchanges(t *testing.T) (p1, p2 *ResultPartition, g1, g2 *InputGate) {
	t.Helper()
	env := newEnvironment(t, Config{BufferSize: 128})
	first, second := newPartitionID(0), newPartitionID(1)
	p1, err := env.CreateResultPartition(first, 1)
	require.NoError(t, err)
	p2, err = env.CreateResultPartition(second, 1)
	require.NoError(t, err)
	return p1, p2, env.CreateInputGate(gateDescriptor(0, first)), env.CreateInputGate(gateDescriptor(0, second))
}

// A union reads two gates as one: every record of both, each gate's in
// the order it was emitted, and the end only when both have ended.
func TestUnionInputGateReadsEveryGateToTheEnd(t *testing.T) {
	ctx := t.Context()
	p1, p2, g1, g2 := twoExchanges(t)
	defer g1.Close()
	defer g2.Close()
	union := NewUnionInputGate(g1, g2)

	const n1, n2 = 300, 700
	produced := make(chan error, 2)
	go func() { produced <- produce(ctx, p1, 1, n1, func(int) int { return 0 }) }()
	go func() { produced <- produce(ctx, p2, 2, n2, func(int) int { return 0 }) }()

	next := map[int]int{} // per producer, the sequence number expected next
	for {
		record, err := union.Next(ctx)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		producer, seq := parseTestRecord(t, record)
		require.Equal(t, next[producer], seq, "producer %d's records in order", producer)
		next[producer]++
	}
	require.NoError(t, <-produced)
	require.NoError(t, <-produced)
	assert.Equal(t, map[int]int{1: n1, 2: n2}, next)
	_, err := union.Next(ctx)
	assert.ErrorIs(t, err, io.EOF, "the end is final")
}

// A union waits while no gate has data, wakes for the first record of
// either, and a closed gate wakes it with ErrInputGateClosed.
func TestUnionInputGateWaitsAndWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		_, p2, g1, g2 := twoExchanges(t)
		union := NewUnionInputGate(g1, g2)

		type result struct {
			record []byte
			err    error
		}
		read := func() <-chan result {
			done := make(chan result, 1)
			go func() {
				record, err := union.Next(ctx)
				done <- result{record, err}
			}()
			return done
		}

		waiting := read()
		synctest.Wait()
		require.True(t, isBlocked(waiting), "no gate has data: the union waits")
		require.NoError(t, p2.EmitRecord(ctx, testRecord(2, 0), 0))
		require.NoError(t, p2.Flush(ctx))
		synctest.Wait()
		got := <-waiting
		require.NoError(t, got.err)
		producer, seq := parseTestRecord(t, got.record)
		assert.Equal(t, [2]int{2, 0}, [2]int{producer, seq}, "the second gate's record")

		waiting = read()
		synctest.Wait()
		require.True(t, isBlocked(waiting))
		g1.Close()
		synctest.Wait()
		assert.ErrorIs(t, (<-waiting).err, ErrInputGateClosed)
		g2.Close()
	})
}
