package network

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Flink's defaults for taskmanager.network.request-backoff.initial and
// .max: how long a remote input channel waits before it asks again for a
// partition its producer's process did not have.
const (
	DefaultRequestBackoffInitial = 100 * time.Millisecond
	DefaultRequestBackoffMax     = 10 * time.Second
)

// remoteInputChannel reads one subpartition of a partition that lives in
// another process, through a PartitionRequestServer there. It mirrors
// Flink's RemoteInputChannel.
//
// The channel has room for a fixed number of buffers, its credit
// (Config.BuffersPerSubpartition, Flink's exclusive buffers,
// taskmanager.network.memory.buffers-per-channel). It announces all of it
// with its PartitionRequest, and one credit more (AddCredit) each time its
// gate takes a data buffer out. The server sends a data buffer only for a
// credit, so receivedBuffers never holds more than the credit, and the
// connection's read loop never has to wait for this channel's consumer.
// A consumer that stops reading stops announcing credit; the server stops
// taking buffers from the subpartition; the subpartition's queue fills;
// and the producer blocks, exactly as in-process.
//
// Events travel without credit, as in Flink (whose server spends a credit
// only on a buffer that isBuffer, and whose client reads an event into
// memory of its own, not into an exclusive buffer): the EndOfPartition
// event and checkpoint barriers. The credit bounds the data buffers a
// channel holds; the events beside them are few (a barrier per
// checkpoint, and nothing passes an aligned one until it is resumed).
// After an aligned barrier the channel's gate calls resumeConsumption,
// which sends ResumeConsumption; the credit it announced meanwhile is the
// server's to spend once it resumes.
//
// Three goroutines meet here: the gate's reader (requestSubpartition,
// getNextBuffer), the connection's read loop (onBuffer, onError) and, for
// a retried request, a timer (retriggerSubpartitionRequest). Close may
// come from any goroutine. All fields below mu are guarded by it.
//
// Lock order: mu may be held while taking the gate's mu, the client's
// locks or the client factory's (a request is written under mu, so that
// no cancel can overtake it), never the other way round: a client calls
// its channels with none of its own locks held.
type remoteInputChannel struct {
	inputChannelBase
	env           *ShuffleEnvironment
	connectionID  string // the producer's data address (Flink: ConnectionID)
	initialCredit int

	mu sync.Mutex
	// client is the connection, once requestSubpartition got it. The
	// channel holds one of its uses (holdsClient) until it is done: after
	// the EndOfPartition event, an error, or Close.
	client      *partitionRequestClient
	holdsClient bool
	receiverID  inputChannelID
	// receivedBuffers is the queue of buffers that arrived and the gate
	// has not taken: at most initialCredit data buffers, checkpoint
	// barriers between them, and perhaps the EndOfPartition event at the
	// end. receivedDataBuffers counts its data buffers, which the credit
	// bounds.
	receivedBuffers        []Buffer
	receivedDataBuffers    int
	maxReceivedBuffers     int // high-water mark of receivedDataBuffers
	expectedSequenceNumber int
	senderBacklog          int           // the last backlog the server announced (Flink requests floating buffers by it; there are none here)
	currentBackoff         time.Duration // 0 before the first retry
	stopRetry              func() bool   // cancels a scheduled retry; nil if none
	isFinished             bool          // the EndOfPartition event arrived: nothing more can go wrong
	isReleased             bool          // Close: drop everything
	err                    error         // the channel's failure; the gate reads it before any buffer
}

func newRemoteInputChannel(g *InputGate, channelIndex int, connectionID string) *remoteInputChannel {
	return &remoteInputChannel{
		inputChannelBase: inputChannelBase{inputGate: g, channelIndex: channelIndex},
		env:              g.env,
		connectionID:     connectionID,
		initialCredit:    g.env.cfg.BuffersPerSubpartition,
	}
}

// requestSubpartition connects to the producer's server (or joins the
// connection already open to it) and sends the PartitionRequest with the
// channel's initial credit. It does not wait for an answer: buffers and
// errors arrive later, through onBuffer and onError. Only dialling waits,
// bounded by ctx. Flink: RemoteInputChannel.requestSubpartition.
func (c *remoteInputChannel) requestSubpartition(ctx context.Context) error {
	g := c.inputGate
	client, err := c.env.clients.createPartitionRequestClient(ctx, c.connectionID)
	if err != nil {
		return fmt.Errorf("input channel %d: request subpartition %d from %s: %w", c.channelIndex, g.consumedSubpartitionIndex, c.connectionID, err)
	}

	c.mu.Lock()
	switch {
	case c.isReleased: // Close ran while we dialled
		c.mu.Unlock()
		c.env.clients.releaseClient(client)
		return ErrInputGateClosed
	case c.err != nil: // an earlier request failed; the failure is final
		c.mu.Unlock()
		c.env.clients.releaseClient(client)
		return c.err
	}
	c.client, c.holdsClient = client, true
	c.receiverID = client.newReceiverID()
	// The request is written under mu, so that a Close cannot send its
	// CancelPartitionRequest before it.
	err = client.requestSubpartition(c, c.partitionRequestLocked())
	if err != nil {
		c.err = fmt.Errorf("input channel %d: request subpartition %d from %s: %w", c.channelIndex, g.consumedSubpartitionIndex, c.connectionID, err)
		err = c.err
		client = c.dropClientLocked()
	}
	receiverID := c.receiverID
	c.mu.Unlock()

	if err != nil {
		client.removeInputChannel(receiverID)
		c.env.clients.releaseClient(client)
	}
	return err
}

func (c *remoteInputChannel) partitionRequestLocked() partitionRequest {
	return partitionRequest{
		partitionID:       c.partitionID(),
		subpartitionIndex: c.inputGate.consumedSubpartitionIndex,
		receiverID:        c.receiverID,
		credit:            c.initialCredit,
	}
}

// getNextBuffer takes the next received buffer, if there is one, and
// gives its credit back to the server. An error is returned before any
// buffer still queued, as in Flink (and as in-process, where a failed
// partition drops its queue).
func (c *remoteInputChannel) getNextBuffer() (bufferAndAvailability, bool, error) {
	c.mu.Lock()
	switch {
	case c.err != nil:
		defer c.mu.Unlock()
		return bufferAndAvailability{}, false, c.err
	case c.isReleased:
		c.mu.Unlock()
		return bufferAndAvailability{}, false, ErrInputGateClosed
	case len(c.receivedBuffers) == 0:
		c.mu.Unlock()
		return bufferAndAvailability{}, false, nil
	}
	buffer := c.receivedBuffers[0]
	copy(c.receivedBuffers, c.receivedBuffers[1:])
	c.receivedBuffers[len(c.receivedBuffers)-1] = Buffer{}
	c.receivedBuffers = c.receivedBuffers[:len(c.receivedBuffers)-1]
	if buffer.IsBuffer() {
		c.receivedDataBuffers--
	}
	next := bufferAndAvailability{buffer: buffer, moreAvailable: len(c.receivedBuffers) > 0}
	// After the EndOfPartition event the server expects no more credit.
	client, receiverID, announce := c.client, c.receiverID, buffer.IsBuffer() && c.holdsClient
	c.mu.Unlock()

	// The buffer's place is free again: one more credit for the server. An
	// event took no credit and gives none back.
	// A failed write closes the connection, and the error reaches this
	// channel through onError.
	if announce {
		_ = client.announceCredit(receiverID, 1)
	}
	return next, true, nil
}

// resumeConsumption asks the producer's server to unblock the
// subpartition after an aligned checkpoint barrier (ResumeConsumption).
// A channel that has ended, failed or been closed has nothing to resume:
// its failure, if any, reaches the gate through getNextBuffer. Flink:
// RemoteInputChannel.resumeConsumption (which also resets the unannounced
// credit when the channel has no exclusive buffers; ours always has).
func (c *remoteInputChannel) resumeConsumption() error {
	c.mu.Lock()
	if c.isReleased || c.err != nil || !c.holdsClient {
		c.mu.Unlock()
		return nil
	}
	client, receiverID := c.client, c.receiverID
	c.mu.Unlock()
	return client.resumeConsumption(receiverID)
}

// onBuffer is the connection's read loop handing over a buffer for this
// channel. A buffer out of sequence, or one the channel had no credit
// for, means the stream is broken: the channel fails.
func (c *remoteInputChannel) onBuffer(m bufferResponse) {
	c.mu.Lock()
	if c.isReleased || c.err != nil {
		c.mu.Unlock()
		return
	}
	switch {
	case m.sequenceNumber != c.expectedSequenceNumber:
		c.mu.Unlock()
		c.onError(fmt.Errorf("buffer re-ordering: expected buffer with sequence number %d, but received %d", c.expectedSequenceNumber, m.sequenceNumber))
		return
	case m.buffer.IsBuffer() && c.receivedDataBuffers >= c.initialCredit:
		c.mu.Unlock()
		c.onError(fmt.Errorf("received a buffer without credit: %d buffers queued, credit %d", c.receivedDataBuffers, c.initialCredit))
		return
	}
	c.expectedSequenceNumber++
	c.senderBacklog = m.backlog
	c.receivedBuffers = append(c.receivedBuffers, m.buffer)
	wasEmpty := len(c.receivedBuffers) == 1
	if m.buffer.IsBuffer() {
		c.receivedDataBuffers++
		c.maxReceivedBuffers = max(c.maxReceivedBuffers, c.receivedDataBuffers)
	}
	var client *partitionRequestClient
	if m.buffer.DataType() == EndOfPartitionEvent {
		// The EndOfPartition event: everything has arrived. The channel
		// leaves the connection now, so that losing it later changes
		// nothing for this channel.
		c.isFinished = true
		client = c.dropClientLocked()
	}
	receiverID := c.receiverID
	c.mu.Unlock()

	if client != nil {
		client.removeInputChannel(receiverID)
		c.env.clients.releaseClient(client)
	}
	if wasEmpty {
		c.inputGate.queueChannel(c)
	}
}

// onError is the channel's request failing, or its connection. A partition
// that was not found is asked for again after a backoff that doubles from
// RequestBackoffInitial up to RequestBackoffMax; once that is used up, or
// for any other error, the channel fails, and its gate reads the error.
// Errors after the EndOfPartition event, or after Close, are ignored.
// Flink: RemoteInputChannel.onError and retriggerSubpartitionRequest.
func (c *remoteInputChannel) onError(err error) {
	c.mu.Lock()
	if c.isReleased || c.isFinished || c.err != nil {
		c.mu.Unlock()
		return
	}
	if errors.Is(err, ErrPartitionNotFound) {
		cfg := c.env.cfg
		if backoff, ok := increaseBackoff(c.currentBackoff, cfg.RequestBackoffInitial, cfg.RequestBackoffMax); ok {
			c.currentBackoff = backoff
			c.stopRetry = c.env.afterFunc(backoff, c.retriggerSubpartitionRequest)
			c.mu.Unlock()
			return
		}
	}
	c.err = err
	client, receiverID := c.dropClientLocked(), c.receiverID
	c.mu.Unlock()

	if client != nil {
		client.removeInputChannel(receiverID)
		c.env.clients.releaseClient(client)
	}
	c.inputGate.queueChannel(c) // wake the reader: it reads the error next
}

// retriggerSubpartitionRequest asks again for a partition that was not
// found, on the same connection and under the same receiver ID.
func (c *remoteInputChannel) retriggerSubpartitionRequest() {
	c.mu.Lock()
	if c.isReleased || c.err != nil || !c.holdsClient {
		c.mu.Unlock()
		return
	}
	c.stopRetry = nil
	err := c.client.requestSubpartition(c, c.partitionRequestLocked())
	c.mu.Unlock()
	if err != nil {
		c.onError(err)
	}
}

// increaseBackoff returns the wait before the next retry of a partition
// request, and false when there is to be none: the initial backoff first,
// then twice the last, capped at max; after a wait of max, no more. Flink:
// InputChannel.increaseBackoff. With Flink's defaults the waits are 100,
// 200, 400, 800, 1600, 3200, 6400 and 10000 ms.
func increaseBackoff(current, initial, maxBackoff time.Duration) (time.Duration, bool) {
	switch {
	case current == 0:
		return initial, true
	case current < maxBackoff:
		return min(2*current, maxBackoff), true
	default:
		return current, false
	}
}

// dropClientLocked ends the channel's use of its connection, once, and
// returns the client for the caller to release after unlocking.
func (c *remoteInputChannel) dropClientLocked() *partitionRequestClient {
	if !c.holdsClient {
		return nil
	}
	c.holdsClient = false
	if c.stopRetry != nil {
		c.stopRetry()
		c.stopRetry = nil
	}
	return c.client
}

// releaseAllResources is the gate closing: received buffers are dropped,
// a scheduled retry is cancelled, and the server is told to release the
// subpartition (CancelPartitionRequest), which unblocks its producer.
func (c *remoteInputChannel) releaseAllResources() {
	c.mu.Lock()
	if c.isReleased {
		c.mu.Unlock()
		return
	}
	c.isReleased = true
	clear(c.receivedBuffers)
	c.receivedBuffers, c.receivedDataBuffers = nil, 0
	client, receiverID := c.dropClientLocked(), c.receiverID
	c.mu.Unlock()

	if client != nil {
		client.cancelRequestFor(receiverID)
		c.env.clients.releaseClient(client)
	}
}

// buffersReceived returns the data buffers received and not yet taken,
// and the most there ever were; tests use it to see the credit bound hold.
func (c *remoteInputChannel) buffersReceived() (now, highWaterMark int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receivedDataBuffers, c.maxReceivedBuffers
}

var _ inputChannel = (*remoteInputChannel)(nil)
