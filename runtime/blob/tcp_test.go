package blob_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// These tests put the BlobServer and the PermanentBlobCache in two
// "processes" that meet only over TCP on 127.0.0.1: the server listens,
// and the cache downloads through a TCPSource. Nothing sleeps; a ctx
// deadline bounds every wait.

// newListeningServer starts a BlobServer that serves over TCP.
func newListeningServer(t testing.TB) *blob.BlobServer {
	t.Helper()
	server, err := blob.NewBlobServer(blob.ServerConfig{
		StorageDir:    t.TempDir(),
		Logger:        discardLogger(),
		ListenAddress: blob.DefaultListenAddress,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return server
}

// newTCPCache returns a cache that downloads from address over TCP, and
// the buffer its log lines go to.
func newTCPCache(t testing.TB, address string, fetchRetries int) (*blob.PermanentBlobCache, *bytes.Buffer) {
	t.Helper()
	logger, logs := newLogger()
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir:    t.TempDir(),
		Source:        blob.NewTCPSource(address, blob.TCPSourceConfig{}),
		FetchRetries:  fetchRetries,
		ServerAddress: address,
		Logger:        logger,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cache.Close() })
	return cache, logs
}

func withDeadline(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestBlobServer_ListensAndServesOverTCP(t *testing.T) {
	ctx := withDeadline(t)
	server := newListeningServer(t)
	host, port, err := net.SplitHostPort(server.Address())
	require.NoError(t, err, "the address is host:port")
	assert.Equal(t, "127.0.0.1", host)
	assert.NotEqual(t, "0", port, "the port it got, not the one asked for")

	jobID := api.NewJobID()
	jar := bytes.Repeat([]byte("a jar's bytes "), 10_000) // larger than one network buffer
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)

	content, err := blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{}).Open(ctx, jobID, key)
	require.NoError(t, err)
	got, err := io.ReadAll(content)
	require.NoError(t, err)
	require.NoError(t, content.Close())
	assert.Equal(t, jar, got)
}

// After a failover the TaskExecutor learns the new leader's BlobServer
// from the ResourceManager it registers at: the cache downloads from
// there, a jar the old leader's server never had.
func TestPermanentBlobCache_DownloadsFromTheBlobServerItIsToldOf(t *testing.T) {
	ctx := withDeadline(t)
	oldLeader, newLeader := newListeningServer(t), newListeningServer(t)
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 the recovered job's jar")
	key, err := newLeader.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)
	cache, logs := newTCPCache(t, oldLeader.Address(), -1)

	_, err = cache.GetFile(ctx, jobID, key)
	require.ErrorIs(t, err, fs.ErrNotExist, "the old leader's server does not have it")

	cache.SetBlobServerAddress(newLeader.Address())
	path, err := cache.GetFile(ctx, jobID, key)
	require.NoError(t, err)
	stored, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, stored)
	assert.Contains(t, logs.String(), "Downloading "+jobID.String()+"/"+key.String()+" from "+newLeader.Address())
}

// Step m10 across processes: the cache in the TaskExecutor's process
// downloads the jar from the JobManager's BlobServer over TCP, verifies it
// and keeps it.
func TestPermanentBlobCache_DownloadsOverTCP(t *testing.T) {
	ctx := withDeadline(t)
	server := newListeningServer(t)
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 the user's jar")
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)
	cache, _ := newTCPCache(t, server.Address(), 0)

	path, err := cache.GetFile(ctx, jobID, key)
	require.NoError(t, err)
	stored, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, stored)
}

func TestTCPSource_ServerErrorsKeepTheirSentinels(t *testing.T) {
	ctx := withDeadline(t)
	server := newListeningServer(t)
	source := blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{})
	jobID := api.NewJobID()

	_, err := source.Open(ctx, jobID, blob.KeyOf([]byte("never stored")))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, "GET operation failed: Local file")
	assert.ErrorContains(t, err, "does not exist and failed to copy from blob store")

	_, err = source.Open(ctx, api.JobID{}, blob.KeyOf([]byte("x")))
	assert.ErrorIs(t, err, blob.ErrInvalidID)

	// A cache does not retry forever on a BLOB that is not there: it
	// fails, wrapping fs.ErrNotExist, after its retries.
	cache, _ := newTCPCache(t, server.Address(), 1)
	_, err = cache.GetFile(ctx, jobID, blob.KeyOf([]byte("never stored")))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, "No retries left.")
}

// A transfer damaged on the network is caught by the cache's checksum
// check, thrown away and fetched again; the cache never keeps damaged
// bytes.
func TestPermanentBlobCache_ChecksumCatchesACorruptedTransfer(t *testing.T) {
	for _, tc := range []struct {
		name             string
		damagedTransfers int32
		wantErr          error
	}{
		{"the retry gets clean bytes", 1, nil},
		{"every transfer is damaged", 100, blob.ErrChecksumMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := withDeadline(t)
			server := newListeningServer(t)
			jobID := api.NewJobID()
			jar := bytes.Repeat([]byte("0123456789"), 1000)
			key, err := server.PutPermanentBytes(jobID, jar)
			require.NoError(t, err)
			network := newTamperingProxy(t, server.Address())
			network.flipByteAt.Store(9 + 500) // past the 9-byte response header, inside the jar
			network.damagedTransfers.Store(tc.damagedTransfers)
			const retries = 2
			cache, logs := newTCPCache(t, network.address(), retries)

			path, err := cache.GetFile(ctx, jobID, key)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				assert.ErrorContains(t, err, "No retries left.")
				assert.Equal(t, int32(1+retries), network.transfers.Load(), "every attempt went over the network")
				return
			}
			require.NoError(t, err)
			stored, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, jar, stored, "the cache kept the clean copy")
			assert.Equal(t, int32(2), network.transfers.Load())
			assert.Contains(t, logs.String(), "Retrying...")
			assert.Contains(t, logs.String(), "cause=\"Detected data corruption during transfer (SHA-256): expected "+key.String(),
				"with DEBUG on, the Retrying line carries the cause, as Flink's does")
		})
	}
}

// A transfer cut short is an io.ErrUnexpectedEOF, and is retried.
func TestPermanentBlobCache_RetriesATruncatedTransfer(t *testing.T) {
	ctx := withDeadline(t)
	server := newListeningServer(t)
	jobID := api.NewJobID()
	jar := bytes.Repeat([]byte("x"), 50_000)
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)
	network := newTamperingProxy(t, server.Address())
	network.cutAt.Store(9 + 1000)
	network.damagedTransfers.Store(1)
	cache, logs := newTCPCache(t, network.address(), 1)

	path, err := cache.GetFile(ctx, jobID, key)
	require.NoError(t, err)
	stored, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, stored)
	assert.Contains(t, logs.String(), "unexpected EOF")
}

// A download whose ctx ends stops at once, even while the server sends
// nothing.
func TestTCPSource_ReadGivesUpWhenCtxEnds(t *testing.T) {
	// A server that announces a megabyte and then stalls.
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer listener.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		conn, err := listener.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		request := make([]byte, 51)
		_, _ = io.ReadFull(conn, request)
		_, _ = conn.Write(binary.BigEndian.AppendUint64([]byte{0}, 1<<20))
		_, _ = io.Copy(io.Discard, conn) // until the client hangs up
	}()

	ctx, cancel := context.WithCancel(withDeadline(t))
	content, err := blob.NewTCPSource(listener.Addr().String(), blob.TCPSourceConfig{}).Open(ctx, api.NewJobID(), blob.KeyOf([]byte("x")))
	require.NoError(t, err)
	read := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(content)
		read <- err
	}()
	cancel()
	assert.ErrorIs(t, <-read, context.Canceled)
	require.NoError(t, content.Close())
	<-served
}

// A peer that sends something other than a GET request gets an error
// response, and the server goes on serving others.
func TestBlobServer_AnswersABrokenRequestWithAnError(t *testing.T) {
	ctx := withDeadline(t)
	server := newListeningServer(t)
	conn, err := net.Dial("tcp", server.Address())
	require.NoError(t, err)
	defer conn.Close()
	httpRequest := []byte("GET /jars HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n")
	_, err = conn.Write(httpRequest[:51]) // as long as a GET request of ours
	require.NoError(t, err)
	answer, err := io.ReadAll(conn)
	require.NoError(t, err)
	require.NotEmpty(t, answer)
	assert.Equal(t, byte(1), answer[0], "RETURN_ERROR")
	assert.Contains(t, string(answer), "GET operation failed: unknown operation 71")

	jobID := api.NewJobID()
	key, err := server.PutPermanentBytes(jobID, []byte("still serving"))
	require.NoError(t, err)
	content, err := blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{}).Open(ctx, jobID, key)
	require.NoError(t, err)
	got, err := io.ReadAll(content)
	require.NoError(t, err)
	assert.Equal(t, "still serving", string(got))
	require.NoError(t, content.Close())
}

func TestBlobServer_CloseStopsListening(t *testing.T) {
	server := newListeningServer(t)
	address := server.Address()
	require.NoError(t, server.Close())
	require.NoError(t, server.Close(), "closing twice is allowed")

	_, err := blob.NewTCPSource(address, blob.TCPSourceConfig{}).Open(withDeadline(t), api.NewJobID(), blob.KeyOf([]byte("x")))
	assert.ErrorContains(t, err, "Could not connect to BlobServer at address "+address)
}

func TestNewBlobServer_RefusesABadListenAddress(t *testing.T) {
	_, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: discardLogger(), ListenAddress: "no-port"})
	assert.Error(t, err)
}

// tamperingProxy stands for the network between the BlobServer and a
// cache: it forwards each connection, and damages the server's answer on
// the first damagedTransfers connections, by flipping one byte (at
// flipByteAt) or cutting the connection (at cutAt).
type tamperingProxy struct {
	listener         net.Listener
	target           string
	flipByteAt       atomic.Int64 // 0: flip nothing
	cutAt            atomic.Int64 // 0: cut nothing
	damagedTransfers atomic.Int32
	transfers        atomic.Int32
	wg               sync.WaitGroup
}

func newTamperingProxy(t testing.TB, target string) *tamperingProxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tamperingProxy{listener: listener, target: target}
	p.wg.Go(p.acceptLoop)
	t.Cleanup(func() {
		_ = listener.Close()
		p.wg.Wait()
	})
	return p
}

func (p *tamperingProxy) address() string { return p.listener.Addr().String() }

func (p *tamperingProxy) acceptLoop() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		damaged := p.transfers.Add(1) <= p.damagedTransfers.Load()
		p.wg.Go(func() { p.forward(client, damaged) })
	}
}

// forward carries one connection: the request as it is, the answer
// damaged if it must be.
func (p *tamperingProxy) forward(client net.Conn, damaged bool) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go func() { _, _ = io.Copy(server, client) }() // the request; ends when either side closes

	answer, err := io.ReadAll(server)
	if err != nil {
		return
	}
	if damaged {
		if at := p.flipByteAt.Load(); at > 0 && at < int64(len(answer)) {
			answer[at] ^= 0xFF
		}
		if at := p.cutAt.Load(); at > 0 && at < int64(len(answer)) {
			answer = answer[:at]
		}
	}
	if _, err := client.Write(answer); err != nil && !errors.Is(err, net.ErrClosed) {
		return
	}
}
