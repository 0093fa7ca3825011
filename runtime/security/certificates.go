package security

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// The files CreateInternalCertificates writes.
const (
	KeystoreFile   = "internal.keystore.pem"   // the cluster's certificate, its CA's, and the private key
	TruststoreFile = "internal.truststore.pem" // the CA's certificate
)

// certificateValidity is how long the certificates of a cluster-private
// CA are valid: a cluster that runs longer needs certificates of its own.
const certificateValidity = 365 * 24 * time.Hour

// CreateInternalCertificates makes a CA for one cluster and a key pair
// it signs, writes them into dir as KeystoreFile and TruststoreFile,
// and returns the options that enable internal TLS with them, for every
// process of the cluster to be given:
//
//	security.ssl.internal.enabled: true
//	security.ssl.internal.keystore: <dir>/internal.keystore.pem
//	security.ssl.internal.truststore: <dir>/internal.truststore.pem
//
// The CA's private key is never written: once it has signed the pair,
// no other certificate can be made that the cluster trusts. The
// keystore, which holds the pair's private key, is readable by its owner
// only. On an error nothing is left in dir.
func CreateInternalCertificates(dir string) (map[string]string, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "flinklab cluster CA"},
		NotBefore:             now.Add(-time.Hour), // tolerate clocks a little behind
		NotAfter:              now.Add(certificateValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err = x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "flinklab internal"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certificateValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		// Every process dials some peers and is dialled by others.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}

	keystore := pemBlocks(
		&pem.Block{Type: "CERTIFICATE", Bytes: leafDER},
		&pem.Block{Type: "CERTIFICATE", Bytes: caDER},
		&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER},
	)
	truststore := pemBlocks(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	keystorePath, truststorePath := filepath.Join(dir, KeystoreFile), filepath.Join(dir, TruststoreFile)
	if err := writeNew(keystorePath, keystore, 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(truststorePath, truststore, 0o644); err != nil {
		return nil, errors.Join(err, os.Remove(keystorePath))
	}
	return map[string]string{
		KeyInternalEnabled:    "true",
		KeyInternalKeystore:   keystorePath,
		KeyInternalTruststore: truststorePath,
	}, nil
}

func pemBlocks(blocks ...*pem.Block) []byte {
	var out []byte
	for _, b := range blocks {
		out = append(out, pem.EncodeToMemory(b)...)
	}
	return out
}

// writeNew writes a file that must not exist yet (a cluster's keys are
// never overwritten), removing it again if the write fails.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return errors.Join(err, os.Remove(path))
	}
	return nil
}
