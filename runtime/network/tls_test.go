package network

import (
	"bufio"
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/security"
)

// Mutual TLS on the data plane (PartitionRequestServerConfig.TLS,
// Config.ClientTLS), with certificates made by package security. A
// request for a partition the server does not have is answered with
// PartitionNotFound: an answer at all shows that the request got through.
func TestPartitionRequestServerServesOverMutualTLSOnly(t *testing.T) {
	opts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	serverTLS, clientTLS, err := security.InternalTLS(opts, security.Data)
	require.NoError(t, err)
	otherOpts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	_, otherClientTLS, err := security.InternalTLS(otherOpts, security.Data)
	require.NoError(t, err)

	server, err := NewPartitionRequestServer(NewResultPartitionManager(), PartitionRequestServerConfig{
		TLS: serverTLS, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// ask sends a PartitionRequest over conn and returns what comes back.
	ask := func(conn net.Conn) (nettyMessage, error) {
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(appendFrame(nil, partitionRequest{partitionID: newPartitionID(0), receiverID: 1, credit: 2})); err != nil {
			return nil, err
		}
		id, fields, err := readFrame(bufio.NewReader(conn), maxResponseFrameLength)
		if err != nil {
			return nil, err
		}
		return decodeMessage(id, fields)
	}

	conn, err := newPartitionRequestClientFactory(time.Second, clientTLS).dial(ctx, "tcp", server.Address())
	require.NoError(t, err)
	msg, err := ask(conn)
	require.NoError(t, err, "a TaskManager of the cluster is served")
	assert.Equal(t, errorKindPartitionNotFound, msg.(errorResponse).kind)

	conn, err = net.Dial("tcp", server.Address())
	require.NoError(t, err)
	_, err = ask(conn)
	assert.Error(t, err, "a plaintext client gets no answer: the connection closes")

	dialer := tls.Dialer{Config: otherClientTLS}
	conn, err = dialer.DialContext(ctx, "tcp", server.Address())
	if err == nil { // with TLS 1.3 the client learns of the refusal at its first read
		_, err = ask(conn)
	}
	assert.Error(t, err, "a TaskManager of another cluster gets no answer")
}
