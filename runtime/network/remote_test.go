package network

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// These tests run a producer and a consumer in two "processes": each has
// its own ResultPartitionManager, ShuffleEnvironment and
// PartitionRequestServer, as two TaskExecutor processes would, and they
// meet only through TCP on 127.0.0.1. Nothing sleeps: a test waits for a
// result on a channel, and a ctx deadline bounds every wait.

// process is one TaskExecutor process's data plane.
type process struct {
	manager *ResultPartitionManager
	server  *PartitionRequestServer
	env     *ShuffleEnvironment
}

// newProcess starts a process's data plane; the test's cleanup stops it.
func newProcess(t testing.TB, cfg Config) *process {
	t.Helper()
	manager := NewResultPartitionManager()
	server, err := NewPartitionRequestServer(manager, PartitionRequestServerConfig{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	cfg.PartitionManager = manager
	cfg.DataAddress = server.Address()
	env, err := NewShuffleEnvironment(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		env.Close()
		assert.NoError(t, server.Close())
	})
	return &process{manager: manager, server: server, env: env}
}

// remoteGateDescriptor describes a gate reading the given subpartition of
// partitions produced in the process whose data address is given, as the
// scheduler would describe it.
func remoteGateDescriptor(subpartition int, dataAddress string, ids ...api.ResultPartitionID) gateway.InputGateDeploymentDescriptor {
	gdd := gateDescriptor(subpartition, ids...)
	for i := range gdd.ShuffleDescriptors {
		gdd.ShuffleDescriptors[i].DataAddress = dataAddress
	}
	return gdd
}

// remoteChannel returns the gate's channel i, which must be remote.
func remoteChannel(t testing.TB, gate *InputGate, i int) *remoteInputChannel {
	t.Helper()
	channel, ok := gate.channels[i].(*remoteInputChannel)
	require.True(t, ok, "channel %d is a %T", i, gate.channels[i])
	return channel
}

// withTimeout bounds a test's waits, so that a bug fails the test instead
// of hanging it.
func withTimeout(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// assertLetGo checks the result of a producer whose consumers left: it is
// not blocked any more. It ended with ErrPartitionReleased once its last
// consumer was gone, or, if it got there first, ran to its end, its data
// dropped (see pipelinedSubpartition.add).
func assertLetGo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		assert.ErrorIs(t, err, ErrPartitionReleased)
	}
}

// receive waits for a value on ch, failing the test when ctx ends first.
func receive[T any](ctx context.Context, t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("gave up waiting: %v", ctx.Err())
		panic("unreachable")
	}
}

// The keyed exchange of TestAllToAllTwoProducersThreeConsumers, with the
// producers in one process and the consumers in another: every record
// arrives, once, in the order its producer emitted it.
func TestRemoteExchangeAllToAll(t *testing.T) {
	ctx := withTimeout(t)
	const producers, consumers, perProducer = 2, 3, 20_000
	producerProcess := newProcess(t, Config{BufferSize: 256}) // small buffers: many frames
	consumerProcess := newProcess(t, Config{BufferSize: 256})

	ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1)}
	var wg sync.WaitGroup
	produceErrs := make([]error, producers)
	for p := range producers {
		partition, err := producerProcess.env.CreateResultPartition(ids[p], consumers)
		require.NoError(t, err)
		wg.Go(func() {
			produceErrs[p] = produce(ctx, partition, p, perProducer, func(i int) int { return i % consumers })
		})
	}
	got := make([][][]byte, consumers)
	readErrs := make([]error, consumers)
	for c := range consumers {
		gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(c, producerProcess.server.Address(), ids...))
		wg.Go(func() {
			defer gate.Close()
			got[c], readErrs[c] = readAll(ctx, gate)
		})
	}
	wg.Wait()

	for p := range producers {
		require.NoError(t, produceErrs[p], "producer %d", p)
	}
	for c := range consumers {
		require.ErrorIs(t, readErrs[c], io.EOF, "consumer %d", c)
		perProducerSeqs := make([][]int, producers)
		for _, record := range got[c] {
			producer, seq := parseTestRecord(t, record)
			perProducerSeqs[producer] = append(perProducerSeqs[producer], seq)
		}
		var want []int
		for i := c; i < perProducer; i += consumers {
			want = append(want, i)
		}
		for p := range producers {
			assert.Equal(t, want, perProducerSeqs[p], "consumer %d, records of producer %d", c, p)
		}
	}
	assert.Zero(t, producerProcess.manager.numberOfRegisteredPartitions(), "consumed partitions are unregistered")
	assert.Zero(t, consumerProcess.env.clients.numberOfClients(), "the last channel to finish closed the connection")
}

// One gate may read some partitions in-process and others over TCP: the
// shuffle descriptor decides, channel by channel.
func TestGateMixesLocalAndRemoteChannels(t *testing.T) {
	ctx := withTimeout(t)
	producerProcess := newProcess(t, Config{})
	consumerProcess := newProcess(t, Config{})

	remoteID, ownAddressID, noAddressID := newPartitionID(0), newPartitionID(1), newPartitionID(2)
	gdd := gateDescriptor(0, remoteID, ownAddressID, noAddressID)
	gdd.ShuffleDescriptors[0].DataAddress = producerProcess.server.Address()
	gdd.ShuffleDescriptors[1].DataAddress = consumerProcess.server.Address() // this process's own: read locally
	gate := consumerProcess.env.CreateInputGate(gdd)
	defer gate.Close()

	for i, tc := range []struct {
		env *ShuffleEnvironment
		id  api.ResultPartitionID
	}{{producerProcess.env, remoteID}, {consumerProcess.env, ownAddressID}, {consumerProcess.env, noAddressID}} {
		p, err := tc.env.CreateResultPartition(tc.id, 1)
		require.NoError(t, err)
		require.NoError(t, produce(ctx, p, i, 100, func(int) int { return 0 }))
	}

	records, err := readAll(ctx, gate)
	require.ErrorIs(t, err, io.EOF)
	assert.Len(t, records, 300)
	assert.IsType(t, &remoteInputChannel{}, gate.channels[0])
	assert.IsType(t, &localInputChannel{}, gate.channels[1])
	assert.IsType(t, &localInputChannel{}, gate.channels[2])
}

// Backpressure across TCP: a consumer that does not read stops announcing
// credit, the server stops taking buffers, the subpartition's queue fills
// up and the producer blocks, with at most BuffersPerSubpartition buffers
// queued at the producer and as many received by the consumer. When the
// consumer reads again, everything arrives, in order.
func TestRemoteBackpressureBlocksProducerAtTheBound(t *testing.T) {
	ctx := withTimeout(t)
	const bound, n = 2, 10_000
	cfg := Config{BufferSize: 1024, BuffersPerSubpartition: bound}
	producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
	id := newPartitionID(0)
	p, err := producerProcess.env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
	defer gate.Close()
	require.NoError(t, gate.RequestPartitions(ctx)) // the request carries the initial credit

	// The producer writes until it is blocked for a while: it cannot get
	// rid of a buffer.
	blockedCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	emitted := 0
	for ; emitted < n; emitted++ {
		if err = p.EmitRecord(blockedCtx, testRecord(0, emitted), 0); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, context.DeadlineExceeded, "the producer blocked")
	recordsPerBuffer := 1024 / len(testRecord(0, 0)) // an upper bound: prefixes take room too
	assert.LessOrEqual(t, emitted, (2*bound+1)*recordsPerBuffer,
		"at most the producer's queue, the consumer's credit, and the buffer being filled")
	assert.LessOrEqual(t, p.BuffersInFlight(), bound)
	received, _ := remoteChannel(t, gate, 0).buffersReceived()
	assert.LessOrEqual(t, received, bound, "the server sent no buffer without credit")

	// The consumer reads; the producer goes on from the record that blocked.
	produced := make(chan error, 1)
	go func() {
		for i := emitted; i < n; i++ {
			if err := p.EmitRecord(ctx, testRecord(0, i), 0); err != nil {
				produced <- err
				return
			}
		}
		produced <- p.Finish(ctx)
	}()
	records, err := readAll(ctx, gate)
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, receive(ctx, t, produced))
	require.Len(t, records, n)
	for i, record := range records {
		_, seq := parseTestRecord(t, record)
		require.Equal(t, i, seq, "nothing lost, nothing reordered")
	}
	assert.LessOrEqual(t, p.MaxBuffersInFlight(), bound, "the producer's bound held all the way")
	_, maxReceived := remoteChannel(t, gate, 0).buffersReceived()
	assert.LessOrEqual(t, maxReceived, bound, "the consumer's credit held all the way")
}

// Credit keeps one connection fair: channels of one connection share it,
// and one whose consumer does not read holds up no other. Sixteen
// partitions go to one consumer process over one connection; the gate of
// four of them is never read, the other twelve are read to their end.
func TestChannelsShareOneConnectionAndASlowOneBlocksNoOther(t *testing.T) {
	ctx := withTimeout(t)
	const slowPartitions, fastPartitions, n = 4, 12, 2_000
	cfg := Config{BufferSize: 256, BuffersPerSubpartition: 2}
	producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
	address := producerProcess.server.Address()

	var slowIDs, fastIDs []api.ResultPartitionID
	slowProduced := make(chan error, slowPartitions)
	fastProduced := make(chan error, fastPartitions)
	for i := range slowPartitions + fastPartitions {
		id := newPartitionID(i)
		p, err := producerProcess.env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		result := fastProduced
		if i < slowPartitions {
			slowIDs, result = append(slowIDs, id), slowProduced
		} else {
			fastIDs = append(fastIDs, id)
		}
		go func() { result <- produce(ctx, p, i, n, func(int) int { return 0 }) }()
	}

	slow := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, address, slowIDs...))
	require.NoError(t, slow.RequestPartitions(ctx)) // requested, never read
	fast := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, address, fastIDs...))
	records, err := readAll(ctx, fast)
	fast.Close()
	require.ErrorIs(t, err, io.EOF)
	assert.Len(t, records, fastPartitions*n, "the fast gate read everything while the slow one read nothing")
	for range fastPartitions {
		require.NoError(t, receive(ctx, t, fastProduced))
	}
	assert.Equal(t, 1, consumerProcess.env.clients.numberOfClients(), "one connection for all channels")
	assert.Equal(t, 1, producerProcess.server.numberOfConnections())
	assert.Len(t, slowProduced, 0, "the slow gate's producers are still held back")

	// The slow consumer leaves: its producers are released, and the
	// connection, which has no channel left, closes.
	slow.Close()
	for range slowPartitions {
		assertLetGo(t, receive(ctx, t, slowProduced))
	}
	assert.Zero(t, consumerProcess.env.clients.numberOfClients())
}

// A producer's failure reaches its remote consumer as it reaches a local
// one: ErrProducerFailed with the cause's text (the cause itself stays in
// the producer's process). Release reaches it as ErrPartitionReleased.
func TestRemoteConsumerReadsTheProducersEnd(t *testing.T) {
	cause := errors.New("boom in the map function")
	for _, tc := range []struct {
		name     string
		end      func(*ResultPartition)
		wantErr  error
		wantText string
	}{
		{"Fail", func(p *ResultPartition) { p.Fail(cause) }, ErrProducerFailed, "the producer failed: boom in the map function"},
		{"Release", (*ResultPartition).Release, ErrPartitionReleased, "result partition released"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := withTimeout(t)
			producerProcess, consumerProcess := newProcess(t, Config{}), newProcess(t, Config{})
			id := newPartitionID(0)
			p, err := producerProcess.env.CreateResultPartition(id, 1)
			require.NoError(t, err)
			gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
			defer gate.Close()

			// The consumer reads what was flushed, then waits for more.
			require.NoError(t, p.EmitRecord(ctx, testRecord(0, 0), 0))
			require.NoError(t, p.Flush(ctx))
			record, err := gate.Next(ctx)
			require.NoError(t, err)
			assert.Equal(t, testRecord(0, 0), record)
			read := make(chan error, 1)
			go func() {
				_, err := gate.Next(ctx)
				read <- err
			}()

			tc.end(p)
			err = receive(ctx, t, read)
			assert.ErrorIs(t, err, tc.wantErr)
			assert.ErrorContains(t, err, tc.wantText)
			assert.ErrorContains(t, err, id.String(), "the error names the partition")
			_, err = gate.Next(ctx)
			assert.ErrorIs(t, err, tc.wantErr, "the failure is final")
			assert.Zero(t, consumerProcess.env.clients.numberOfClients(), "the failed channel left its connection")
		})
	}
}

// A consumer that closes its gate early tells the producer's server, which
// releases the subpartition: the producer blocked on it is let go, as
// in-process.
func TestRemoteConsumerCloseReleasesTheSubpartition(t *testing.T) {
	ctx := withTimeout(t)
	cfg := Config{BufferSize: 64, BuffersPerSubpartition: 1}
	producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
	id := newPartitionID(0)
	p, err := producerProcess.env.CreateResultPartition(id, 1)
	require.NoError(t, err)
	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
	require.NoError(t, gate.RequestPartitions(ctx))

	produced := make(chan error, 1)
	go func() { produced <- produce(ctx, p, 0, 100_000, func(int) int { return 0 }) }()
	record, err := gate.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, testRecord(0, 0), record)

	gate.Close()
	assertLetGo(t, receive(ctx, t, produced))
	_, err = readAll(ctx, gate) // the rest of the buffer being read, then the end
	assert.ErrorIs(t, err, ErrInputGateClosed)
}

// A connection that breaks fails every channel it carried with an error
// naming the producer's address, whether the producer's process died or
// the network dropped the connection; on the producer's side, the
// subpartitions it carried are released, so no producer waits for a
// consumer it cannot reach.
func TestLostConnectionFailsTheChannels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(producer *process, p *proxy)
	}{
		{"the producer's process dies", func(producer *process, _ *proxy) { require.NoError(t, producer.server.Close()) }},
		{"the network resets the connection", func(_ *process, p *proxy) { p.reset() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := withTimeout(t)
			cfg := Config{BufferSize: 64, BuffersPerSubpartition: 1}
			producerProcess, consumerProcess := newProcess(t, cfg), newProcess(t, cfg)
			network := newProxy(t, producerProcess.server.Address())
			ids := []api.ResultPartitionID{newPartitionID(0), newPartitionID(1)}
			produced := make(chan error, len(ids))
			for i, id := range ids {
				p, err := producerProcess.env.CreateResultPartition(id, 1)
				require.NoError(t, err)
				go func() { produced <- produce(ctx, p, i, 100_000, func(int) int { return 0 }) }()
			}
			gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, network.address(), ids...))
			defer gate.Close()
			// Data flows on both channels: the server has both requests.
			seen := map[int]bool{}
			for len(seen) < len(ids) {
				record, err := gate.Next(ctx)
				require.NoError(t, err)
				producer, _ := parseTestRecord(t, record)
				seen[producer] = true
			}

			tc.breakIt(producerProcess, network)
			_, err := readAll(ctx, gate)
			assert.ErrorIs(t, err, ErrRemoteTransport)
			// "Lost connection to task manager '<address>'. This indicates that
			// the remote task manager was lost." when the socket reports an
			// error (a reset, usually), "Connection unexpectedly closed by
			// remote task manager '<address>'. This might indicate that the
			// remote task manager was lost." when it reports an orderly end:
			// which one a dying peer leads to is up to the operating system.
			assert.ErrorContains(t, err, "task manager '"+network.address()+"'. This")
			assert.ErrorContains(t, err, "remote task manager was lost.")
			for range ids {
				assertLetGo(t, receive(ctx, t, produced))
			}
			assert.Zero(t, consumerProcess.env.clients.numberOfClients())
		})
	}
}

// A consumer whose producer's process cannot be reached at all fails its
// request with the same kind of error.
func TestUnreachableProducerFailsTheRequest(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	address := listener.Addr().String()
	require.NoError(t, listener.Close()) // nobody listens there any more

	env := newEnvironment(t, Config{})
	gate := env.CreateInputGate(remoteGateDescriptor(0, address, newPartitionID(0)))
	defer gate.Close()
	_, err = gate.Next(withTimeout(t))
	assert.ErrorIs(t, err, ErrRemoteTransport)
	assert.ErrorContains(t, err, "Connecting to remote task manager '"+address+"' has failed.")
}

// A channel writes its request under its own lock. If that write fails
// (the connection broke a moment ago, and nobody has noticed yet), the
// request fails with the transport error; the failure must not call back
// into the channel whose lock is held.
func TestRequestOnAConnectionThatJustBrokeFails(t *testing.T) {
	ctx := withTimeout(t)
	producerProcess, consumerProcess := newProcess(t, Config{}), newProcess(t, Config{})
	address := producerProcess.server.Address()

	// A connection whose socket is already closed, which the factory does
	// not know yet: its read loop has not run.
	conn, err := net.Dial("tcp", address)
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	clients := consumerProcess.env.clients
	broken := newPartitionRequestClient(clients, address, conn)
	clients.mu.Lock()
	clients.clients[address], broken.users = broken, 1
	clients.mu.Unlock()

	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, address, newPartitionID(0)))
	defer gate.Close()
	requested := make(chan error, 1)
	go func() { requested <- gate.RequestPartitions(ctx) }()
	err = receive(ctx, t, requested)
	assert.ErrorIs(t, err, ErrRemoteTransport)
	assert.ErrorContains(t, err, "Lost connection to task manager '"+address+"'")
	_, err = gate.Next(ctx)
	assert.ErrorIs(t, err, ErrRemoteTransport, "the failure is final")

	clients.wg.Go(broken.readLoop) // as the factory would have: it ends at once
	clients.releaseClient(broken)
}

// manualRetries stands in for time.AfterFunc: a test sees each retry of a
// partition request being scheduled, and fires it when it likes.
type manualRetries struct{ scheduled chan scheduledRetry }

type scheduledRetry struct {
	after time.Duration
	fire  func()
}

func newManualRetries(env *ShuffleEnvironment) *manualRetries {
	m := &manualRetries{scheduled: make(chan scheduledRetry, 16)}
	env.afterFunc = func(d time.Duration, f func()) func() bool {
		m.scheduled <- scheduledRetry{d, f}
		return func() bool { return true }
	}
	return m
}

// A consumer may ask before its producer has registered the partition.
// The server answers PartitionNotFound at once, and the channel asks again
// after 100 ms, 200 ms, 400 ms and so on up to 10 s (Flink's
// taskmanager.network.request-backoff.*), and fails when that is used up.
func TestPartitionNotFoundIsRetriedWithBackoff(t *testing.T) {
	t.Run("the producer registers in time", func(t *testing.T) {
		ctx := withTimeout(t)
		producerProcess, consumerProcess := newProcess(t, Config{}), newProcess(t, Config{})
		retries := newManualRetries(consumerProcess.env)
		id := newPartitionID(0)
		gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
		defer gate.Close()
		type result struct {
			records [][]byte
			err     error
		}
		consumed := make(chan result, 1)
		go func() {
			records, err := readAll(ctx, gate)
			consumed <- result{records, err}
		}()

		// Not found: the channel schedules its first retry.
		retry := receive(ctx, t, retries.scheduled)
		assert.Equal(t, 100*time.Millisecond, retry.after)

		// The producer registers and writes; the retry finds it.
		p, err := producerProcess.env.CreateResultPartition(id, 1)
		require.NoError(t, err)
		require.NoError(t, produce(ctx, p, 0, 3, func(int) int { return 0 }))
		retry.fire()

		r := receive(ctx, t, consumed)
		require.ErrorIs(t, r.err, io.EOF)
		assert.Equal(t, [][]byte{testRecord(0, 0), testRecord(0, 1), testRecord(0, 2)}, r.records)
		assert.Len(t, retries.scheduled, 0, "no more retries")
	})

	t.Run("the producer never registers", func(t *testing.T) {
		ctx := withTimeout(t)
		producerProcess, consumerProcess := newProcess(t, Config{}), newProcess(t, Config{})
		retries := newManualRetries(consumerProcess.env)
		id := newPartitionID(0)
		gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
		defer gate.Close()
		read := make(chan error, 1)
		go func() {
			_, err := gate.Next(ctx)
			read <- err
		}()

		var waits []time.Duration
		for range 8 {
			retry := receive(ctx, t, retries.scheduled)
			waits = append(waits, retry.after)
			retry.fire()
		}
		ms := time.Millisecond
		assert.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 10_000 * ms}, waits)
		err := receive(ctx, t, read)
		assert.ErrorIs(t, err, ErrPartitionNotFound)
		assert.ErrorContains(t, err, "Partition "+id.String()+" not found.")
	})
}

func TestIncreaseBackoff(t *testing.T) {
	const initial, maxBackoff = 100 * time.Millisecond, 10 * time.Second
	for _, tc := range []struct {
		current time.Duration
		want    time.Duration
		wantOK  bool
	}{
		{0, initial, true},
		{initial, 200 * time.Millisecond, true},
		{6400 * time.Millisecond, maxBackoff, true},
		{maxBackoff, maxBackoff, false},
	} {
		got, ok := increaseBackoff(tc.current, initial, maxBackoff)
		assert.Equal(t, tc.want, got, "after %s", tc.current)
		assert.Equal(t, tc.wantOK, ok, "after %s", tc.current)
	}
}

// A peer that does not speak the protocol (here an HTTP client dialling
// the data port) gets a fatal ErrorResponse and its connection closed.
func TestServerClosesAConnectionThatBreaksTheProtocol(t *testing.T) {
	server := newProcess(t, Config{}).server
	conn, err := net.Dial("tcp", server.Address())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
	require.NoError(t, err)

	id, fields, err := readFrame(conn, maxResponseFrameLength)
	require.NoError(t, err)
	msg, err := decodeMessage(id, fields)
	require.NoError(t, err)
	require.IsType(t, errorResponse{}, msg)
	response := msg.(errorResponse)
	assert.Zero(t, response.receiverID, "fatal: for the whole connection")
	assert.Contains(t, response.message, "network stream corrupted: received incorrect magic number")
	_, _, err = readFrame(conn, maxResponseFrameLength)
	assert.ErrorIs(t, err, io.EOF, "then the server hangs up")
}

// proxy stands for the network between two processes: it forwards every
// connection to target, and reset breaks them all at once, as a failing
// switch would.
type proxy struct {
	listener net.Listener
	target   string

	mu    sync.Mutex
	conns []*net.TCPConn
	wg    sync.WaitGroup
}

func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{listener: listener, target: target}
	p.wg.Go(p.acceptLoop)
	t.Cleanup(func() {
		_ = listener.Close()
		p.reset()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) address() string { return p.listener.Addr().String() }

func (p *proxy) acceptLoop() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client.(*net.TCPConn), server.(*net.TCPConn))
		p.mu.Unlock()
		var closed atomic.Bool
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			if !closed.Swap(true) {
				_ = dst.Close()
				_ = src.Close()
			}
		}
		p.wg.Go(func() { pipe(server, client) })
		p.wg.Go(func() { pipe(client, server) })
	}
}

// reset closes every connection with a TCP reset (SO_LINGER 0), so both
// ends read "connection reset by peer".
func (p *proxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, conn := range p.conns {
		_ = conn.SetLinger(0)
		_ = conn.Close()
	}
	p.conns = nil
}
