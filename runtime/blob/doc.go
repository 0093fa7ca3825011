// Package blob moves a job's jars from the client to every TaskExecutor that
// runs the job's tasks. It mirrors Flink's org.apache.flink.runtime.blob:
//
//	BlobServer          the JobManager's store     (Flink: BlobServer, BlobServerConnection)
//	PermanentBlobCache  each TaskExecutor's copy   (Flink: PermanentBlobCache)
//	Source              what a cache reads from    (Flink: BlobClient#downloadFromBlobServer)
//	TCPSource           a Source in another process (Flink: BlobClient's GET)
//	PermanentBlobKey    the name of one BLOB       (Flink: PermanentBlobKey)
//	BlobStore           the HA copy of every BLOB  (Flink: BlobStore, BlobStoreService)
//	FileSystemBlobStore a BlobStore in a directory (Flink: FileSystemBlobStore)
//
// # What a BLOB is
//
// A BLOB ("binary large object") is any file too big or too opaque to travel
// inside an RPC message: above all the user's jar, but also job artifacts and
// parts of a TaskDeploymentDescriptor that Flink offloads when they grow past
// blob.offload.minsize. RPC messages carry only the BLOB's key; whoever needs
// the bytes fetches them by key.
//
// Flink has two kinds. Permanent BLOBs belong to a job and live as long as
// the job: jars and artifacts, needed again after every restart. Transient
// BLOBs are one-off files, such as a TaskManager's log file served through
// the REST API, deleted soon after they are read. flinklab has only
// permanent BLOBs.
//
// # The path of a jar
//
//	client ──m1 upload──▶ BlobServer (JobManager)        <dir>/job_<id>/blob_p-<sha256>
//	                          │ Open (the Source): in-process, or a TCPSource
//	                          ▼    over the server's listener (blob.server.port)
//	TaskExecutor ──m10──▶ PermanentBlobCache.GetFile     <cacheDir>/job_<id>/blob_p-<sha256>
//	                          │ local path
//	                          ▼
//	                     Task loads the user code
//
// After step m2 (the run request), the jar the client uploaded at step m1
// goes to the BlobServer: PutPermanent stores it and returns its
// PermanentBlobKey; the key goes into the JobGraph, and from
// there into every TaskDeploymentDescriptor.
//
// Step m10: a task is deployed to a TaskExecutor (m9), and before it can load
// its user code it asks the TaskExecutor's PermanentBlobCache for each jar.
// GetFile returns the local path at once if the jar is cached; otherwise it
// downloads the jar from its Source, verifies it and keeps it for the job's
// other tasks. If the jar cannot be fetched or is corrupted, the task fails
// to deploy.
//
// # Content addressing and the checksum
//
// A PermanentBlobKey is the SHA-256 of the BLOB's content. The name follows
// from the content, so storing the same jar twice stores it once, and a
// BLOB never changes under its name.
//
// The key is also the checksum. Bytes can be damaged on the network, on the
// JobManager's disk or by a half-finished copy. A damaged jar might load and
// fail much later, far from the cause, or run code nobody submitted. So the
// cache hashes every download while writing it and compares the hash with
// the key; a mismatch is an ErrChecksumMismatch, whose text is Flink's
//
//	Detected data corruption during transfer (SHA-256): expected p-…, actual p-…
//
// the bytes are thrown away, and the download is tried again. In Flink the
// same check is BlobInputStream#read's, on the client side of the
// connection (BlobClient#getInternal returns that stream): when the last
// byte has arrived, it compares the digest with the key's hash and throws
// IOException("Detected data corruption during transfer").
//
// # Retries
//
// A failed download is retried DefaultFetchRetries (5, Flink's
// blob.fetch.retries) times, at once, without a pause, as Flink does, and
// logs Flink's BlobClient lines (under the logger BlobClient): before the
// first attempt
//
//	INFO  Downloading <jobId>/<blobKey> from <addr>
//
// after each failed attempt but the last
//
//	ERROR Failed to fetch BLOB <jobId>/<blobKey> from <addr> and store it under <path> Retrying...
//	INFO  Downloading <jobId>/<blobKey> from <addr> (retry <n>)
//
// (the ERROR line carries the attempt's error only when DEBUG is on), and
// after the last one the same ERROR line ending in "No retries left.",
// with the error as its cause; GetFile then returns an error of that text
// whose cause (errors.Unwrap) is the last attempt's error. These are the lines to look for in a TaskManager log when a task
// fails to deploy. For a corrupted jar the cause is the "Detected data
// corruption during transfer" above, and that is what the task fails with:
// Flink's Task reports the same IOException, "Failed to fetch BLOB … No
// retries left.", caused by "Detected data corruption during transfer"
// (BlobLibraryCacheManager rethrows an IOException as it is).
//
// # On disk
//
//	<storageDir>/
//	    incoming/
//	        temp-<random>          being written; never read, cleared at start
//	    job_<jobID>/
//	        blob_p-<64 hex>        one complete BLOB, named by its content
//
// The server and every cache use the same layout. A BLOB is first written
// to a temp file in incoming/ and then renamed into its job directory. A
// rename is atomic, so a reader sees either no BLOB or the whole BLOB: a
// crash or a failed upload never leaves a half-written BLOB under a real
// name, and a failed attempt removes its temp file.
//
// File names are built only from an api.JobID and a PermanentBlobKey, both
// parsed types whose String forms are hex digits. Nothing that comes from
// outside (a client, a REST request) can choose a file name or reach
// outside the storage directory with "../".
//
// # Concurrency
//
// BlobServer and PermanentBlobCache are safe for use from many goroutines.
// The cache keeps a map of downloads in flight, so when several tasks of one
// job start on one TaskExecutor at once, the jar is downloaded once and
// every task gets the same path. A caller whose ctx ends stops waiting; if
// it was the one downloading, a waiting caller takes the download over.
//
// # Between processes
//
// In the embedded cluster the BlobServer is itself the caches' Source. When
// the TaskExecutors run in processes of their own, the BlobServer listens
// on a TCP port (ServerConfig.ListenAddress, Flink's blob.server.port; its
// Address is then "host:port"), and each TaskExecutor's cache downloads
// through NewTCPSource(that address). Each download is one connection
// carrying one GET:
//
//	cache ── GET{jobID, key} ──────────────────────────▶ BlobServer
//	      ◀─ RETURN_OKAY, length, the BLOB's bytes ───── (or RETURN_ERROR, kind, message)
//
// protocol.go has the bytes. The cache does not know which Source it has:
// it hashes what arrives and compares it with the key, retries as before,
// and a transfer damaged on the network is an ErrChecksumMismatch ("Detected
// data corruption during transfer") like any other. A BLOB the server does not have is still an error wrapping
// fs.ErrNotExist, and a connection cut short an io.ErrUnexpectedEOF. A
// server that sends nothing for DefaultSocketTimeout (Flink's
// blob.client.socket.timeout, 5 min) fails the attempt, as a read timeout.
//
// # Limits
//
// The BlobServer's port is reachable by any process on the network. A
// connection that sends nothing would hold a goroutine and a file
// descriptor for ever, and enough of them would leave the JobManager
// unable to open the files a job needs. So a listening server has limits
// (ServerConfig; package entrypoint reads the options):
//
//	limit          key                          default  what it bounds
//	connections    blob.fetch.num-concurrent    50       connections served at once (Flink's)
//	backlog        blob.fetch.backlog           1000     shown in the start-up line (Flink's; see below)
//	read timeout   blob.server.read-timeout     10 s     from the accept to the whole GET request, TLS handshake included (ours)
//	write timeout  blob.server.write-timeout    5 min    each write of a BLOB to a client that does not read (ours)
//
// A BLOB connection carries one request, so the read timeout is also its
// idle timeout. While FetchNumConcurrent connections are served the
// server stops accepting, as Flink's BlobServer#run does: the next
// connections wait in the listen backlog of the operating system, and a
// TaskManager's download that waits there succeeds once a connection
// ahead of it closes, if need be at its read timeout. The server logs
// that it is full ("BLOB server at … serves 50 connections, its maximum
// (blob.fetch.num-concurrent) …", at most once a minute) and Flink's
// "Error while executing BLOB connection from …" when it closes a
// connection that brought no request (a failed TLS handshake, the read
// timeout). Anyone who reaches the port can make such lines by the
// thousand, so that one too is written at most once a minute, and the
// next says how many were left out ("suppressed"; package
// internal/connlimit, which the RPC service and the
// PartitionRequestServer share).
//
// On the client side, TCPSourceConfig holds Flink's
// blob.client.connect.timeout (0: none) and blob.client.socket.timeout
// (5 min; 0: none, NoSocketTimeout). A TaskManager's PermanentBlobCache
// is given the same TCPSourceConfig (CacheConfig.TCPSource) for each
// BlobServer it learns of. With ServerConfig.TLS and TCPSourceConfig.TLS
// (Flink's security.ssl.internal.*, made by package security), every
// download is mutual TLS, and a client without a certificate of the
// cluster gets nothing.
//
// Differs from Flink: Go's listener takes its backlog from the operating
// system (net.core.somaxconn on Linux), not from blob.fetch.backlog, which
// is checked and shown only. The read and write timeouts are ours: Flink's
// BlobServerConnection sets no socket timeout. So is the rate limit of
// the log lines: Flink logs each failed connection.
//
// # High availability
//
// Under high availability (Flink's high-availability.type zookeeper or
// kubernetes) the JobManager that runs a job may die, and the next leader
// recovers the job and deploys its tasks again. Its TaskManagers then ask
// the next leader's BlobServer for the job's jar, which that server's local
// disk never had. So every BlobServer of the cluster is given the same
// BlobStore (ServerConfig.BlobStore), a FileSystemBlobStore in the HA
// storage directory, which Flink places at
//
//	<high-availability.storageDir>/<cluster-id>/blob/
//	    job_<jobID>/
//	        blob_p-<64 hex>        the same layout as the local storage
//
// These calls of the BlobServer reach the store:
//
//   - PutPermanent copies the BLOB to the store before it returns; if that
//     fails, the upload fails and leaves no new local BLOB behind, so no job
//     is submitted with a jar a next leader could not find.
//   - Open, for a BLOB missing on the local disk, copies it from the store
//     into incoming/, moves it into place and serves it (Flink:
//     BlobServer#getFileInternal). From then on the next leader serves it
//     from its own disk. This is how a recovered job's jar reaches the
//     TaskManagers: through the next leader's BlobServer, which fetched it
//     from the store.
//   - CleanupJob, once the job is globally terminal, removes the job's
//     BLOBs from the store as well (Flink: BlobServer#globalCleanupAsync).
//   - DeletePermanent removes its one BLOB from the store as well (Flink:
//     BlobStore#delete).
//
// Without high availability there is no store (a nil BlobStore, Flink's
// VoidBlobStore), and a BLOB lives only on the disk of the JobManager that
// received it.
//
// # Lifecycle
//
// The JobManager creates one BlobServer at start-up (it logs "Started BLOB
// server at ..."), with the cluster's BlobStore under high availability.
// The Dispatcher calls CleanupJob when a job reaches a globally terminal
// state; it removes the job's BLOBs from the local disk and from the
// BlobStore. A JobManager that only loses its leadership must not call it:
// the job is not terminal, and the next leader still needs its jars. Each
// TaskExecutor creates one PermanentBlobCache and calls ReleaseJob when it
// stops running tasks of a job. Close stops either one; later calls fail
// with ErrClosed. A listening server's Close also stops listening and
// closes the connections it serves; it leaves the BlobStore alone.
//
// # Differs from Flink
//
//   - Keys are the SHA-256 of the content. Flink's keys are a SHA-1 digest
//     plus a random part; ours make the key and the checksum one value.
//   - In one process the cache downloads by calling BlobServer.Open through
//     the Source interface; TCPSource is the same interface over TCP.
//     Flink's BlobClient also uploads (PUT) and keeps one connection for
//     several requests; the client here only downloads, one BLOB per
//     connection, because uploads reach the server through the REST API in
//     the JobManager's own process.
//   - The protocol is Flink's in shape and constants (GET_OPERATION,
//     JOB_RELATED_CONTENT, RETURN_OKAY, RETURN_ERROR), not byte for byte:
//     the length is 8 bytes big-endian (Flink: 4 bytes little-endian), the
//     key is the 32-byte SHA-256, and an error is a kind and a message, not
//     a serialized Java exception.
//   - Flink's message names the temp file it was writing; ours names the
//     final path, which stays the same across attempts.
//   - A corrupted download fails with Flink's "Detected data corruption
//     during transfer" followed by the expected and the actual SHA-256;
//     Flink's message stops after "transfer". Flink's client also tells
//     the server (RETURN_ERROR) before it fails; here the connection simply
//     closes, since it carries one GET only.
//   - ReleaseJob deletes a job's files at once. Flink's PermanentBlobCache
//     counts references per job and deletes them after a TTL
//     (blob.service.cleanup.interval), so a job that comes back soon finds
//     its jars still there.
//   - Close leaves the server's files on the JobManager's disk, because the
//     caller owns the storage directory; Flink deletes its own random
//     blobStore-<uuid> directory on close.
//   - The FileSystemBlobStore works on a local path only (a directory every
//     JobManager mounts); Flink's works on any Flink FileSystem, such as
//     HDFS or S3. Its doc comment lists the other differences.
//   - PutPermanent copies a BLOB to the BlobStore every time it is put;
//     Flink copies it only when it is new on the local disk.
//   - blob.fetch.backlog is shown in the start-up line only; the listen
//     backlog is the operating system's (see Limits).
package blob
