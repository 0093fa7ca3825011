package rest_test

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/blob"
	"flinklab/runtime/client"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/rest"
)

// ---------------------------------------------------------------------------
// Deadlines, on the fake clock of a synctest bubble: the endpoint serves
// net.Pipe connections (pipeListener), whose deadlines are timers of the
// bubble, so 30 seconds pass in microseconds and never flake.
// ---------------------------------------------------------------------------

// TestAStalledUploadIsClosedAndLeavesNoTempFile: an upload that stops
// sending is answered 408 exactly rest.server.read-timeout after its last
// byte, its connection is closed, and its temp file is gone.
func TestAStalledUploadIsClosedAndLeavesNoTempFile(t *testing.T) {
	blobServer := newBlobServer(t)
	synctest.Test(t, func(t *testing.T) {
		ep := startInBubble(t, blobServer, func(c *rest.Config) { c.ReadTimeout = 30 * time.Second })
		conn := ep.dial()
		defer conn.Close()

		// The client sends its headers and the first kilobyte of a jar
		// that it says has a megabyte, and stops.
		start := time.Now()
		part := "--b\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"stalled.jar\"\r\n\r\n" + string(make([]byte, 1024))
		_, err := fmt.Fprintf(conn, "POST /jars/upload HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n"+
			"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1048576\r\n\r\n%s", part)
		require.NoError(t, err)
		synctest.Wait()
		assert.Len(t, ep.files(t), 1, "the upload is being written to its temp file")

		reader := bufio.NewReader(conn)
		resp, err := http.ReadResponse(reader, nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%s", body)
		assert.JSONEq(t, `{"errors": ["The request body stopped arriving: no byte for 30s (rest.server.read-timeout)."]}`, string(body))
		assert.Equal(t, 30*time.Second, time.Since(start), "cut exactly rest.server.read-timeout after the last byte")
		_, err = reader.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "the connection is closed")

		synctest.Wait()
		assert.Empty(t, ep.files(t), "the temp file of the cut upload is gone")
	})
}

// TestABodyNoHandlerReadsIsBoundedToo: the read timeout also bounds a
// body that the handler never reads. net/http reads what is left of it
// (up to 256 KiB) before it sends the answer; a client that announces 100
// bytes, sends 10 and stops is answered rest.server.read-timeout after
// its last byte, with Connection: close, and gives its connection back.
// Without the bound it would hold the connection, and one of the
// rest.server.max-connections, for ever, and never see its answer.
func TestABodyNoHandlerReadsIsBoundedToo(t *testing.T) {
	tests := []struct {
		name         string
		method, path string
		headers      string
		wantStatus   int
	}{
		{"refused by one of flinklab's own endpoints: another site's Origin", "POST", "/cluster/faults",
			"Origin: http://evil.example\r\nContent-Type: application/json\r\n", http.StatusForbidden},
		{"a GET handler, which reads no body", "GET", "/config", "", http.StatusOK},
		{"an unknown path", "POST", "/no/such/path", "Content-Type: application/json\r\n", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blobServer := newBlobServer(t)
			synctest.Test(t, func(t *testing.T) {
				ep := startInBubble(t, blobServer, func(c *rest.Config) {
					c.ReadTimeout = 30 * time.Second
					c.MaxConnections = 1
				})
				conn := ep.dial()
				defer conn.Close()

				// The client announces 100 bytes, sends 10, and stops.
				start := time.Now()
				_, err := fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n%sContent-Length: 100\r\n\r\n0123456789",
					tt.method, tt.path, tt.headers)
				require.NoError(t, err)
				answers := make(chan *http.Response, 1)
				reader := bufio.NewReader(conn)
				go func() {
					if resp, err := http.ReadResponse(reader, nil); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						answers <- resp
					}
				}()
				hour := time.NewTimer(time.Hour)
				defer hour.Stop()
				select {
				case resp := <-answers:
					assert.Equal(t, tt.wantStatus, resp.StatusCode)
					assert.True(t, resp.Close, "the answer says Connection: close")
				case <-hour.C:
					t.Fatal("no answer an hour after the client stopped sending")
				}
				assert.Equal(t, 30*time.Second, time.Since(start), "answered rest.server.read-timeout after the last byte")
				_, err = reader.ReadByte()
				assert.ErrorIs(t, err, io.EOF, "the connection is closed")

				// Its connection is given back: with one allowed, the next
				// client is served.
				next := ep.dial()
				defer next.Close()
				ep.get(t, next, "/config")
			})
		})
	}
}

// TestAnUploadThatKeepsSendingIsNotCut: the read timeout bounds the wait
// for the next bytes, not the whole upload: a slow client that sends a
// little every 20 seconds, for two minutes, gets its jar stored.
func TestAnUploadThatKeepsSendingIsNotCut(t *testing.T) {
	blobServer := newBlobServer(t)
	synctest.Test(t, func(t *testing.T) {
		ep := startInBubble(t, blobServer, func(c *rest.Config) { c.ReadTimeout = 30 * time.Second })
		conn := ep.dial()
		defer conn.Close()

		contentType, body := multipartBody(t, filePart{"jarfile", "slow.jar", jarBytes(t, "wordcount")})
		_, err := fmt.Fprintf(conn, "POST /jars/upload HTTP/1.1\r\nHost: 127.0.0.1:8081\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			contentType, len(body))
		require.NoError(t, err)
		chunk := (len(body) + 5) / 6
		for len(body) > 0 {
			n := min(chunk, len(body))
			_, err := conn.Write(body[:n])
			require.NoError(t, err)
			body = body[n:]
			if len(body) > 0 {
				idle := time.NewTimer(20 * time.Second) // the slow client's pause, on the fake clock
				<-idle.C
			}
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		answer, _ := io.ReadAll(resp.Body)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", answer)
	})
}

// TestAnIdleKeepAliveConnectionIsClosed: a connection that sends no new
// request is closed rest.server.idleness-timeout after its last answer.
func TestAnIdleKeepAliveConnectionIsClosed(t *testing.T) {
	blobServer := newBlobServer(t)
	synctest.Test(t, func(t *testing.T) {
		ep := startInBubble(t, blobServer, func(c *rest.Config) { c.IdleTimeout = 45 * time.Second })
		conn := ep.dial()
		defer conn.Close()

		reader := ep.get(t, conn, "/config")
		answered := time.Now()
		_, err := reader.ReadByte() // blocks until the server hangs up
		assert.ErrorIs(t, err, io.EOF)
		assert.Equal(t, 45*time.Second, time.Since(answered))
	})
}

// TestConnectionsAreBounded: beyond rest.server.max-connections, a new
// connection waits, unaccepted, until one of those served closes.
func TestConnectionsAreBounded(t *testing.T) {
	blobServer := newBlobServer(t)
	synctest.Test(t, func(t *testing.T) {
		ep := startInBubble(t, blobServer, func(c *rest.Config) { c.MaxConnections = 2 })
		first, second := ep.dial(), ep.dial()
		defer second.Close()
		ep.get(t, first, "/config")
		ep.get(t, second, "/config")

		third := ep.dial()
		defer third.Close()
		answered := make(chan int)
		go func() {
			defer close(answered)
			_, _ = fmt.Fprintf(third, "GET /config HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(third), nil); err == nil {
				_ = resp.Body.Close()
				answered <- resp.StatusCode
			}
		}()
		synctest.Wait()
		select {
		case <-answered:
			t.Fatal("a third connection was served while two were open")
		default:
		}

		start := time.Now()
		require.NoError(t, first.Close())
		assert.Equal(t, http.StatusOK, <-answered, "served once the first connection closed")
		assert.Zero(t, time.Since(start), "served at once, not after an idle timeout")
	})
}

// bubbleEndpoint is a rest.Server inside a synctest bubble, on a
// pipeListener.
type bubbleEndpoint struct {
	server *rest.Server
	ln     *pipeListener
	jarDir string
}

// startInBubble starts an endpoint with fakes, inside the current bubble;
// the test's cleanup closes it, still inside the bubble.
func startInBubble(t *testing.T, blobServer *blob.BlobServer, configure func(*rest.Config)) *bubbleEndpoint {
	t.Helper()
	uploadDir := filepath.Join(t.TempDir(), "web")
	cfg := rest.Config{UploadDir: uploadDir, Logger: slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))}
	configure(&cfg)
	server, err := rest.NewServer(cfg, rest.Deps{
		Dispatcher: &fakeDispatcher{}, ResourceManager: newFakeResourceManager(), BlobServer: blobServer, Programs: &fakeProgramRunner{},
	})
	require.NoError(t, err)
	ln := newPipeListener()
	require.NoError(t, server.StartWithListener(ln))
	t.Cleanup(func() { require.NoError(t, server.Close(context.Background())) })
	return &bubbleEndpoint{server: server, ln: ln, jarDir: filepath.Join(uploadDir, "flink-web-upload")}
}

func (e *bubbleEndpoint) dial() net.Conn { return e.ln.dial() }

// get sends a GET on conn and reads its answer, which must be 200, and
// returns the reader for what follows.
func (e *bubbleEndpoint) get(t *testing.T, conn net.Conn, path string) *bufio.Reader {
	t.Helper()
	_, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n\r\n", path)
	require.NoError(t, err)
	reader := bufio.NewReader(conn)
	resp, err := http.ReadResponse(reader, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return reader
}

// files lists the jar directory: stored jars and uploads in progress.
func (e *bubbleEndpoint) files(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(e.jarDir)
	require.NoError(t, err)
	var names []string
	for _, entry := range entries {
		names = append(names, entry.Name())
	}
	return names
}

// pipeListener hands out the server ends of net.Pipe connections; dial
// makes one and returns its client end. Its backlog holds 16
// connections not yet accepted.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn, 16), closed: make(chan struct{})}
}

func (l *pipeListener) dial() net.Conn {
	clientEnd, serverEnd := net.Pipe()
	l.conns <- serverEnd
	return clientEnd
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8081} }

// newBlobServer is a BlobServer in the test's temp dir, made outside any
// synctest bubble.
func newBlobServer(t *testing.T) *blob.BlobServer {
	t.Helper()
	blobServer, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobServer.Close() })
	return blobServer
}

// ---------------------------------------------------------------------------
// Memory: uploads are streamed to disk and checked from there.
// ---------------------------------------------------------------------------

// TestConcurrentUploadsAreStreamed: four concurrent uploads of 32 MiB
// jars raise the heap by far less than one jar: each upload goes to its
// temp file as it arrives and is checked from there. Reading one whole
// jar into memory would alone raise it by 32 MiB.
func TestConcurrentUploadsAreStreamed(t *testing.T) {
	h := newHarness(t)
	jar := writeBigJar(t, 32<<20)
	growth := peakHeapGrowth(func() { uploadConcurrently(t, h, jar, 4) })
	t.Logf("4 concurrent uploads of %d MiB: peak heap growth %.1f MiB", 32, float64(growth)/(1<<20))
	assert.Less(t, growth, uint64(16<<20), "the heap grew by %d bytes", growth)
}

// BenchmarkConcurrentJarUploads uploads four 90 MiB jars at once and
// reports the peak growth of the heap while they run:
//
//	go test -run='^$' -bench=ConcurrentJarUploads -benchtime=3x ./runtime/rest/
func BenchmarkConcurrentJarUploads(b *testing.B) {
	h := newHarness(b)
	jar := writeBigJar(b, 90<<20)
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeapGrowth(func() { uploadConcurrently(b, h, jar, 4) }))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// peakHeapGrowth runs f and returns how far the heap's objects grew above
// what they were before f, at the highest of a sampling every
// millisecond (runtime/metrics, which stops nothing).
func peakHeapGrowth(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	if peak < base {
		return 0
	}
	return peak - base
}

// uploadConcurrently uploads the jar file n times at once, each streamed
// from the file, and requires each to be stored.
func uploadConcurrently(tb testing.TB, h *harness, jarPath string, n int) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() { errs <- streamUpload(h, jarPath) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(tb, err)
	}
}

// streamUpload posts the jar file as multipart/form-data, written as it is
// sent, never whole in memory.
func streamUpload(h *harness, jarPath string) error {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("jarfile", "big.jar")
		if err == nil {
			var f *os.File
			if f, err = os.Open(jarPath); err == nil {
				_, err = io.Copy(part, f)
				_ = f.Close()
			}
		}
		if err == nil {
			err = mw.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	resp, err := h.client.Post(h.baseURL+"/jars/upload", mw.FormDataContentType(), pr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload: %d %s", resp.StatusCode, body)
	}
	return nil
}

// writeBigJar writes a job jar of about size bytes to a temp file: a
// manifest and one stored (uncompressed) entry of random bytes, generated
// as it is written.
func writeBigJar(tb testing.TB, size int64) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "big.jar")
	f, err := os.Create(path)
	require.NoError(tb, err)
	zw := zip.NewWriter(f)
	w, err := zw.Create(client.ManifestPath)
	require.NoError(tb, err)
	_, err = io.WriteString(w, "Manifest-Version: 1.0\r\nProgram-Class: wordcount\r\n\r\n")
	require.NoError(tb, err)
	w, err = zw.CreateHeader(&zip.FileHeader{Name: "data.bin", Method: zip.Store})
	require.NoError(tb, err)
	_, err = io.CopyN(w, rand.NewChaCha8([32]byte{}), size)
	require.NoError(tb, err)
	require.NoError(tb, zw.Close())
	require.NoError(tb, f.Close())
	return path
}

// zipWriter writes the small jars of the tests with many entries.
type zipWriter struct{ zw *zip.Writer }

func newZipWriter(w io.Writer) *zipWriter { return &zipWriter{zw: zip.NewWriter(w)} }

func (z *zipWriter) add(t *testing.T, name string, content []byte) {
	t.Helper()
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
	require.NoError(t, err)
	_, err = w.Write(content)
	require.NoError(t, err)
}

func (z *zipWriter) close(t *testing.T) { t.Helper(); require.NoError(t, z.zw.Close()) }

// zipEntryName is the i-th entry's name: i in base 36, padded to n bytes.
func zipEntryName(i, n int) string {
	name := strconv.FormatInt(int64(i), 36)
	for len(name) < n {
		name = "0" + name
	}
	return name
}
