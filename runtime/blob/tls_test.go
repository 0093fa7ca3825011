package blob_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/security"
)

// Mutual TLS between a TCPSource and a BlobServer (ServerConfig.TLS,
// TCPSourceConfig.TLS), with certificates made by package security.
func TestBlobServer_ServesOverMutualTLSOnly(t *testing.T) {
	opts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	serverTLS, clientTLS, err := security.InternalTLS(opts, security.Blob)
	require.NoError(t, err)
	otherOpts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	_, otherClientTLS, err := security.InternalTLS(otherOpts, security.Blob)
	require.NoError(t, err)

	server, err := blob.NewBlobServer(blob.ServerConfig{
		StorageDir:    t.TempDir(),
		Logger:        discardLogger(),
		ListenAddress: blob.DefaultListenAddress,
		TLS:           serverTLS,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 a jar for the cluster's eyes only")
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)
	ctx := withDeadline(t)

	content, err := blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{TLS: clientTLS}).Open(ctx, jobID, key)
	require.NoError(t, err)
	got, err := io.ReadAll(content)
	require.NoError(t, err)
	require.NoError(t, content.Close())
	assert.Equal(t, jar, got, "a client of the cluster downloads")

	_, err = blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{}).Open(ctx, jobID, key)
	assert.ErrorContains(t, err, "GET operation failed", "a plaintext client gets nothing")

	content, err = blob.NewTCPSource(server.Address(), blob.TCPSourceConfig{TLS: otherClientTLS}).Open(ctx, jobID, key)
	if err == nil { // with TLS 1.3 the client learns of the refusal at its first read
		_, err = io.ReadAll(content)
		_ = content.Close()
	}
	assert.Error(t, err, "a client of another cluster gets nothing")
}

// A TaskManager's cache that starts with a source of another kind (the
// BlobServer not known yet, say) and then learns of a BlobServer that
// speaks TLS downloads from it over TLS: the TCPSource that
// SetBlobServerAddress makes takes CacheConfig.TCPSource, not what the
// source before it happened to be.
func TestPermanentBlobCache_NewBlobServerKeepsTheConfiguredTLS(t *testing.T) {
	opts, err := security.CreateInternalCertificates(t.TempDir())
	require.NoError(t, err)
	serverTLS, clientTLS, err := security.InternalTLS(opts, security.Blob)
	require.NoError(t, err)
	server, err := blob.NewBlobServer(blob.ServerConfig{
		StorageDir:    t.TempDir(),
		Logger:        discardLogger(),
		ListenAddress: blob.DefaultListenAddress,
		TLS:           serverTLS,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	jobID := api.NewJobID()
	jar := []byte("PK\x03\x04 the job's jar")
	key, err := server.PutPermanentBytes(jobID, jar)
	require.NoError(t, err)

	notKnownYet := blob.SourceFunc(func(context.Context, api.JobID, blob.PermanentBlobKey) (io.ReadCloser, error) {
		return nil, errors.New("the BlobServer is not known yet")
	})
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir:   t.TempDir(),
		Source:       notKnownYet,
		TCPSource:    blob.TCPSourceConfig{TLS: clientTLS},
		FetchRetries: -1,
		Logger:       discardLogger(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cache.Close() })

	cache.SetBlobServerAddress(server.Address()) // the ResourceManager names the JobManager's BlobServer
	path, err := cache.GetFile(withDeadline(t), jobID, key)
	require.NoError(t, err, "downloaded over TLS")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, jar, got)
}
