package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fencedEcho is an echoServer that is a FencedGateway, as the Dispatcher
// is: its token is fixed for its lifetime.
type fencedEcho struct {
	*echoServer
	token string
}

func (e fencedEcho) ExpectedFencingToken() string { return e.token }

// token is a fmt.Stringer, as the IDs the leaders are fenced with are.
type token string

func (t token) String() string { return string(t) }

// A leader's Dispatcher takes the calls that carry its token; a caller
// that still knows another leader session is refused before the method
// runs, and so is one that sends no token at all.
func TestAFencedGatewayTakesOnlyCallsWithItsToken(t *testing.T) {
	server, _ := newTCP(t, TCPConfig{})
	echo := &echoServer{}
	require.NoError(t, server.Register(server.Address("dispatcher_0"), fencedEcho{echo, "session-2"}))
	caller, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)

	current, err := ConnectFenced[echoGateway](ctx, caller, server.Address("dispatcher_0"), token("session-2"))
	require.NoError(t, err)
	got, err := current.Echo(ctx, "ab", 2)
	require.NoError(t, err)
	assert.Equal(t, "abab", got)

	stale, err := ConnectFenced[echoGateway](ctx, caller, server.Address("dispatcher_0"), token("session-1"))
	require.NoError(t, err, "connecting asks nothing of the token: the calls carry it")
	_, err = stale.Echo(ctx, "ab", 2)
	require.ErrorIs(t, err, ErrFencingTokenMismatch)
	assert.Contains(t, err.Error(), "Fencing token mismatch: Ignoring message RemoteRpcInvocation(Echo) because the fencing token session-1 did not match the expected fencing token session-2.")

	unfenced, err := Connect[echoGateway](ctx, caller, server.Address("dispatcher_0"))
	require.NoError(t, err)
	_, err = unfenced.Echo(ctx, "ab", 2)
	require.ErrorIs(t, err, ErrFencingTokenMismatch)
	assert.Contains(t, err.Error(), "because the fencing token null did not match the expected fencing token session-2.")

	assert.Equal(t, int64(1), echo.calls.Load(), "only the call with the right token ran")
}

// In its own process, ConnectFenced returns the endpoint itself, once its
// token is the one asked for.
func TestConnectFencedInOneProcessChecksTheTokenOnce(t *testing.T) {
	server, _ := newTCP(t, TCPConfig{})
	require.NoError(t, server.Register(server.Address("dispatcher_0"), fencedEcho{&echoServer{}, "session-2"}))
	ctx := testContext(t)

	_, err := ConnectFenced[echoGateway](ctx, server, server.Address("dispatcher_0"), token("session-2"))
	require.NoError(t, err)
	_, err = ConnectFenced[echoGateway](ctx, server, server.Address("dispatcher_0"), token("session-1"))
	require.ErrorIs(t, err, ErrFencingTokenMismatch)
}

// panickyEcho is an endpoint whose fencing token cannot be read.
type panickyEcho struct{ *echoServer }

func (panickyEcho) ExpectedFencingToken() string { panic("no token here") }

// A panic while a call is served, before the endpoint's own main thread
// (which recovers its handlers' panics), becomes the caller's error, and
// the connection serves on.
func TestAPanicWhileServingACallBecomesTheCallersError(t *testing.T) {
	server, _ := newTCP(t, TCPConfig{})
	require.NoError(t, server.Register(server.Address("broken"), panickyEcho{&echoServer{}}))
	require.NoError(t, server.Register(server.Address("echo"), &echoServer{}))
	caller, _ := newTCP(t, TCPConfig{})
	ctx := testContext(t)

	broken, err := ConnectFenced[echoGateway](ctx, caller, server.Address("broken"), token("t"))
	require.NoError(t, err)
	_, err = broken.Echo(ctx, "a", 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Reporting back error thrown in remote procedure RemoteRpcInvocation(Echo): no token here")

	echo, err := Connect[echoGateway](ctx, caller, server.Address("echo"))
	require.NoError(t, err)
	got, err := echo.Echo(ctx, "a", 2)
	require.NoError(t, err, "the connection serves on")
	assert.Equal(t, "aa", got)
}
