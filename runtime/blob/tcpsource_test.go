package blob

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// A BlobServer that takes the request and then sends nothing (its
// JobManager hangs) fails the download after DefaultSocketTimeout, as
// Flink's BlobClient does with its socket timeout, even when the caller's
// ctx has no deadline (a task's has none). A net.Pipe stands for the
// connection.
func TestTCPSource_GivesUpOnAServerThatSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe()
		defer server.Close()
		source := &TCPSource{address: "jobmanager:6124", cfg: TCPSourceConfig{SocketTimeout: DefaultSocketTimeout}, dial: func(context.Context, string, string) (net.Conn, error) {
			return client, nil
		}}
		go func() {
			var request [requestLength]byte
			_, _ = io.ReadFull(server, request[:]) // and then silence
		}()

		opened := make(chan error, 1)
		go func() {
			_, err := source.Open(context.Background(), api.NewJobID(), KeyOf([]byte("jar")))
			opened <- err
		}()
		synctest.Wait()
		select {
		case err := <-opened:
			t.Fatalf("Open returned before the socket timeout: %v", err)
		default:
		}

		time.Sleep(DefaultSocketTimeout) // fake time
		err := <-opened
		require.Error(t, err)
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
		assert.ErrorContains(t, err, "GET operation failed: ")
	})
}

// With blob.client.socket.timeout 0 (NoSocketTimeout), a download waits
// for a silent BlobServer as long as it takes; the caller's ctx ends it.
func TestTCPSource_WithoutASocketTimeoutWaitsForTheServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe()
		defer server.Close()
		source := NewTCPSource("jobmanager:6124", TCPSourceConfig{SocketTimeout: NoSocketTimeout})
		source.dial = func(context.Context, string, string) (net.Conn, error) { return client, nil }
		go func() {
			var request [requestLength]byte
			_, _ = io.ReadFull(server, request[:]) // and then silence
		}()

		ctx, cancel := context.WithCancel(context.Background())
		opened := make(chan error, 1)
		go func() {
			_, err := source.Open(ctx, api.NewJobID(), KeyOf([]byte("jar")))
			opened <- err
		}()
		time.Sleep(10 * DefaultSocketTimeout) // fake time
		synctest.Wait()
		select {
		case err := <-opened:
			t.Fatalf("Open gave up without a socket timeout: %v", err)
		default:
		}

		cancel()
		assert.ErrorIs(t, <-opened, context.Canceled)
	})
}
