package rpc

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/security"
)

// Mutual TLS on the RPC transport (TCPConfig.ServerTLS and ClientTLS),
// with certificates made by package security as a cluster's are.

// clusterTLS returns the RPC service's TLS configurations of a new
// cluster: its own CA, and a key pair that CA signed.
func clusterTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	opts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	server, client, err = security.InternalTLS(opts, security.RPC)
	require.NoError(t, err)
	require.NotNil(t, server)
	return server, client
}

func TestTCPCallOverMutualTLS(t *testing.T) {
	serverTLS, clientTLS := clusterTLS(t)
	server, _, _ := serveEcho(t, TCPConfig{ServerTLS: serverTLS, ClientTLS: clientTLS})
	client, _ := newTCP(t, TCPConfig{ServerTLS: serverTLS, ClientTLS: clientTLS})
	ctx := testContext(t)

	g, err := Connect[echoGateway](ctx, client, server.Address("echo"))
	require.NoError(t, err)
	got, err := g.Echo(ctx, "secret", 2)
	require.NoError(t, err)
	assert.Equal(t, "secretsecret", got)
}

// A peer that speaks plaintext to a TLS service, as an attacker's
// hand-written frame does, gets nothing done: the handshake fails on its
// first bytes, the connection closes, and no call reaches an endpoint.
func TestTCPPlaintextPeerOfATLSServiceGetsNothingDone(t *testing.T) {
	serverTLS, clientTLS := clusterTLS(t)
	server, echo, logs := serveEcho(t, TCPConfig{ServerTLS: serverTLS, ClientTLS: clientTLS})

	conn, err := net.Dial("tcp", server.HostPort())
	require.NoError(t, err)
	defer conn.Close()
	body, err := json.Marshal(request{ID: 1, Target: "echo", Method: "Echo", Args: []json.RawMessage{[]byte(`"x"`), []byte(`1`)}})
	require.NoError(t, err)
	frame, err := appendFrame(nil, body, DefaultMaxFrameSize)
	require.NoError(t, err)
	_, err = conn.Write(frame)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	rest, _ := io.ReadAll(conn) // until the server closes
	assert.NotContains(t, string(rest), `"result"`, "no answer")
	assert.Zero(t, echo.calls.Load(), "the call never ran")
	require.Eventually(t, func() bool {
		return len(logs.Messages("Closing connection from "+conn.LocalAddr().String()+": the TLS handshake failed.")) == 1
	}, 10*time.Second, time.Millisecond, "the server logs why")
}

// A client whose certificate another cluster's CA signed is refused, and
// so is a client without TLS.
func TestTCPClientOfAnotherClusterIsRefused(t *testing.T) {
	serverTLS, clientTLS := clusterTLS(t)
	server, echo, _ := serveEcho(t, TCPConfig{ServerTLS: serverTLS, ClientTLS: clientTLS})
	otherServerTLS, otherClientTLS := clusterTLS(t)
	ctx := testContext(t)

	stranger, _ := newTCP(t, TCPConfig{ServerTLS: otherServerTLS, ClientTLS: otherClientTLS})
	_, err := Connect[echoGateway](ctx, stranger, server.Address("echo"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable)

	plaintext, _ := newTCP(t, TCPConfig{})
	_, err = Connect[echoGateway](ctx, plaintext, server.Address("echo"))
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.Zero(t, echo.calls.Load())
}
