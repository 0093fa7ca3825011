package rpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The limits of the serving side (doc.go, "Limits"): the read timeout of a
// frame, the idle timeout of a connection, the bound on connections, and
// what a half-sent frame costs. The deadline tests run in a synctest
// bubble over a net.Pipe, so that minutes pass at once; the pipe's writes
// return only once the server has read them.

// servePipe serves one end of a net.Pipe as a connection the service
// accepted, and returns the other end, the peer's, and a channel closed
// when the server is done with the connection. Call it inside the bubble.
func servePipe(t *testing.T, s *TCPService) (peer net.Conn, served chan struct{}) {
	t.Helper()
	conn, peer := net.Pipe()
	t.Cleanup(func() { _ = peer.Close() })
	_, served = servePipeConn(s, conn)
	return peer, served
}

// servePipeConn serves conn, one end of a net.Pipe, as a connection the
// service accepted.
func servePipeConn(s *TCPService, conn net.Conn) (c *serverConn, served chan struct{}) {
	c = newServerConn(s, conn)
	served = make(chan struct{})
	go func() {
		defer close(served)
		c.serve()
	}()
	return c, served
}

// isOpen reports whether the server still serves the connection, once
// everything in the bubble has settled.
func isOpen(served chan struct{}) bool {
	synctest.Wait()
	select {
	case <-served:
		return false
	default:
		return true
	}
}

// sendRequest writes one request frame from the peer's end.
func sendRequest(t *testing.T, peer net.Conn, req request) {
	t.Helper()
	body, err := json.Marshal(req)
	require.NoError(t, err)
	frame, err := appendFrame(nil, body, DefaultMaxFrameSize)
	require.NoError(t, err)
	_, err = peer.Write(frame)
	require.NoError(t, err)
}

// readResponse reads one response frame at the peer's end.
func readResponse(t *testing.T, r *bufio.Reader) response {
	t.Helper()
	body, err := readFrame(r, DefaultMaxFrameSize)
	require.NoError(t, err)
	resp, err := decodeResponse(body)
	require.NoError(t, err)
	return resp
}

func TestTCPAConnectionThatSendsNothingIsClosedAtTheReadTimeout(t *testing.T) {
	s, _, logs := serveEcho(t, TCPConfig{})
	synctest.Test(t, func(t *testing.T) {
		_, served := servePipe(t, s)

		time.Sleep(DefaultReadTimeout - time.Millisecond)
		assert.True(t, isOpen(served), "open until the read timeout")
		time.Sleep(time.Millisecond)
		assert.False(t, isOpen(served), "closed at the read timeout")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived within 20s of connecting (pekko.tcp.read-timeout)."), 1)
}

// A frame whose header has arrived must arrive whole within the read
// timeout; what was read of it goes with the connection.
func TestTCPAStalledFrameIsClosedAtTheReadTimeout(t *testing.T) {
	s, _, logs := serveEcho(t, TCPConfig{})
	synctest.Test(t, func(t *testing.T) {
		peer, served := servePipe(t, s)
		sendRequest(t, peer, request{ID: 1, Target: "echo"}) // a whole frame first: the connection is in use
		r := bufio.NewReader(peer)
		readResponse(t, r)

		time.Sleep(time.Minute)
		_, err := peer.Write(binary.BigEndian.AppendUint32(nil, 1<<20)) // a frame of 1 MiB…
		require.NoError(t, err)
		_, err = peer.Write([]byte(`{"id": 2, "target": "echo", `)) // …of which 28 bytes come
		require.NoError(t, err)

		time.Sleep(DefaultReadTimeout - time.Millisecond)
		assert.True(t, isOpen(served), "open until the read timeout")
		time.Sleep(time.Millisecond)
		assert.False(t, isOpen(served), "closed at the read timeout, counted from the frame's first byte")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: a frame did not arrive whole within 20s (pekko.tcp.read-timeout)."), 1)
}

func TestTCPAnIdleConnectionIsClosedAtTheIdleTimeout(t *testing.T) {
	s, _, logs := serveEcho(t, TCPConfig{IdleTimeout: time.Minute})
	synctest.Test(t, func(t *testing.T) {
		peer, served := servePipe(t, s)
		r := bufio.NewReader(peer)
		for i := range 3 { // a heartbeat now and then keeps the connection open
			sendRequest(t, peer, request{ID: uint64(i), Target: "echo"})
			readResponse(t, r)
			time.Sleep(50 * time.Second)
			assert.True(t, isOpen(served))
		}

		time.Sleep(10*time.Second - time.Millisecond)
		assert.True(t, isOpen(served), "open until a minute without a frame")
		time.Sleep(time.Millisecond)
		assert.False(t, isOpen(served), "closed at the idle timeout")
		_, err := r.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "the peer sees the connection end")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: it was idle for 1m0s (pekko.tcp.idle-timeout)."), 1)
}

// A call that runs for long (RequestJobResult waits for the end of a job)
// leaves its connection silent meanwhile: it is not idle. The idle
// timeout counts from the end of the last call.
func TestTCPAConnectionWithACallRunningIsNotIdle(t *testing.T) {
	s, echo, _ := serveEcho(t, TCPConfig{IdleTimeout: time.Minute})
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		echo.WaitFunc = func(ctx context.Context) error {
			<-release
			return nil
		}
		peer, served := servePipe(t, s)
		sendRequest(t, peer, request{ID: 1, Target: "echo", Method: "Wait"}) // no deadline: the caller waits as long as it takes

		time.Sleep(time.Hour)
		assert.True(t, isOpen(served), "the call still runs")

		close(release)
		r := bufio.NewReader(peer)
		resp := readResponse(t, r)
		assert.Equal(t, uint64(1), resp.ID)
		assert.Nil(t, resp.Error)
		time.Sleep(time.Minute - time.Millisecond)
		assert.True(t, isOpen(served), "the idle timeout counts from the answer")
		time.Sleep(time.Millisecond)
		assert.False(t, isOpen(served))
	})
}

// A port scan opens connections by the thousand and sends nothing: the
// log gets one line a minute for them, not one each, and the next line
// says how many it left out.
func TestTCPConnectionsThatSendNothingAreLoggedOnceAMinute(t *testing.T) {
	s, _, logs := serveEcho(t, TCPConfig{})
	synctest.Test(t, func(t *testing.T) {
		for range 5 {
			servePipe(t, s)
		}
		time.Sleep(DefaultReadTimeout)
		synctest.Wait()
		assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived"), 1, "five closed, one line")

		time.Sleep(time.Minute)
		_, served := servePipe(t, s)
		time.Sleep(DefaultReadTimeout)
		assert.False(t, isOpen(served))
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived"), 2, "a minute later, the next line")
	assert.Contains(t, logs.String(), `"suppressed":4`, "with the count of the four left out")
}

// The calling side closes a connection that has been idle for half the
// idle timeout, so the server, whose idle timeout is the same, never
// closes a connection a call may be on its way over. A call in flight,
// however long, keeps the connection: its end starts the idle time.
func TestTCPAnIdleOutgoingConnectionClosesBeforeThePeerWould(t *testing.T) {
	cfg := TCPConfig{IdleTimeout: time.Minute}
	server, echo, serverLogs := serveEcho(t, cfg)
	client, _ := newTCP(t, cfg)
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		echo.WaitFunc = func(ctx context.Context) error {
			<-release
			return nil
		}
		c, served := clientOverPipe(t, client, server)
		inv := &Invoker{service: client, address: "pekko.tcp://flink@pipe/user/rpc/echo", hostPort: "pipe", target: "echo"}
		ctx := context.Background()

		waited := make(chan error)
		go func() { waited <- inv.Call(ctx, "Wait") }() // a call that runs for an hour
		time.Sleep(time.Hour)
		assert.True(t, c.alive(), "a connection with a call in flight is in use")
		close(release)
		require.NoError(t, <-waited)

		got, err := CallRemote[string](ctx, inv, "Echo", "again", 1)
		require.NoError(t, err)
		assert.Equal(t, "again", got)

		time.Sleep(clientIdleTimeout(cfg) - time.Millisecond)
		synctest.Wait()
		assert.True(t, c.alive(), "open until half the idle timeout")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.ErrorIs(t, c.reason(), errClosedWhileIdle, "closed by the client at half the idle timeout")
		assert.False(t, isOpen(served), "the server sees the client hang up")
		_, err = c.call(ctx, request{Target: "echo", Method: "Echo"})
		assert.ErrorIs(t, err, errClosedWhileIdle, "a call that finds it so sends nothing, and takes a fresh one")
		client.mu.Lock()
		assert.NotContains(t, client.peers, "pipe", "the next call dials anew")
		client.mu.Unlock()
	})
	assert.Empty(t, serverLogs.Messages("Closing connection from pipe"), "the server's idle timeout never fired")
}

// clientOverPipe makes the calling side of a net.Pipe the client's
// connection to "pipe", and serves the other side on server. Call it
// inside the bubble.
func clientOverPipe(t *testing.T, client, server *TCPService) (c *clientConn, served chan struct{}) {
	t.Helper()
	conn, peer := net.Pipe()
	_, served = servePipeConn(server, peer)
	c = newClientConn(client, "pipe", conn)
	t.Cleanup(func() { c.close(errors.New("the test is over")) })
	client.mu.Lock()
	client.peers["pipe"] = c
	client.mu.Unlock()
	go c.readLoop()
	return c, served
}

// A cluster whose connection between two processes falls silent for
// longer than the idle timeout (a TaskManager's connection to a
// JobMaster whose job ended, say) and is used again: the client closed it
// before the server would have, and the next call dials a new one and
// succeeds. Over real loopback connections, with a short idle timeout.
func TestTCPACallAfterALongSilenceSucceeds(t *testing.T) {
	cfg := TCPConfig{IdleTimeout: time.Second}
	server, _, serverLogs := serveEcho(t, cfg)
	client, _ := newTCP(t, cfg)
	ctx := testContext(t)
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	_, err = g.Echo(ctx, "before", 1)
	require.NoError(t, err)

	require.Eventually(t, func() bool { return numberOfPeers(client) == 0 }, 10*time.Second, time.Millisecond, "the client closes its idle connection")
	require.Eventually(t, func() bool { return numberOfIncoming(server) == 0 }, 10*time.Second, time.Millisecond, "the server sees it close")
	got, err := g.Echo(ctx, "after", 1)
	require.NoError(t, err, "a new connection carries the call")
	assert.Equal(t, "after", got)
	assert.Empty(t, serverLogs.Messages("Closing connection from"), "the server closed nothing for being idle")
}

func numberOfPeers(s *TCPService) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.peers)
}

// With MaxConnections connections served, the next one waits in the
// listen backlog, and is served once a silent one is closed at its read
// timeout: the call made over it succeeds, late.
func TestTCPAConnectionOverTheBoundWaitsForRoom(t *testing.T) {
	const readTimeout = 200 * time.Millisecond
	server, _, logs := serveEcho(t, TCPConfig{MaxConnections: 1, ReadTimeout: readTimeout})
	silent, err := net.Dial("tcp", server.HostPort())
	require.NoError(t, err)
	defer silent.Close()
	require.Eventually(t, func() bool { return numberOfIncoming(server) == 1 }, 10*time.Second, time.Millisecond, "the silent connection is accepted")

	client, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)
	start := time.Now()
	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err, "served once the silent connection is closed")
	assert.GreaterOrEqual(t, time.Since(start), readTimeout/2, "it waited for room")
	got, err := g.Echo(ctx, "late", 1)
	require.NoError(t, err)
	assert.Equal(t, "late", got)

	assert.Equal(t, []string{"The RPC service at " + server.HostPort() + " serves 1 connections, its maximum: " +
		"new connections wait in the listen backlog until one closes. Each TaskManager takes one; raise pekko.tcp.max-connections to serve more at once."},
		logs.Messages("The RPC service at"))
	assert.Len(t, logs.Messages("Closing connection from "+silent.LocalAddr().String()+": no request arrived"), 1)
}

// Eight connections each announce a frame of the largest size, 64 MiB,
// and send 1 MiB of it. The server holds what arrived, not what was
// announced: 8 MiB and change, where reserving the announced size took
// 512 MiB.
func TestTCPHalfSentFramesCostWhatArrived(t *testing.T) {
	growth := halfSentFrames(t, newTCPForMemory(t))
	t.Logf("heap growth with 8 half-sent 64 MiB frames: %.1f MB", float64(growth)/1e6)
	assert.Less(t, growth, int64(100e6))
}

// BenchmarkTCPHalfSentFrames reports the heap the eight half-sent frames
// of TestTCPHalfSentFramesCostWhatArrived hold, after a GC:
//
//	go test -run '^$' -bench TCPHalfSentFrames ./runtime/rpc/
func BenchmarkTCPHalfSentFrames(b *testing.B) {
	s := newTCPForMemory(b)
	var growth int64
	for b.Loop() {
		growth = max(growth, halfSentFrames(b, s))
	}
	b.ReportMetric(float64(growth), "heap-bytes")
}

func newTCPForMemory(t testing.TB) *TCPService {
	s, _, _ := serveEcho(t, TCPConfig{})
	return s
}

// halfSentFrames serves eight net.Pipes, sends half-frames over them, and
// returns how much the heap grew while the server held them.
func halfSentFrames(t testing.TB, s *TCPService) int64 {
	const connections, sent = 8, 1 << 20
	before := heapInUse()
	var peers []net.Conn
	var served []chan struct{}
	for range connections {
		conn, peer := net.Pipe()
		c := newServerConn(s, conn)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.serve()
		}()
		frame := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize)
		frame = append(frame, make([]byte, sent)...)
		if _, err := peer.Write(frame); err != nil { // returns once the server has read it all
			t.Fatal(err)
		}
		peers, served = append(peers, peer), append(served, done)
	}
	growth := int64(heapInUse()) - int64(before)
	for i, peer := range peers {
		_ = peer.Close()
		<-served[i]
	}
	return growth
}

// heapInUse returns the bytes of the heap's live objects, after a GC.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func numberOfIncoming(s *TCPService) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.incoming)
}
