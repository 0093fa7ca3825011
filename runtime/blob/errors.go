package blob

import "errors"

// Errors a caller may test for with errors.Is. Every error this package
// returns wraps one of them (or a context error) with the job, key or path
// it concerns.
var (
	// ErrChecksumMismatch means the bytes a PermanentBlobCache downloaded do
	// not hash to the key it asked for: the BLOB was corrupted on the way or
	// on the server's disk. Its text is Flink's (BlobInputStream#read); the
	// download is thrown away and retried. A FileSystemBlobStore returns it
	// too, for a file that does not hash to its key on Put or on Get (Flink:
	// FileSystemBlobStore#get).
	ErrChecksumMismatch = errors.New("Detected data corruption during transfer")

	// ErrClosed is returned by every method of a BlobServer or a
	// PermanentBlobCache after Close.
	ErrClosed = errors.New("BLOB service is closed")

	// ErrInvalidID is returned for a zero JobID or a zero PermanentBlobKey:
	// such an ID was never set, so it cannot name a file.
	ErrInvalidID = errors.New("invalid BLOB identifier")

	// A missing BLOB has no sentinel of its own: BlobServer.Open and
	// PermanentBlobCache.GetFile return an error that wraps fs.ErrNotExist
	// (the same value as os.ErrNotExist), so errors.Is(err, fs.ErrNotExist)
	// is the test, as it is for any missing file in Go.
)
