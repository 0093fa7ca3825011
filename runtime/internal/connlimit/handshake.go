package connlimit

import (
	"context"
	"crypto/tls"
	"net"
)

// Handshake runs the TLS handshake of a connection that a TLS listener
// handed out (a *tls.Conn), under the read deadline the server set when
// it accepted the connection: a peer that does not complete it in time,
// speaks plaintext, or has no certificate the configuration trusts fails
// it, before it can send a request. ctx ending ends it too. A plaintext
// connection has no handshake: Handshake returns nil at once.
func Handshake(ctx context.Context, conn net.Conn) error {
	tlsConn, ok := conn.(*tls.Conn)
	if !ok {
		return nil
	}
	return tlsConn.HandshakeContext(ctx)
}
