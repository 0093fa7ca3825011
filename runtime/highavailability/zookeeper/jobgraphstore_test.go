package zookeeper_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
)

// newJobGraph returns a small valid job: a source feeding a sink.
func newJobGraph(name string) *jobgraph.JobGraph {
	g := jobgraph.New(name)
	source := jobgraph.NewJobVertex("Source: numbers", "org.apache.flink.streaming.runtime.tasks.SourceStreamTask", 1)
	sink := jobgraph.NewJobVertex("Sink: print", "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask", 2)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
}

func encoded(t *testing.T, g *jobgraph.JobGraph) string {
	t.Helper()
	data, err := jobgraph.Encode(g)
	require.NoError(t, err)
	return string(data)
}

// A JobGraph put by one JobManager is in a file of the storage directory,
// pointed at by a node in ZooKeeper that the JobManager's lock holds. The
// next leader lists it and recovers it; while the first still holds its
// lock the graph stays, and once no process holds one, removing it takes
// the node and the file.
func TestAJobGraphOutlivesTheJobManagerThatStoredIt(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	storage := t.TempDir()
	first, second := connect(t, server.Address()), connect(t, server.Address())
	firstStore, err := zookeeper.NewJobGraphStore(first, storage, quietLogger())
	require.NoError(t, err)
	g := newJobGraph("Pipelines")
	require.NoError(t, firstStore.PutJobGraph(g))

	data, _, err := first.Conn().Get(first.Path("jobgraphs/" + g.JobID.String()))
	require.NoError(t, err)
	var handle struct{ Path string }
	require.NoError(t, json.Unmarshal(data, &handle))
	assert.Equal(t, storage, filepath.Dir(handle.Path))
	assert.True(t, strings.HasPrefix(filepath.Base(handle.Path), "submittedJobGraph"), handle.Path)
	locks, _, err := first.Conn().Children(first.Path("jobgraphs/" + g.JobID.String() + "/locks"))
	require.NoError(t, err)
	assert.Len(t, locks, 1, "the first JobManager's lock")

	secondStore, err := zookeeper.NewJobGraphStore(second, storage, quietLogger())
	require.NoError(t, err)
	ids, err := secondStore.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, ids)
	recovered, err := secondStore.RecoverJobGraph(g.JobID)
	require.NoError(t, err)
	assert.Equal(t, encoded(t, g), encoded(t, recovered))

	require.NoError(t, secondStore.RemoveJobGraph(g.JobID))
	ids, err = secondStore.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, ids, "the first JobManager still holds it")
	assert.FileExists(t, handle.Path)

	first.Close() // its session ends, and its lock with it
	require.NoError(t, secondStore.RemoveJobGraph(g.JobID))
	ids, err = secondStore.JobIDs()
	require.NoError(t, err)
	assert.Empty(t, ids)
	assert.NoFileExists(t, handle.Path)
	_, err = secondStore.RecoverJobGraph(g.JobID)
	assert.ErrorIs(t, err, jobmanager.ErrJobGraphNotFound)
}

// Putting a graph the JobManager holds already replaces it: a new file,
// and the old one is gone.
func TestPuttingAJobGraphAgainReplacesIt(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	storage := t.TempDir()
	store, err := zookeeper.NewJobGraphStore(connect(t, server.Address()), storage, quietLogger())
	require.NoError(t, err)
	g := newJobGraph("Pipelines")
	require.NoError(t, store.PutJobGraph(g))
	g.Vertices()[0].Parallelism = 3
	require.NoError(t, store.PutJobGraph(g))

	files, err := os.ReadDir(storage)
	require.NoError(t, err)
	assert.Len(t, files, 1, "the first file is deleted")
	recovered, err := store.RecoverJobGraph(g.JobID)
	require.NoError(t, err)
	assert.Equal(t, encoded(t, g), encoded(t, recovered))
}
