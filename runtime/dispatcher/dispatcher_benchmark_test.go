package dispatcher

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// BenchmarkFinishedJobsHeap is a soak, not a timed figure: it runs b.N
// jobs of parallelism 32768 through a Dispatcher, one after the other,
// each ending with its final graph (32768 subtasks), and reports how much
// larger the live heap is after runtime.GC() than before the first job
// (live-MB), and how many jobs the Dispatcher still lists (stored-jobs).
// The runners are fakes, so the figure is what the job store keeps:
//
//   - Memory, unbounded (Flink's MiniCluster): every graph stays; the
//     heap grows with every job.
//   - Memory, max-capacity 5: at most five graphs.
//   - File, Flink's defaults: every graph on disk, at most
//     jobstore.cache-size (50 MiB of JSON) of them in memory.
//   - File, cache-size 0: only the JobDetails stay in memory.
//
// Run it with a fixed number of jobs:
//
//	go test -run '^$' -bench BenchmarkFinishedJobsHeap -benchtime 20x ./runtime/dispatcher
func BenchmarkFinishedJobsHeap(b *testing.B) {
	noCache := DefaultJobStoreConfig()
	noCache.CacheSize = 0
	for _, bc := range []struct {
		name     string
		jobStore JobStoreConfig
	}{
		{"Memory/unbounded", JobStoreConfig{}},
		{"Memory/max-capacity=5", JobStoreConfig{Type: JobStoreMemory, MaxCapacity: 5}},
		{"File/defaults", DefaultJobStoreConfig()},
		{"File/cache-size=0", noCache},
	} {
		b.Run(bc.name, func(b *testing.B) { benchmarkFinishedJobsHeap(b, bc.jobStore, 32768) })
	}
}

func benchmarkFinishedJobsHeap(b *testing.B, jobStore JobStoreConfig, parallelism int) {
	jobStore.Dir = b.TempDir()
	results := highavailability.NewEmbeddedJobResultStore()
	var mu sync.Mutex
	runners := map[api.JobID]*fakeRunner{}
	d, err := New(Config{Logger: slog.New(slog.DiscardHandler), JobStore: jobStore}, Deps{
		RPC:            rpc.NewLocalService(),
		JobGraphStore:  jobmanager.NewInMemoryJobGraphStore(),
		JobResultStore: results,
		CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
			mu.Lock()
			defer mu.Unlock()
			runners[g.JobID] = newFakeRunner(g.JobID)
			return runners[g.JobID], nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Start(); err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()

	before := liveHeap()
	b.ResetTimer()
	for range b.N {
		g := validJob()
		if err := d.SubmitJob(ctx, g); err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		runner := runners[g.JobID]
		delete(runners, g.JobID) // the Dispatcher alone holds it now
		mu.Unlock()
		final := endedJob(api.JobCanceled, parallelism)
		final.JobID = g.JobID
		runner.finishWith(final)
		if _, err := d.RequestJobResult(ctx, g.JobID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	waitForCleanups(b, results)

	jobs, err := d.ListJobs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(liveHeap()-before)/(1<<20), "live-MB")
	b.ReportMetric(float64(len(jobs)), "stored-jobs")
	b.ReportMetric(0, "ns/op") // not a timed figure
}

// waitForCleanups waits until the Dispatcher has cleaned up every job
// that ended and let go of its runner: no result in the JobResultStore is
// dirty any more (benchmarks only: tests use synctest.Wait instead).
func waitForCleanups(b *testing.B, results *highavailability.EmbeddedJobResultStore) {
	for {
		dirty, err := results.DirtyResults()
		if err != nil {
			b.Fatal(err)
		}
		if len(dirty) == 0 {
			return
		}
		runtime.Gosched()
	}
}

// liveHeap is the heap that is still reachable: the heap in use right
// after a collection. The second collection empties the sync.Pools,
// which keep what they hold through one.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
