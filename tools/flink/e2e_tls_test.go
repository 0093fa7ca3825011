package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// With -D security.ssl.internal.enabled=true, start-cluster makes a CA
// for the cluster and every internal connection is mutual TLS: the
// TaskManagers register over it, download the jar over it and exchange
// WordCount's records over it, with the counts exact. A plaintext RPC
// frame that names the Dispatcher's CancelJob, as anyone who reaches the
// port could write it, changes nothing.
func TestInternalTLSClusterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	cl := startTestCluster(t, bin, logDir, "-D", "security.ssl.internal.enabled=true")
	certificates := regexp.MustCompile(`use mutual TLS, with a CA made for this cluster: (\S+)`).FindStringSubmatch(cl.stdout())
	require.NotNil(t, certificates, "start-cluster says it made the cluster's CA:\n%s", cl.stdout())
	assert.DirExists(t, certificates[1])
	rpcAddress := regexp.MustCompile(`RPC (\S+), REST endpoint`).FindStringSubmatch(cl.stdout())[1]
	restAddress, rc := cl.restAddress, cl.rc

	// WordCount in all four slots, on both TaskManagers: the jar comes
	// from the BlobServer and the keyed records cross between the
	// processes, over TLS.
	jar := filepath.Join(t.TempDir(), "WordCount.jar")
	flinktest.Run(t, bin, "jar", "wordcount", "-o", jar)
	runOut, runErr, runCode := flinktest.RunCode(t, bin, "run", "-m", restAddress, "-p", "4", jar)
	require.Equal(t, 0, runCode, "flink run:\n%s%s", runOut, runErr)
	assert.Equal(t, wordCounts(), printedCounts(t, logDir))

	// An unbounded job, for the frame below to try to cancel.
	tickerID := flinktest.SubmitDetached(t, bin, restAddress, writeTickerJar(t, bin), 2)
	flinktest.AwaitJob(t, rc, tickerID, "every task RUNNING", flinktest.EveryTaskRunning)

	// A standalone cluster's Dispatcher is fenced with the all-zero
	// leader session, which anyone can write into the frame.
	answer := sendPlaintextFrame(t, rpcAddress, fmt.Sprintf(
		`{"id":1,"target":"dispatcher_0","method":"CancelJob","fencingToken":"%s","timeoutMs":10000,"args":["%s"]}`,
		api.LeaderSessionID{}, tickerID))
	assert.NotContains(t, string(answer), `"id":1`, "the RPC service answered a plaintext call")
	var status rest.JobStatusInfo
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+tickerID.String()+"/status", &status))
	assert.Equal(t, api.JobRunning, status.Status, "the ticker after a plaintext CancelJob")

	cl.stop(t)
	assert.NoDirExists(t, certificates[1], "the cluster's certificates outlived it")
	for i := range 2 {
		assert.Contains(t, readLog(t, logDir, entrypoint.DaemonTaskExecutor, i), "Successful registration at resource manager")
	}
}

// sendPlaintextFrame writes one frame of the RPC wire format (a 4-byte
// length, then JSON) to address without TLS, and returns the answer: the
// body of the frame that comes back, or the bytes read until the server
// closed the connection.
func sendPlaintextFrame(t *testing.T, address, body string) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", address)
	require.NoError(t, err)
	defer conn.Close()
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	_, err = conn.Write(append(frame, body...))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(flinktest.Timeout)))
	var header [4]byte
	if n, err := io.ReadFull(conn, header[:]); err != nil {
		require.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server neither answered nor closed the connection")
		return header[:n]
	}
	answer := make([]byte, min(binary.BigEndian.Uint32(header[:]), 1<<20))
	n, _ := io.ReadFull(conn, answer)
	return answer[:n]
}
