// Package security is the TLS of a cluster's internal connections:
// Flink's SSLUtils and the security.ssl.internal.* options of its
// SecurityOptions.
//
// # What "internal" means
//
// A Flink cluster has two kinds of connections. The external ones are
// the REST endpoint's, which clients and browsers use (security.ssl.rest.*,
// not built here). The internal ones join the cluster's own processes:
//
//	connection                          transport          switch (default true)
//	JobManager ⇄ TaskManagers (RPC)     rpc.TCPService     pekko.ssl.enabled
//	TaskManager → BlobServer            blob               blob.service.ssl.enabled
//	TaskManager → TaskManager (data)    network            taskmanager.data.ssl.enabled
//
// With security.ssl.internal.enabled=true (default false) every internal
// connection is TLS with mutual authentication: each side shows a
// certificate, and each side accepts only a certificate its truststore
// vouches for. Whoever can reach the ports but holds no such certificate
// gets nothing done. Without TLS, a hand-written RPC frame naming the
// Dispatcher's CancelJob, with the all-zero fencing token of a standalone
// cluster, cancels a running job; with it, the frame ends in a failed
// handshake, never at the Dispatcher. The three switches turn TLS
// off for one kind of connection while the others keep it.
//
// # The options
//
//	security.ssl.internal.enabled          false
//	security.ssl.internal.keystore         the process's certificate chain and private key
//	security.ssl.internal.truststore       the certificates it trusts (usually one CA)
//	security.ssl.internal.keystore-type    PEM (the only type read here)
//	security.ssl.internal.truststore-type  PEM
//	security.ssl.internal.cert.fingerprint the peers' certificates, pinned by SHA-1 instead of a CA
//	security.ssl.protocol                  TLSv1.2 (TLSv1.3, or both: "TLSv1.2,TLSv1.3")
//
// Flink trusts no hostname on internal connections: a TaskManager's
// address comes from the cluster itself, and the truststore decides who
// belongs. So the certificates need no host names, and one key pair may
// be shared by every process, which is what Flink's documentation
// recommends for internal TLS.
//
// # A cluster-private CA
//
// CreateInternalCertificates makes what a cluster needs when nobody
// has provided certificates: a CA that exists for this cluster only, and
// one key pair it signs. The CA's private key is thrown away once it has
// signed, so no further certificate can join the cluster. `flink
// start-cluster -D security.ssl.internal.enabled=true` does this in a
// directory of its own under the system's temporary directory
// (flink-internal-ssl-<its pid>, readable by its user only), hands the
// files to every process it starts, and removes the directory when it
// stops; one a killed start-cluster left behind is removed by the next.
//
// Differs from Flink: Flink reads Java keystores (JKS or PKCS12, opened
// with security.ssl.internal.keystore-password, -key-password and
// -truststore-password); here both stores are PEM files, the keystore's
// private key unencrypted (keep it readable by the cluster's user only:
// CreateInternalCertificates writes it 0600), and the password options
// are not read. security.ssl.algorithms is not read either: Go's TLS
// picks from its own list of secure cipher suites.
package security
