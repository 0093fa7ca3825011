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
		source := &TCPSource{address: "jobmanager:6124", dial: func(context.Context, string, string) (net.Conn, error) {
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
