package network

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"
)

// DefaultPartitionRequestServerAddress is where a PartitionRequestServer
// listens unless told otherwise: the loopback interface, on a free port.
// Flink's taskmanager.data.port is 0 (a free port) by default too.
const DefaultPartitionRequestServerAddress = "127.0.0.1:0"

// PartitionRequestServer serves the partitions of one process to consumers
// in other processes, over TCP. It mirrors the server half of Flink's
// NettyConnectionManager: the NettyServer that accepts connections, the
// PartitionRequestServerHandler that reads requests, and the
// PartitionRequestQueue that writes buffers.
//
// A TaskExecutor process makes one, on its ResultPartitionManager, and
// advertises its Address as gateway.TaskManagerLocation.DataAddress; the
// scheduler copies that into the shuffle descriptors of the partitions the
// TaskExecutor produces, and the consumers' InputGates dial it. Every
// consumer process opens one connection to it, whatever its number of
// channels; see doc.go for the protocol and its credit-based flow control.
//
// Close stops it. All methods are safe for concurrent use.
type PartitionRequestServer struct {
	manager  *ResultPartitionManager
	listener net.Listener
	address  string // host:port, as consumers dial it

	mu     sync.Mutex
	closed bool
	queues map[*partitionRequestQueue]struct{} // one per open connection
	wg     sync.WaitGroup                      // the accept loop and every connection's goroutines
}

// NewPartitionRequestServer starts serving the partitions registered in
// manager at address (host:port; port 0 picks a free port; empty means
// DefaultPartitionRequestServerAddress). Listen on an address the other
// processes can reach: Address names the host given here.
func NewPartitionRequestServer(manager *ResultPartitionManager, address string) (*PartitionRequestServer, error) {
	if manager == nil {
		return nil, errors.New("partition request server: the ResultPartitionManager must be set")
	}
	if address == "" {
		address = DefaultPartitionRequestServerAddress
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("partition request server: listen address %q: %w", address, err)
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("partition request server: could not listen at %s: %w", address, err)
	}
	_, port, _ := net.SplitHostPort(listener.Addr().String())
	s := &PartitionRequestServer{
		manager:  manager,
		listener: listener,
		address:  net.JoinHostPort(host, port),
		queues:   make(map[*partitionRequestQueue]struct{}),
	}
	s.wg.Go(s.acceptLoop)
	return s, nil
}

// Address returns the host:port the server listens on: the data address a
// TaskExecutor advertises (Flink: TaskManagerLocation's dataPort, and the
// ConnectionID consumers connect with).
func (s *PartitionRequestServer) Address() string { return s.address }

// Close stops listening and closes every connection. The subpartitions
// read through them are released as if their consumers had gone, so no
// producer stays blocked on a consumer it can no longer reach; the
// consumers read an error wrapping ErrRemoteTransport. Close waits for the
// server's goroutines and may be called more than once.
func (s *PartitionRequestServer) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	err := s.listener.Close()
	for q := range s.queues {
		q.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// acceptLoop takes connections until the listener is closed.
func (s *PartitionRequestServer) acceptLoop() {
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return // closed by Close; a listener that fails otherwise cannot be revived either
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = conn.Close()
			return
		}
		q := newPartitionRequestQueue(s, conn)
		s.queues[q] = struct{}{}
		s.wg.Go(q.serve)
		s.mu.Unlock()
	}
}

// numberOfConnections returns how many connections are open; tests use it
// to see that channels share one.
func (s *PartitionRequestServer) numberOfConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues)
}

// partitionRequestQueue is the server's side of one connection: it reads
// the client's requests and writes the buffers of every channel the
// connection carries. It mirrors Flink's PartitionRequestServerHandler
// (reading) and PartitionRequestQueue (writing).
//
// Two goroutines: serve reads and handles requests, writeLoop writes
// buffers. A reader (one per remote channel) whose subpartition has a
// buffer it may send waits in availableReaders; writeLoop takes the first,
// sends one buffer, and puts it at the back again if it may send more, so
// the channels of a connection take turns. A reader without credit is not
// in the queue at all: its data waits in its subpartition, where it holds
// back its producer, while the other channels of the connection go on.
//
// Lock order: a subpartition's mutex may be held while taking mu (a
// subpartition calls notifyDataAvailable under its lock), never the other
// way round.
type partitionRequestQueue struct {
	server *PartitionRequestServer
	conn   net.Conn

	writeMu sync.Mutex // one frame at a time on conn

	// wakeup holds a token when a reader was queued; writeLoop waits on it.
	wakeup chan struct{}
	// done is closed when the connection closes; writeLoop returns.
	done      chan struct{}
	closeOnce sync.Once

	mu               sync.Mutex
	readers          map[inputChannelID]*creditBasedViewReader // the connection's channels, by receiver ID
	availableReaders []*creditBasedViewReader                  // FIFO; each reader at most once
}

// creditBasedViewReader reads one subpartition on behalf of one remote
// input channel, and keeps the channel's credit: how many more data
// buffers the channel has room for. Flink:
// CreditBasedSequenceNumberingViewReader. Its fields are guarded by its
// queue's mu.
type creditBasedViewReader struct {
	queue      *partitionRequestQueue
	receiverID inputChannelID

	view                resultSubpartitionView // nil until the request succeeded
	numCreditsAvailable int
	sequenceNumber      int  // of the next BufferResponse
	isQueued            bool // in availableReaders
	isReleased          bool // ended, failed or cancelled: no more buffers for it
}

func newPartitionRequestQueue(s *PartitionRequestServer, conn net.Conn) *partitionRequestQueue {
	return &partitionRequestQueue{
		server:  s,
		conn:    conn,
		wakeup:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		readers: make(map[inputChannelID]*creditBasedViewReader),
	}
}

// serve reads requests until the connection ends or breaks the protocol,
// then releases every subpartition the connection was reading: its
// consumers are gone, and their producers must not wait for them (Flink:
// PartitionRequestQueue.channelInactive → releaseAllResources).
func (q *partitionRequestQueue) serve() {
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		q.writeLoop()
	}()

	r := bufio.NewReader(q.conn)
	for {
		id, fields, err := readFrame(r, maxRequestFrameLength)
		if err != nil {
			if errors.Is(err, errCorruptStream) {
				q.writeMessage(errorResponse{kind: errorKindOther, message: err.Error()})
			}
			break
		}
		msg, err := decodeMessage(id, fields)
		if err != nil {
			// Flink answers a broken message with a fatal ErrorResponse
			// (no receiver) and closes the connection.
			q.writeMessage(errorResponse{kind: errorKindOther, message: err.Error()})
			break
		}
		q.handle(msg)
	}

	q.close()
	<-writerDone
	q.releaseAllReaders()
	q.server.mu.Lock()
	delete(q.server.queues, q)
	q.server.mu.Unlock()
}

// handle runs one request of the client. It never waits for anything but
// a subpartition's mutex, so the client's writes never stall.
func (q *partitionRequestQueue) handle(msg nettyMessage) {
	switch m := msg.(type) {
	case partitionRequest:
		q.requestSubpartition(m)
	case addCredit:
		q.mu.Lock()
		if reader := q.readers[m.receiverID]; reader != nil {
			reader.numCreditsAvailable += m.credit
			q.enqueueAvailableReaderLocked(reader)
		}
		q.mu.Unlock()
	case cancelPartitionRequest:
		q.mu.Lock()
		reader := q.readers[m.receiverID]
		if reader != nil {
			delete(q.readers, m.receiverID)
			reader.isReleased = true
		}
		q.mu.Unlock()
		if reader != nil && reader.view != nil {
			reader.view.releaseAllResources() // the consumer left: its data is dropped, its producer unblocked
		}
	default:
		// A response sent to the server: the peer is broken.
		q.writeMessage(errorResponse{kind: errorKindOther, message: fmt.Sprintf("unexpected message ID %d from a client", msg.id())})
		q.close()
	}
}

// requestSubpartition attaches a reader to the subpartition a
// PartitionRequest names, or answers with an ErrorResponse:
// PartitionNotFound if the partition is not registered (the client
// retries), ProducerFailed or released if it is gone, and any other error
// for a subpartition out of range or already read.
//
// Differs from the local path, which waits for an unregistered partition:
// the server answers at once, as Flink's does, so that its reading
// goroutine never waits, and a request cannot outlive its connection.
func (q *partitionRequestQueue) requestSubpartition(m partitionRequest) {
	q.mu.Lock()
	_, duplicate := q.readers[m.receiverID]
	q.mu.Unlock()
	if duplicate {
		q.writeMessage(errorResponse{receiverID: m.receiverID, kind: errorKindOther,
			message: fmt.Sprintf("receiver %d already reads a subpartition on this connection", m.receiverID)})
		return
	}

	reader := &creditBasedViewReader{queue: q, receiverID: m.receiverID, numCreditsAvailable: m.credit}
	view, err := q.server.manager.createSubpartitionViewIfRegistered(m.partitionID, m.subpartitionIndex, reader)
	if err != nil {
		q.writeMessage(errorResponse{receiverID: m.receiverID, kind: errorKindOf(err), message: err.Error()})
		return
	}
	q.mu.Lock()
	reader.view = view
	q.readers[m.receiverID] = reader
	// The subpartition may have told the reader of data before the view
	// was set; writeLoop skipped it then. Queue it now: at worst it finds
	// nothing to send.
	q.enqueueAvailableReaderLocked(reader)
	q.mu.Unlock()
}

// notifyDataAvailable is the subpartition telling the reader that its
// queue is no longer empty (or that it was released).
func (r *creditBasedViewReader) notifyDataAvailable() {
	r.queue.mu.Lock()
	defer r.queue.mu.Unlock()
	r.queue.enqueueAvailableReaderLocked(r)
}

var _ bufferAvailabilityListener = (*creditBasedViewReader)(nil)

// enqueueAvailableReaderLocked puts a reader at the back of
// availableReaders, unless it is there already or done, and wakes
// writeLoop. Whether it really may send is checked when its turn comes.
// Flink: PartitionRequestQueue.enqueueAvailableReader.
func (q *partitionRequestQueue) enqueueAvailableReaderLocked(reader *creditBasedViewReader) {
	if reader.isQueued || reader.isReleased {
		return
	}
	reader.isQueued = true
	q.availableReaders = append(q.availableReaders, reader)
	select {
	case q.wakeup <- struct{}{}:
	default: // a token is waiting already
	}
}

// writeLoop sends buffers, one per turn of an available reader, until the
// connection closes. Flink: PartitionRequestQueue.writeAndFlushNextMessageIfPossible.
func (q *partitionRequestQueue) writeLoop() {
	var header []byte // reused for every frame header
	for {
		reader, view, credit := q.pollAvailableReader()
		if reader == nil {
			return // the connection closed
		}
		if view == nil || !view.isAvailable(credit) {
			continue // no data, or only data and no credit: AddCredit or new data queues it again
		}
		next, ok, err := view.getNextBuffer()
		if err != nil {
			q.failReader(reader, err)
			continue
		}
		if !ok {
			continue
		}
		response, send := q.bufferResponseFor(reader, next)
		if !send {
			continue // cancelled meanwhile: the consumer is gone, and so is its data
		}
		header = appendBufferResponseHeader(header[:0], response)
		if err := q.write(header, response.buffer.segment); err != nil {
			q.close() // the client is gone: serve's read fails too and cleans up
			return
		}
	}
}

// pollAvailableReader takes the first reader of availableReaders, waiting
// while there is none, and returns it with its view and credit. It returns
// a nil reader once the connection is closed.
func (q *partitionRequestQueue) pollAvailableReader() (*creditBasedViewReader, resultSubpartitionView, int) {
	for {
		q.mu.Lock()
		if len(q.availableReaders) > 0 {
			reader := q.availableReaders[0]
			copy(q.availableReaders, q.availableReaders[1:])
			q.availableReaders[len(q.availableReaders)-1] = nil
			q.availableReaders = q.availableReaders[:len(q.availableReaders)-1]
			reader.isQueued = false
			view, credit, released := reader.view, reader.numCreditsAvailable, reader.isReleased
			q.mu.Unlock()
			if released {
				continue
			}
			return reader, view, credit
		}
		q.mu.Unlock()

		select {
		case <-q.wakeup:
		case <-q.done:
			return nil, nil, 0
		}
	}
}

// bufferResponseFor stamps a buffer taken for reader with its sequence
// number, spends a credit on a data buffer, and queues the reader again if
// more is waiting. After the EndOfPartition event the reader is done. It
// returns false if the reader was cancelled while its buffer was taken.
func (q *partitionRequestQueue) bufferResponseFor(reader *creditBasedViewReader, next bufferAndAvailability) (bufferResponse, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if reader.isReleased {
		return bufferResponse{}, false
	}
	response := bufferResponse{
		receiverID:     reader.receiverID,
		sequenceNumber: reader.sequenceNumber,
		backlog:        next.buffersInBacklog,
		buffer:         next.buffer,
	}
	reader.sequenceNumber++
	switch {
	case !next.buffer.IsBuffer(): // EndOfPartition: the subpartition is consumed
		reader.isReleased = true
		delete(q.readers, reader.receiverID)
	case next.moreAvailable:
		reader.numCreditsAvailable--
		q.enqueueAvailableReaderLocked(reader) // to the back of the line: fairness
	default:
		reader.numCreditsAvailable--
	}
	return response, true
}

// failReader forwards the error a reader's subpartition gave (released,
// or its producer failed) to the remote channel, and forgets the reader.
func (q *partitionRequestQueue) failReader(reader *creditBasedViewReader, err error) {
	q.mu.Lock()
	cancelled := reader.isReleased
	if !cancelled {
		reader.isReleased = true
		delete(q.readers, reader.receiverID)
	}
	q.mu.Unlock()
	if !cancelled {
		q.writeMessage(errorResponse{receiverID: reader.receiverID, kind: errorKindOf(err), message: err.Error()})
	}
}

// writeMessage sends one small message. A failed write closes the
// connection.
func (q *partitionRequestQueue) writeMessage(msg nettyMessage) {
	if err := q.write(appendFrame(nil, msg)); err != nil {
		q.close()
	}
}

// write sends one frame, given in pieces, with one system call (writev).
func (q *partitionRequestQueue) write(pieces ...[]byte) error {
	q.writeMu.Lock()
	defer q.writeMu.Unlock()
	buffers := net.Buffers(pieces)
	_, err := buffers.WriteTo(q.conn)
	return err
}

// close closes the connection and stops writeLoop. It may be called more
// than once, from any goroutine.
func (q *partitionRequestQueue) close() {
	q.closeOnce.Do(func() {
		_ = q.conn.Close()
		close(q.done)
	})
}

// releaseAllReaders releases the view of every channel the connection
// still carried, once writeLoop has stopped.
func (q *partitionRequestQueue) releaseAllReaders() {
	q.mu.Lock()
	var views []resultSubpartitionView
	for id, reader := range q.readers {
		reader.isReleased = true
		if reader.view != nil {
			views = append(views, reader.view)
		}
		delete(q.readers, id)
	}
	clear(q.availableReaders)
	q.availableReaders = nil
	q.mu.Unlock()
	for _, view := range views {
		view.releaseAllResources()
	}
}
