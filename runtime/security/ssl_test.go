package security_test

import (
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/configuration"
	"flinklab/runtime/security"
)

// handshake runs a TLS handshake between a client and a server config
// over a loopback TCP connection and returns each side's error. (Not
// net.Pipe: its writes wait for the reader, and two sides that both
// write an alert at once would wait for each other.)
func handshake(t *testing.T, server, client *tls.Config) (serverErr, clientErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer conn.Close() // a failed side hangs up, which ends the other's handshake
		s := tls.Server(conn, server)
		err = s.Handshake()
		if err == nil {
			// In TLS 1.3 the server's handshake ends before it has read
			// the client's certificate: read once to have it checked.
			_, err = s.Read(make([]byte, 1))
		}
		done <- err
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	c := tls.Client(conn, client)
	clientErr = c.Handshake()
	if clientErr == nil {
		_, _ = c.Write([]byte{1}) // what the server reads
	}
	serverErr = <-done
	_ = conn.Close()
	return serverErr, clientErr
}

func internalTLS(t *testing.T, conf map[string]string, c security.Connection) (server, client *tls.Config) {
	t.Helper()
	server, client, err := security.InternalTLS(conf, c)
	require.NoError(t, err)
	require.NotNil(t, server)
	require.NotNil(t, client)
	return server, client
}

func TestInternalTLSIsOffUnlessEnabled(t *testing.T) {
	for _, conf := range []map[string]string{
		nil,
		{security.KeyInternalEnabled: "false", security.KeyInternalKeystore: "/nowhere"},
	} {
		server, client, err := security.InternalTLS(conf, security.RPC)
		require.NoError(t, err)
		assert.Nil(t, server)
		assert.Nil(t, client)
	}
}

func TestTheClusterCertificatesAuthenticateBothSides(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	for _, c := range []security.Connection{security.RPC, security.Blob, security.Data} {
		server, client := internalTLS(t, conf, c)
		serverErr, clientErr := handshake(t, server, client)
		require.NoError(t, serverErr, c.Key())
		require.NoError(t, clientErr, c.Key())
	}
}

func TestAPeerOfAnotherClusterIsRefused(t *testing.T) {
	ours, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	theirs, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	ourServer, ourClient := internalTLS(t, ours, security.RPC)
	theirServer, theirClient := internalTLS(t, theirs, security.RPC)

	serverErr, _ := handshake(t, ourServer, trustingAnyone(theirClient))
	require.Error(t, serverErr, "our server accepted a client certificate of another CA")
	assert.Contains(t, serverErr.Error(), "unknown authority")

	_, clientErr := handshake(t, trustingAnyone(theirServer), ourClient)
	require.Error(t, clientErr, "our client accepted a server certificate of another CA")
	assert.Contains(t, clientErr.Error(), "unknown authority")
}

// trustingAnyone is a peer that shows its certificate but checks none,
// as an intruder's would: whatever fails, fails on our side.
func trustingAnyone(c *tls.Config) *tls.Config {
	c = c.Clone()
	c.VerifyConnection = nil
	c.InsecureSkipVerify = true
	if c.ClientAuth != tls.NoClientCert {
		c.ClientAuth = tls.RequestClientCert
	}
	return c
}

func TestAClientWithoutACertificateIsRefused(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	server, client := internalTLS(t, conf, security.Blob)
	anonymous := client.Clone()
	anonymous.Certificates = nil
	serverErr, _ := handshake(t, server, anonymous)
	require.Error(t, serverErr)
	assert.Contains(t, serverErr.Error(), "client didn't provide a certificate")
}

func TestEachConnectionHasItsOwnSwitch(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	conf["taskmanager.data.ssl.enabled"] = "false"
	server, client, err := security.InternalTLS(conf, security.Data)
	require.NoError(t, err)
	assert.Nil(t, server, "TLS on data connections although taskmanager.data.ssl.enabled is false")
	assert.Nil(t, client)
	internalTLS(t, conf, security.RPC) // the others keep it

	conf["blob.service.ssl.enabled"] = "maybe"
	_, _, err = security.InternalTLS(conf, security.Blob)
	assert.EqualError(t, err, "Could not parse value 'maybe' for key 'blob.service.ssl.enabled'.")
}

func TestTheDeprecatedKeysAreRead(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	deprecated := map[string]string{
		"security.ssl.enabled":    "true",
		"security.ssl.keystore":   conf[security.KeyInternalKeystore],
		"security.ssl.truststore": conf[security.KeyInternalTruststore],
	}
	server, client := internalTLS(t, deprecated, security.RPC)
	serverErr, clientErr := handshake(t, server, client)
	require.NoError(t, serverErr)
	require.NoError(t, clientErr)
}

func TestAMissingStoreIsNamedAsFlinkNamesIt(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	withoutTruststore := map[string]string{
		security.KeyInternalEnabled:  "true",
		security.KeyInternalKeystore: conf[security.KeyInternalKeystore],
	}
	_, _, err = security.InternalTLS(withoutTruststore, security.RPC)
	require.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
	assert.EqualError(t, err, "The config option security.ssl.internal.truststore or security.ssl.truststore is missing.")

	_, _, err = security.InternalTLS(map[string]string{security.KeyInternalEnabled: "true"}, security.RPC)
	assert.EqualError(t, err, "The config option security.ssl.internal.keystore or security.ssl.keystore is missing.")

	conf[security.KeyInternalKeystoreType] = "JKS"
	_, _, err = security.InternalTLS(conf, security.RPC)
	require.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
	assert.Contains(t, err.Error(), "only PEM stores are read here")
}

func TestAStoreThatIsNoPEMIsRefused(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	garbage := filepath.Join(t.TempDir(), "store.jks")
	require.NoError(t, os.WriteFile(garbage, []byte("\xfe\xed\xfe\xed not pem"), 0o600))

	keystore := map[string]string{}
	for k, v := range conf {
		keystore[k] = v
	}
	keystore[security.KeyInternalKeystore] = garbage
	_, _, err = security.InternalTLS(keystore, security.RPC)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Could not load the keystore of security.ssl.internal.keystore")

	conf[security.KeyInternalTruststore] = garbage
	_, _, err = security.InternalTLS(conf, security.RPC)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "it holds no PEM certificate")
}

func TestAPinnedFingerprintReplacesTheTruststore(t *testing.T) {
	ours, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	theirs, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	_, theirClient := internalTLS(t, theirs, security.RPC)

	// Pin their certificate: our server now accepts it, CA or not.
	ours[security.KeyInternalCertFingerprint] = colonHex(leafFingerprint(t, theirs[security.KeyInternalKeystore]))
	pinnedServer, _ := internalTLS(t, ours, security.RPC)
	serverErr, _ := handshake(t, pinnedServer, trustingAnyone(theirClient))
	require.NoError(t, serverErr)

	// Pin our own: theirs is refused, though the pin parses.
	ours[security.KeyInternalCertFingerprint] = leafFingerprint(t, ours[security.KeyInternalKeystore])
	pinnedServer, _ = internalTLS(t, ours, security.RPC)
	serverErr, _ = handshake(t, pinnedServer, trustingAnyone(theirClient))
	require.Error(t, serverErr)
	assert.Contains(t, serverErr.Error(), "is not one of security.ssl.internal.cert.fingerprint")

	ours[security.KeyInternalCertFingerprint] = "abc"
	_, _, err = security.InternalTLS(ours, security.RPC)
	assert.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
}

func TestTheProtocolOption(t *testing.T) {
	conf, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	server, _ := internalTLS(t, conf, security.RPC)
	assert.Equal(t, [2]uint16{tls.VersionTLS12, tls.VersionTLS12}, [2]uint16{server.MinVersion, server.MaxVersion}, "Flink's default, TLSv1.2")

	conf[security.KeyProtocol] = "TLSv1.3"
	server, _ = internalTLS(t, conf, security.RPC)
	assert.Equal(t, [2]uint16{tls.VersionTLS13, tls.VersionTLS13}, [2]uint16{server.MinVersion, server.MaxVersion})

	conf[security.KeyProtocol] = "TLSv1.2, TLSv1.3"
	server, _ = internalTLS(t, conf, security.RPC)
	assert.Equal(t, [2]uint16{tls.VersionTLS12, tls.VersionTLS13}, [2]uint16{server.MinVersion, server.MaxVersion})

	conf[security.KeyProtocol] = "TLSv1.1"
	_, _, err = security.InternalTLS(conf, security.RPC)
	assert.EqualError(t, err, "security.ssl.protocol: unsupported protocol 'TLSv1.1' (TLSv1.2 and TLSv1.3 are).")
}

func TestTheCAKeyIsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	conf, err := security.CreateInternalCertificates(dir)
	require.NoError(t, err)

	info, err := os.Stat(conf[security.KeyInternalKeystore])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the keystore holds a private key")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	privateKeys := 0
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		privateKeys += strings.Count(string(data), "PRIVATE KEY-----") / 2 // BEGIN and END
	}
	assert.Equal(t, 1, privateKeys, "only the pair's private key is written, not the CA's")

	// The keys of a cluster are never overwritten.
	_, err = security.CreateInternalCertificates(dir)
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrExist))
}

// leafFingerprint is the SHA-1 of the first certificate of a keystore.
func leafFingerprint(t *testing.T, keystore string) string {
	t.Helper()
	data, err := os.ReadFile(keystore)
	require.NoError(t, err)
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	sum := sha1.Sum(cert.Raw)
	return hex.EncodeToString(sum[:])
}

// colonHex writes a fingerprint as keytool prints it: "1C:3A:…".
func colonHex(h string) string {
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, strings.ToUpper(h[i:i+2]))
	}
	return strings.Join(parts, ":")
}
