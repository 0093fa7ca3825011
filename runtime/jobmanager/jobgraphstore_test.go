package jobmanager_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
)

// newJobGraph returns a small valid job: a source feeding a sink.
func newJobGraph(name string) *jobgraph.JobGraph {
	g := jobgraph.New(name)
	source := jobgraph.NewJobVertex("Source: Socket Stream", "org.apache.flink.streaming.runtime.tasks.SourceStreamTask", 1)
	sink := jobgraph.NewJobVertex("Flat Map -> Sink: Print to Std. Out", "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask", 2)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
}

// encoded is the graph's canonical form, for comparing graphs.
func encoded(t *testing.T, g *jobgraph.JobGraph) string {
	t.Helper()
	data, err := jobgraph.Encode(g)
	require.NoError(t, err)
	return string(data)
}

// sortedIDs sorts job IDs by their hex form, as both stores list them.
func sortedIDs(ids ...api.JobID) []api.JobID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b api.JobID) int { return strings.Compare(a.String(), b.String()) })
	return out
}

var stores = []struct {
	name string
	open func(t *testing.T) jobmanager.JobGraphStore
}{
	{"file", func(t *testing.T) jobmanager.JobGraphStore {
		s, err := jobmanager.NewFileJobGraphStore(filepath.Join(t.TempDir(), "jobgraphs"))
		require.NoError(t, err)
		return s
	}},
	{"in-memory", func(t *testing.T) jobmanager.JobGraphStore { return jobmanager.NewInMemoryJobGraphStore() }},
}

func TestJobGraphStorePutRecoverRemove(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			ids, err := store.JobIDs()
			require.NoError(t, err)
			assert.Empty(t, ids)

			wordCount, topSpeed := newJobGraph("WordCount"), newJobGraph("TopSpeedWindowing")
			require.NoError(t, store.PutJobGraph(wordCount))
			require.NoError(t, store.PutJobGraph(topSpeed))

			got, err := store.RecoverJobGraph(wordCount.JobID)
			require.NoError(t, err)
			assert.Equal(t, encoded(t, wordCount), encoded(t, got))
			assert.NotSame(t, wordCount, got, "recover returns a copy")

			ids, err = store.JobIDs()
			require.NoError(t, err)
			assert.Equal(t, sortedIDs(wordCount.JobID, topSpeed.JobID), ids)

			require.NoError(t, store.RemoveJobGraph(wordCount.JobID))
			_, err = store.RecoverJobGraph(wordCount.JobID)
			assert.ErrorIs(t, err, jobmanager.ErrJobGraphNotFound)
			ids, err = store.JobIDs()
			require.NoError(t, err)
			assert.Equal(t, []api.JobID{topSpeed.JobID}, ids)
		})
	}
}

func TestJobGraphStorePutReplaces(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			first := newJobGraph("WordCount")
			require.NoError(t, store.PutJobGraph(first))

			second := newJobGraph("WordCount v2")
			second.JobID = first.JobID
			require.NoError(t, store.PutJobGraph(second))

			got, err := store.RecoverJobGraph(first.JobID)
			require.NoError(t, err)
			assert.Equal(t, "WordCount v2", got.Name)
			assert.Equal(t, encoded(t, second), encoded(t, got))
			ids, err := store.JobIDs()
			require.NoError(t, err)
			assert.Equal(t, []api.JobID{first.JobID}, ids, "one entry per job")
		})
	}
}

func TestJobGraphStoreMissingGraphs(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			missing := api.NewJobID()
			_, err := store.RecoverJobGraph(missing)
			require.ErrorIs(t, err, jobmanager.ErrJobGraphNotFound)
			assert.Contains(t, err.Error(), missing.String())
			assert.NoError(t, store.RemoveJobGraph(missing), "removing a missing graph is fine")
		})
	}
}

func TestJobGraphStoreRefusesAGraphItCannotEncode(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			// The sink reads a data set whose producer is not in the graph.
			g := jobgraph.New("broken")
			source := jobgraph.NewJobVertex("Source", "SourceStreamTask", 1)
			sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", 1)
			sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
			g.AddVertex(sink)

			err := store.PutJobGraph(g)
			require.ErrorIs(t, err, jobgraph.ErrInvalidJobGraph)
			ids, err := store.JobIDs()
			require.NoError(t, err)
			assert.Empty(t, ids)
		})
	}
}

func TestInMemoryJobGraphStoreKeepsACopy(t *testing.T) {
	store := jobmanager.NewInMemoryJobGraphStore()
	g := newJobGraph("WordCount")
	want := encoded(t, g)
	require.NoError(t, store.PutJobGraph(g))

	g.Name = "changed after put"
	g.Vertices()[0].Parallelism = 99

	got, err := store.RecoverJobGraph(g.JobID)
	require.NoError(t, err)
	assert.Equal(t, want, encoded(t, got))
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestFileJobGraphStoreWritesOneFilePerJobAndNoTempFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobgraphs") // created by the store
	store, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	g := newJobGraph("WordCount")
	require.NoError(t, store.PutJobGraph(g))
	require.NoError(t, store.PutJobGraph(g)) // a replacement, too

	got, want := dirEntries(t, dir), []string{"jobgraph-" + g.JobID.String() + ".json"}
	assert.Equal(t, want, got)

	data, err := os.ReadFile(filepath.Join(dir, want[0]))
	require.NoError(t, err)
	assert.Equal(t, encoded(t, g), string(data))
}

func TestFileJobGraphStoreFailedPutLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	store, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	g := newJobGraph("WordCount")
	// A directory where the graph's file belongs makes the rename fail.
	target := "jobgraph-" + g.JobID.String() + ".json"
	require.NoError(t, os.Mkdir(filepath.Join(dir, target), 0o755))

	err = store.PutJobGraph(g)
	require.Error(t, err)
	assert.Contains(t, err.Error(), g.JobID.String())
	got, want := dirEntries(t, dir), []string{target}
	assert.Equal(t, want, got, "the temporary file must be removed")
}

func TestFileJobGraphStoreRecoversAfterReopen(t *testing.T) {
	dir := t.TempDir()
	before, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	g := newJobGraph("WordCount")
	require.NoError(t, before.PutJobGraph(g))

	// A new Dispatcher process opens the same directory.
	after, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	ids, err := after.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, ids)
	got, err := after.RecoverJobGraph(g.JobID)
	require.NoError(t, err)
	assert.Equal(t, encoded(t, g), encoded(t, got))
}

func TestFileJobGraphStoreListsOnlyItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	store, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	g := newJobGraph("WordCount")
	require.NoError(t, store.PutJobGraph(g))
	for _, name := range []string{"README", "jobgraph-not-a-job-id.json", ".jobgraph-123.tmp"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644))
	}

	ids, err := store.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, ids)
}

func TestFileJobGraphStoreReportsACorruptFile(t *testing.T) {
	dir := t.TempDir()
	store, err := jobmanager.NewFileJobGraphStore(dir)
	require.NoError(t, err)
	jobID := api.NewJobID()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "jobgraph-"+jobID.String()+".json"), []byte("{not json"), 0o644))

	_, err = store.RecoverJobGraph(jobID)
	assert.ErrorIs(t, err, jobgraph.ErrInvalidJobGraph)
}
