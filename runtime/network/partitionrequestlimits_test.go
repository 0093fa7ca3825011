package network

import (
	"bufio"
	"log/slog"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
)

// The limits of the PartitionRequestServer (doc.go, "Limits"), in a
// synctest bubble over net.Pipes, so that hours pass at once. A
// connection that reads a subpartition may stay silent as long as its
// producer has no data; any other is closed at the idle timeout.

// newLimitedPartitionServer returns a server (its listener unused: the
// tests hand it net.Pipes), its partition manager and its log.
func newLimitedPartitionServer(t *testing.T) (*PartitionRequestServer, *ResultPartitionManager, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	manager := NewResultPartitionManager()
	server, err := NewPartitionRequestServer(manager, PartitionRequestServerConfig{
		IdleTimeout: time.Minute,
		Logger:      slog.New(slog.NewJSONHandler(logs, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return server, manager, logs
}

// servePartitionPipe serves one end of a net.Pipe as an accepted
// connection; served is closed when the server is done with it.
func servePartitionPipe(s *PartitionRequestServer) (client net.Conn, served chan struct{}) {
	conn, client := net.Pipe()
	q := newPartitionRequestQueue(s, conn)
	served = make(chan struct{})
	go func() {
		defer close(served)
		q.serve()
	}()
	return client, served
}

func stillServed(served chan struct{}) bool {
	synctest.Wait()
	select {
	case <-served:
		return false
	default:
		return true
	}
}

func TestPartitionRequestServerClosesASilentConnectionAtTheReadTimeout(t *testing.T) {
	server, _, logs := newLimitedPartitionServer(t)
	synctest.Test(t, func(t *testing.T) {
		client, served := servePartitionPipe(server)
		defer client.Close()

		time.Sleep(DefaultServerReadTimeout - time.Millisecond)
		assert.True(t, stillServed(served))
		time.Sleep(time.Millisecond)
		assert.False(t, stillServed(served), "closed at the read timeout")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived within 20s of connecting "+
		"(taskmanager.network.netty.server.read-timeout)."), 1)
}

func TestPartitionRequestServerClosesAStalledRequestAtTheReadTimeout(t *testing.T) {
	server, _, logs := newLimitedPartitionServer(t)
	synctest.Test(t, func(t *testing.T) {
		client, served := servePartitionPipe(server)
		defer client.Close()
		frame := appendFrame(nil, addCredit{credit: 1, receiverID: 1}) // for no reader: ignored
		_, err := client.Write(frame)
		require.NoError(t, err)

		time.Sleep(30 * time.Second)
		_, err = client.Write(appendFrame(nil, addCredit{credit: 1, receiverID: 1})[:5]) // half a frame
		require.NoError(t, err)
		time.Sleep(DefaultServerReadTimeout - time.Millisecond)
		assert.True(t, stillServed(served))
		time.Sleep(time.Millisecond)
		assert.False(t, stillServed(served), "closed at the read timeout, counted from the frame's first byte")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: a request did not arrive whole within 20s "+
		"(taskmanager.network.netty.server.read-timeout)."), 1)
}

// A consumer that reads a subpartition whose producer writes nothing for
// an hour keeps its connection; once its channel is done (here: it
// cancels), the idle timeout counts.
func TestPartitionRequestServerKeepsAQuietConnectionThatReadsASubpartition(t *testing.T) {
	server, manager, logs := newLimitedPartitionServer(t)
	synctest.Test(t, func(t *testing.T) {
		id := newPartitionID(0)
		partition := newResultPartition(id, 1, jobgraph.PipelinedBounded, Config{PartitionManager: manager, BufferSize: DefaultBufferSize, BuffersPerSubpartition: 2})
		require.NoError(t, manager.registerResultPartition(partition))
		defer manager.releasePartition(id)

		client, served := servePartitionPipe(server)
		defer client.Close()
		_, err := client.Write(appendFrame(nil, partitionRequest{partitionID: id, receiverID: 1, credit: 2}))
		require.NoError(t, err)

		time.Sleep(time.Hour) // the producer has no data, the consumer nothing to say
		assert.True(t, stillServed(served), "a connection that reads a subpartition is not idle")

		_, err = client.Write(appendFrame(nil, cancelPartitionRequest{receiverID: 1}))
		require.NoError(t, err)
		time.Sleep(time.Minute - time.Millisecond)
		assert.True(t, stillServed(served))
		time.Sleep(time.Millisecond)
		assert.False(t, stillServed(served), "idle once it reads nothing")
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: it was idle for 1m0s (taskmanager.network.netty.server.idle-timeout)."), 1)
}

// A request for a partition the server does not have is answered, and
// leaves the connection with nothing to read: idle.
func TestPartitionRequestServerClosesAnIdleConnection(t *testing.T) {
	server, _, _ := newLimitedPartitionServer(t)
	synctest.Test(t, func(t *testing.T) {
		client, served := servePartitionPipe(server)
		defer client.Close()
		_, err := client.Write(appendFrame(nil, partitionRequest{partitionID: newPartitionID(0), receiverID: 1, credit: 2}))
		require.NoError(t, err)
		id, fields, err := readFrame(bufio.NewReader(client), maxResponseFrameLength)
		require.NoError(t, err)
		msg, err := decodeMessage(id, fields)
		require.NoError(t, err)
		assert.Equal(t, errorKindPartitionNotFound, msg.(errorResponse).kind)

		time.Sleep(time.Minute - time.Millisecond)
		assert.True(t, stillServed(served))
		time.Sleep(time.Millisecond)
		assert.False(t, stillServed(served), "closed at the idle timeout")
	})
}

// A port scan opens connections by the thousand and sends nothing: the
// log gets one line a minute for them, not one each, and the next line
// says how many it left out.
func TestPartitionRequestServerLogsSilentConnectionsOnceAMinute(t *testing.T) {
	server, _, logs := newLimitedPartitionServer(t)
	synctest.Test(t, func(t *testing.T) {
		for range 5 {
			client, _ := servePartitionPipe(server)
			defer client.Close()
		}
		time.Sleep(DefaultServerReadTimeout)
		synctest.Wait()
		assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived"), 1, "five closed, one line")

		time.Sleep(time.Minute)
		client, served := servePartitionPipe(server)
		defer client.Close()
		time.Sleep(DefaultServerReadTimeout)
		assert.False(t, stillServed(served))
	})
	assert.Len(t, logs.Messages("Closing connection from pipe: no request arrived"), 2, "a minute later, the next line")
	assert.Contains(t, logs.String(), `"suppressed":4`, "with the count of the four left out")
}
