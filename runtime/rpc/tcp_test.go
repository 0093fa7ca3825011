package rpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/internal/logbuf"
)

// The TCP transport, tested over real loopback connections. No test
// sleeps: every wait ends at a ctx deadline or on a channel.

// echoGateway is the gateway the tests serve. echoServer implements it with
// function fields, as the gatewaytest fakes do.
type echoGateway interface {
	// Echo answers message repeated times times.
	Echo(ctx context.Context, message string, times int) (string, error)
	// Wait returns when the server lets it.
	Wait(ctx context.Context) error
}

type echoServer struct {
	WaitFunc func(ctx context.Context) error
	calls    atomic.Int64
}

func (s *echoServer) Echo(_ context.Context, message string, times int) (string, error) {
	s.calls.Add(1)
	return strings.Repeat(message, times), nil
}

func (s *echoServer) Wait(ctx context.Context) error {
	if s.WaitFunc != nil {
		return s.WaitFunc(ctx)
	}
	return nil
}

// Close is not part of echoGateway, so peers cannot call it.
func (s *echoServer) Close() error { return errors.New("closed by a peer") }

type echoStub struct{ inv *Invoker }

func (s echoStub) Echo(ctx context.Context, message string, times int) (string, error) {
	return CallRemote[string](ctx, s.inv, "Echo", message, times)
}

func (s echoStub) Wait(ctx context.Context) error { return s.inv.Call(ctx, "Wait") }

// counterGateway is served by a real FencedEndpoint.
type counterGateway interface {
	Add(ctx context.Context, token string, delta int) (int, error)
}

type counter struct {
	*FencedEndpoint[string]
	total int // main thread only
}

func (c *counter) Add(ctx context.Context, token string, delta int) (int, error) {
	return CallFenced(ctx, c.FencedEndpoint, token, func() (int, error) {
		c.total += delta
		return c.total, nil
	})
}

type counterStub struct{ inv *Invoker }

func (s counterStub) Add(ctx context.Context, token string, delta int) (int, error) {
	return CallRemote[int](ctx, s.inv, "Add", token, delta)
}

func init() {
	RegisterStub(func(inv *Invoker) echoGateway { return echoStub{inv} })
	RegisterStub(func(inv *Invoker) counterGateway { return counterStub{inv} })
}

// newTCP starts a TCPService on a free loopback port, closed at the end of
// the test; its log lines go to logs.
func newTCP(t testing.TB, cfg TCPConfig) (*TCPService, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := NewTCPService(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, logs
}

// serveEcho starts a service serving an echoServer as "echo".
func serveEcho(t testing.TB, cfg TCPConfig) (*TCPService, *echoServer, *logbuf.Buffer) {
	t.Helper()
	s, logs := newTCP(t, cfg)
	echo := &echoServer{}
	require.NoError(t, s.Register(s.Address("echo"), echo))
	return s, echo, logs
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestTCPAddressesHaveFlinksShape(t *testing.T) {
	s, _ := newTCP(t, TCPConfig{})
	address := s.Address("resourcemanager_0")
	assert.Equal(t, "pekko.tcp://flink@"+s.HostPort()+"/user/rpc/resourcemanager_0", address)
	assert.True(t, strings.HasPrefix(s.HostPort(), "127.0.0.1:"), "binds to loopback by default")

	hostPort, name, err := parseTCPAddress(address)
	require.NoError(t, err)
	assert.Equal(t, s.HostPort(), hostPort)
	assert.Equal(t, "resourcemanager_0", name)

	for _, bad := range []string{
		"pekko://flink/user/rpc/resourcemanager_0", // a LocalService address
		"pekko.tcp://flink@127.0.0.1:6123/user/rpc/",
		"pekko.tcp://flink@127.0.0.1/user/rpc/x",
		"pekko.tcp://flink@127.0.0.1:6123/user/rpc/a/b",
	} {
		_, _, err := parseTCPAddress(bad)
		assert.Error(t, err, bad)
	}
	assert.Error(t, s.Register("pekko.tcp://flink@10.0.0.1:1/user/rpc/x", &echoServer{}), "not an address of this service")
}

func TestTCPConnectToItsOwnAddressGivesTheObject(t *testing.T) {
	s, echo, _ := serveEcho(t, TCPConfig{})
	g, err := Connect[echoGateway](testContext(t), s, s.Address("echo"))
	require.NoError(t, err)
	assert.Same(t, echo, g, "no network in between")

	assert.ErrorContains(t, s.Register(s.Address("echo"), echo), "already registered")
	s.Unregister(s.Address("echo"))
	_, err = s.Connect(testContext(t), s.Address("echo"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
}

func TestTCPCallRoundTrip(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{})
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)

	echo, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	got, err := echo.Echo(ctx, "ab", 3)
	require.NoError(t, err)
	assert.Equal(t, "ababab", got)
	assert.NoError(t, echo.Wait(ctx))
}

func TestTCPConnectChecksThatTheEndpointServesTheGateway(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{})
	client, _ := newTCP(t, TCPConfig{})

	_, err := Connect[counterGateway](testContext(t), client, server.Address("echo"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "does not support the gateway rpc.counterGateway: it has no method Add.")

	type unregistered interface {
		Close() error
	}
	_, err = Connect[unregistered](testContext(t), client, server.Address("echo"))
	assert.ErrorContains(t, err, "no stub is registered for the gateway rpc.unregistered")
}

func TestTCPConnectToNothingIsUnreachable(t *testing.T) {
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)

	// A port nobody listens on any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddress := "pekko.tcp://flink@" + ln.Addr().String() + "/user/rpc/echo"
	require.NoError(t, ln.Close())

	_, err = Connect[echoGateway](ctx, client, deadAddress)
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "Could not connect to rpc endpoint under address "+deadAddress+".")

	// A service that is there, without the endpoint.
	server, _, _ := serveEcho(t, TCPConfig{})
	_, err = Connect[echoGateway](ctx, client, server.Address("dispatcher_0"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "Could not connect to rpc endpoint under address "+server.Address("dispatcher_0")+".")
}

func TestTCPCallTimesOutAtTheCallersDeadline(t *testing.T) {
	server, echo, _ := serveEcho(t, TCPConfig{})
	release := make(chan struct{})
	serverDeadline := make(chan time.Time, 1)
	echo.WaitFunc = func(ctx context.Context) error {
		deadline, ok := ctx.Deadline()
		assert.True(t, ok, "the call runs with the caller's deadline")
		serverDeadline <- deadline
		<-release // ignores ctx: the caller must give up on its own
		return nil
	}
	defer close(release)
	client, _ := newTCP(t, TCPConfig{})
	g, err := Connect[echoGateway](testContext(t), client, server.Address("echo"))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = g.Wait(ctx)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "Invocation of [RemoteRpcInvocation(Wait)] at recipient ["+server.Address("echo")+"] timed out.")

	clientDeadline, _ := ctx.Deadline()
	got := <-serverDeadline
	assert.WithinDuration(t, clientDeadline, got, time.Second)
}

func TestTCPErrorsOfTheRPCLayerCrossTheWire(t *testing.T) {
	server, echo, _ := serveEcho(t, TCPConfig{})
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)

	// The callee's own endpoint timed out: its error wraps both ErrTimeout
	// and context.DeadlineExceeded, as CallAsync's does.
	echo.WaitFunc = func(ctx context.Context) error {
		return fmt.Errorf("%w: invocation at recipient [slow] timed out: %w", ErrTimeout, context.DeadlineExceeded)
	}
	err = g.Wait(ctx)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, ErrRecipientUnreachable)
	assert.EqualError(t, err, "rpc timeout: invocation at recipient [slow] timed out: context deadline exceeded")
}

// The fencing token is an argument like any other; a stale one is refused
// by the receiving FencedEndpoint, and the caller sees
// ErrFencingTokenMismatch as it would in one process.
func TestTCPStaleFencingTokenIsRejectedByARealFencedEndpoint(t *testing.T) {
	server, _ := newTCP(t, TCPConfig{})
	c := &counter{FencedEndpoint: NewFencedEndpoint("counter", "leader-1")}
	c.Start(nil)
	defer c.Close(nil)
	require.NoError(t, server.Register(server.Address("counter"), c))

	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[counterGateway](ctx, client, server.Address("counter"))
	require.NoError(t, err)

	total, err := g.Add(ctx, "leader-1", 5)
	require.NoError(t, err)
	assert.Equal(t, 5, total)

	_, err = CallAsync(ctx, c.Endpoint, func() (struct{}, error) {
		c.SetFencingToken("leader-2") // a new leadership
		return struct{}{}, nil
	})
	require.NoError(t, err)

	_, err = g.Add(ctx, "leader-1", 5)
	assert.ErrorIs(t, err, ErrFencingTokenMismatch)
	assert.ErrorContains(t, err, "Fencing token mismatch: Ignoring message for counter because the fencing token leader-1 did not match the expected fencing token leader-2.")

	total, err = g.Add(ctx, "leader-2", 1)
	require.NoError(t, err)
	assert.Equal(t, 6, total, "the stale call changed nothing")
}

func TestTCPReconnectsAfterThePeerRestarts(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{})
	hostPort := server.HostPort()
	client, clientLogs := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	_, err = g.Echo(ctx, "before", 1)
	require.NoError(t, err)

	// The peer goes away; the client's connection notices.
	client.mu.Lock()
	old := client.peers[hostPort]
	client.mu.Unlock()
	require.NoError(t, server.Close())
	<-old.done
	assert.Equal(t, []string{"The connection to the RPC service at " + hostPort + " was closed by the peer."},
		clientLogs.Messages("The connection to the RPC service"))

	_, err = g.Echo(ctx, "while down", 1)
	assert.ErrorIs(t, err, ErrRecipientUnreachable, "nobody listens")
	assert.ErrorContains(t, err, "Could not connect to rpc endpoint under address "+server.Address("echo")+".")

	// A new process on the same port: the same stub works again.
	restarted, _, _ := serveEcho(t, TCPConfig{Address: hostPort})
	require.Equal(t, hostPort, restarted.HostPort())
	got, err := g.Echo(ctx, "after", 1)
	require.NoError(t, err)
	assert.Equal(t, "after", got)
}

func TestTCPCallInFlightWhenThePeerStopsIsUnreachable(t *testing.T) {
	server, echo, _ := serveEcho(t, TCPConfig{})
	arrived := make(chan struct{})
	echo.WaitFunc = func(ctx context.Context) error {
		close(arrived)
		<-ctx.Done() // ends when the server closes
		return ctx.Err()
	}
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)

	result := make(chan error, 1)
	go func() { result <- g.Wait(ctx) }()
	<-arrived
	require.NoError(t, server.Close())
	err = <-result
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "Could not send message [RemoteRpcInvocation(Wait)] from sender [pekko.tcp://flink@"+client.HostPort()+
		"] to recipient ["+server.Address("echo")+"], because the recipient is unreachable.")
}

// Every call to a peer goes over one connection. A call that gives up
// before its frame goes out (its deadline passed while it waited for its
// turn behind the frames of other calls) sends nothing and leaves that
// connection alone: the other calls on it still get their answers.
func TestTCPACallThatGivesUpBeforeItIsSentLeavesTheConnectionAlone(t *testing.T) {
	server, echo, _ := serveEcho(t, TCPConfig{})
	arrived, release := make(chan struct{}), make(chan struct{})
	echo.WaitFunc = func(context.Context) error {
		close(arrived)
		<-release
		return nil
	}
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	inFlight := make(chan error, 1)
	go func() { inFlight <- g.Wait(ctx) }()
	<-arrived

	client.mu.Lock()
	conn := client.peers[server.HostPort()]
	client.mu.Unlock()
	late, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	_, err = conn.call(late, request{Target: "echo", Method: "Echo", Args: []json.RawMessage{[]byte(`"x"`), []byte(`1`)}})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.True(t, conn.alive(), "nothing was sent: the connection is as it was")

	close(release)
	assert.NoError(t, <-inFlight, "the call in flight gets its answer")
	assert.Zero(t, echo.calls.Load(), "the late call never reached the server")
}

// A peer that stops reading cannot hold an answer, and the goroutine that
// writes it, for ever: the answer waits until the caller's deadline at
// most, and is then dropped. The connection stays: nothing of the answer
// was written. (A net.Pipe, whose writes wait until the other end reads,
// stands for a peer whose socket is full.)
func TestTCPAnAnswerTheCallerNoLongerWaitsForIsDropped(t *testing.T) {
	s, _ := newTCP(t, TCPConfig{})
	synctest.Test(t, func(t *testing.T) {
		conn, peer := net.Pipe()
		defer peer.Close()
		c := newServerConn(s, conn)
		defer c.close()

		answered := make(chan struct{})
		go func() {
			defer close(answered)
			c.answer(request{ID: 1, Method: "Echo"}, resultResponse(1, "nobody reads this"), time.Now().Add(10*time.Second))
		}()
		synctest.Wait()
		select {
		case <-answered:
			t.Fatal("the answer went out, though nobody reads")
		default:
		}

		time.Sleep(10 * time.Second) // fake time: the caller's deadline passes
		synctest.Wait()
		select {
		case <-answered:
		default:
			t.Fatal("the answer still waits for a caller that stopped waiting")
		}
		assert.NoError(t, c.ctx.Err(), "the connection stays open")
	})
}

func TestTCPManyConcurrentCallsShareOneConnection(t *testing.T) {
	const callers, callsEach = 50, 20
	server, echo, _ := serveEcho(t, TCPConfig{})
	// The first wave of calls waits until all of them have arrived: so
	// they are in flight together, on one connection.
	var waiting atomic.Int64
	allThere := make(chan struct{})
	echo.WaitFunc = func(ctx context.Context) error {
		if waiting.Add(1) == callers {
			close(allThere)
		}
		select {
		case <-allThere:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			assert.NoError(t, g.Wait(ctx))
			for j := range callsEach {
				message := fmt.Sprintf("%d/%d;", i, j)
				got, err := g.Echo(ctx, message, 2)
				assert.NoError(t, err)
				assert.Equal(t, message+message, got)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(callers*callsEach), echo.calls.Load())

	client.mu.Lock()
	assert.Len(t, client.peers, 1)
	client.mu.Unlock()
	server.mu.Lock()
	assert.Len(t, server.incoming, 1, "one connection per peer")
	server.mu.Unlock()
}

// A peer that does not speak the protocol loses its connection, with a
// log line saying why; the service goes on serving everybody else.
func TestTCPServerSurvivesGarbage(t *testing.T) {
	frame := func(body string) []byte {
		f, err := appendFrame(nil, []byte(body), DefaultMaxFrameSize)
		require.NoError(t, err)
		return f
	}
	header := func(size uint32) []byte { return binary.BigEndian.AppendUint32(nil, size) }

	for _, tc := range []struct {
		name    string
		send    []byte
		wantLog string
	}{
		{"an HTTP request", []byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
			"frame of 1195725856 bytes exceeds the limit of 67108864 bytes."},
		{"an oversize frame", header(DefaultMaxFrameSize + 1),
			"frame of 67108865 bytes exceeds the limit of 67108864 bytes."},
		{"a frame that is not JSON", frame("\x00\x01hello"), "not a request: invalid character"},
		{"a frame that is not a request", frame(`["SubmitJob"]`), "not a request: json: cannot unmarshal array"},
		{"a truncated frame", append(header(100), `{"id": 1, "tar`...), "it ended in the middle of a frame."},
		{"a truncated header", []byte{0, 0}, "it ended in the middle of a frame."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, _, logs := serveEcho(t, TCPConfig{})
			ctx := testContext(t)

			conn, err := net.Dial("tcp", server.HostPort())
			require.NoError(t, err)
			defer conn.Close()
			_, err = conn.Write(tc.send)
			require.NoError(t, err)
			require.NoError(t, conn.(*net.TCPConn).CloseWrite()) // ends a truncated frame
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			rest, err := io.ReadAll(conn)
			require.NoError(t, err, "the server closes the connection")
			assert.Empty(t, rest, "and answers nothing")

			// Everybody else is still served.
			client, _ := newTCP(t, TCPConfig{})
			g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
			require.NoError(t, err)
			got, err := g.Echo(ctx, "still there", 1)
			require.NoError(t, err)
			assert.Equal(t, "still there", got)

			msgs := logs.Messages("Closing connection from " + conn.LocalAddr().String() + ": ")
			require.Len(t, msgs, 1)
			assert.Contains(t, msgs[0], tc.wantLog)
		})
	}
}

// Requests that are well formed but cannot be served are answered with an
// error; the connection stays.
func TestTCPUnservableCallsAreAnswered(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{})
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	raw, err := client.Connect(ctx, server.Address("echo"))
	require.NoError(t, err)
	inv := raw.(*Invoker)

	err = inv.Call(ctx, "Close")
	assert.EqualError(t, err, "Could not find rpc method Close on the rpc endpoint under address "+server.Address("echo")+".",
		"only gateway methods can be called")

	_, err = CallRemote[string](ctx, inv, "Echo", "one argument short")
	assert.EqualError(t, err, "Could not decode the arguments of rpc method Echo: it takes 2 arguments, got 1")

	_, err = CallRemote[string](ctx, inv, "Echo", "x", "not a number")
	assert.ErrorContains(t, err, "Could not decode the arguments of rpc method Echo: argument 2 (int): json: cannot unmarshal string")

	_, err = CallRemote[int](ctx, inv, "Echo", "x", 1)
	assert.ErrorContains(t, err, "could not decode the answer of rpc method Echo", "a stub that expects the wrong type")

	server.Unregister(server.Address("echo"))
	err = inv.Call(ctx, "Wait")
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "Could not send message [RemoteRpcInvocation(Wait)] from sender [pekko.tcp://flink@"+client.HostPort()+
		"] to recipient ["+server.Address("echo")+"], because the recipient is unreachable.", "the sender is the caller's RPC service")

	client.mu.Lock()
	defer client.mu.Unlock()
	assert.True(t, client.peers[server.HostPort()].alive(), "one connection served all of it")
}

func TestTCPFrameLimitOnBothSides(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{MaxFrameSize: 1024})
	client, _ := newTCP(t, TCPConfig{MaxFrameSize: 1024})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)

	// A call too large to send is refused before it leaves.
	_, err = g.Echo(ctx, strings.Repeat("x", 2000), 1)
	assert.ErrorContains(t, err, "The rpc invocation size ")
	assert.ErrorContains(t, err, " exceeds the maximum pekko framesize (1024 bytes): RemoteRpcInvocation(Echo) at "+server.Address("echo")+".")

	// An answer too large to send is replaced by an error saying so.
	_, err = g.Echo(ctx, "x", 2000)
	assert.ErrorContains(t, err, "The method Echo's result size ")
	assert.ErrorContains(t, err, " exceeds the maximum size 1024.")

	got, err := g.Echo(ctx, "x", 10)
	require.NoError(t, err, "the connection survived both")
	assert.Equal(t, "xxxxxxxxxx", got)
}

func TestTCPCloseEndsCallsAndConnections(t *testing.T) {
	server, _, _ := serveEcho(t, TCPConfig{})
	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	_, err = g.Echo(ctx, "x", 1)
	require.NoError(t, err)

	require.NoError(t, client.Close())
	require.NoError(t, client.Close(), "twice is fine")
	_, err = g.Echo(ctx, "x", 1)
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "the RPC service is closed")

	require.NoError(t, server.Close())
	other, _ := newTCP(t, TCPConfig{})
	_, err = Connect[echoGateway](ctx, other, server.Address("echo"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable, "the listener is gone")
}

// BenchmarkTCPRoundTrip measures one small call over loopback: encode,
// frame, write, dispatch by reflection, answer, decode.
func BenchmarkTCPRoundTrip(b *testing.B) {
	server, _, _ := serveEcho(b, TCPConfig{})
	client, _ := newTCP(b, TCPConfig{})
	ctx := testContext(b)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(b, err)
	for b.Loop() {
		if _, err := g.Echo(ctx, "ping", 1); err != nil {
			b.Fatal(err)
		}
	}
}

// readAll is used by the frame tests: every frame in data.
func readAll(data []byte, limit int) ([][]byte, error) {
	r := bufio.NewReader(strings.NewReader(string(data)))
	var bodies [][]byte
	for {
		body, err := readFrame(r, limit)
		if err != nil {
			return bodies, err
		}
		bodies = append(bodies, body)
	}
}
