package minicluster

import (
	"context"
	"log/slog"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/trace"
)

// A job that ended leaves nothing of its JobMaster behind: once the
// Dispatcher has cleaned the job up (its runner closed, which stopped the
// JobMaster and left the job's leader election), no part of the cluster
// may keep the JobMaster reachable, nor with it the job's ExecutionGraph,
// scheduler and slot requests. What the cluster keeps of an ended job is
// what its job store keeps, here nothing in memory.
func TestTheJobMasterOfAnEndedJobIsCollected(t *testing.T) {
	tests := []struct {
		name string
		// start submits a job and returns once its JobMaster runs it.
		start func(t *testing.T, ctx context.Context, cluster *MiniCluster) api.JobID
	}{
		{"a job that waited for slots", func(t *testing.T, ctx context.Context, cluster *MiniCluster) api.JobID {
			g := waitingJob(5) // five subtasks, four slots: the job waits
			_, err := cluster.SubmitJob(ctx, g)
			require.NoError(t, err)
			synctest.Wait() // the JobMaster asked for slots and waits
			return g.JobID
		}},
		{"a job whose tasks ran", func(t *testing.T, ctx context.Context, cluster *MiniCluster) api.JobID {
			job := numbersJob(t, cluster, numbers.Config{Parallelism: 2, Unbounded: true, Collector: numbers.NewCollector()})
			_, err := cluster.SubmitJob(ctx, job)
			require.NoError(t, err)
			require.NoError(t, cluster.Trace().Await(ctx, job.JobID, func(events []trace.Event) bool {
				return trace.Count(events, trace.M11) == 6 // 3 vertices × parallelism 2 RUNNING
			}))
			return job.JobID
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noGraphsInMemory := dispatcher.DefaultJobStoreConfig()
				noGraphsInMemory.CacheSize = 0
				cluster, _ := startClusterWith(t, Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2, JobStore: noGraphsInMemory})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()

				jobID := tt.start(t, ctx, cluster)
				jobMaster := runningJobMaster(t, cluster, jobID)

				require.NoError(t, cluster.CancelJob(ctx, jobID))
				result, err := cluster.RequestJobResult(ctx, jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobCanceled, result.JobStatus)
				synctest.Wait() // the job's cleanup is done

				assert.True(t, collected(jobMaster), "something still holds the JobMaster of the ended job")
			})
		})
	}
}

// runningJobMaster returns a weak pointer to the JobMaster that leads the
// job: the one whose address the job's leader election confirmed, as a
// TaskExecutor learns it (JobLeaderService), found at that address.
func runningJobMaster(t *testing.T, cluster *MiniCluster, jobID api.JobID) weak.Pointer[jobmaster.JobMaster] {
	t.Helper()
	leader := &jobLeaderAddress{}
	retrieval := cluster.ha.JobManagerLeaderRetriever(jobID)
	require.NoError(t, retrieval.Start(leader)) // a confirmed leader is told at once
	require.NoError(t, retrieval.Stop())
	require.NotEmpty(t, leader.address, "the job has no confirmed JobMaster")

	endpoint, err := cluster.rpc.Connect(context.Background(), leader.address)
	require.NoError(t, err)
	jm, ok := endpoint.(*jobmaster.JobMaster)
	require.True(t, ok, "%s is a %T, not a JobMaster", leader.address, endpoint)
	return weak.Make(jm)
}

// jobLeaderAddress is a LeaderRetrievalListener that remembers the last
// address it heard.
type jobLeaderAddress struct{ address string }

func (l *jobLeaderAddress) NotifyLeaderAddress(address string, _ api.LeaderSessionID) {
	l.address = address
}

// collected reports whether the garbage collector has freed what p points
// to, after a few collections: an unreachable object goes at the first.
func collected[T any](p weak.Pointer[T]) bool {
	for range 5 {
		runtime.GC()
		if p.Value() == nil {
			return true
		}
	}
	return false
}

// BenchmarkFinishedJobsHeap submits b.N jobs of parallelism 8192 to a
// cluster whose one slot they cannot all get, cancels each while it waits
// for slots, waits until its cleanup is done, and then reports the heap
// still live after garbage collection: what the ended jobs cost. It
// should be what the Dispatcher's job store keeps of them and little more:
//
//   - Memory, the MiniCluster's default (jobstore.* unset): every final
//     graph in memory, so live-MB grows with the jobs, by live-KB/job.
//   - File, a session cluster's defaults: the graphs are on disk, and in
//     memory only up to jobstore.cache-size (50 MiB, counted in file
//     bytes), so live-MB levels off however many jobs ended.
//   - File, jobstore.cache-size=0: no graph in memory; what is left per
//     job is its JobDetails, its JobResultStore entry, its submission
//     trace and its leader election (a few KB).
//
// goroutines is how many more run after the jobs than before: 0, or the
// ended jobs left some behind. Run with a fixed count to compare the
// stores; with -benchtime=32x, then 64x, on two cores:
//
//	jobstore=Memory               130 MB, then 260 MB (4.07 MB/job)
//	jobstore=File                  53 MB, then  53 MB
//	jobstore=File,cache-size=0    0.07 MB, then 0.12 MB (about 2 KB/job)
func BenchmarkFinishedJobsHeap(b *testing.B) {
	file := dispatcher.DefaultJobStoreConfig()
	fileWithoutCache := file
	fileWithoutCache.CacheSize = 0
	for _, bc := range []struct {
		name     string
		jobStore dispatcher.JobStoreConfig
	}{
		{"jobstore=Memory", dispatcher.JobStoreConfig{}},
		{"jobstore=File", file},
		{"jobstore=File,cache-size=0", fileWithoutCache},
	} {
		b.Run(bc.name, func(b *testing.B) { benchmarkFinishedJobsHeap(b, bc.jobStore, 8192) })
	}
}

func benchmarkFinishedJobsHeap(b *testing.B, jobStore dispatcher.JobStoreConfig, parallelism int) {
	jobStore.Dir = b.TempDir()
	cluster, err := New(Config{
		WorkingDir: b.TempDir(),
		JobStore:   jobStore,
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := cluster.Start(); err != nil {
		b.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	waitForFreeSlots(b, cluster, 1)

	heapBefore, goroutinesBefore := liveHeap(), runtime.NumGoroutine()
	b.ResetTimer()
	for range b.N {
		cancelToTheEnd(b, ctx, cluster, parallelism)
		waitForCleanups(b, cluster)
	}
	b.StopTimer()

	live := float64(liveHeap()) - float64(heapBefore)
	b.ReportMetric(live/1e6, "live-MB")
	b.ReportMetric(live/1e3/float64(b.N), "live-KB/job")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutinesBefore), "goroutines")
}

// liveHeap is the heap still in use after garbage collection. It takes
// two: what a sync.Pool holds (such as encoding/json's last buffer, as
// large as the last graph written) survives the first.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

// waitForCleanups waits until the Dispatcher has cleaned up every job that
// ended, the last thing it does for each (the JobResultStore holds no
// dirty result), and the one slot is free again.
func waitForCleanups(b *testing.B, cluster *MiniCluster) {
	deadline := time.Now().Add(time.Minute)
	for {
		dirty, err := cluster.ha.JobResultStore().DirtyResults()
		if err != nil {
			b.Fatal(err)
		}
		free, err := cluster.ResourceManager().NumberOfFreeSlots(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(dirty) == 0 && free == 1 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("after a minute, %d jobs are not cleaned up and %d slots are free", len(dirty), free)
		}
		runtime.Gosched()
	}
}
