package network

import (
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// These tests are about BLOCKING partitions: written completely to files
// first, read afterwards by any number of consumers, and kept until they
// are released.

// createBlockingPartition creates and registers a BLOCKING partition.
func createBlockingPartition(t testing.TB, env *ShuffleEnvironment, id api.ResultPartitionID, subpartitions int) *ResultPartition {
	t.Helper()
	p, err := env.CreateResultPartitionWriter(gateway.ResultPartitionDeploymentDescriptor{
		PartitionID: id, NumberOfSubpartitions: subpartitions, PartitionType: jobgraph.Blocking,
	})
	require.NoError(t, err)
	require.Equal(t, jobgraph.Blocking, p.PartitionType())
	return p
}

// filesIn returns the names of the files in dir.
func filesIn(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, entry := range entries {
		names = append(names, entry.Name())
	}
	return names
}

// wantRecords returns testRecord(producer, i) for every i below count with
// target(i) == subpartition: what a consumer of that subpartition reads.
func wantRecords(producer, count, subpartition int, target func(int) int) [][]byte {
	var records [][]byte
	for i := range count {
		if target(i) == subpartition {
			records = append(records, testRecord(producer, i))
		}
	}
	return records
}

// A blocking partition is written completely, without a consumer and
// without ever blocking its producer, into one file per subpartition. It
// is then read from the start by every consumer that asks, one after the
// other or at the same time, and reading it to the end, or leaving early,
// consumes nothing: it stays registered, files and all, until
// ReleasePartitionsLocally deletes them.
func TestBlockingPartitionIsReadAnyNumberOfTimesUntilReleased(t *testing.T) {
	ctx := t.Context()
	tmpDir := t.TempDir()
	// A queue of one buffer would block a pipelined producer at once.
	env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: 1, TmpDir: tmpDir})
	id := newPartitionID(0)
	p := createBlockingPartition(t, env, id, 2)
	const n = 1000
	target := func(i int) int { return i % 2 }

	require.NoError(t, produce(ctx, p, 0, n, target), "nobody reads, and the producer never waits")
	assert.Len(t, filesIn(t, tmpDir), 2, "one file per subpartition")
	assert.Zero(t, p.BuffersInFlight(), "nothing is queued: the buffers are in the files")

	// Two readers of subpartition 0, one after the other.
	for range 2 {
		gate := env.CreateInputGate(gateDescriptor(0, id))
		records, err := readAll(ctx, gate)
		gate.Close()
		require.ErrorIs(t, err, io.EOF)
		assert.Equal(t, wantRecords(0, n, 0, target), records)
	}

	// A reader that leaves early consumes nothing either.
	early := env.CreateInputGate(gateDescriptor(1, id))
	_, err := early.Next(ctx)
	require.NoError(t, err)
	early.Close()

	// Three readers at once, of both subpartitions, each with a file
	// handle of its own.
	var wg sync.WaitGroup
	for _, subpartition := range []int{0, 1, 1} {
		gate := env.CreateInputGate(gateDescriptor(subpartition, id))
		wg.Go(func() {
			defer gate.Close()
			records, err := readAll(ctx, gate)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, wantRecords(0, n, subpartition, target), records, "subpartition %d", subpartition)
		})
	}
	wg.Wait()
	assert.True(t, env.PartitionManager().isRegistered(id), "read five times, and still there")
	assert.Len(t, filesIn(t, tmpDir), 2)

	env.ReleasePartitionsLocally(id)
	assert.False(t, env.PartitionManager().isRegistered(id))
	assert.Empty(t, filesIn(t, tmpDir), "released: the files are deleted")
	_, err = p.createSubpartitionView(0, nil)
	assert.ErrorIs(t, err, ErrPartitionReleased, "nobody reads a released partition")
}

// A consumer may ask for a blocking partition before it is finished, even
// before it is registered: its request waits for the registration, and its
// reader then waits, without holding a goroutine, until Finish makes the
// files complete. Only then does it read, everything at once.
func TestReadOfBlockingPartitionBeforeFinishWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{BufferSize: 64, TmpDir: t.TempDir()})
		id := newPartitionID(0)
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()
		type result struct {
			records [][]byte
			err     error
		}
		read := make(chan result, 1)
		go func() {
			records, err := readAll(ctx, gate)
			read <- result{records, err}
		}()
		synctest.Wait()
		require.True(t, isBlocked(read), "not registered yet")

		p := createBlockingPartition(t, env, id, 1)
		for i := range 100 {
			require.NoError(t, p.EmitRecord(ctx, testRecord(0, i), 0))
		}
		require.NoError(t, p.Flush(ctx))
		synctest.Wait()
		require.True(t, isBlocked(read), "registered, and written to, but not finished")

		require.NoError(t, p.Finish(ctx))
		got := <-read
		require.ErrorIs(t, got.err, io.EOF)
		assert.Equal(t, wantRecords(0, 100, 0, func(int) int { return 0 }), got.records)
	})
}

// A blocking partition whose producer fails, or is cancelled, before
// Finish is released at once: its files are deleted, and its readers,
// waiting or not, read the failure (ErrProducerFailed with the cause) or
// ErrPartitionReleased.
func TestFailedOrCancelledBlockingProducerEndsItsReaders(t *testing.T) {
	cause := errors.New("boom in the map function")
	tests := []struct {
		name    string
		end     func(p *ResultPartition)
		wantErr []error
	}{
		{"the producer fails", func(p *ResultPartition) { p.Fail(cause) }, []error{ErrProducerFailed, cause}},
		{"the producer is cancelled", func(p *ResultPartition) { p.Release() }, []error{ErrPartitionReleased}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				tmpDir := t.TempDir()
				env := newEnvironment(t, Config{BufferSize: 64, TmpDir: tmpDir})
				id := newPartitionID(0)
				p := createBlockingPartition(t, env, id, 1)
				for i := range 100 {
					require.NoError(t, p.EmitRecord(ctx, testRecord(0, i), 0))
				}
				require.NoError(t, p.Flush(ctx))
				require.Len(t, filesIn(t, tmpDir), 1)

				gate := env.CreateInputGate(gateDescriptor(0, id))
				defer gate.Close()
				read := make(chan error, 1)
				go func() {
					_, err := readAll(ctx, gate)
					read <- err
				}()
				synctest.Wait()
				require.True(t, isBlocked(read), "waiting for Finish")

				tt.end(p)
				err := <-read
				for _, want := range tt.wantErr {
					assert.ErrorIs(t, err, want)
				}
				assert.False(t, env.PartitionManager().isRegistered(id))
				assert.Empty(t, filesIn(t, tmpDir), "the files are deleted")
				assert.ErrorIs(t, p.Finish(ctx), tt.wantErr[0], "a released partition takes no more data")
			})
		})
	}
}

// A reader in the middle of a finished blocking partition stops when the
// partition is released, although its file handle would let it read on.
func TestReleaseStopsAReaderInTheMiddle(t *testing.T) {
	ctx := t.Context()
	tmpDir := t.TempDir()
	env := newEnvironment(t, Config{BufferSize: 64, TmpDir: tmpDir})
	id := newPartitionID(0)
	p := createBlockingPartition(t, env, id, 1)
	require.NoError(t, produce(ctx, p, 0, 1000, func(int) int { return 0 }))

	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()
	for range 10 { // a buffer holds 7 records: the reader's file is open
		_, err := gate.Next(ctx)
		require.NoError(t, err)
	}
	env.ReleasePartitionsLocally(id)
	assert.Empty(t, filesIn(t, tmpDir))

	records, err := readAll(ctx, gate)
	assert.ErrorIs(t, err, ErrPartitionReleased)
	assert.Less(t, len(records), 7, "at most the rest of the buffer it had taken")
}

// Restarted producers write the same partition under a new attempt, and
// all of them may write into the same directory, from many processes: no
// two files collide.
func TestBlockingPartitionFilesDoNotCollide(t *testing.T) {
	ctx := t.Context()
	tmpDir := t.TempDir()
	first := newPartitionID(0)
	second := first
	second.ProducerID.AttemptNumber = 1
	for _, id := range []api.ResultPartitionID{first, second} {
		env := newEnvironment(t, Config{TmpDir: tmpDir}) // a process each
		p := createBlockingPartition(t, env, id, 2)
		require.NoError(t, p.Finish(ctx))
	}
	assert.Len(t, filesIn(t, tmpDir), 4)
}

func TestUnknownPartitionTypeIsRejected(t *testing.T) {
	env := newEnvironment(t, Config{})
	_, err := env.CreateResultPartitionWriter(gateway.ResultPartitionDeploymentDescriptor{
		PartitionID: newPartitionID(0), NumberOfSubpartitions: 1, PartitionType: jobgraph.ResultPartitionType(7),
	})
	assert.ErrorContains(t, err, "unknown partition type ResultPartitionType(7)")
}

// Over TCP a blocking partition is read as in-process: twice, at the same
// time, by two consumer processes, each from the start, under the same
// credit-based flow control, and it stays with its producer's process
// until released there.
func TestRemoteReadsOfABlockingPartition(t *testing.T) {
	ctx := withTimeout(t)
	tmpDir := t.TempDir()
	cfg := Config{BufferSize: 64, BuffersPerSubpartition: 2, TmpDir: tmpDir}
	producerProcess := newProcess(t, cfg)
	consumerProcesses := []*process{newProcess(t, cfg), newProcess(t, cfg)}
	id := newPartitionID(0)
	const n = 2000
	target := func(i int) int { return i % 2 }

	// The first consumer asks before the producer has finished.
	var wg sync.WaitGroup
	read := func(c *process, subpartition int) {
		gate := c.env.CreateInputGate(remoteGateDescriptor(subpartition, producerProcess.server.Address(), id))
		wg.Go(func() {
			defer gate.Close()
			records, err := readAll(ctx, gate)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, wantRecords(0, n, subpartition, target), records, "subpartition %d", subpartition)
		})
	}
	p := createBlockingPartition(t, producerProcess.env, id, 2)
	read(consumerProcesses[0], 1)
	require.NoError(t, produce(ctx, p, 0, n, target))
	read(consumerProcesses[1], 1)
	read(consumerProcesses[1], 0)
	wg.Wait()

	// And once more, after the others.
	read(consumerProcesses[0], 1)
	wg.Wait()
	assert.True(t, producerProcess.manager.isRegistered(id), "read over TCP four times, and still there")
	for _, c := range consumerProcesses {
		assert.Zero(t, c.env.clients.numberOfClients(), "the readers closed their connections")
	}

	producerProcess.env.ReleasePartitionsLocally(id)
	assert.Empty(t, filesIn(t, tmpDir))
}

// A remote reader in the middle of a blocking partition reads the release
// error when the partition is released in its producer's process.
func TestRemoteReaderOfAReleasedBlockingPartitionFails(t *testing.T) {
	ctx := withTimeout(t)
	cfg := Config{BufferSize: 64, BuffersPerSubpartition: 2, TmpDir: t.TempDir()}
	producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
	id := newPartitionID(0)
	p := createBlockingPartition(t, producerProcess.env, id, 1)
	require.NoError(t, produce(ctx, p, 0, 1000, func(int) int { return 0 })) // about 143 buffers

	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
	defer gate.Close()
	_, err := gate.Next(ctx)
	require.NoError(t, err)

	// The server has sent at most the credit ahead; most buffers remain.
	producerProcess.env.ReleasePartitionsLocally(id)
	records, err := readAll(ctx, gate)
	assert.ErrorIs(t, err, ErrPartitionReleased)
	assert.Less(t, len(records), 999)
}
