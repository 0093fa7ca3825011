package network

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailPropagatesToTheConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()

		// The consumer reads what was flushed, then waits for more.
		require.NoError(t, p.EmitRecord(ctx, testRecord(0, 0), 0))
		require.NoError(t, p.Flush(ctx))
		read := make(chan error, 1)
		go func() {
			_, err := readAll(ctx, gate)
			read <- err
		}()
		synctest.Wait()
		require.True(t, isBlocked(read))

		// The producer's user code throws.
		cause := errors.New("boom in the map function")
		p.Fail(cause)

		err = <-read
		assert.ErrorIs(t, err, ErrProducerFailed)
		assert.ErrorIs(t, err, cause)
		assert.ErrorContains(t, err, "the producer failed: boom in the map function")
		assert.False(t, env.PartitionManager().isRegistered(id), "a failed partition is unregistered")

		_, err = gate.Next(ctx)
		assert.ErrorIs(t, err, cause, "the failure is final")
		assert.ErrorIs(t, p.EmitRecord(ctx, testRecord(0, 1), 0), cause, "a failed partition takes no more data")
	})
}

func TestReleaseUnregistersAndWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: 1})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 2)
		require.NoError(t, err)

		// A consumer of subpartition 0 waits for data that never comes...
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()
		read := make(chan error, 1)
		go func() {
			_, err := gate.Next(ctx)
			read <- err
		}()
		// ...and the producer blocks on subpartition 1, which nobody reads.
		produced := make(chan error, 1)
		go func() { produced <- produce(ctx, p, 0, 1000, func(int) int { return 1 }) }()
		synctest.Wait()
		require.True(t, isBlocked(read))
		require.True(t, isBlocked(produced))

		// The task is cancelled and releases its partition.
		p.Release()
		assert.ErrorIs(t, <-read, ErrPartitionReleased)
		assert.ErrorIs(t, <-produced, ErrPartitionReleased)
		assert.False(t, env.PartitionManager().isRegistered(id))
		assert.Zero(t, p.BuffersInFlight(), "queued buffers are dropped")

		p.Release()                    // idempotent
		p.Fail(errors.New("too late")) // and final: Fail after Release changes nothing
		assert.ErrorIs(t, p.EmitRecord(ctx, []byte("x"), 0), ErrPartitionReleased)
	})
}

// A consumer that stops early (its task was cancelled) closes its gate.
// The producer must not stay blocked on the abandoned queue.
func TestClosingTheGateUnblocksTheProducer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: 1})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 2)
		require.NoError(t, err)
		gates := []*InputGate{
			env.CreateInputGate(gateDescriptor(0, id)),
			env.CreateInputGate(gateDescriptor(1, id)),
		}
		for _, gate := range gates {
			require.NoError(t, gate.RequestPartitions(ctx))
		}

		produced := make(chan error, 1)
		go func() { produced <- produce(ctx, p, 0, 1000, func(i int) int { return i % 2 }) }()
		synctest.Wait()
		require.True(t, isBlocked(produced))

		// Consumer 0 leaves: its data is dropped from now on.
		gates[0].Close()
		synctest.Wait()
		require.True(t, isBlocked(produced), "still blocked on consumer 1, which is alive")
		_, err = gates[0].Next(ctx)
		assert.ErrorIs(t, err, ErrInputGateClosed)

		// Consumer 1 leaves too: nobody will read the partition, so it is released.
		gates[1].Close()
		assert.ErrorIs(t, <-produced, ErrPartitionReleased)
		assert.False(t, env.PartitionManager().isRegistered(id))
	})
}

func TestCloseWakesABlockedNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{})
		registered, err := env.CreateResultPartition(newPartitionID(0), 1)
		require.NoError(t, err)
		defer registered.Release()

		tests := []struct {
			name string
			gate *InputGate
		}{
			{"waiting for data", env.CreateInputGate(gateDescriptor(0, registered.ID()))},
			{"waiting for the producer to register", env.CreateInputGate(gateDescriptor(0, newPartitionID(1)))},
		}
		for _, tt := range tests {
			read := make(chan error, 1)
			go func() {
				_, err := tt.gate.Next(ctx)
				read <- err
			}()
			synctest.Wait()
			require.True(t, isBlocked(read), tt.name)

			tt.gate.Close()
			assert.ErrorIs(t, <-read, ErrInputGateClosed, tt.name)
			tt.gate.Close() // idempotent
		}
		assert.Zero(t, env.PartitionManager().numberOfPendingRequests())
	})
}

func TestReleasePartitionsLocallyReleasesUnconsumedPartitions(t *testing.T) {
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	require.NoError(t, p.EmitRecord(t.Context(), []byte("never read"), 0))
	require.NoError(t, p.Finish(t.Context()))
	require.True(t, env.PartitionManager().isRegistered(id), "a finished partition waits for its consumer")

	env.ReleasePartitionsLocally(id, newPartitionID(1)) // the unknown ID is ignored
	assert.False(t, env.PartitionManager().isRegistered(id))
}

func TestPartitionMisuseIsRejected(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 2)
	require.NoError(t, err)
	defer p.Release()

	_, err = env.CreateResultPartition(id, 2)
	assert.ErrorIs(t, err, ErrDuplicatePartition)
	_, err = env.CreateResultPartition(newPartitionID(1), 0)
	assert.Error(t, err, "a partition needs a subpartition")

	assert.Error(t, p.EmitRecord(ctx, []byte("x"), 2), "subpartition out of range")
	assert.Error(t, p.EmitRecord(ctx, []byte("x"), -1), "subpartition out of range")

	require.NoError(t, p.Finish(ctx))
	assert.ErrorIs(t, p.EmitRecord(ctx, []byte("x"), 0), ErrPartitionFinished)
	assert.ErrorIs(t, p.BroadcastRecord(ctx, []byte("x")), ErrPartitionFinished)
	assert.ErrorIs(t, p.Flush(ctx), ErrPartitionFinished)
	assert.ErrorIs(t, p.Finish(ctx), ErrPartitionFinished)
}

func TestGateMisuseIsRejected(t *testing.T) {
	ctx := t.Context()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	defer p.Release()

	outOfRange := env.CreateInputGate(gateDescriptor(1, id))
	defer outOfRange.Close()
	_, err = outOfRange.Next(ctx)
	assert.ErrorContains(t, err, "has no subpartition 1")

	first := env.CreateInputGate(gateDescriptor(0, id))
	defer first.Close()
	require.NoError(t, first.RequestPartitions(ctx))
	second := env.CreateInputGate(gateDescriptor(0, id))
	defer second.Close()
	assert.ErrorContains(t, second.RequestPartitions(ctx), "can only be consumed once")
}

func TestNewShuffleEnvironmentAppliesDefaults(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		want    Config
		wantErr bool
	}{
		{"zero values", Config{}, Config{BufferSize: DefaultBufferSize, BuffersPerSubpartition: DefaultBuffersPerSubpartition,
			RequestBackoffInitial: 100 * time.Millisecond, RequestBackoffMax: 10 * time.Second, TmpDir: os.TempDir(),
			ConnectTimeout: DefaultClientConnectTimeout}, false},
		{"set values", Config{BufferSize: 4096, BuffersPerSubpartition: 8, DataAddress: "10.0.0.7:41000",
			RequestBackoffInitial: time.Second, RequestBackoffMax: 4 * time.Second, TmpDir: "spill", ConnectTimeout: time.Second},
			Config{BufferSize: 4096, BuffersPerSubpartition: 8, DataAddress: "10.0.0.7:41000",
				RequestBackoffInitial: time.Second, RequestBackoffMax: 4 * time.Second, TmpDir: "spill", ConnectTimeout: time.Second}, false},
		{"an initial backoff above the default max", Config{RequestBackoffInitial: time.Minute},
			Config{BufferSize: DefaultBufferSize, BuffersPerSubpartition: DefaultBuffersPerSubpartition,
				RequestBackoffInitial: time.Minute, RequestBackoffMax: time.Minute, TmpDir: os.TempDir(),
				ConnectTimeout: DefaultClientConnectTimeout}, false},
		{"negative buffer size", Config{BufferSize: -1}, Config{}, true},
		{"negative buffers per subpartition", Config{BuffersPerSubpartition: -1}, Config{}, true},
		{"negative backoff", Config{RequestBackoffInitial: -time.Second}, Config{}, true},
		{"max backoff below the initial one", Config{RequestBackoffInitial: time.Second, RequestBackoffMax: time.Millisecond}, Config{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := NewShuffleEnvironment(tt.cfg)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			got := env.cfg
			assert.NotNil(t, got.PartitionManager, "a private manager when none is given")
			got.PartitionManager = nil
			assert.Equal(t, tt.want, got)
		})
	}
}

// A partition finished without data ends its consumer at once, and the
// end is final.
func TestEmptyPartitionEndsInputForGood(t *testing.T) {
	ctx := context.Background()
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	require.NoError(t, p.Finish(ctx))
	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()
	for range 3 {
		_, err := gate.Next(ctx)
		assert.ErrorIs(t, err, io.EOF)
	}
}
