package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"flinklab/runtime/api"
)

// BlobStore keeps a second copy of every permanent BLOB where the next
// leader JobManager can find it. It mirrors Flink's
// org.apache.flink.runtime.blob.BlobStore (with BlobView#get), which the
// BlobServer is given as a BlobStoreService when high availability is on.
//
// The BlobServer's local disk belongs to one JobManager. When that
// JobManager dies, the next leader recovers the job from the HA services
// and deploys its tasks again, and the TaskManagers ask the next leader's
// BlobServer for the job's jar. That server's disk never had it; it copies
// the jar from the BlobStore, which every JobManager of the cluster shares.
//
// Implementations must be safe for concurrent use, also by several
// processes (the old and the next leader may both be alive for a moment).
// Without high availability the BlobServer has no BlobStore at all
// (ServerConfig.BlobStore is nil), which is what Flink's VoidBlobStore
// does: it stores nothing and finds nothing.
type BlobStore interface {
	// Put copies the complete local file localFile into the store as the
	// BLOB key of the job (Flink: BlobStore#put). Putting a key that is
	// already stored is not an error, and the store still keeps one copy.
	Put(localFile string, jobID api.JobID, key PermanentBlobKey) error

	// Get copies the BLOB key of the job from the store to localFile,
	// replacing whatever is there (Flink: BlobView#get). A BLOB the store
	// does not have gives an error wrapping fs.ErrNotExist, and localFile is
	// then left as it was.
	Get(jobID api.JobID, key PermanentBlobKey, localFile string) error

	// Delete removes one BLOB of the job from the store (Flink:
	// BlobStore#delete). The BlobServer calls it from DeletePermanent, so
	// that a jar taken back from a refused run does not stay in the store
	// of a job that never ran. Deleting a missing BLOB is not an error.
	Delete(jobID api.JobID, key PermanentBlobKey) error

	// DeleteAll removes every BLOB of the job from the store (Flink:
	// BlobStore#deleteAll). The BlobServer calls it from CleanupJob once the
	// job is globally terminal. Deleting a job with no BLOBs is not an
	// error.
	DeleteAll(jobID api.JobID) error
}

// FileSystemBlobStore is a BlobStore in a directory that every JobManager
// of the cluster can reach. It mirrors Flink's
// org.apache.flink.runtime.blob.FileSystemBlobStore, whose base path is
// <high-availability.storageDir>/<cluster-id>/blob, and it uses the layout
// of the local storage (Flink's BlobUtils#getStorageLocationPath):
//
//	<basePath>/job_<jobID>/blob_p-<64 hex>     a complete BLOB
//	<basePath>/job_<jobID>/temp-<random>       a BLOB being written, never read
//
// Where it differs from Flink:
//
//   - basePath is a path of the local file system, for example a directory
//     that every JobManager mounts. Flink's works on any Flink FileSystem
//     (HDFS, S3, ...) through FileSystem#create and FileSystem#open.
//   - NewFileSystemBlobStore takes the whole base path; Flink's constructor
//     appends "/blob" to the cluster's HA storage path itself.
//   - Put writes a temp file next to the BLOB and renames it, so a reader
//     never sees half a BLOB. Flink's put writes the final name directly
//     (FileSystem.WriteMode.OVERWRITE), because on object stores such as S3
//     a file becomes visible only when it is closed, and not every Flink
//     FileSystem can rename.
//   - Put checks that the local file hashes to its key, as Get does (Flink
//     checks on get only), so that a damaged file never reaches the store
//     under a name the next leader trusts.
//   - The temp files live in the job directory, not in an incoming
//     directory cleared at start: several JobManagers share the store, and
//     one of them starting must not delete what another is writing. A temp
//     file a crash leaves behind goes with the job's DeleteAll.
//   - There is no closeAndCleanupAllData (Flink's BlobStoreService deletes
//     the whole base path when the cluster shuts down for good): the caller
//     owns basePath.
//
// A FileSystemBlobStore is safe for concurrent use, also by several
// processes sharing basePath: every change is a rename or a removal.
type FileSystemBlobStore struct {
	basePath string
}

var _ BlobStore = (*FileSystemBlobStore)(nil)

// NewFileSystemBlobStore creates basePath if it is missing and returns a
// store in it. It leaves what is already there: after a failover the next
// leader opens the same basePath and finds the jars of the jobs it
// recovers. (Flink's constructor also logs "Creating highly available BLOB
// storage directory at <basePath>"; this one has no logger.)
func NewFileSystemBlobStore(basePath string) (*FileSystemBlobStore, error) {
	if basePath == "" {
		return nil, errors.New("create BLOB store: the base path must be set")
	}
	if err := os.MkdirAll(basePath, 0o755); err != nil {
		return nil, fmt.Errorf("create BLOB store: %w", err)
	}
	return &FileSystemBlobStore{basePath: basePath}, nil
}

// Put copies localFile to <basePath>/job_<jobID>/blob_<key>. It writes a
// temp file in the job directory while hashing it, checks the hash against
// the key, and renames the temp file into place (moveIntoPlace), so the
// BLOB appears whole or not at all. If the BLOB is already stored, the copy
// is dropped and the stored one stays.
func (s *FileSystemBlobStore) Put(localFile string, jobID api.JobID, key PermanentBlobKey) error {
	if err := checkIDs(jobID, key); err != nil {
		return fmt.Errorf("put BLOB to the blob store: %w", err)
	}
	src, err := os.Open(localFile)
	if err != nil {
		return fmt.Errorf("put BLOB %s/%s to the blob store: %w", jobID, key, err)
	}
	defer src.Close()

	dir := jobDir(s.basePath, jobID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("put BLOB %s/%s to the blob store: %w", jobID, key, err)
	}
	tmpPath, actual, err := writeTemp(context.Background(), dir, src)
	if err != nil {
		return fmt.Errorf("put BLOB %s/%s to the blob store: %w", jobID, key, err)
	}
	if actual != key {
		_ = os.Remove(tmpPath)
		return fmt.Errorf("put BLOB %s/%s to the blob store: %w (SHA-256): expected %s, actual %s",
			jobID, key, ErrChecksumMismatch, key, actual)
	}
	if _, err := moveIntoPlace(tmpPath, s.basePath, jobID, key); err != nil {
		return fmt.Errorf("put BLOB %s/%s to the blob store: %w", jobID, key, err)
	}
	return nil
}

// Get copies <basePath>/job_<jobID>/blob_<key> to localFile. Like Flink's
// FileSystemBlobStore#get it hashes the bytes on the way and fails with
// ErrChecksumMismatch ("Detected data corruption during transfer") if they
// do not match the key. The copy is written to a temp file in localFile's
// directory and renamed to localFile only when it is complete and
// verified, so localFile never holds half a BLOB or a damaged one.
func (s *FileSystemBlobStore) Get(jobID api.JobID, key PermanentBlobKey, localFile string) error {
	if err := checkIDs(jobID, key); err != nil {
		return fmt.Errorf("get BLOB from the blob store: %w", err)
	}
	src, err := os.Open(storageLocation(s.basePath, jobID, key))
	if err != nil {
		// A missing BLOB is an *fs.PathError wrapping fs.ErrNotExist.
		return fmt.Errorf("get BLOB %s/%s from the blob store: %w", jobID, key, err)
	}
	defer src.Close()

	tmpPath, actual, err := writeTemp(context.Background(), filepath.Dir(localFile), src)
	if err != nil {
		return fmt.Errorf("get BLOB %s/%s from the blob store: %w", jobID, key, err)
	}
	if actual != key {
		_ = os.Remove(tmpPath)
		return fmt.Errorf("get BLOB %s/%s from the blob store: %w (SHA-256): expected %s, actual %s",
			jobID, key, ErrChecksumMismatch, key, actual)
	}
	if err := os.Rename(tmpPath, localFile); err != nil {
		_ = os.Remove(tmpPath)
		return fmt.Errorf("get BLOB %s/%s from the blob store: %w", jobID, key, err)
	}
	return nil
}

// Delete removes <basePath>/job_<jobID>/blob_<key>. The job directory
// stays, with the job's other BLOBs.
func (s *FileSystemBlobStore) Delete(jobID api.JobID, key PermanentBlobKey) error {
	if err := checkIDs(jobID, key); err != nil {
		return fmt.Errorf("delete BLOB from the blob store: %w", err)
	}
	err := os.Remove(storageLocation(s.basePath, jobID, key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete BLOB %s/%s from the blob store: %w", jobID, key, err)
	}
	return nil
}

// DeleteAll removes <basePath>/job_<jobID> with everything in it, temp
// files of interrupted puts included.
func (s *FileSystemBlobStore) DeleteAll(jobID api.JobID) error {
	if jobID.IsZero() {
		return fmt.Errorf("delete BLOBs from the blob store: %w: the JobID is zero", ErrInvalidID)
	}
	if err := os.RemoveAll(jobDir(s.basePath, jobID)); err != nil {
		return fmt.Errorf("delete BLOBs of job %s from the blob store: %w", jobID, err)
	}
	return nil
}
