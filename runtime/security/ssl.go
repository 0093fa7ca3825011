package security

import (
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"flinklab/runtime/configuration"
)

// The keys of Flink's SecurityOptions that internal TLS reads, with the
// deprecated keys Flink falls back to.
const (
	KeyInternalEnabled         = "security.ssl.internal.enabled"
	KeyInternalKeystore        = "security.ssl.internal.keystore"
	KeyInternalTruststore      = "security.ssl.internal.truststore"
	KeyInternalKeystoreType    = "security.ssl.internal.keystore-type"
	KeyInternalTruststoreType  = "security.ssl.internal.truststore-type"
	KeyInternalCertFingerprint = "security.ssl.internal.cert.fingerprint"
	KeyProtocol                = "security.ssl.protocol"

	// The deprecated keys: security.ssl.enabled once switched on TLS
	// for the internal and the REST connections together.
	keyEnabled    = "security.ssl.enabled"
	keyKeystore   = "security.ssl.keystore"
	keyTruststore = "security.ssl.truststore"
)

// Connection is a kind of internal connection. Each has its own switch,
// true by default, read only when internal TLS is enabled.
type Connection int

const (
	RPC  Connection = iota // JobManager ⇄ TaskManagers: pekko.ssl.enabled
	Blob                   // TaskManager → BlobServer: blob.service.ssl.enabled
	Data                   // TaskManager → TaskManager: taskmanager.data.ssl.enabled
)

// Key returns the option that switches TLS for the connection.
func (c Connection) Key() string {
	switch c {
	case RPC:
		return "pekko.ssl.enabled"
	case Blob:
		return "blob.service.ssl.enabled"
	default:
		return "taskmanager.data.ssl.enabled"
	}
}

// IsInternalSSLEnabled reads security.ssl.internal.enabled (Flink:
// SecurityOptions#isInternalSSLEnabled), falling back to the deprecated
// security.ssl.enabled.
func IsInternalSSLEnabled(conf map[string]string) (bool, error) {
	return boolOption(conf, false, KeyInternalEnabled, keyEnabled)
}

// InternalTLS returns the TLS configurations of one kind of internal
// connection: server for the side that listens, client for the side
// that dials. Both are nil when TLS is off for it: internal TLS is
// disabled, or the connection's own switch (Connection.Key) is false.
//
// Both sides show the keystore's certificate and check the peer's
// against the truststore, or against the pinned fingerprints when
// security.ssl.internal.cert.fingerprint is set: a peer without an
// accepted certificate fails the handshake. No host name is checked,
// as in Flink's internal TLS (see the package documentation).
//
// A missing or unreadable store is an error, with Flink's message for a
// missing option; callers refuse to start on it, as Flink does.
func InternalTLS(conf map[string]string, c Connection) (server, client *tls.Config, err error) {
	enabled, err := IsInternalSSLEnabled(conf)
	if err != nil || !enabled {
		return nil, nil, err
	}
	if on, err := boolOption(conf, true, c.Key()); err != nil || !on {
		return nil, nil, err
	}
	base, err := internalConfig(conf)
	if err != nil {
		return nil, nil, err
	}
	server = base.Clone()
	// Ask for the client's certificate and check it in VerifyConnection,
	// the same check the client makes of the server's.
	server.ClientAuth = tls.RequireAnyClientCert
	client = base.Clone()
	// Go's own check of the server's certificate would want a host name;
	// VerifyConnection checks the chain without one.
	client.InsecureSkipVerify = true
	return server, client, nil
}

// internalConfig is what both sides share (Flink: SSLUtils'
// createInternalSSLContext, identical for client and server "because of
// mutual authentication").
func internalConfig(conf map[string]string) (*tls.Config, error) {
	for _, key := range []string{KeyInternalKeystoreType, KeyInternalTruststoreType} {
		if t, ok := conf[key]; ok && !strings.EqualFold(strings.TrimSpace(t), "PEM") {
			return nil, configuration.NewIllegalConfigurationError(fmt.Sprintf(
				"%s is '%s', but only PEM stores are read here (a Java keystore converts with: openssl pkcs12 -in store.p12 -nodes).", key, t), nil)
		}
	}
	keystore, err := option(conf, KeyInternalKeystore, keyKeystore)
	if err != nil {
		return nil, err
	}
	truststore, err := option(conf, KeyInternalTruststore, keyTruststore)
	if err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(keystore)
	if err != nil {
		return nil, fmt.Errorf("Could not read the keystore of %s: %w", KeyInternalKeystore, err)
	}
	// One PEM file holds the certificate chain and the private key;
	// X509KeyPair takes the blocks of each kind it needs from it.
	certificate, err := tls.X509KeyPair(pem, pem)
	if err != nil {
		return nil, fmt.Errorf("Could not load the keystore of %s (%s): %w", KeyInternalKeystore, keystore, err)
	}
	pem, err = os.ReadFile(truststore)
	if err != nil {
		return nil, fmt.Errorf("Could not read the truststore of %s: %w", KeyInternalTruststore, err)
	}
	trusted := x509.NewCertPool()
	if !trusted.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("Could not load the truststore of %s (%s): it holds no PEM certificate", KeyInternalTruststore, truststore)
	}
	fingerprints, err := pinnedFingerprints(conf[KeyInternalCertFingerprint])
	if err != nil {
		return nil, err
	}
	minVersion, maxVersion, err := protocolVersions(conf)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{certificate},
		MinVersion:   minVersion,
		MaxVersion:   maxVersion,
		VerifyConnection: func(cs tls.ConnectionState) error {
			return verifyPeer(cs.PeerCertificates, trusted, fingerprints)
		},
	}, nil
}

// verifyPeer accepts a peer whose certificate chains up to a trusted
// certificate or, with pinned fingerprints, whose certificate is one of
// them (Flink: FingerprintTrustManagerFactory).
func verifyPeer(chain []*x509.Certificate, trusted *x509.CertPool, fingerprints map[string]bool) error {
	if len(chain) == 0 {
		return errors.New("the peer sent no certificate")
	}
	leaf := chain[0]
	if fingerprints != nil {
		sum := sha1.Sum(leaf.Raw)
		if !fingerprints[hex.EncodeToString(sum[:])] {
			return fmt.Errorf("the peer's certificate (%s) is not one of %s", leaf.Subject, KeyInternalCertFingerprint)
		}
		return nil
	}
	intermediates := x509.NewCertPool()
	for _, c := range chain[1:] {
		intermediates.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots:         trusted,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageAny}, // either side may show it
	})
	return err
}

// pinnedFingerprints parses security.ssl.internal.cert.fingerprint:
// SHA-1 fingerprints separated by commas, in hex with or without colons
// ("1C:3A:…"). Unset, it is nil: the truststore decides.
func pinnedFingerprints(value string) (map[string]bool, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	pinned := map[string]bool{}
	for _, f := range strings.Split(value, ",") {
		f = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(f), ":", ""))
		if b, err := hex.DecodeString(f); err != nil || len(b) != sha1.Size {
			return nil, configuration.NewIllegalConfigurationError(fmt.Sprintf(
				"%s: '%s' is not a SHA-1 fingerprint (40 hex digits, colons allowed).", KeyInternalCertFingerprint, value), nil)
		}
		pinned[f] = true
	}
	return pinned, nil
}

// protocolVersions reads security.ssl.protocol: "TLSv1.2" (Flink's
// default, and then only TLS 1.2 is spoken, as in Flink), "TLSv1.3", or
// both separated by a comma.
func protocolVersions(conf map[string]string) (minVersion, maxVersion uint16, err error) {
	value, ok := conf[KeyProtocol]
	if !ok {
		value = "TLSv1.2"
	}
	versions := map[string]uint16{"tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13}
	for _, p := range strings.Split(value, ",") {
		v, known := versions[strings.ToLower(strings.TrimSpace(p))]
		if !known {
			return 0, 0, configuration.NewIllegalConfigurationError(fmt.Sprintf(
				"%s: unsupported protocol '%s' (TLSv1.2 and TLSv1.3 are).", KeyProtocol, strings.TrimSpace(p)), nil)
		}
		if minVersion == 0 || v < minVersion {
			minVersion = v
		}
		maxVersion = max(maxVersion, v)
	}
	return minVersion, maxVersion, nil
}

// option reads a key that must be set, or its deprecated fallback, with
// Flink's message when neither is (SSLUtils#getAndCheckOption).
func option(conf map[string]string, key, fallback string) (string, error) {
	for _, k := range []string{key, fallback} {
		if v := strings.TrimSpace(conf[k]); v != "" {
			return v, nil
		}
	}
	return "", configuration.NewIllegalConfigurationError(
		fmt.Sprintf("The config option %s or %s is missing.", key, fallback), nil)
}

// boolOption reads a boolean option, or the first of its fallbacks that is
// set, as Flink parses booleans: "true" or "false" in any case.
func boolOption(conf map[string]string, def bool, keys ...string) (bool, error) {
	for _, key := range keys {
		v, ok := conf[key]
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
	}
	return def, nil
}
