package network

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"flinklab/runtime/internal/conndeadline"
	"flinklab/runtime/internal/connlimit"
)

// DefaultPartitionRequestServerAddress is where a PartitionRequestServer
// listens unless told otherwise: the loopback interface, on a free port.
// Flink's taskmanager.data.port is 0 (a free port) by default too.
const DefaultPartitionRequestServerAddress = "127.0.0.1:0"

// The defaults of the limits of a PartitionRequestServer (doc.go,
// "Limits"). All three options are ours.
const (
	// DefaultServerReadTimeout is our default for
	// taskmanager.network.netty.server.read-timeout: a consumer's requests
	// are a few dozen bytes, sent as soon as it is connected.
	DefaultServerReadTimeout = 20 * time.Second
	// DefaultServerIdleTimeout is our default for
	// taskmanager.network.netty.server.idle-timeout. It applies only to a
	// connection that reads no subpartition: one that does may stay silent
	// for as long as its producers have no data.
	DefaultServerIdleTimeout = 5 * time.Minute
	// DefaultServerMaxConnections is our default for
	// taskmanager.network.netty.server.max-connections: each consumer
	// TaskManager opens one connection to each producer TaskManager.
	DefaultServerMaxConnections = 1000
)

// PartitionRequestServerConfig configures a PartitionRequestServer. Zero
// values take the defaults.
type PartitionRequestServerConfig struct {
	// Address is the host:port to listen on (port 0 picks a free port;
	// empty means DefaultPartitionRequestServerAddress). Listen on an
	// address the other processes can reach: Address() names the host
	// given here.
	Address string
	// ReadTimeout bounds the arrival of a request: of the first one (and
	// the TLS handshake) from the moment a connection is accepted, of
	// every later one from its first byte
	// (taskmanager.network.netty.server.read-timeout, ours;
	// DefaultServerReadTimeout).
	ReadTimeout time.Duration
	// IdleTimeout closes a connection that reads no subpartition and has
	// sent nothing for this long (taskmanager.network.netty.server.idle-timeout,
	// ours; DefaultServerIdleTimeout).
	IdleTimeout time.Duration
	// MaxConnections bounds the connections served at once; the next ones
	// wait in the listen backlog until one closes
	// (taskmanager.network.netty.server.max-connections, ours;
	// DefaultServerMaxConnections).
	MaxConnections int
	// TLS, when set, makes every connection TLS: the listener hands out
	// tls.Conns, whose handshake happens under the read timeout. Set
	// ClientAuth to tls.RequireAndVerifyClientCert for mutual TLS, as
	// Flink's internal SSL is. Nil means plaintext.
	TLS *tls.Config
	// Logger receives the server's log lines; nil means slog.Default().
	Logger *slog.Logger
}

func (cfg PartitionRequestServerConfig) withDefaults() PartitionRequestServerConfig {
	if cfg.Address == "" {
		cfg.Address = DefaultPartitionRequestServerAddress
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultServerReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultServerIdleTimeout
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultServerMaxConnections
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

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
	cfg      PartitionRequestServerConfig
	log      *slog.Logger
	listener net.Listener
	address  string // host:port, as consumers dial it

	// connections bounds the connections served at once
	// (MaxConnections): the accept loop takes a slot before it accepts
	// the next. connLog writes the lines about single connections, at
	// most one of each kind a minute.
	connections *connlimit.Slots
	connLog     *connlimit.Log

	mu     sync.Mutex
	closed bool
	queues map[*partitionRequestQueue]struct{} // one per open connection
	wg     sync.WaitGroup                      // the accept loop and every connection's goroutines
}

// NewPartitionRequestServer starts serving the partitions registered in
// manager at cfg.Address.
func NewPartitionRequestServer(manager *ResultPartitionManager, cfg PartitionRequestServerConfig) (*PartitionRequestServer, error) {
	if manager == nil {
		return nil, errors.New("partition request server: the ResultPartitionManager must be set")
	}
	cfg = cfg.withDefaults()
	address := cfg.Address
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("partition request server: listen address %q: %w", address, err)
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("partition request server: could not listen at %s: %w", address, err)
	}
	_, port, _ := net.SplitHostPort(listener.Addr().String())
	if cfg.TLS != nil {
		listener = tls.NewListener(listener, cfg.TLS)
	}
	s := &PartitionRequestServer{
		manager:  manager,
		cfg:      cfg,
		log:      cfg.Logger.With("logger", "PartitionRequestServerHandler"),
		listener: listener,
		address:  net.JoinHostPort(host, port),
		queues:   make(map[*partitionRequestQueue]struct{}),
	}
	s.connLog = connlimit.NewLog(s.log, connlimit.Timeouts{
		Read: cfg.ReadTimeout, ReadKey: "taskmanager.network.netty.server.read-timeout",
		Idle: cfg.IdleTimeout, IdleKey: "taskmanager.network.netty.server.idle-timeout",
	})
	s.connections = connlimit.NewSlots(cfg.MaxConnections, s.connLog, fmt.Sprintf(
		"The partition request server at %s serves %d connections, its maximum: new connections wait in the listen backlog until one closes. "+
			"Raise taskmanager.network.netty.server.max-connections to serve more at once.", s.address, cfg.MaxConnections))
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
	s.connections.Close()
	err := s.listener.Close()
	for q := range s.queues {
		q.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// acceptLoop takes connections until the listener is closed, no more than
// MaxConnections at a time: while that many are served, the next ones
// wait in the listen backlog of the operating system, where they cost
// the process nothing, until one closes.
func (s *PartitionRequestServer) acceptLoop() {
	for {
		if !s.connections.Acquire() {
			return // closed
		}
		conn, err := s.connections.Accept(s.listener, "The PartitionRequestServer at "+s.Address())
		if err != nil {
			s.connections.Release()
			return // closed
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = conn.Close()
			s.connections.Release()
			return
		}
		q := newPartitionRequestQueue(s, conn)
		s.queues[q] = struct{}{}
		s.wg.Go(func() {
			defer s.connections.Release()
			q.serve()
		})
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
// The same holds for a reader whose subpartition an aligned checkpoint
// barrier blocked, until its consumer sends ResumeConsumption.
//
// Lock order: a subpartition's mutex may be held while taking mu (a
// subpartition calls notifyDataAvailable under its lock), never the other
// way round.
type partitionRequestQueue struct {
	server *PartitionRequestServer
	conn   net.Conn
	peer   string // the client's host:port, for log lines

	// deadlines closes a connection whose request stalls, or that stays
	// idle while it reads no subpartition: each reader in readers is work
	// in flight (conndeadline.BeginWork).
	deadlines *conndeadline.Deadlines

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
		server:    s,
		conn:      conn,
		peer:      conn.RemoteAddr().String(),
		deadlines: conndeadline.Start(conn, s.cfg.ReadTimeout, s.cfg.IdleTimeout),
		wakeup:    make(chan struct{}, 1),
		done:      make(chan struct{}),
		readers:   make(map[inputChannelID]*creditBasedViewReader),
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

	// The handshake ends when its read deadline passes or Close closes
	// the connection; it needs no ctx of its own.
	if err := connlimit.Handshake(context.Background(), q.conn); err != nil {
		q.server.connLog.HandshakeFailed(q.peer, err)
	} else {
		q.readRequests()
	}

	q.close()
	<-writerDone
	q.releaseAllReaders()
	q.server.mu.Lock()
	delete(q.server.queues, q)
	q.server.mu.Unlock()
}

// readRequests reads and handles the client's requests until the
// connection ends, breaks the protocol or passes a deadline. Each frame is
// read in two steps: its first byte, which may be long in coming, then
// the rest, which must follow within the read timeout (package
// conndeadline).
func (q *partitionRequestQueue) readRequests() {
	r := bufio.NewReader(q.conn)
	for framesRead := 0; ; framesRead++ {
		if _, err := r.Peek(1); err != nil {
			// A deadline that passed is logged; the client hanging up,
			// or Close, needs no line.
			q.server.connLog.WaitTimedOut(q.peer, err, framesRead)
			return
		}
		q.deadlines.FrameStarted()
		id, fields, err := readFrame(r, maxRequestFrameLength)
		if err != nil {
			if errors.Is(err, errCorruptStream) {
				q.writeMessage(errorResponse{kind: errorKindOther, message: err.Error()})
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				q.server.connLog.FrameStalled(q.peer, "a request")
			}
			return
		}
		msg, err := decodeMessage(id, fields)
		if err != nil {
			// Flink answers a broken message with a fatal ErrorResponse
			// (no receiver) and closes the connection.
			q.writeMessage(errorResponse{kind: errorKindOther, message: err.Error()})
			return
		}
		q.handle(msg)
		q.deadlines.AwaitFrame()
	}
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
	case resumeConsumption:
		q.resumeConsumption(m.receiverID)
	case cancelPartitionRequest:
		q.mu.Lock()
		reader := q.readers[m.receiverID]
		if reader != nil {
			q.removeReaderLocked(reader)
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
	q.deadlines.BeginWork() // a connection that reads a subpartition is not idle
	// The subpartition may have told the reader of data before the view
	// was set; writeLoop skipped it then. Queue it now: at worst it finds
	// nothing to send.
	q.enqueueAvailableReaderLocked(reader)
	q.mu.Unlock()
}

// resumeConsumption unblocks the subpartition of a reader after an aligned
// checkpoint barrier, and queues the reader: it sends again, with
// whatever credit the consumer announced meanwhile (the consumer kept
// announcing credit as it read the buffers before the barrier; while
// blocked, writeLoop looked at the reader once per AddCredit and let it
// be). A receiver the connection no longer reads (it failed, or was
// cancelled while the message travelled) has nothing to resume. Flink:
// PartitionRequestQueue.resumeConsumption → CreditBasedSequenceNumberingViewReader.resumeConsumption.
func (q *partitionRequestQueue) resumeConsumption(receiverID inputChannelID) {
	q.mu.Lock()
	reader := q.readers[receiverID]
	var view resultSubpartitionView
	if reader != nil {
		view = reader.view
	}
	q.mu.Unlock()
	if view == nil {
		return
	}
	// Outside mu: the subpartition's lock comes first, and it notifies
	// the reader (taking mu) if data waits.
	view.resumeConsumption()
	q.mu.Lock()
	q.enqueueAvailableReaderLocked(reader) // as Flink does; at worst writeLoop finds nothing to send
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
			// No data, only data and no credit, or blocked by an aligned
			// checkpoint barrier: new data, AddCredit or ResumeConsumption
			// queues it again. A blocked reader is looked at once per such
			// message, never in a loop.
			continue
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
// number, spends a credit on a data buffer (an event needs none, as in
// Flink), and queues the reader again if more is waiting (never right
// after an aligned checkpoint barrier: its subpartition is blocked, and
// ResumeConsumption queues the reader again). After the EndOfPartition
// event the reader is done. It returns false if the reader was cancelled
// while its buffer was taken.
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
	if next.buffer.DataType() == EndOfPartitionEvent { // the subpartition is consumed
		q.removeReaderLocked(reader)
		return response, true
	}
	if next.buffer.IsBuffer() {
		reader.numCreditsAvailable--
	}
	if next.moreAvailable {
		q.enqueueAvailableReaderLocked(reader) // to the back of the line: fairness
	}
	return response, true
}

// failReader forwards the error a reader's subpartition gave (released,
// or its producer failed) to the remote channel, and forgets the reader.
func (q *partitionRequestQueue) failReader(reader *creditBasedViewReader, err error) {
	q.mu.Lock()
	cancelled := reader.isReleased
	if !cancelled {
		q.removeReaderLocked(reader)
	}
	q.mu.Unlock()
	if !cancelled {
		q.writeMessage(errorResponse{receiverID: reader.receiverID, kind: errorKindOf(err), message: err.Error()})
	}
}

// removeReaderLocked releases a reader that is done (consumed, failed or
// cancelled) and forgets it. When it was the connection's last, the idle
// timeout counts from now.
func (q *partitionRequestQueue) removeReaderLocked(reader *creditBasedViewReader) {
	reader.isReleased = true
	delete(q.readers, reader.receiverID)
	q.deadlines.EndWork()
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
