package minicluster

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/trace"
)

// BenchmarkSubmitToRunning measures, on a warm cluster, the time from
// SubmitJob to every task of the numbers job (parallelism 4: 12 tasks in 4
// shared slots) having switched to RUNNING: the clock stops at the last
// task's m11 event, when the Task reports RUNNING to its TaskExecutor (the
// JobMaster learns of it a hand-off later). Each iteration then cancels the
// job and waits for its slots, off the clock.
//
// The SlotManager's requirement check delay is set to 1 µs: Flink's
// default of 50 ms would be most of the figure. Run with
// -benchtime=200x for a stable median.
func BenchmarkSubmitToRunning(b *testing.B) {
	for _, bc := range []struct {
		name  string
		delay time.Duration
	}{{"requirementCheckDelay=1µs", time.Microsecond}, {"requirementCheckDelay=50ms", 50 * time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkSubmitToRunning(b, bc.delay) })
	}
}

func benchmarkSubmitToRunning(b *testing.B, delay time.Duration) {
	cluster, err := New(Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             b.TempDir(),
		RequirementCheckDelay:  delay,
		Logger:                 slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := cluster.Start(); err != nil {
		b.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitForFreeSlots(b, cluster, 4)

	jar := numbers.Jar()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		collector := numbers.NewCollector()
		job := numbers.JobGraph(numbers.Config{Parallelism: 4, Unbounded: true, Collector: collector})
		if err := cluster.UploadJar(job, jar); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		start := time.Now()
		if _, err := cluster.SubmitJob(ctx, job); err != nil {
			b.Fatal(err)
		}
		if err := cluster.Trace().Await(ctx, job.JobID, func(events []trace.Event) bool {
			return trace.Count(events, trace.M11) == 12
		}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))

		b.StopTimer()
		if err := cluster.CancelJob(ctx, job.JobID); err != nil {
			b.Fatal(err)
		}
		if result, err := cluster.RequestJobResult(ctx, job.JobID); err != nil || result.JobStatus != api.JobCanceled {
			b.Fatalf("cancel: %v %v %s", result.JobStatus, err, result.FailureCause)
		}
		waitForFreeSlots(b, cluster, 4)
		collector.Close()
		cluster.Trace().Forget(job.JobID)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(median(durations).Microseconds())/1000, "median-ms")
}

// waitForFreeSlots waits until the ResourceManager counts n free slots
// (benchmarks only: tests use synctest.Wait instead).
func waitForFreeSlots(b *testing.B, cluster *MiniCluster, n int) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if time.Now().After(deadline) {
			free, _ := cluster.ResourceManager().NumberOfFreeSlots(context.Background())
			b.Fatalf("%d slots free after 10 s, want %d", free, n)
		}
		free, err := cluster.ResourceManager().NumberOfFreeSlots(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if free == n {
			return
		}
		runtime.Gosched()
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[len(sorted)/2]
}
