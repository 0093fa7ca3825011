package minicluster

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// The invokables of BenchmarkDeployAllTasks do nothing costly: the source
// blocks until its task is cancelled; the reading sink reads its gate
// (nothing arrives) until it ends, the idle sink blocks like the source and
// never touches its gate.
const (
	idleSourceClass = "flinklab.minicluster.bench.IdleSource"
	gateSinkClass   = "flinklab.minicluster.bench.GateSink"
	idleSinkClass   = "flinklab.minicluster.bench.IdleSink"
)

func init() {
	taskmanager.RegisterInvokable(idleSourceClass, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return idleSource{}, nil
	})
	taskmanager.RegisterInvokable(gateSinkClass, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return gateSink{env: env}, nil
	})
	taskmanager.RegisterInvokable(idleSinkClass, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return idleSource{}, nil
	})
}

type idleSource struct{}

func (idleSource) Restore(context.Context) error { return nil }
func (idleSource) Invoke(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

type gateSink struct{ env *taskmanager.Environment }

func (gateSink) Restore(context.Context) error { return nil }
func (s gateSink) Invoke(ctx context.Context) error {
	for {
		if _, err := s.env.Inputs[0].Next(ctx); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// allToAllJob is two vertices of the given parallelism in one slot sharing
// group, joined ALL_TO_ALL: parallelism slots, 2·parallelism tasks. The
// sink runs sinkClass.
func allToAllJob(parallelism int, sinkClass string) *jobgraph.JobGraph {
	g := jobgraph.New("deploy-all-to-all")
	source := jobgraph.NewJobVertex("Source: idle", idleSourceClass, parallelism)
	sink := jobgraph.NewJobVertex("Sink", sinkClass, parallelism)
	for _, v := range []*jobgraph.JobVertex{source, sink} {
		v.SlotSharingGroup = "default"
		g.AddVertex(v)
	}
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded).ShipStrategyName = "HASH"
	return g
}

// BenchmarkDeployAllTasks measures, on a warm MiniCluster of 10
// TaskManagers with ⌈parallelism/10⌉ slots each, the time from SubmitJob until
// all 2·parallelism tasks of a two-vertex ALL_TO_ALL job are RUNNING (the
// last task's m11 event). Issue 4's target for parallelism 1,000 is under
// 2 s; Flink 1.14 deploys parallelism 10,000 in 17 s. Each iteration then
// cancels the job and waits for its slots, off the clock. Besides ns/op it
// reports median-ms, and with -benchmem the allocations of the whole
// iteration that ran on the clock (JobMaster, scheduler, deployment, tasks).
//
// Each parallelism runs twice, with two sinks:
//
//	sink=idle     the sink never reads, like the source: what Flink's own
//	              deployment benchmark measures, whose tasks never run. No
//	              subpartition or input channel is ever made: deploying
//	              costs nothing per producer/consumer pair, only a
//	              partition or a gate per task, a few hundred bytes
//	              whatever the parallelism.
//	sink=reading  the sink reads its gate, which requests every partition:
//	              each of the parallelism² pairs then costs a subpartition
//	              (96 B, and 8 B in its partition's table) and an input
//	              channel (32 B), 136 B in all. Part of that falls after
//	              the clock stops: a sink may still be requesting when the
//	              last task reports RUNNING.
//
// The SlotManager's requirement check delay is 1 µs: it is a fixed wait
// (Flink's default 50 ms) before the SlotManager matches the job's
// requirements to slots, unrelated to the job's size, and would otherwise
// hide what scales with parallelism.
//
// Other parallelisms are opt-in, e.g. FLINKLAB_BENCH_DEPLOY_PARALLELISM=3000,10000
// (a comma-separated list, replacing 1000). At 10,000 the reading sink makes
// 10⁸ pairs, about 14 GB: run only the idle one there.
//
//	go test ./runtime/minicluster -run '^$' -bench DeployAllTasks -benchmem -benchtime=5x
//	FLINKLAB_BENCH_DEPLOY_PARALLELISM=10000 go test ./runtime/minicluster -run '^$' \
//		-bench 'DeployAllTasks/.*/sink=idle' -benchmem -benchtime=1x -timeout 30m
func BenchmarkDeployAllTasks(b *testing.B) {
	sizes := []int{1000}
	if env := os.Getenv("FLINKLAB_BENCH_DEPLOY_PARALLELISM"); env != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(env, ",") {
			p, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || p <= 0 {
				b.Fatalf("FLINKLAB_BENCH_DEPLOY_PARALLELISM: bad parallelism %q", f)
			}
			sizes = append(sizes, p)
		}
	}
	sinks := []struct{ name, class string }{
		{"reading", gateSinkClass},
		{"idle", idleSinkClass},
	}
	for _, p := range sizes {
		b.Run("parallelism="+strconv.Itoa(p), func(b *testing.B) {
			for _, sink := range sinks {
				b.Run("sink="+sink.name, func(b *testing.B) { benchmarkDeployAllTasks(b, p, sink.class) })
			}
		})
	}
}

func benchmarkDeployAllTasks(b *testing.B, parallelism int, sinkClass string) {
	const taskManagers = 10
	cluster, err := New(Config{
		NumTaskManagers:        taskManagers,
		NumSlotsPerTaskManager: (parallelism + taskManagers - 1) / taskManagers,
		WorkingDir:             b.TempDir(),
		RequirementCheckDelay:  time.Microsecond,
		RPCTimeout:             time.Minute,
		Logger:                 slog.New(slog.DiscardHandler),
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
	slots := taskManagers * ((parallelism + taskManagers - 1) / taskManagers)
	waitForFreeSlotsWithin(b, cluster, slots, time.Minute)

	jar := numbers.Jar()
	tasks := 2 * parallelism
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		job := allToAllJob(parallelism, sinkClass)
		if err := cluster.UploadJar(job, jar); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()

		start := time.Now()
		if _, err := cluster.SubmitJob(ctx, job); err != nil {
			b.Fatal(err)
		}
		if err := cluster.Trace().Await(ctx, job.JobID, func(events []trace.Event) bool {
			return trace.Count(events, trace.M11) == tasks
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
		waitForFreeSlotsWithin(b, cluster, slots, time.Minute)
		cluster.Trace().Forget(job.JobID)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(median(durations).Microseconds())/1000, "median-ms")
}

// waitForFreeSlotsWithin is waitForFreeSlots with a longer deadline, for
// clusters of thousands of slots.
func waitForFreeSlotsWithin(b *testing.B, cluster *MiniCluster, n int, within time.Duration) {
	deadline := time.Now().Add(within)
	for {
		free, err := cluster.ResourceManager().NumberOfFreeSlots(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if free == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d slots free after %v, want %d", free, within, n)
		}
		time.Sleep(time.Millisecond)
	}
}
