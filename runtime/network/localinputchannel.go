package network

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// localInputChannel reads one subpartition of one partition that lives in
// this process, straight from its queue: no copy, no network. It mirrors
// Flink's LocalInputChannel. Its counterpart for a partition in another
// process is remoteInputChannel.
//
// The InputGate makes its channels in RequestPartitions. Its reading
// goroutine requests and polls the channel; the producer's goroutine calls
// notifyDataAvailable.
type localInputChannel struct {
	inputChannelBase

	// view is set once by requestSubpartition, under inputGate.mu so that
	// Close sees it.
	view resultSubpartitionView
}

// requestSubpartition asks the ResultPartitionManager for the gate's
// subpartition of the channel's partition, waiting until the producer has
// registered it, but no longer than a remote channel would retry: a
// partition that is not there by then is gone (its TaskExecutor was lost
// and released it), and the channel fails with ErrPartitionNotFound, as
// Flink's does once its backoff is used up. Flink:
// LocalInputChannel.requestSubpartition.
func (c *localInputChannel) requestSubpartition(ctx context.Context) error {
	g := c.inputGate
	cfg := g.env.cfg
	waitCtx, cancel := context.WithTimeout(ctx, totalBackoff(cfg.RequestBackoffInitial, cfg.RequestBackoffMax))
	defer cancel()
	view, err := cfg.PartitionManager.createSubpartitionView(waitCtx, c.partitionID(), g.consumedSubpartitionIndex, c)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = partitionNotFound(c.partitionID())
	}
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

// releaseAllResources detaches the channel from its subpartition. The gate
// calls it from Close, after which no view is set any more, so view may be
// read without the gate's mu.
func (c *localInputChannel) releaseAllResources() {
	if c.view != nil {
		c.view.releaseAllResources()
	}
}

// resumeConsumption unblocks the subpartition after an aligned checkpoint
// barrier; if data waits there, the subpartition queues the channel at
// once. The gate calls it only for a channel that delivered such a
// barrier, so the view is set. Flink: LocalInputChannel.resumeConsumption.
func (c *localInputChannel) resumeConsumption() error {
	c.view.resumeConsumption()
	return nil
}

// notifyDataAvailable is called by the subpartition when its queue stops
// being empty: the channel joins the gate's queue of channels with data.
func (c *localInputChannel) notifyDataAvailable() { c.inputGate.queueChannel(c) }

var (
	_ bufferAvailabilityListener = (*localInputChannel)(nil)
	_ inputChannel               = (*localInputChannel)(nil)
)

// totalBackoff is how long a remote channel asks for a partition that is
// not found before it gives up: the sum of its backoffs (increaseBackoff),
// 22.7 s with Flink's defaults.
func totalBackoff(initial, maxBackoff time.Duration) time.Duration {
	var total, backoff time.Duration
	for {
		next, ok := increaseBackoff(backoff, initial, maxBackoff)
		if !ok {
			return total
		}
		total, backoff = total+next, next
	}
}
