package network

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
)

// These tests follow checkpoint barriers from BroadcastEvent to the
// CheckpointBarrierHandler: in-process, over TCP and through a
// UnionInputGate. Each reads as a story, and asserts on a trace of what
// the consumer saw, records and handler calls in one list, in order.

// newBarrier returns the barrier of checkpoint id with the given alignment.
func newBarrier(id int64, alignment checkpoint.AlignmentType) CheckpointBarrier {
	return CheckpointBarrier{ID: id, Timestamp: 1_700_000_000_000 + id, Options: checkpoint.CheckpointOptions{
		CheckpointType: checkpoint.Checkpoint,
		AlignmentType:  alignment,
	}}
}

// trace is what a consumer saw, in order: "record 0/3" (producer 0's
// record 3), "barrier 1 from InputChannelInfo{gateIdx=0, inputChannelIdx=0}",
// "end of InputChannelInfo{gateIdx=0, inputChannelIdx=0}".
type trace struct {
	mu    sync.Mutex
	lines []string
}

func (tr *trace) add(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

func (tr *trace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.lines)
}

// recordingHandler is a CheckpointBarrierHandler that writes every call
// into a trace, then does onBarrier, if set, and returns err.
type recordingHandler struct {
	trace     *trace
	onBarrier func(CheckpointBarrier, InputChannelInfo) error
	err       error
}

var _ CheckpointBarrierHandler = (*recordingHandler)(nil)

func (h *recordingHandler) ProcessBarrier(barrier CheckpointBarrier, channel InputChannelInfo) error {
	h.trace.add("barrier %d from %s", barrier.ID, channel)
	if h.onBarrier != nil {
		if err := h.onBarrier(barrier, channel); err != nil {
			return err
		}
	}
	return h.err
}

func (h *recordingHandler) ProcessEndOfPartition(channel InputChannelInfo) error {
	h.trace.add("end of %s", channel)
	return h.err
}

// reader reads records from a gate (or a union) into a trace.
type reader interface {
	Next(ctx context.Context) ([]byte, error)
}

// readRecord reads one record and writes it into the trace.
func readRecord(ctx context.Context, t *testing.T, gate reader, tr *trace) {
	t.Helper()
	record, err := gate.Next(ctx)
	require.NoError(t, err)
	producer, seq := parseTestRecord(t, record)
	tr.add("record %d/%d", producer, seq)
}

// readToEnd reads records into the trace until the gate ends, and returns
// the error that ended it.
func readToEnd(ctx context.Context, t *testing.T, gate reader, tr *trace) error {
	t.Helper()
	for {
		record, err := gate.Next(ctx)
		if err != nil {
			return err
		}
		producer, seq := parseTestRecord(t, record)
		tr.add("record %d/%d", producer, seq)
	}
}

// readAsync starts one Next on a goroutine of its own; its result comes on
// the channel, already written into the trace.
func readAsync(ctx context.Context, t *testing.T, gate reader, tr *trace) <-chan error {
	done := make(chan error, 1)
	go func() {
		record, err := gate.Next(ctx)
		if err == nil {
			producer, seq := parseTestRecord(t, record)
			tr.add("record %d/%d", producer, seq)
		}
		done <- err
	}()
	return done
}

// finished returns the result of a goroutine that must have sent it by
// now, failing the test if it has not. Call it after synctest.Wait.
func finished[T any](t *testing.T, result <-chan T) T {
	t.Helper()
	select {
	case v := <-result:
		return v
	default:
		t.Fatal("still blocked")
		panic("unreachable")
	}
}

// barrierFrom and endOf are the trace's lines for a handler call.
func barrierFrom(id int64, gateIdx, channelIdx int) string {
	return fmt.Sprintf("barrier %d from %s", id, InputChannelInfo{gateIdx, channelIdx})
}

func endOf(gateIdx, channelIdx int) string {
	return fmt.Sprintf("end of %s", InputChannelInfo{gateIdx, channelIdx})
}

func TestCheckpointBarrierTravelsAsFlinksDataType(t *testing.T) {
	for _, tc := range []struct {
		alignment    checkpoint.AlignmentType
		want         DataType
		wantName     string
		wantBlocking bool
	}{
		{checkpoint.Aligned, AlignedCheckpointBarrier, "ALIGNED_CHECKPOINT_BARRIER", true},
		{checkpoint.AtLeastOnceAlignment, EventBuffer, "EVENT_BUFFER", false},
	} {
		barrier := newBarrier(5, tc.alignment)
		barrier.Options.TargetLocation = state.CheckpointStorageLocation{Directory: "/checkpoints/chk-5"}
		buffer, err := newCheckpointBarrierBuffer(barrier)
		require.NoError(t, err)
		assert.Equal(t, tc.want, buffer.DataType(), "%s", tc.alignment)
		assert.Equal(t, tc.wantName, buffer.DataType().String())
		assert.Equal(t, tc.wantBlocking, buffer.DataType().isBlockingUpstream())
		assert.False(t, buffer.IsBuffer(), "an event, not records")

		got, err := buffer.checkpointBarrier()
		require.NoError(t, err)
		assert.Equal(t, barrier, got, "the barrier survives its serialization")
	}
}

func TestCheckpointBarrierAndInputChannelInfoPrintAsInFlink(t *testing.T) {
	assert.Equal(t, "CheckpointBarrier 5 @ 1700000000005 Options: CheckpointOptions {checkpointType = Checkpoint, "+
		"targetLocation = (default), alignment = ALIGNED}", newBarrier(5, checkpoint.Aligned).String())
	assert.Equal(t, "InputChannelInfo{gateIdx=0, inputChannelIdx=1}", InputChannelInfo{GateIdx: 0, InputChannelIdx: 1}.String())
}

// A buffer whose bytes are no barrier, or whose data type contradicts its
// barrier's options, is refused: the gate fails rather than block or not
// block by mistake.
func TestCheckpointBarrierRefusesWhatNoProducerWrites(t *testing.T) {
	aligned, err := newCheckpointBarrierBuffer(newBarrier(1, checkpoint.Aligned))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		buffer Buffer
	}{
		{"a data buffer", newSingleRecordBuffer([]byte("a record"))},
		{"no bytes", Buffer{dataType: EventBuffer}},
		{"another event type", Buffer{dataType: EventBuffer, segment: append([]byte{0, 0, 0, 9}, aligned.segment[4:]...)}},
		{"no JSON", Buffer{dataType: EventBuffer, segment: []byte{0, 0, 0, 1, '{'}}},
		{"an aligned barrier as an EVENT_BUFFER", Buffer{dataType: EventBuffer, segment: aligned.segment}},
	} {
		_, err := tc.buffer.checkpointBarrier()
		assert.Error(t, err, tc.name)
	}
}

// The scenario of an exactly-once checkpoint on one channel: the producer
// emits r1, r2, the barrier of checkpoint 1 and r3. The consumer reads r1
// and r2, then the barrier reaches its handler, and r3 does not come: the
// subpartition is blocked, and r3 waits in the producer's queue. Only
// ResumeConsumption lets it through, so this test fails if
// ResumeConsumption does nothing.
func TestAlignedBarrierBlocksTheChannelUntilResumeConsumption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		env := newEnvironment(t, Config{})
		id := newPartitionID(0)
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()
		tr := &trace{}
		gate.SetCheckpointBarrierHandler(0, &recordingHandler{trace: tr})

		// Step 1: the producer emits r1, r2, the barrier, r3.
		require.NoError(t, p.EmitRecord(ctx, testRecord(0, 1), 0))
		require.NoError(t, p.EmitRecord(ctx, testRecord(0, 2), 0))
		require.NoError(t, p.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)))
		require.NoError(t, p.EmitRecord(ctx, testRecord(0, 3), 0))
		require.NoError(t, p.Flush(ctx))

		// Step 2: r1 and r2 come; the barrier waits until they are both
		// returned.
		readRecord(ctx, t, gate, tr)
		readRecord(ctx, t, gate, tr)
		assert.Equal(t, []string{"record 0/1", "record 0/2"}, tr.get())

		// Step 3: the next Next hands the barrier to the handler, then
		// waits: r3 stays at the producer.
		read := readAsync(ctx, t, gate, tr)
		synctest.Wait()
		require.True(t, isBlocked(read), "r3 must not come before ResumeConsumption")
		assert.Equal(t, []string{"record 0/1", "record 0/2", barrierFrom(1, 0, 0)}, tr.get())
		assert.Equal(t, 1, p.BuffersInFlight(), "r3's buffer waits in the producer's queue")

		// Step 4: the task resumes the channel; r3 comes.
		require.NoError(t, gate.ResumeConsumption(0))
		synctest.Wait()
		require.NoError(t, finished(t, read), "ResumeConsumption lets r3 through")
		assert.Equal(t, []string{"record 0/1", "record 0/2", barrierFrom(1, 0, 0), "record 0/3"}, tr.get())

		// Step 5: resuming a channel that is not blocked does nothing; a
		// channel that does not exist is an error.
		require.NoError(t, gate.ResumeConsumption(0))
		assert.Error(t, gate.ResumeConsumption(1))

		// Step 6: the end.
		require.NoError(t, p.Finish(ctx))
		require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)
		assert.Equal(t, []string{"record 0/1", "record 0/2", barrierFrom(1, 0, 0), "record 0/3", endOf(0, 0)}, tr.get())
	})
}

// Alignment blocks one channel, not the gate: while channel 0 waits after
// its barrier, channel 1's records keep coming. Channel 0's producer fills
// its queue and then blocks in EmitRecord: alignment makes backpressure.
// ResumeConsumption releases all of it, in order.
func TestOtherChannelsFlowWhileOneIsBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		const bound, n = 2, 200
		env := newEnvironment(t, Config{BufferSize: 64, BuffersPerSubpartition: bound})
		idA, idB := newPartitionID(0), newPartitionID(1)
		a, err := env.CreateResultPartition(idA, 1)
		require.NoError(t, err)
		b, err := env.CreateResultPartition(idB, 1)
		require.NoError(t, err)
		gate := env.CreateInputGate(gateDescriptor(0, idA, idB))
		defer gate.Close()
		tr := &trace{}
		gate.SetCheckpointBarrierHandler(0, &recordingHandler{trace: tr})

		// Step 1: A emits a0, the barrier, a1; the consumer reads a0.
		require.NoError(t, a.EmitRecord(ctx, testRecord(0, 0), 0))
		require.NoError(t, a.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)))
		require.NoError(t, a.EmitRecord(ctx, testRecord(0, 1), 0))
		require.NoError(t, a.Flush(ctx))
		readRecord(ctx, t, gate, tr)

		// Step 2: B emits b0. Channel 0 is first in line: the gate hands
		// its barrier to the handler, finds it blocked behind it, and
		// returns b0.
		require.NoError(t, b.EmitRecord(ctx, testRecord(1, 0), 0))
		require.NoError(t, b.Flush(ctx))
		readRecord(ctx, t, gate, tr)
		assert.Equal(t, []string{"record 0/0", barrierFrom(1, 0, 0), "record 1/0"}, tr.get(), "a1 stays behind the barrier")

		// Step 3: B's records keep flowing.
		for i := 1; i <= 3; i++ {
			require.NoError(t, b.EmitRecord(ctx, testRecord(1, i), 0))
			require.NoError(t, b.Flush(ctx))
			readRecord(ctx, t, gate, tr)
		}

		// Step 4: A goes on emitting; its queue fills up, and it blocks.
		produced := make(chan error, 1)
		go func() {
			for i := 2; i < n; i++ {
				if err := a.EmitRecord(ctx, testRecord(0, i), 0); err != nil {
					produced <- err
					return
				}
			}
			produced <- a.Finish(ctx)
		}()
		read := readAsync(ctx, t, gate, tr)
		synctest.Wait()
		require.True(t, isBlocked(produced), "A is held back by its blocked consumer")
		assert.Equal(t, bound, a.BuffersInFlight(), "A's queue is full")
		require.True(t, isBlocked(read), "nothing of A comes while its channel is blocked")

		// Step 5: the task resumes channel 0: a1 and everything after it
		// come, in order, and A finishes.
		require.NoError(t, gate.ResumeConsumption(0))
		require.NoError(t, <-read)
		for range n - 2 {
			readRecord(ctx, t, gate, tr)
		}
		require.NoError(t, b.Finish(ctx))
		require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)
		require.NoError(t, <-produced)

		want := []string{"record 0/0", barrierFrom(1, 0, 0), "record 1/0", "record 1/1", "record 1/2", "record 1/3"}
		for i := 1; i < n; i++ {
			want = append(want, fmt.Sprintf("record 0/%d", i))
		}
		got := tr.get()
		require.Len(t, got, len(want)+2)
		assert.Equal(t, want, got[:len(want)])
		assert.ElementsMatch(t, []string{endOf(0, 0), endOf(0, 1)}, got[len(want):])
	})
}

// An at-least-once barrier is an EVENT_BUFFER: the handler gets it in its
// place, and nothing blocks; r3 comes without ResumeConsumption.
func TestAtLeastOnceBarrierBlocksNothing(t *testing.T) {
	ctx := withTimeout(t)
	env := newEnvironment(t, Config{})
	id := newPartitionID(0)
	p, err := env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := env.CreateInputGate(gateDescriptor(0, id))
	defer gate.Close()
	tr := &trace{}
	gate.SetCheckpointBarrierHandler(0, &recordingHandler{trace: tr})

	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 1), 0))
	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 2), 0))
	require.NoError(t, p.BroadcastEvent(ctx, newBarrier(1, checkpoint.AtLeastOnceAlignment)))
	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 3), 0))
	require.NoError(t, p.Finish(ctx))

	require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)
	assert.Equal(t, []string{"record 0/1", "record 0/2", barrierFrom(1, 0, 0), "record 0/3", endOf(0, 0)}, tr.get())
}

// The scenario of TestOtherChannelsFlowWhileOneIsBlocked between two
// processes: the barrier travels in a BufferResponse, the server stops
// sending channel 0 after it, channel 1 goes on over the same connection,
// and ResumeConsumption crosses the connection to start channel 0 again.
// Credit still works after the resume: the rest of A's records, many
// buffers, arrive within the credit bound.
func TestRemoteAlignedBarrierBlocksUntilResumeConsumption(t *testing.T) {
	ctx := withTimeout(t)
	const bound, n = 2, 2_000
	cfg := Config{BufferSize: 64, BuffersPerSubpartition: bound}
	producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
	idA, idB := newPartitionID(0), newPartitionID(1)
	a, err := producerProcess.env.CreateResultPartition(idA, 1)
	require.NoError(t, err)
	b, err := producerProcess.env.CreateResultPartition(idB, 1)
	require.NoError(t, err)
	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), idA, idB))
	defer gate.Close()
	tr := &trace{}
	gate.SetCheckpointBarrierHandler(0, &recordingHandler{trace: tr})

	// Step 1: A emits a0, the barrier, a1; the consumer reads a0.
	require.NoError(t, a.EmitRecord(ctx, testRecord(0, 0), 0))
	require.NoError(t, a.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)))
	require.NoError(t, a.EmitRecord(ctx, testRecord(0, 1), 0))
	require.NoError(t, a.Flush(ctx))
	readRecord(ctx, t, gate, tr)

	// Step 2: B emits records, one at a time, and the consumer reads each.
	// The server takes its channels' readers in turn, so A's barrier comes
	// after at most one of B's records: B's reader may be in line ahead of
	// A's once, never twice.
	for i := 0; !slices.Contains(tr.get(), barrierFrom(1, 0, 0)); i++ {
		require.Less(t, i, 2, "the barrier came after at most one of B's records: %q", tr.get())
		require.NoError(t, b.EmitRecord(ctx, testRecord(1, i), 0))
		require.NoError(t, b.Flush(ctx))
		readRecord(ctx, t, gate, tr)
	}

	// Step 3: A's subpartition is blocked: a1 waits at the producer,
	// although channel 0 has credit for it, while B's records keep
	// flowing over the same connection.
	assertHeldBack := func() {
		t.Helper()
		assert.True(t, isBlockedByBarrier(a, 0), "the server handed out the barrier: the subpartition is blocked")
		assert.Equal(t, 1, a.BuffersInFlight(), "a1's buffer waits at the producer")
		received, _ := remoteChannel(t, gate, 0).buffersReceived()
		assert.Zero(t, received, "nothing of A after the barrier reached the consumer")
	}
	assertHeldBack()
	for i := len(tr.get()) - 2; i < 5; i++ {
		require.NoError(t, b.EmitRecord(ctx, testRecord(1, i), 0))
		require.NoError(t, b.Flush(ctx))
		readRecord(ctx, t, gate, tr)
	}
	assertHeldBack()
	assert.Equal(t, 1, consumerProcess.env.clients.numberOfClients(), "one connection for both channels")

	// Step 4: the task resumes channel 0; a1 comes, and then the rest of
	// A, many buffers, within the credit. (If ResumeConsumption did
	// nothing, a1 would never come, and Next would fail at ctx's deadline.)
	require.NoError(t, gate.ResumeConsumption(0))
	readRecord(ctx, t, gate, tr)
	assert.Equal(t, "record 0/1", tr.get()[len(tr.get())-1])
	produced := make(chan error, 1)
	go func() { produced <- produceFrom(ctx, a, 0, 2, n) }()
	for range n - 2 {
		readRecord(ctx, t, gate, tr)
	}
	require.NoError(t, receive(ctx, t, produced))
	require.NoError(t, b.Finish(ctx))
	require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)

	// Every record once, each producer's in order, A's barrier between a0
	// and a1, and both ends last.
	got := tr.get()
	var wantA, gotA, wantB, gotB []string
	for i := range n {
		wantA = append(wantA, fmt.Sprintf("record 0/%d", i))
	}
	for i := range 5 {
		wantB = append(wantB, fmt.Sprintf("record 1/%d", i))
	}
	for _, line := range got {
		switch {
		case strings.HasPrefix(line, "record 0/"):
			gotA = append(gotA, line)
		case strings.HasPrefix(line, "record 1/"):
			gotB = append(gotB, line)
		}
	}
	assert.Equal(t, wantA, gotA)
	assert.Equal(t, wantB, gotB)
	barrier := slices.Index(got, barrierFrom(1, 0, 0))
	assert.Less(t, slices.Index(got, "record 0/0"), barrier)
	assert.Less(t, barrier, slices.Index(got, "record 0/1"))
	assert.ElementsMatch(t, []string{endOf(0, 0), endOf(0, 1)}, got[len(got)-2:])
	_, maxReceived := remoteChannel(t, gate, 0).buffersReceived()
	assert.LessOrEqual(t, maxReceived, bound, "the consumer's credit held after the resume")
	assert.LessOrEqual(t, a.MaxBuffersInFlight(), bound)
}

// isBlockedByBarrier reports whether subpartition index of p is blocked
// by an aligned checkpoint barrier it handed out.
func isBlockedByBarrier(p *ResultPartition, index int) bool {
	s, err := p.subpartition(index)
	if err != nil {
		return false
	}
	pipelined := s.(*pipelinedSubpartition)
	pipelined.mu.Lock()
	defer pipelined.mu.Unlock()
	return pipelined.isBlocked
}

// produceFrom emits testRecord(producer, i) for i in [from, to) to
// subpartition 0, then finishes the partition.
func produceFrom(ctx context.Context, p *ResultPartition, producer, from, to int) error {
	for i := from; i < to; i++ {
		if err := p.EmitRecord(ctx, testRecord(producer, i), 0); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return p.Finish(ctx)
}

// An at-least-once barrier crosses the connection without credit and
// without blocking anything.
func TestRemoteAtLeastOnceBarrierBlocksNothing(t *testing.T) {
	ctx := withTimeout(t)
	producerProcess, consumerProcess := newProcess(t, Config{}), newProcess(t, Config{})
	id := newPartitionID(0)
	p, err := producerProcess.env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
	defer gate.Close()
	tr := &trace{}
	gate.SetCheckpointBarrierHandler(0, &recordingHandler{trace: tr})

	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 1), 0))
	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 2), 0))
	require.NoError(t, p.BroadcastEvent(ctx, newBarrier(1, checkpoint.AtLeastOnceAlignment)))
	require.NoError(t, p.EmitRecord(ctx, testRecord(0, 3), 0))
	require.NoError(t, p.Finish(ctx))

	require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)
	assert.Equal(t, []string{"record 0/1", "record 0/2", barrierFrom(1, 0, 0), "record 0/3", endOf(0, 0)}, tr.get())
}

// A union of two gates: each gate hands its barriers to the handler under
// its own gateIdx. The handler aligns as a task would: once it has the
// barrier from both gates it resumes both, from inside ProcessBarrier. No
// record emitted after a barrier is read before both barriers are in,
// and nothing is lost or reordered.
func TestUnionInputGateHandsEachGatesBarriersToTheHandler(t *testing.T) {
	ctx := withTimeout(t)
	env := newEnvironment(t, Config{})
	ids := []api.ResultPartitionID{newPartitionID(1), newPartitionID(2)}
	var gates []*InputGate
	for _, id := range ids {
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		producer := id.PartitionID.PartitionNum
		require.NoError(t, p.EmitRecord(ctx, testRecord(producer, 0), 0))
		require.NoError(t, p.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)))
		require.NoError(t, p.EmitRecord(ctx, testRecord(producer, 1), 0))
		require.NoError(t, p.Finish(ctx))
		gate := env.CreateInputGate(gateDescriptor(0, id))
		defer gate.Close()
		gates = append(gates, gate)
	}

	tr := &trace{}
	var blocked []InputChannelInfo
	handler := &recordingHandler{trace: tr, onBarrier: func(_ CheckpointBarrier, channel InputChannelInfo) error {
		blocked = append(blocked, channel)
		if len(blocked) < len(gates) {
			return nil // not aligned yet
		}
		tr.add("aligned")
		for _, c := range blocked {
			if err := gates[c.GateIdx].ResumeConsumption(c.InputChannelIdx); err != nil {
				return err
			}
		}
		blocked = nil
		return nil
	}}
	for i, gate := range gates {
		gate.SetCheckpointBarrierHandler(i, handler)
	}

	union := NewUnionInputGate(gates...)
	require.ErrorIs(t, readToEnd(ctx, t, union, tr), io.EOF)

	got := tr.get()
	aligned := slices.Index(got, "aligned")
	require.Positive(t, aligned, "the handler aligned: %q", got)
	assert.ElementsMatch(t, []string{"record 1/0", "record 2/0", barrierFrom(1, 0, 0), barrierFrom(1, 1, 0)}, got[:aligned],
		"before the alignment: the records before the barriers, and each gate's barrier under its own index")
	assert.ElementsMatch(t, []string{"record 1/1", "record 2/1", endOf(0, 0), endOf(1, 0)}, got[aligned+1:],
		"after it: the records after the barriers, and each channel's end")
	for _, producer := range []int{1, 2} {
		before := slices.Index(got, fmt.Sprintf("record %d/0", producer))
		barrier := slices.Index(got, barrierFrom(1, producer-1, 0))
		assert.Less(t, before, barrier, "gate %d's record before its barrier", producer-1)
	}
}

// Every channel's EndOfPartition event reaches the handler once, before
// Next returns io.EOF; a Next after the end calls it no more.
func TestEndOfPartitionIsHandedToTheHandlerOncePerChannel(t *testing.T) {
	ctx := withTimeout(t)
	env := newEnvironment(t, Config{})
	ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1), newPartitionID(2)}
	for i, id := range ids {
		p, err := env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		require.NoError(t, produce(ctx, p, i, 1, func(int) int { return 0 }))
	}
	gate := env.CreateInputGate(gateDescriptor(0, ids...))
	defer gate.Close()
	tr := &trace{}
	gate.SetCheckpointBarrierHandler(3, &recordingHandler{trace: tr})

	require.ErrorIs(t, readToEnd(ctx, t, gate, tr), io.EOF)
	var ends []string
	for _, line := range tr.get() {
		if !slices.Contains([]string{"record 0/0", "record 1/0", "record 2/0"}, line) {
			ends = append(ends, line)
		}
	}
	assert.ElementsMatch(t, []string{endOf(3, 0), endOf(3, 1), endOf(3, 2)}, ends)
	_, err := gate.Next(ctx)
	assert.ErrorIs(t, err, io.EOF)
	assert.Len(t, tr.get(), 6, "no call after the end")
}

// A barrier is never lost silently: a gate without a handler fails, and
// so does one whose handler fails. Either error is final.
func TestABarrierTheTaskCannotHandleFailsNext(t *testing.T) {
	errDeclined := errors.New("checkpoint declined")
	for _, tc := range []struct {
		name    string
		handler CheckpointBarrierHandler
		wantErr error
	}{
		{"no handler", nil, ErrNoCheckpointBarrierHandler},
		{"the handler fails", &recordingHandler{trace: &trace{}, err: errDeclined}, errDeclined},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := withTimeout(t)
			env := newEnvironment(t, Config{})
			id := newPartitionID(0)
			p, err := env.CreateResultPartition(id, 1)
			require.NoError(t, err)
			gate := env.CreateInputGate(gateDescriptor(0, id))
			defer gate.Close()
			if tc.handler != nil {
				gate.SetCheckpointBarrierHandler(0, tc.handler)
			}
			require.NoError(t, p.EmitRecord(ctx, testRecord(0, 0), 0))
			require.NoError(t, p.BroadcastEvent(ctx, newBarrier(7, checkpoint.Aligned)))
			require.NoError(t, p.Finish(ctx))

			record, err := gate.Next(ctx)
			require.NoError(t, err, "the record before the barrier comes first")
			assert.Equal(t, testRecord(0, 0), record)
			_, err = gate.Next(ctx)
			assert.ErrorIs(t, err, tc.wantErr)
			assert.ErrorContains(t, err, "CheckpointBarrier 7 @ ")
			_, err = gate.Next(ctx)
			assert.ErrorIs(t, err, tc.wantErr, "the failure is final")
		})
	}
}

// Checkpoints are for streaming: a BLOCKING partition takes no barrier,
// and a finished one takes nothing at all.
func TestBroadcastEventNeedsAPipelinedPartitionInProduction(t *testing.T) {
	ctx := withTimeout(t)
	env := newEnvironment(t, Config{TmpDir: t.TempDir()})
	blocking := createBlockingPartition(t, env, newPartitionID(0), 2)
	defer blocking.Release()
	require.NoError(t, blocking.EmitRecord(ctx, testRecord(0, 0), 0))
	err := blocking.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned))
	assert.ErrorIs(t, err, ErrPartitionNotPipelined)
	assert.ErrorContains(t, err, "BLOCKING")

	pipelined, err := env.CreateResultPartition(newPartitionID(1), 1)
	require.NoError(t, err)
	defer pipelined.Release()
	require.NoError(t, pipelined.Finish(ctx))
	assert.ErrorIs(t, pipelined.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)), ErrPartitionFinished)
}

// BroadcastEvent honours ctx while its flush waits for a full queue, as
// EmitRecord does, and adds no barrier then.
func TestBroadcastEventWaitsAsFlushWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newEnvironment(t, Config{BuffersPerSubpartition: 1})
		p, err := env.CreateResultPartition(newPartitionID(0), 1)
		require.NoError(t, err)
		defer p.Release()

		ctx, cancel := context.WithCancel(t.Context())
		require.NoError(t, p.EmitRecord(ctx, []byte("one"), 0))
		require.NoError(t, p.Flush(ctx)) // fills the queue
		require.NoError(t, p.EmitRecord(ctx, []byte("two"), 0))

		broadcast := make(chan error, 1)
		go func() { broadcast <- p.BroadcastEvent(ctx, newBarrier(1, checkpoint.Aligned)) }()
		synctest.Wait()
		require.True(t, isBlocked(broadcast), "the flush before the barrier waits for room")

		cancel()
		assert.ErrorIs(t, <-broadcast, context.Canceled)
	})
}
