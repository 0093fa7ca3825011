package network

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// partitionRequestClientFactory hands out the connections of one
// ShuffleEnvironment to the PartitionRequestServers of other processes:
// one per server address, shared by every remote input channel that reads
// from that server, and closed when the last of them is done. It mirrors
// Flink's PartitionRequestClientFactory (with
// taskmanager.network.max-num-tcp-connections at its default, 1).
//
// Lock order: mu may be held while taking a client's mu, never the other
// way round.
type partitionRequestClientFactory struct {
	// dial opens a connection to a server: over TLS when the environment
	// has a ClientTLS, within its ConnectTimeout.
	dial func(ctx context.Context, network, address string) (net.Conn, error)

	mu      sync.Mutex
	clients map[string]*partitionRequestClient // by server address
	closed  bool
	wg      sync.WaitGroup // the clients' read loops
}

func newPartitionRequestClientFactory(connectTimeout time.Duration, clientTLS *tls.Config) *partitionRequestClientFactory {
	dialer := &net.Dialer{Timeout: connectTimeout}
	dial := dialer.DialContext
	if clientTLS != nil {
		tlsDialer := &tls.Dialer{NetDialer: dialer, Config: clientTLS}
		dial = tlsDialer.DialContext
	}
	return &partitionRequestClientFactory{dial: dial, clients: make(map[string]*partitionRequestClient)}
}

// createPartitionRequestClient returns the connection to the server at
// address, dialling it if there is none, and counts one more user of it.
// Every successful call must be matched by one releaseClient. Flink:
// PartitionRequestClientFactory.createPartitionRequestClient.
func (f *partitionRequestClientFactory) createPartitionRequestClient(ctx context.Context, address string) (*partitionRequestClient, error) {
	if client := f.acquireExisting(address); client != nil {
		return client, nil
	}
	conn, err := f.dial(ctx, "tcp", address)
	if err != nil {
		return nil, &remoteError{sentinel: ErrRemoteTransport, cause: err, message: fmt.Sprintf(
			"Connecting to remote task manager '%s' has failed. This might indicate that the remote task manager has been lost.", address)}
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		_ = conn.Close()
		return nil, errShuffleEnvironmentClosed
	}
	if client := f.clients[address]; client != nil && client.isAlive() {
		_ = conn.Close() // another channel dialled at the same time, and won
		client.users++
		return client, nil
	}
	client := newPartitionRequestClient(f, address, conn)
	client.users = 1
	f.clients[address] = client
	f.wg.Go(client.readLoop)
	return client, nil
}

// acquireExisting counts one more user of a live connection to address,
// if there is one.
func (f *partitionRequestClientFactory) acquireExisting(address string) *partitionRequestClient {
	f.mu.Lock()
	defer f.mu.Unlock()
	if client := f.clients[address]; client != nil && client.isAlive() {
		client.users++
		return client
	}
	return nil
}

// releaseClient counts one user less; the last one closes the connection.
// The server then releases whatever the connection still read.
func (f *partitionRequestClientFactory) releaseClient(client *partitionRequestClient) {
	f.mu.Lock()
	client.users--
	last := client.users == 0
	if last && f.clients[client.address] == client {
		delete(f.clients, client.address)
	}
	f.mu.Unlock()
	if last {
		client.close(errClientReleased)
	}
}

// forget drops a broken client, so the next channel dials anew.
func (f *partitionRequestClientFactory) forget(client *partitionRequestClient) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clients[client.address] == client {
		delete(f.clients, client.address)
	}
}

// close closes every connection, failing the channels that still read
// over them, and waits for the read loops.
func (f *partitionRequestClientFactory) close() {
	f.mu.Lock()
	f.closed = true
	clients := make([]*partitionRequestClient, 0, len(f.clients))
	for _, client := range f.clients {
		clients = append(clients, client)
	}
	clear(f.clients)
	f.mu.Unlock()
	for _, client := range clients {
		client.close(errShuffleEnvironmentClosed)
	}
	f.wg.Wait()
}

// numberOfClients returns how many connections are open; tests use it.
func (f *partitionRequestClientFactory) numberOfClients() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.clients)
}

var (
	errShuffleEnvironmentClosed = errors.New("the shuffle environment is closed")
	// errClientReleased is why a connection nobody uses any more closed.
	errClientReleased = errors.New("the connection was closed: no channel uses it any more")
)

// partitionRequestClient is one connection to one PartitionRequestServer,
// carrying the requests and credits of any number of remote input
// channels, and their buffers back. It mirrors Flink's
// NettyPartitionRequestClient (the writing side) together with its
// CreditBasedPartitionRequestClientHandler (the reading side).
//
// The read loop never waits for a consumer: a channel receives only as
// many buffers as it announced credit for, so there is always room for
// what arrives, and a channel whose consumer does not read holds up no
// other channel of the connection.
//
// Its life: open → closed (close records why and closes the socket) →
// ended (the read loop returned, after failing the channels that still
// expected answers). The read loop is the one goroutine that tells
// channels their connection failed: whoever closes the connection only
// records why. So a channel may write (a request, under its own lock)
// without the failure of that write calling back into it.
type partitionRequestClient struct {
	factory *partitionRequestClientFactory
	address string
	conn    net.Conn

	writeMu sync.Mutex // one frame at a time on conn

	users int // guarded by factory.mu

	mu             sync.Mutex
	inputChannels  map[inputChannelID]*remoteInputChannel // the channels expecting answers
	nextReceiverID inputChannelID
	err            error // why the connection closed; nil while it is open
}

func newPartitionRequestClient(f *partitionRequestClientFactory, address string, conn net.Conn) *partitionRequestClient {
	return &partitionRequestClient{
		factory:       f,
		address:       address,
		conn:          conn,
		inputChannels: make(map[inputChannelID]*remoteInputChannel),
	}
}

func (c *partitionRequestClient) isAlive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

// newReceiverID returns a receiver ID no other channel of the connection
// has had.
func (c *partitionRequestClient) newReceiverID() inputChannelID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextReceiverID++
	return c.nextReceiverID
}

// requestSubpartition registers a channel for the answers to request and
// sends it. Flink: NettyPartitionRequestClient.requestSubpartition.
func (c *partitionRequestClient) requestSubpartition(channel *remoteInputChannel, request partitionRequest) error {
	c.mu.Lock()
	if c.err != nil {
		defer c.mu.Unlock()
		return c.err
	}
	c.inputChannels[request.receiverID] = channel
	c.mu.Unlock()
	return c.writeMessage(request)
}

// announceCredit tells the server the channel has room for credit more
// buffers. Flink: CreditBasedPartitionRequestClientHandler.notifyCreditAvailable.
func (c *partitionRequestClient) announceCredit(receiverID inputChannelID, credit int) error {
	return c.writeMessage(addCredit{credit: credit, receiverID: receiverID})
}

// resumeConsumption tells the server to unblock the channel's
// subpartition after an aligned checkpoint barrier. Flink:
// NettyPartitionRequestClient.resumeConsumption.
func (c *partitionRequestClient) resumeConsumption(receiverID inputChannelID) error {
	return c.writeMessage(resumeConsumption{receiverID: receiverID})
}

// removeInputChannel forgets a channel that expects nothing more: its
// answers, if any come, are dropped.
func (c *partitionRequestClient) removeInputChannel(receiverID inputChannelID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inputChannels, receiverID)
}

// cancelRequestFor forgets a channel whose consumer left, and tells the
// server to release its subpartition. Flink:
// CreditBasedPartitionRequestClientHandler.cancelRequestFor.
func (c *partitionRequestClient) cancelRequestFor(receiverID inputChannelID) {
	c.removeInputChannel(receiverID)
	_ = c.writeMessage(cancelPartitionRequest{receiverID: receiverID}) // a broken connection releases it too
}

// writeMessage sends one message. A write that fails leaves the stream
// unusable: the connection is closed, and its channels fail (from the read
// loop, not from here).
func (c *partitionRequestClient) writeMessage(msg nettyMessage) error {
	frame := appendFrame(nil, msg)
	c.writeMu.Lock()
	_, err := c.conn.Write(frame)
	c.writeMu.Unlock()
	if err != nil {
		err = c.transportError(err)
		c.close(err)
		return err
	}
	return nil
}

// readLoop hands every answer to its channel until the connection closes,
// then fails the channels that still expected answers.
func (c *partitionRequestClient) readLoop() {
	defer c.failInputChannels()
	r := bufio.NewReaderSize(c.conn, 64<<10)
	for {
		id, fields, err := readFrame(r, maxResponseFrameLength)
		if err != nil {
			c.close(c.transportError(err)) // unless closed on purpose, which says why already
			return
		}
		msg, err := decodeMessage(id, fields)
		if err != nil {
			c.close(c.transportError(err))
			return
		}
		switch m := msg.(type) {
		case bufferResponse:
			if channel := c.inputChannel(m.receiverID); channel != nil {
				channel.onBuffer(m)
			}
		case errorResponse:
			if m.receiverID == 0 { // the server says the whole connection is broken
				c.close(c.transportError(&remoteError{sentinel: m.kind.sentinel(), message: m.message}))
				return
			}
			if channel := c.inputChannel(m.receiverID); channel != nil {
				channel.onError(&remoteError{sentinel: m.kind.sentinel(), message: m.message})
			}
		default:
			c.close(c.transportError(fmt.Errorf("%w: unexpected message ID %d from a server", errCorruptStream, msg.id())))
			return
		}
	}
}

func (c *partitionRequestClient) inputChannel(receiverID inputChannelID) *remoteInputChannel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inputChannels[receiverID]
}

// transportError is what the channels read when the connection fails
// because of cause. Flink: RemoteTransportException.
func (c *partitionRequestClient) transportError(cause error) error {
	if errors.Is(cause, io.EOF) {
		return &remoteError{sentinel: ErrRemoteTransport, message: fmt.Sprintf(
			"Connection unexpectedly closed by remote task manager '%s'. This might indicate that the remote task manager was lost.", c.address)}
	}
	return &remoteError{sentinel: ErrRemoteTransport, cause: cause, message: fmt.Sprintf(
		"Lost connection to task manager '%s'. This indicates that the remote task manager was lost.", c.address)}
}

// close closes the connection for reason, which the channels still
// expecting answers will read; errClientReleased means nobody uses it any
// more. Only the first reason counts. close calls no channel, so it may be
// called with a channel's lock held; the read loop, which ends with the
// socket, fails the channels.
func (c *partitionRequestClient) close(reason error) {
	c.mu.Lock()
	first := c.err == nil
	if first {
		c.err = reason
	}
	c.mu.Unlock()
	if first {
		_ = c.conn.Close()
		c.factory.forget(c)
	}
}

// failInputChannels tells every channel still expecting answers why the
// connection closed. The read loop calls it as it ends.
func (c *partitionRequestClient) failInputChannels() {
	c.mu.Lock()
	reason := c.err
	channels := make([]*remoteInputChannel, 0, len(c.inputChannels))
	for _, channel := range c.inputChannels {
		channels = append(channels, channel)
	}
	clear(c.inputChannels)
	c.mu.Unlock()
	for _, channel := range channels {
		channel.onError(reason)
	}
}
