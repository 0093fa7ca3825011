package entrypoint

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
)

// A session cluster keeps at most jobstore.max-capacity ended jobs, in
// files of its File store (the default): the overview lists no more,
// however many jobs ended, and the ones it lists are the latest.
func TestTheOverviewListsAtMostMaxCapacityEndedJobs(t *testing.T) {
	var logs logbuf.Buffer
	workingDir := t.TempDir()
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir:    workingDir,
		Configuration: map[string]string{KeyJobStoreMaxCapacity: "5"},
		Logger:        slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	require.NoError(t, jm.Start())
	t.Cleanup(func() { assert.NoError(t, jm.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	dispatcher := jm.clusterComponent.Dispatcher()

	// Seven jobs, each cancelled while it waits for slots (the cluster
	// has no TaskManager): seven jobs end CANCELED.
	var ended []api.JobID
	for range 7 {
		g := jobgraph.New("waiting")
		g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", 2))
		require.NoError(t, dispatcher.SubmitJob(ctx, g))
		require.NoError(t, dispatcher.CancelJob(ctx, g.JobID))
		result, err := dispatcher.RequestJobResult(ctx, g.JobID)
		require.NoError(t, err)
		require.Equal(t, api.JobCanceled, result.JobStatus)
		ended = append(ended, g.JobID)
	}

	jobs, err := client.NewRestClusterClient(jm.RESTAddress()).ListJobs(ctx)
	require.NoError(t, err)
	var listed []api.JobID
	for _, job := range jobs {
		assert.Equal(t, api.JobCanceled, job.JobState)
		listed = append(listed, job.JobID)
	}
	assert.ElementsMatch(t, ended[2:], listed, "GET /jobs/overview lists the five latest")

	files, err := filepath.Glob(filepath.Join(workingDir, "executionGraphStore-*", "*"))
	require.NoError(t, err)
	assert.Len(t, files, 5, "the File store, in the working directory, has a file per job it keeps")
	assert.NotEmpty(t, logs.Messages("Initializing FileExecutionGraphInfoStore: Storage directory "+filepath.Dir(files[0])+", expiration time 3600000, maximum cache size 52428800 bytes."))
}
