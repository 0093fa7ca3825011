package blob

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"flinklab/runtime/api"
)

// The on-disk layout, shared by the BlobServer and every PermanentBlobCache
// (Flink's BlobUtils uses the same one):
//
//	<storageDir>/incoming/temp-<random>         a BLOB being written, never read
//	<storageDir>/job_<jobID>/blob_p-<64 hex>    a complete BLOB
//
// Every name below is built from a parsed api.JobID or PermanentBlobKey,
// whose String forms are hex digits only, so no caller can choose a file
// name or escape storageDir with "../".

// incomingDir returns the directory that holds BLOBs being written.
func incomingDir(storageDir string) string { return filepath.Join(storageDir, "incoming") }

// jobDir returns the directory that holds one job's BLOBs
// (Flink: BlobUtils.getStorageLocationPath).
func jobDir(storageDir string, jobID api.JobID) string {
	return filepath.Join(storageDir, "job_"+jobID.String())
}

// storageLocation returns the path of one complete BLOB
// (Flink: BlobUtils.getStorageLocation).
func storageLocation(storageDir string, jobID api.JobID, key PermanentBlobKey) string {
	return filepath.Join(jobDir(storageDir, jobID), "blob_"+key.String())
}

// prepareStorageDir creates storageDir and an empty incoming directory.
// Temp files left in incoming by a crash are deleted: they were never
// complete, and nothing else reads them.
func prepareStorageDir(storageDir string) error {
	if storageDir == "" {
		return fmt.Errorf("BLOB storage directory must be set")
	}
	if err := os.RemoveAll(incomingDir(storageDir)); err != nil {
		return fmt.Errorf("clear incoming BLOB directory: %w", err)
	}
	if err := os.MkdirAll(incomingDir(storageDir), 0o755); err != nil {
		return fmt.Errorf("create BLOB storage directory: %w", err)
	}
	return nil
}

// checkIDs rejects identifiers that were never set.
func checkIDs(jobID api.JobID, key PermanentBlobKey) error {
	if jobID.IsZero() {
		return fmt.Errorf("%w: the JobID is zero", ErrInvalidID)
	}
	if key.IsZero() {
		return fmt.Errorf("%w: the BLOB key is zero", ErrInvalidID)
	}
	return nil
}

// writeTemp copies r into a new temp file in dir and hashes the bytes on
// the way, so the content is read only once. It returns the temp file's
// path and the key of what was written. On any error the temp file is
// already removed and the returned path is empty.
//
// The BlobServer and the caches write into their incoming directory; the
// FileSystemBlobStore writes into the job directory it stores into. Either
// way the temp file is on the same file system as its final name, so the
// rename that follows is atomic.
func writeTemp(ctx context.Context, dir string, r io.Reader) (tmpPath string, key PermanentBlobKey, err error) {
	f, err := os.CreateTemp(dir, "temp-")
	if err != nil {
		return "", PermanentBlobKey{}, fmt.Errorf("create temp file for BLOB: %w", err)
	}
	hash := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, hash), contextReader{ctx, r})
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", PermanentBlobKey{}, err
	}
	copy(key.hash[:], hash.Sum(nil))
	return f.Name(), key, nil
}

// moveIntoPlace renames a complete temp file to its storage location. The
// rename is atomic, so a reader sees either no BLOB or the whole BLOB, never
// a part of it. If the BLOB is already there (same key, so same content),
// the temp file is simply dropped.
func moveIntoPlace(tmpPath, storageDir string, jobID api.JobID, key PermanentBlobKey) (string, error) {
	path := storageLocation(storageDir, jobID, key)
	if isRegularFile(path) {
		return path, os.Remove(tmpPath)
	}
	if err := os.MkdirAll(jobDir(storageDir, jobID), 0o755); err != nil {
		_ = os.Remove(tmpPath)
		return "", fmt.Errorf("create BLOB directory for job %s: %w", jobID, err)
	}
	if err := os.Rename(tmpPath, path); err != nil {
		_ = os.Remove(tmpPath)
		return "", fmt.Errorf("move BLOB %s/%s into place: %w", jobID, key, err)
	}
	return path, nil
}

func isRegularFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// contextReader stops a copy as soon as ctx is done, so a cancelled
// deployment does not finish downloading a large jar.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (cr contextReader) Read(p []byte) (int, error) {
	if err := cr.ctx.Err(); err != nil {
		return 0, err
	}
	return cr.r.Read(p)
}
