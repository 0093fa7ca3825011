package blob

import (
	"context"
	"io"

	"flinklab/runtime/api"
)

// Source is where a PermanentBlobCache downloads BLOBs from. It is the one
// thing a TaskExecutor needs to know about the BlobServer.
//
// Open returns the content of one BLOB; the caller reads it to the end and
// closes it. A BLOB the source does not have is reported with an error
// wrapping fs.ErrNotExist. Open and the reads that follow should give up
// when ctx is done.
//
// The BlobServer implements Source itself (an in-process download), and
// TCPSource, the counterpart of Flink's BlobClient#downloadFromBlobServer,
// implements it over TCP, so the cache does not change when the BlobServer
// is in another process.
type Source interface {
	Open(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error)
}

// SourceFunc adapts a plain function to a Source, as http.HandlerFunc does
// for handlers. Tests and fault injection use it to wrap a real Source.
type SourceFunc func(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error)

// Open calls f.
func (f SourceFunc) Open(ctx context.Context, jobID api.JobID, key PermanentBlobKey) (io.ReadCloser, error) {
	return f(ctx, jobID, key)
}

var (
	_ Source = (*BlobServer)(nil)
	_ Source = (*TCPSource)(nil)
	_ Source = SourceFunc(nil)
)
