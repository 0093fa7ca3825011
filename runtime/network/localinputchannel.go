package network

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
)

// localInputChannel reads one subpartition of one partition that lives in
// this process, straight from its queue: no copy, no network. It mirrors
// Flink's LocalInputChannel. (Flink also has a RemoteInputChannel that
// receives buffers over Netty, and a credit for each buffer it can take;
// flinklab has only the local kind so far.)
//
// The InputGate makes its channels in RequestPartitions. Its reading
// goroutine requests and polls the channel; the producer's goroutine calls
// notifyDataAvailable.
type localInputChannel struct {
	inputGate    *InputGate
	channelIndex int // also the index of its partition's shuffle descriptor

	// view is set once by requestSubpartition, under inputGate.mu so that
	// Close sees it.
	view *pipelinedSubpartitionView

	// isQueued says the channel is in the gate's inputChannelsWithData.
	// Guarded by inputGate.mu.
	isQueued bool
}

// partitionID returns the ID of the partition the channel reads, from the
// gate's shared shuffle descriptors rather than a copy of its own.
func (c *localInputChannel) partitionID() api.ResultPartitionID {
	return c.inputGate.shuffleDescriptors[c.channelIndex].ResultPartitionID
}

// requestSubpartition asks the ResultPartitionManager for the gate's
// subpartition of the channel's partition, waiting until the producer has
// registered it. Flink: LocalInputChannel.requestSubpartition.
func (c *localInputChannel) requestSubpartition(ctx context.Context) error {
	g := c.inputGate
	view, err := g.partitionManager.createSubpartitionView(ctx, c.partitionID(), g.consumedSubpartitionIndex, c)
	if err != nil {
		return fmt.Errorf("input channel %d: request subpartition %d: %w", c.channelIndex, g.consumedSubpartitionIndex, err)
	}

	g.mu.Lock()
	closed := g.isClosed
	if !closed {
		c.view = view
	}
	g.mu.Unlock()
	if closed {
		view.releaseAllResources() // Close ran while we waited; do not leak the view
		return ErrInputGateClosed
	}
	return nil
}

// getNextBuffer takes the next buffer from the subpartition, if one is
// queued. Flink: InputChannel.getNextBuffer.
func (c *localInputChannel) getNextBuffer() (bufferAndAvailability, bool, error) {
	return c.view.getNextBuffer()
}

// notifyDataAvailable is called by the subpartition when its queue stops
// being empty: the channel joins the gate's queue of channels with data.
func (c *localInputChannel) notifyDataAvailable() { c.inputGate.queueChannel(c) }

var _ bufferAvailabilityListener = (*localInputChannel)(nil)
