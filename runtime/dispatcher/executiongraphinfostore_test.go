package dispatcher

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// endedJob is the graph of a job that ended in state, with one vertex of
// parallelism subtasks.
func endedJob(state api.JobStatus, parallelism int) *gateway.ArchivedExecutionGraph {
	jobID := api.NewJobID()
	vertexID := api.NewJobVertexID()
	started := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	g := &gateway.ArchivedExecutionGraph{
		JobID:   jobID,
		JobName: "numbers",
		State:   state,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: started,
			state:               started.Add(time.Minute),
		},
	}
	vertex := gateway.ArchivedExecutionJobVertex{ID: vertexID, Name: "Source", Parallelism: parallelism, MaxParallelism: 128, State: api.ExecutionFinished}
	for i := range parallelism {
		vertex.Subtasks = append(vertex.Subtasks, gateway.ArchivedExecution{
			SubtaskIndex:    i,
			State:           api.ExecutionFinished,
			StateTimestamps: map[api.ExecutionState]time.Time{api.ExecutionCreated: started, api.ExecutionFinished: started.Add(time.Minute)},
			AttemptID: api.ExecutionAttemptID{
				ExecutionGraphID:  api.NewExecutionGraphID(),
				ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertexID, SubtaskIndex: i},
			},
		})
	}
	g.Vertices = []gateway.ArchivedExecutionJobVertex{vertex}
	return g
}

// fileSize is the size of the file the File store writes for g.
func fileSize(t *testing.T, g *gateway.ArchivedExecutionGraph) int64 {
	t.Helper()
	data, err := json.Marshal(g)
	require.NoError(t, err)
	return int64(len(data))
}

func newFileStore(t *testing.T, expirationTime time.Duration, maximumCapacity int, cacheSize int64) *FileExecutionGraphInfoStore {
	t.Helper()
	s, err := NewFileExecutionGraphInfoStore(t.TempDir(), expirationTime, maximumCapacity, cacheSize, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// filesIn lists the names of the files in dir.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func jobIDsOf(details []gateway.JobDetails) []api.JobID {
	ids := []api.JobID{}
	for _, d := range details {
		ids = append(ids, d.JobID)
	}
	return ids
}

// Both stores forget the job that ended first once max-capacity jobs are
// stored and one more comes; the Dispatcher then knows it no more.
func TestAFullStoreForgetsTheOldestJob(t *testing.T) {
	stores := map[string]func(t *testing.T) ExecutionGraphInfoStore{
		"Memory": func(*testing.T) ExecutionGraphInfoStore { return NewMemoryExecutionGraphInfoStore(0, 2) },
		"File": func(t *testing.T) ExecutionGraphInfoStore {
			return newFileStore(t, time.Hour, 2, DefaultJobStoreCacheSize)
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			first, second, third := endedJob(api.JobFinished, 2), endedJob(api.JobCanceled, 2), endedJob(api.JobFailed, 2)

			require.NoError(t, s.Put(first))
			require.NoError(t, s.Put(second))
			require.NoError(t, s.Put(third))

			assert.Equal(t, 2, s.Size())
			_, err := s.Get(first.JobID)
			assert.ErrorIs(t, err, gateway.ErrJobNotFound, "the oldest job is forgotten")
			for _, kept := range []*gateway.ArchivedExecutionGraph{second, third} {
				got, err := s.Get(kept.JobID)
				require.NoError(t, err)
				assert.Equal(t, kept.State, got.State)
			}
			assert.Equal(t, []api.JobID{second.JobID, third.JobID}, jobIDsOf(s.AvailableJobDetails()))
		})
	}
}

// Flink's MiniCluster store (new MemoryExecutionGraphInfoStore()) has
// neither bound: every job stays, however many and however old.
func TestTheMemoryStoreWithoutBoundsKeepsEveryJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewMemoryExecutionGraphInfoStore(0, 0)
		for range 100 {
			require.NoError(t, s.Put(endedJob(api.JobFinished, 1)))
		}
		time.Sleep(1000 * time.Hour) // fake time
		s.CleanUp()
		assert.Equal(t, 100, s.Size())
	})
}

// A job expires jobstore.expiration-time after it was stored, not after
// it was last asked for.
func TestJobsExpireAfterTheyWereStored(t *testing.T) {
	stores := map[string]func(t *testing.T) ExecutionGraphInfoStore{
		"Memory": func(*testing.T) ExecutionGraphInfoStore { return NewMemoryExecutionGraphInfoStore(time.Hour, 0) },
		"File": func(t *testing.T) ExecutionGraphInfoStore {
			return newFileStore(t, time.Hour, 10, DefaultJobStoreCacheSize)
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStore(t)
				early, late := endedJob(api.JobFinished, 1), endedJob(api.JobFinished, 1)

				require.NoError(t, s.Put(early))
				time.Sleep(30 * time.Minute) // fake time
				require.NoError(t, s.Put(late))
				_, err := s.Get(early.JobID)
				require.NoError(t, err, "asking does not make it younger")

				time.Sleep(30*time.Minute - time.Nanosecond) // fake time
				_, err = s.Get(early.JobID)
				require.NoError(t, err, "not expired a moment before its hour")
				time.Sleep(time.Nanosecond) // fake time
				_, err = s.Get(early.JobID)
				assert.ErrorIs(t, err, gateway.ErrJobNotFound, "an hour after it was stored")
				_, err = s.Get(late.JobID)
				assert.NoError(t, err)

				time.Sleep(30 * time.Minute) // fake time
				s.CleanUp()
				assert.Equal(t, 0, s.Size())
				assert.Empty(t, s.AvailableJobDetails())
			})
		})
	}
}

// The File store keeps the graph of every stored job on disk, and only
// as many graphs in memory as fit in jobstore.cache-size; the others are
// read back from their files.
func TestTheFileStoreKeepsOnlyTheCacheSizeInMemory(t *testing.T) {
	jobs := []*gateway.ArchivedExecutionGraph{endedJob(api.JobFinished, 50), endedJob(api.JobFinished, 50), endedJob(api.JobFinished, 50)}
	oneGraph := fileSize(t, jobs[0])
	s := newFileStore(t, time.Hour, 10, oneGraph+oneGraph/2) // room for one graph, not two

	for _, g := range jobs {
		require.NoError(t, s.Put(g))
		assert.LessOrEqual(t, s.executionGraphInfoCache.weight, oneGraph+oneGraph/2)
	}
	assert.Equal(t, 1, s.executionGraphInfoCache.len(), "one graph in memory")
	assert.Len(t, filesIn(t, s.StorageDir()), 3, "every graph on disk")
	assert.Equal(t, 3, s.Size())

	for _, g := range jobs {
		got, err := s.Get(g.JobID)
		require.NoError(t, err)
		assert.Equal(t, g, got, "read back whole")
		assert.Equal(t, 1, s.executionGraphInfoCache.len(), "the graph read back takes the place of another")
	}
}

// With jobstore.cache-size 0 no graph stays in memory at all, and the
// JobDetails of the overview still do.
func TestTheFileStoreWithoutCacheReadsEveryGraphBack(t *testing.T) {
	s := newFileStore(t, time.Hour, 10, 0)
	g := endedJob(api.JobCanceled, 3)

	require.NoError(t, s.Put(g))
	assert.Equal(t, 0, s.executionGraphInfoCache.len())
	assert.Equal(t, []gateway.JobDetails{{
		JobID: g.JobID, JobName: "numbers", State: api.JobCanceled,
		StartTime: g.StatusTimestamps[api.JobInitializing], EndTime: g.StatusTimestamps[api.JobCanceled],
		LastModification: g.StatusTimestamps[api.JobCanceled], NumTasks: 3, TasksPerState: map[api.ExecutionState]int{api.ExecutionFinished: 3},
	}}, s.AvailableJobDetails())

	got, err := s.Get(g.JobID)
	require.NoError(t, err)
	assert.Equal(t, g, got)
	assert.Equal(t, 0, s.executionGraphInfoCache.len())
}

// A job that leaves the store, evicted or expired, leaves the disk too.
func TestTheFileOfAForgottenJobIsDeleted(t *testing.T) {
	t.Run("evicted", func(t *testing.T) {
		s := newFileStore(t, time.Hour, 1, DefaultJobStoreCacheSize)
		first, second := endedJob(api.JobFinished, 1), endedJob(api.JobFinished, 1)
		require.NoError(t, s.Put(first))
		assert.Equal(t, []string{first.JobID.String()}, filesIn(t, s.StorageDir()))

		require.NoError(t, s.Put(second))
		assert.Equal(t, []string{second.JobID.String()}, filesIn(t, s.StorageDir()))
		_, cached := s.executionGraphInfoCache.get(first.JobID)
		assert.False(t, cached, "nor does its graph stay in memory")
	})
	t.Run("expired", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newFileStore(t, time.Hour, 10, DefaultJobStoreCacheSize)
			require.NoError(t, s.Put(endedJob(api.JobFinished, 1)))
			time.Sleep(time.Hour) // fake time
			assert.Len(t, filesIn(t, s.StorageDir()), 1, "nothing is deleted until the store is used")
			s.CleanUp()
			assert.Empty(t, filesIn(t, s.StorageDir()))
			assert.Equal(t, 0, s.executionGraphInfoCache.len())
		})
	})
	t.Run("max-capacity 0", func(t *testing.T) {
		s := newFileStore(t, time.Hour, 0, DefaultJobStoreCacheSize)
		g := endedJob(api.JobFinished, 1)
		require.NoError(t, s.Put(g))
		assert.Empty(t, filesIn(t, s.StorageDir()), "a store of capacity 0 keeps nothing")
		_, err := s.Get(g.JobID)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound)
	})
}

func TestClosingTheFileStoreRemovesItsDirectory(t *testing.T) {
	root := t.TempDir()
	s, err := NewFileExecutionGraphInfoStore(root, time.Hour, 10, DefaultJobStoreCacheSize, nil)
	require.NoError(t, err)
	assert.Equal(t, root, filepath.Dir(s.StorageDir()))
	assert.Regexp(t, `^executionGraphStore-`, filepath.Base(s.StorageDir()), "a directory of its own")
	require.NoError(t, s.Put(endedJob(api.JobFinished, 1)))

	require.NoError(t, s.Close())
	assert.NoDirExists(t, s.StorageDir())
	assert.Equal(t, 0, s.Size())
	assert.NoError(t, s.Close(), "closing twice does nothing")
	assert.ErrorContains(t, s.Put(endedJob(api.JobFinished, 1)), "closed")
	assert.Empty(t, filesIn(t, root))
}

// A graph whose file is broken or gone makes its job not found, as in
// Flink, and the log says why; no panic, and no server path in the error
// (it reaches REST answers).
func TestABrokenFileMakesTheJobNotFoundAndIsLogged(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(file string) error
		want  string
	}{
		{"corrupt", func(file string) error { return os.WriteFile(file, []byte(`{"jobId": "not`), 0o600) }, "is corrupt: unexpected end of JSON input"},
		{"not a graph", func(file string) error { return os.WriteFile(file, []byte(`[1, 2]`), 0o600) }, "is corrupt: json: cannot unmarshal array"},
		{"another job's", func(file string) error {
			data, _ := json.Marshal(endedJob(api.JobFinished, 1))
			return os.WriteFile(file, data, 0o600)
		}, "is corrupt: it holds job"},
		{"missing", os.Remove, "This indicates that the file either has been deleted or never written."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			s, err := NewFileExecutionGraphInfoStore(t.TempDir(), time.Hour, 10, 0, // nothing cached: Get reads the file
				slog.New(slog.NewTextHandler(&log, nil)))
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			g := endedJob(api.JobFinished, 1)
			require.NoError(t, s.Put(g))
			require.NoError(t, tt.spoil(filepath.Join(s.StorageDir(), g.JobID.String())))

			got, err := s.Get(g.JobID)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, gateway.ErrJobNotFound)
			assert.NotContains(t, err.Error(), s.StorageDir(), "a server path in an error REST answers with")
			assert.Contains(t, log.String(), "Could not load archived execution graph information for job id "+g.JobID.String()+".")
			assert.Contains(t, log.String(), tt.want, "the log says why")
		})
	}
}

// A graph that cannot be written leaves no partial file behind, and the
// job is not stored.
func TestAFailedWriteLeavesNothingHalfWritten(t *testing.T) {
	s := newFileStore(t, time.Hour, 10, 0)
	g := endedJob(api.JobFinished, 1)
	// The graph's file name is taken by a directory that is not empty,
	// so the last step, the rename into place, fails.
	blocker := filepath.Join(s.StorageDir(), g.JobID.String())
	require.NoError(t, os.MkdirAll(filepath.Join(blocker, "inside"), 0o700))

	assert.ErrorContains(t, s.Put(g), "could not write the archived execution graph of job "+g.JobID.String())
	assert.Equal(t, []string{g.JobID.String()}, filesIn(t, s.StorageDir()), "only the blocker: no temporary file")
	assert.Equal(t, 0, s.Size())
}

func TestOnlyEndedJobsAreStored(t *testing.T) {
	for name, s := range map[string]ExecutionGraphInfoStore{
		"Memory": NewMemoryExecutionGraphInfoStore(0, 0),
		"File":   newFileStore(t, time.Hour, 10, 0),
	} {
		err := s.Put(endedJob(api.JobRunning, 1))
		assert.ErrorContains(t, err, "is not in a terminal state. Instead it is in state RUNNING.", name)
		assert.Equal(t, 0, s.Size(), name)
	}
}

// The File store's JSON must carry every field of the graph: a field it
// dropped would be missing from a job once it is read back from disk.
func TestTheArchivedExecutionGraphRoundTripsThroughJSON(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	failure := gateway.ExceptionHistoryEntry{
		Exception: "java.lang.RuntimeException: boom", Timestamp: at, TaskName: "Map (2/4)#1", TaskManagerID: "tm-1",
	}
	failure.ConcurrentExceptions = []gateway.ExceptionHistoryEntry{failure}
	g := &gateway.ArchivedExecutionGraph{
		JobID:            api.NewJobID(),
		JobName:          "numbers",
		State:            api.JobFailed,
		StatusTimestamps: map[api.JobStatus]time.Time{api.JobInitializing: at, api.JobFailed: at.Add(time.Second)},
		FailureCause:     "JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy",
		ExceptionHistory: []gateway.ExceptionHistoryEntry{failure},
		Vertices: []gateway.ArchivedExecutionJobVertex{{
			ID: api.NewJobVertexID(), Name: "Map", Parallelism: 4, MaxParallelism: 128,
			SlotSharingGroup: "default", State: api.ExecutionFailed,
			Subtasks: []gateway.ArchivedExecution{{
				SubtaskIndex: 1, AttemptNumber: 1,
				AttemptID: api.ExecutionAttemptID{
					ExecutionGraphID:  api.NewExecutionGraphID(),
					ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: 1},
					AttemptNumber:     1,
				},
				State: api.ExecutionFailed, TaskManager: "tm-1", AllocationID: api.NewAllocationID(),
				FailureCause:    "java.lang.RuntimeException: boom",
				StateTimestamps: map[api.ExecutionState]time.Time{api.ExecutionRunning: at, api.ExecutionFailed: at.Add(time.Second)},
			}},
		}},
		CheckpointCoordinatorConfiguration: &checkpoint.CheckpointCoordinatorConfiguration{Interval: time.Second, Timeout: time.Minute,
			MaxConcurrent: 1, Mode: checkpoint.ExactlyOnce, Retention: checkpoint.RetainOnCancellation, SavepointDir: "/savepoints", NumRetained: 1},
		CheckpointStatsSnapshot: &checkpoint.CheckpointStatsSnapshot{
			Counts: checkpoint.CheckpointStatsCounts{Total: 2, Completed: 1, Failed: 1},
			Latest: checkpoint.LatestCheckpoints{Savepoint: &checkpoint.CheckpointStatistics{ID: 2,
				Status: checkpoint.StatusCompleted, IsSavepoint: true, CheckpointType: "SYNC_SAVEPOINT",
				Tasks: map[string]checkpoint.TaskCheckpointStatistics{}, ExternalPath: "/savepoints/savepoint-123456-0123456789ab"}},
			History: []checkpoint.CheckpointStatistics{},
		},
	}
	requireEveryFieldSet(t, reflect.ValueOf(g).Elem(), "ArchivedExecutionGraph", map[reflect.Type]bool{})

	s := newFileStore(t, time.Hour, 10, 0)
	require.NoError(t, s.Put(g))
	got, err := s.Get(g.JobID)
	require.NoError(t, err)

	assert.Equal(t, g, got)
}

// requireEveryFieldSet fails for a field of the gateway's types that the
// test's graph leaves zero, so that a field added to the
// ArchivedExecutionGraph later is added to the round trip too.
func requireEveryFieldSet(t *testing.T, v reflect.Value, path string, seen map[reflect.Type]bool) {
	t.Helper()
	switch v.Kind() {
	case reflect.Slice:
		require.NotZero(t, v.Len(), "%s is empty", path)
		requireEveryFieldSet(t, v.Index(0), path+"[0]", seen)
	case reflect.Struct:
		if v.Type().PkgPath() != reflect.TypeFor[gateway.ArchivedExecutionGraph]().PkgPath() || seen[v.Type()] {
			return
		}
		seen[v.Type()] = true
		for i := range v.NumField() {
			field := v.Type().Field(i)
			require.False(t, v.Field(i).IsZero(), "%s.%s is not set", path, field.Name)
			requireEveryFieldSet(t, v.Field(i), path+"."+field.Name, seen)
		}
	}
}

func TestNewExecutionGraphInfoStore(t *testing.T) {
	tests := []struct {
		cfg     JobStoreConfig
		want    string // the store's type, or the error
		wantErr bool
	}{
		{JobStoreConfig{}, "*dispatcher.MemoryExecutionGraphInfoStore", false},
		{JobStoreConfig{Type: "memory"}, "*dispatcher.MemoryExecutionGraphInfoStore", false},
		{JobStoreConfig{Type: "FILE", ExpirationTime: time.Hour}, "*dispatcher.FileExecutionGraphInfoStore", false},
		{DefaultJobStoreConfig(), "*dispatcher.FileExecutionGraphInfoStore", false},
		{JobStoreConfig{Type: "File"}, "the expiration time must be larger than 0", true},
		{JobStoreConfig{Type: "File", ExpirationTime: time.Hour, MaxCapacity: -1}, "the maximum capacity must not be negative", true},
		{JobStoreConfig{Type: "File", ExpirationTime: time.Hour, CacheSize: -1}, "the maximum cache size must not be negative", true},
		{JobStoreConfig{Type: "Disk"}, "Unsupported job store type Disk", true},
	}
	for _, tt := range tests {
		t.Run(string(tt.cfg.Type), func(t *testing.T) {
			tt.cfg.Dir = t.TempDir()
			s, err := NewExecutionGraphInfoStore(tt.cfg, nil)
			if tt.wantErr {
				assert.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			defer func() { assert.NoError(t, s.Close()) }()
			assert.Equal(t, tt.want, reflect.TypeOf(s).String())
		})
	}
}
