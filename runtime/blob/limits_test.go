package blob

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/internal/logbuf"
)

// The limits of a listening BlobServer (doc.go, "Limits"). The deadline
// tests serve one end of a net.Pipe inside a synctest bubble, so that the
// timeouts pass at once; the test of the bound runs over real loopback
// connections, with a short read timeout.

// newLimitedServer returns a server with the given limits, and its log.
func newLimitedServer(t *testing.T, cfg ServerConfig) (*BlobServer, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.StorageDir = t.TempDir()
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	server, err := NewBlobServer(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return server, logs
}

// servePipe serves one end of a net.Pipe as a connection the server
// accepted; served is closed when the server is done with it.
func servePipe(s *BlobServer) (client net.Conn, served chan struct{}) {
	conn, client := net.Pipe()
	served = make(chan struct{})
	go func() {
		defer close(served)
		s.serveConnection(conn)
	}()
	return client, served
}

func isServed(served chan struct{}) bool {
	synctest.Wait()
	select {
	case <-served:
		return false
	default:
		return true
	}
}

// A connection that sends no request, or half of one, holds one of the
// server's places until the read timeout, and no longer.
func TestBlobServer_ClosesAConnectionWhoseRequestDoesNotArrive(t *testing.T) {
	for _, tc := range []struct {
		name string
		send []byte
	}{
		{"nothing", nil},
		{"half a request", appendGetRequest(nil, api.NewJobID(), KeyOf([]byte("jar")))[:20]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, logs := newLimitedServer(t, ServerConfig{})
			synctest.Test(t, func(t *testing.T) {
				client, served := servePipe(server)
				defer client.Close()
				_, err := client.Write(tc.send)
				require.NoError(t, err)

				time.Sleep(DefaultServerReadTimeout - time.Millisecond)
				assert.True(t, isServed(served), "served until the read timeout")
				time.Sleep(time.Millisecond)
				assert.False(t, isServed(served), "closed at the read timeout")
			})
			assert.Equal(t, []string{"Error while executing BLOB connection from pipe."}, logs.Messages("Error"))
			assert.Contains(t, logs.String(), "no complete GET request within 10s (blob.server.read-timeout)", "the cause")
		})
	}
}

// A client that asks for a BLOB and stops reading it fails its transfer
// at the write timeout: the server's write waits that long at most.
func TestBlobServer_ClosesAConnectionThatStopsReading(t *testing.T) {
	server, _ := newLimitedServer(t, ServerConfig{})
	jobID := api.NewJobID()
	key, err := server.PutPermanentBytes(jobID, make([]byte, 1<<20))
	require.NoError(t, err)
	synctest.Test(t, func(t *testing.T) {
		client, served := servePipe(server)
		defer client.Close()
		_, err := client.Write(appendGetRequest(nil, jobID, key))
		require.NoError(t, err)
		var header [9]byte
		_, err = io.ReadFull(client, header[:]) // the start of the answer, then nothing more is read
		require.NoError(t, err)

		time.Sleep(DefaultServerWriteTimeout - time.Millisecond)
		assert.True(t, isServed(served), "the write waits for the client")
		time.Sleep(time.Millisecond)
		assert.False(t, isServed(served), "until the write timeout")
	})
}

// An attacker who can reach the BLOB port opens 120 connections and
// sends nothing on them, to take all 50 places the server serves at once
// and keep every TaskManager from downloading a job's jar. A TaskManager's
// download, made meanwhile with no retries at all, waits in the listen
// backlog and succeeds once the idle connections ahead of it are closed
// at their read timeout.
func TestBlobServer_IdleConnectionsAtTheBoundDoNotFailADownload(t *testing.T) {
	const idle, readTimeout = 120, 300 * time.Millisecond
	server, logs := newLimitedServer(t, ServerConfig{ListenAddress: DefaultListenAddress, ReadTimeout: readTimeout})
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 the job's jar")
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)

	for range idle {
		conn, err := net.Dial("tcp", server.Address())
		require.NoError(t, err)
		defer conn.Close()
	}
	require.Eventually(t, func() bool { return server.numberOfConnections() == DefaultFetchNumConcurrent },
		10*time.Second, time.Millisecond, "the server serves as many idle connections as it may")

	cache, err := NewPermanentBlobCache(CacheConfig{
		StorageDir:    t.TempDir(),
		Source:        NewTCPSource(server.Address(), TCPSourceConfig{}),
		FetchRetries:  -1, // one attempt: it must not fail
		ServerAddress: server.Address(),
		Logger:        slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	defer cache.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	path, err := cache.GetFile(ctx, jobID, key)
	require.NoError(t, err)
	stored, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, stored)

	assert.Equal(t, []string{"BLOB server at " + server.Address() + " serves 50 connections, its maximum (blob.fetch.num-concurrent): " +
		"new connections wait in the backlog until one closes."}, logs.Messages("BLOB server at"))
	assert.Len(t, logs.Messages("Error while executing BLOB connection from "), 1, "the idle ones were closed, with one line for all")
}

// Each connection that brings no request is an error in the log, as in
// Flink; but anyone who reaches the port can open them by the thousand,
// so the log gets one line a minute for them, and the next line says how
// many it left out.
func TestBlobServer_LogsConnectionsWithoutARequestOnceAMinute(t *testing.T) {
	server, logs := newLimitedServer(t, ServerConfig{})
	synctest.Test(t, func(t *testing.T) {
		for range 5 {
			client, _ := servePipe(server)
			defer client.Close()
		}
		time.Sleep(DefaultServerReadTimeout)
		synctest.Wait()
		assert.Len(t, logs.Messages("Error while executing BLOB connection"), 1, "five closed, one line")

		time.Sleep(time.Minute)
		client, served := servePipe(server)
		defer client.Close()
		time.Sleep(DefaultServerReadTimeout)
		assert.False(t, isServed(served))
	})
	assert.Len(t, logs.Messages("Error while executing BLOB connection"), 2, "a minute later, the next line")
	assert.Contains(t, logs.String(), `"suppressed":4`, "with the count of the four left out")
}

func (s *BlobServer) numberOfConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
