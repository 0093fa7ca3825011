package network

import (
	"context"
	"fmt"
	"io"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// inputChannel is one channel of an InputGate: it reads one subpartition
// of one producer's partition. It mirrors Flink's abstract InputChannel;
// localInputChannel reads a partition of this process, remoteInputChannel
// one of another process, over TCP. The gate chooses per channel, from the
// partition's shuffle descriptor (see InputGate.createInputChannels).
type inputChannel interface {
	// base returns the part every channel has: its gate and its index.
	base() *inputChannelBase
	// requestSubpartition attaches the channel to its subpartition. The
	// gate's reading goroutine calls it once, and again only after it
	// failed; it may wait (bounded by ctx) for a local producer to
	// register or a connection to open.
	requestSubpartition(ctx context.Context) error
	// getNextBuffer takes the next buffer, if one is there; ok is false
	// when there is none yet. An error is final.
	getNextBuffer() (next bufferAndAvailability, ok bool, err error)
	// releaseAllResources is the gate closing: the channel lets go of its
	// subpartition, so that its producer is not blocked by it any more.
	releaseAllResources()
	// resumeConsumption unblocks the channel's subpartition after an
	// aligned checkpoint barrier: directly for a local channel, by a
	// ResumeConsumption message to the producer's server for a remote
	// one. The gate calls it with none of its locks held. Flink:
	// InputChannel.resumeConsumption.
	resumeConsumption() error
}

// inputChannelBase is what every input channel has, whatever its kind.
// Flink: the fields of InputChannel.
type inputChannelBase struct {
	inputGate    *InputGate
	channelIndex int // also the index of its partition's shuffle descriptor

	// isQueued says the channel is in the gate's inputChannelsWithData.
	// Guarded by inputGate.mu.
	isQueued bool
	// isBlockedByBarrier says the gate handed an aligned checkpoint
	// barrier of this channel to its CheckpointBarrierHandler, and the
	// task has not resumed the channel since: its subpartition sends
	// nothing. Guarded by inputGate.mu.
	isBlockedByBarrier bool
}

func (c *inputChannelBase) base() *inputChannelBase { return c }

// partitionID returns the ID of the partition the channel reads, from the
// gate's shared shuffle descriptors rather than a copy of its own.
func (c *inputChannelBase) partitionID() api.ResultPartitionID {
	return c.inputGate.shuffleDescriptors[c.channelIndex].ResultPartitionID
}

// InputGate is a consumer task's input from one upstream data set: one
// input channel per producer subtask, each reading the same subpartition
// index (the consumer's subtask index) of its producer's partition. It
// mirrors Flink's SingleInputGate, and additionally deserializes records,
// which in Flink the task's StreamTaskNetworkInput does.
//
// Next, RequestPartitions and SetCheckpointBarrierHandler belong to the
// consuming task's goroutine. NumberOfInputChannels, ResumeConsumption and
// Close may be called from any goroutine (ResumeConsumption also from
// inside the CheckpointBarrierHandler, on the reading goroutine).
//
// Channels are read fairly, one buffer at a time: a channel with data waits
// in inputChannelsWithData, and after one of its buffers has been read it
// goes to the back of that queue if it has more. A fast producer cannot
// starve a slow one.
//
// Creating a gate costs the same whatever its number of channels: it keeps
// the deployment descriptor's list of partitions, shared with every other
// consumer of the same partitions, and makes its channels when it first
// requests the partitions.
//
// A channel reads in-process when its partition's shuffle descriptor names
// no DataAddress, or the environment's own (Config.DataAddress), and over
// TCP from the PartitionRequestServer at DataAddress otherwise. The reader
// sees no difference: the same records, the same errors, the same
// backpressure.
type InputGate struct {
	consumedSubpartitionIndex int
	// shuffleDescriptors names the consumed partitions, one per channel, in
	// channel order. It is the deployment descriptor's slice, which the
	// scheduler shares between all consumers of one ConsumedPartitionGroup:
	// it is only read, never copied or changed.
	shuffleDescriptors []gateway.ShuffleDescriptor
	env                *ShuffleEnvironment

	// channels is nil until RequestPartitions makes all of them at once,
	// one per shuffle descriptor (the local ones in one allocation). It is
	// set under mu so that Close sees it; only the reading goroutine sets
	// it, so that goroutine may read it without mu.
	channels []inputChannel

	// Owned by the reading goroutine.
	requestedPartitions      bool
	requestedChannels        int // channels[:requestedChannels] are requested
	deserializer             recordDeserializer
	numberOfFinishedChannels int
	err                      error // a channel's error; every later Next returns it
	// barrierHandler receives the channels' checkpoint barriers and
	// EndOfPartition events, naming the gate gateIdx; nil until
	// SetCheckpointBarrierHandler.
	barrierHandler CheckpointBarrierHandler
	gateIdx        int

	// dataAvailable holds a token when a channel was queued; the reader
	// waits on it when inputChannelsWithData is empty.
	dataAvailable chan struct{}
	// closed is done when Close is called; it wakes a waiting reader.
	closed      context.Context
	closeCancel context.CancelFunc

	mu                    sync.Mutex
	inputChannelsWithData []inputChannel // FIFO; each channel at most once; grows as channels get data
	isClosed              bool
	// unionAvailable, for a gate read through a UnionInputGate, is the
	// union's token: queueing a channel wakes the union's reader too.
	unionAvailable chan struct{}
}

func newInputGate(env *ShuffleEnvironment, gdd gateway.InputGateDeploymentDescriptor) *InputGate {
	closed, closeCancel := context.WithCancel(context.Background())
	return &InputGate{
		consumedSubpartitionIndex: gdd.ConsumedSubpartitionIndex,
		shuffleDescriptors:        gdd.ShuffleDescriptors,
		env:                       env,
		dataAvailable:             make(chan struct{}, 1),
		closed:                    closed,
		closeCancel:               closeCancel,
	}
}

// NumberOfInputChannels returns how many channels (producer partitions)
// the gate reads.
func (g *InputGate) NumberOfInputChannels() int { return len(g.shuffleDescriptors) }

// Next returns the next record, blocking until one arrives. It returns
// io.EOF once every channel has delivered its EndOfPartition event, ctx.Err()
// if ctx ends while it waits, ErrInputGateClosed after Close, and the
// producer's error (ErrProducerFailed or ErrPartitionReleased) if a partition
// it reads fails or is released. A channel's error is final.
//
// Records from one channel come in the order they were emitted; records of
// different channels interleave buffer by buffer. Events are not returned:
// a checkpoint barrier goes to the CheckpointBarrierHandler, from inside
// Next, once every record its channel sent before it has been returned
// (ErrNoCheckpointBarrierHandler if the gate has none), and so does each
// channel's EndOfPartition event. A channel blocked by an aligned barrier
// delivers nothing until ResumeConsumption; Next meanwhile returns the
// other channels' records, or waits for them. The returned slice aliases
// the buffer it came in, whose memory is never reused: it stays valid and
// unchanged for as long as the caller keeps it. Its capacity equals its
// length, so appending to it copies.
//
// The first call requests the partitions (see RequestPartitions).
func (g *InputGate) Next(ctx context.Context) ([]byte, error) {
	for {
		// The hot path: one more record of the current buffer.
		if record, ok := g.deserializer.nextRecord(); ok {
			return record, nil
		}
		// Once per buffer: fetch the next one.
		if _, err := g.nextBufferOrEvent(ctx, true); err != nil {
			return nil, err
		}
	}
}

// RequestPartitions makes the gate's input channels and attaches each to
// its producer's subpartition: a local channel waits for a producer that
// has not registered yet, until ctx ends or the gate is closed; a remote
// one connects to its producer's process and sends its request, whose
// answer comes later (a partition not registered there yet is asked for
// again, with backoff). Next calls it on first use; a task may call it
// earlier. A call interrupted by ctx may be repeated and continues where
// it stopped. Flink: SingleInputGate.requestPartitions.
func (g *InputGate) RequestPartitions(ctx context.Context) error {
	if g.requestedPartitions {
		return nil
	}
	// Close must wake a request that waits for an unregistered producer.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(g.closed, cancel)
	defer stop()

	if g.channels == nil {
		g.createInputChannels()
	}
	// Channels before requestedChannels were requested by an earlier call.
	for ; g.requestedChannels < len(g.channels); g.requestedChannels++ {
		if err := g.channels[g.requestedChannels].requestSubpartition(ctx); err != nil {
			if g.closed.Err() != nil {
				return ErrInputGateClosed
			}
			return err
		}
	}
	g.requestedPartitions = true
	return nil
}

// createInputChannels makes one channel per consumed partition: a
// localInputChannel for a partition of this process, all of those in one
// slice, and a remoteInputChannel for a partition of another. Flink's
// SingleInputGateFactory decides the same way, from the
// NettyShuffleDescriptor: local if the producer runs in this TaskExecutor,
// remote (with the producer's ConnectionID) otherwise. Differs from Flink:
// Flink creates the channels with the gate; here a task that never reads
// its input never pays for them.
func (g *InputGate) createInputChannels() {
	numberOfLocal := 0
	for _, d := range g.shuffleDescriptors {
		if g.env.isLocal(d) {
			numberOfLocal++
		}
	}
	channels := make([]inputChannel, len(g.shuffleDescriptors))
	locals := make([]localInputChannel, numberOfLocal)
	for i, d := range g.shuffleDescriptors {
		if g.env.isLocal(d) {
			local := &locals[0]
			locals = locals[1:]
			local.inputChannelBase = inputChannelBase{inputGate: g, channelIndex: i}
			channels[i] = local
		} else {
			channels[i] = newRemoteInputChannel(g, i, d.DataAddress)
		}
	}
	g.mu.Lock()
	g.channels = channels
	g.mu.Unlock()
}

// pollNext is Next without waiting, for a UnionInputGate: ok is false when
// no channel has data yet.
func (g *InputGate) pollNext(ctx context.Context) (record []byte, ok bool, err error) {
	for {
		if record, ok := g.deserializer.nextRecord(); ok {
			return record, true, nil
		}
		got, err := g.nextBufferOrEvent(ctx, false)
		if err != nil || !got {
			return nil, false, err
		}
	}
}

// nextBufferOrEvent fetches the next data buffer and hands it to the
// deserializer, reporting true. Events are handled on the way: checkpoint
// barriers go to the CheckpointBarrierHandler, EndOfPartition events are
// counted (and go to the handler too); when the last channel has ended it
// returns io.EOF. The caller has drained the deserializer, so an event
// comes after every record of the buffers before it. With wait set it
// waits for a channel with data (Flink: SingleInputGate.getNextBufferOrEvent);
// without, it reports false when there is none (Flink: pollNext).
func (g *InputGate) nextBufferOrEvent(ctx context.Context, wait bool) (bool, error) {
	if g.err != nil {
		return false, g.err
	}
	if g.closed.Err() != nil {
		return false, ErrInputGateClosed
	}
	if err := g.RequestPartitions(ctx); err != nil {
		return false, err
	}
	for g.numberOfFinishedChannels < len(g.channels) {
		channel := g.pollChannelWithData()
		if channel == nil && !wait {
			return false, nil
		}
		if channel == nil {
			var err error
			if channel, err = g.waitForChannelWithData(ctx); err != nil {
				return false, err
			}
		}
		next, ok, err := channel.getNextBuffer()
		if err != nil {
			base := channel.base()
			g.err = fmt.Errorf("input channel %d (partition %s): %w", base.channelIndex, base.partitionID(), err)
			return false, g.err
		}
		if !ok {
			continue // woken for a buffer another poll already took
		}
		if next.moreAvailable {
			g.queueChannel(channel) // to the back of the line: fairness
		}
		switch next.buffer.DataType() {
		case DataBuffer:
			g.deserializer.setNextBuffer(next.buffer)
			return true, nil
		case EventBuffer, AlignedCheckpointBarrier:
			// The deserializer is empty: every record the channel sent
			// before the barrier has been returned.
			if err := g.processBarrier(channel, next.buffer); err != nil {
				g.err = err
				return false, err
			}
		case EndOfPartitionEvent:
			g.numberOfFinishedChannels++
			if err := g.processEndOfPartition(channel); err != nil {
				g.err = err
				return false, err
			}
		}
	}
	return false, io.EOF
}

// SetCheckpointBarrierHandler makes the gate hand the checkpoint barriers
// its channels deliver, and their EndOfPartition events, to h, naming
// itself gateIdx in the InputChannelInfos: the gate's index among the
// task's input gates. Call it before the first Next. Flink: the task wraps
// each gate in a CheckpointedInputGate with the task's one
// CheckpointBarrierHandler.
func (g *InputGate) SetCheckpointBarrierHandler(gateIdx int, h CheckpointBarrierHandler) {
	g.gateIdx, g.barrierHandler = gateIdx, h
}

// processBarrier hands a checkpoint barrier to the handler. An aligned one
// has blocked its channel's subpartition already (it blocks as it is
// handed out), so the channel is marked blocked first: the handler may
// resume it at once. Flink: CheckpointedInputGate.handleEvent →
// CheckpointBarrierHandler.processBarrier.
func (g *InputGate) processBarrier(channel inputChannel, buffer Buffer) error {
	base := channel.base()
	barrier, err := buffer.checkpointBarrier()
	if err != nil {
		return fmt.Errorf("input channel %d (partition %s): %w", base.channelIndex, base.partitionID(), err)
	}
	if g.barrierHandler == nil {
		return fmt.Errorf("input channel %d (partition %s): %s: %w", base.channelIndex, base.partitionID(), barrier, ErrNoCheckpointBarrierHandler)
	}
	if buffer.DataType().isBlockingUpstream() {
		g.mu.Lock()
		base.isBlockedByBarrier = true
		g.mu.Unlock()
	}
	info := InputChannelInfo{GateIdx: g.gateIdx, InputChannelIdx: base.channelIndex}
	if err := g.barrierHandler.ProcessBarrier(barrier, info); err != nil {
		return fmt.Errorf("process %s from %s: %w", barrier, info, err)
	}
	return nil
}

// processEndOfPartition tells the handler, if there is one, that the
// channel has ended: it sends no barrier any more. Flink:
// CheckpointBarrierHandler.processEndOfPartition.
func (g *InputGate) processEndOfPartition(channel inputChannel) error {
	if g.barrierHandler == nil {
		return nil
	}
	info := InputChannelInfo{GateIdx: g.gateIdx, InputChannelIdx: channel.base().channelIndex}
	if err := g.barrierHandler.ProcessEndOfPartition(info); err != nil {
		return fmt.Errorf("process the end of partition of %s: %w", info, err)
	}
	return nil
}

// ResumeConsumption unblocks channel channelIdx after an aligned
// checkpoint barrier: the task has the barrier on every channel
// (alignment is complete), or gave the checkpoint up. A local channel
// resumes its subpartition directly; a remote one sends ResumeConsumption
// to its producer's PartitionRequestServer, which resumes it there and
// sends again. The channel's records then flow as before, with the credit
// it had. Flink: CheckpointableInput.resumeConsumption →
// InputChannel.resumeConsumption.
//
// Resuming a channel that is not blocked (no aligned barrier came from it
// since the last resume) does nothing, and so does any call after Close,
// whose channels are released. It may be called from any goroutine, and
// from inside CheckpointBarrierHandler.ProcessBarrier. An error means the
// message could not be sent (the connection broke, which Next reports
// too) or channelIdx is out of range.
func (g *InputGate) ResumeConsumption(channelIdx int) error {
	g.mu.Lock()
	if channelIdx < 0 || channelIdx >= len(g.shuffleDescriptors) {
		g.mu.Unlock()
		return fmt.Errorf("resume consumption: the gate has no input channel %d (it has %d)", channelIdx, len(g.shuffleDescriptors))
	}
	if g.isClosed || g.channels == nil || !g.channels[channelIdx].base().isBlockedByBarrier {
		g.mu.Unlock()
		return nil
	}
	channel := g.channels[channelIdx]
	channel.base().isBlockedByBarrier = false
	g.mu.Unlock()

	// Outside mu: resuming takes a subpartition's or a remote channel's
	// lock, which come before the gate's in the lock order.
	if err := channel.resumeConsumption(); err != nil {
		return fmt.Errorf("input channel %d (partition %s): resume consumption: %w", channelIdx, channel.base().partitionID(), err)
	}
	return nil
}

// pollChannelWithData takes the first channel from inputChannelsWithData,
// or returns nil when there is none.
func (g *InputGate) pollChannelWithData() inputChannel {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.inputChannelsWithData) == 0 {
		return nil
	}
	channel := g.inputChannelsWithData[0]
	copy(g.inputChannelsWithData, g.inputChannelsWithData[1:])
	g.inputChannelsWithData[len(g.inputChannelsWithData)-1] = nil
	g.inputChannelsWithData = g.inputChannelsWithData[:len(g.inputChannelsWithData)-1]
	channel.base().isQueued = false
	return channel
}

// waitForChannelWithData takes the first channel from inputChannelsWithData,
// waiting while there is none.
func (g *InputGate) waitForChannelWithData(ctx context.Context) (inputChannel, error) {
	for {
		if channel := g.pollChannelWithData(); channel != nil {
			return channel, nil
		}
		select {
		case <-g.dataAvailable:
		case <-g.closed.Done():
			return nil, ErrInputGateClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// queueChannel puts a channel with data at the back of
// inputChannelsWithData, unless it is there already, and wakes the reader.
// Flink: SingleInputGate.queueChannel.
func (g *InputGate) queueChannel(channel inputChannel) {
	g.mu.Lock()
	if g.isClosed || channel.base().isQueued {
		g.mu.Unlock()
		return
	}
	channel.base().isQueued = true
	g.inputChannelsWithData = append(g.inputChannelsWithData, channel)
	union := g.unionAvailable
	g.mu.Unlock()

	for _, available := range []chan struct{}{g.dataAvailable, union} {
		select {
		case available <- struct{}{}:
		default: // the reader has a token already (or there is no union)
		}
	}
}

// Close releases every subpartition the gate reads. A producer whose
// consumer closed early is not blocked by it any more: the rest of its data
// for this consumer is dropped. A remote channel tells its producer's
// server so (CancelPartitionRequest), and the last channel on a connection
// closes it. A Next or RequestPartitions waiting on
// another goroutine returns ErrInputGateClosed. Close is idempotent.
func (g *InputGate) Close() {
	g.mu.Lock()
	if g.isClosed {
		g.mu.Unlock()
		return
	}
	g.isClosed = true
	channels := g.channels
	clear(g.inputChannelsWithData)
	g.inputChannelsWithData = g.inputChannelsWithData[:0]
	union := g.unionAvailable
	g.mu.Unlock()

	g.closeCancel()
	select {
	case union <- struct{}{}: // a union's reader wakes and finds the gate closed
	default:
	}
	// The channels are released outside mu: releasing takes a
	// subpartition's or a remote channel's lock, which comes before the
	// gate's in the lock order.
	for _, channel := range channels {
		channel.releaseAllResources()
	}
}
