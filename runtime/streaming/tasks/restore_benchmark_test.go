package tasks

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/trace"
)

// BenchmarkFailureToRunningRestored measures the time from a failure to
// the job RUNNING again from its latest checkpoint: the ticker at
// parallelism 4 (8 tasks: 4 sources, 4 keyed counters with their print
// sinks) on 3 TaskManagers × 4 slots, checkpointing every 100 ms into
// files, and the TaskManager that runs it closed. A closing TaskExecutor
// fails its tasks and tells the JobMaster at once, so the clock measures
// the runtime, not heartbeat.timeout. The restart strategy is fixed-delay
// with a delay of 0.
//
// What the clock covers: the JobMaster fails the tasks and cancels the
// rest of the region (the whole job: the keyed exchange makes it one
// pipelined region), restores the latest completed checkpoint
// (StateAssignmentOperation: each new subtask's key groups and every
// source position), deploys the 8 new attempts into the spare
// TaskManager's slots with their JobManagerTaskRestore, and each task
// reads its state back before its operators open. The clock stops at the
// last m11 event of attempt #1 (a task RUNNING, its state restored).
//
// Besides ns/op it reports median-ms. Off the clock each iteration
// submits the job, waits for its second completed checkpoint, and
// afterwards cancels it and starts a TaskManager in the closed one's
// place.
//
//	go test ./runtime/streaming/tasks -run '^$' -bench FailureToRunningRestored -benchtime=10x
func BenchmarkFailureToRunningRestored(b *testing.B) {
	const parallelism, tasks = 4, 8
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = 100 * time.Millisecond
	cfg.CheckpointsDir = b.TempDir()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        3,
		NumSlotsPerTaskManager: 4,
		WorkingDir:             b.TempDir(),
		RequirementCheckDelay:  time.Microsecond,
		RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 1, Delay: 0}},
		Checkpointing: cfg,
		Logger:        slog.New(slog.DiscardHandler),
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
	jar := jarBytes(b, ticker.ProgramClass, nil)

	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		ticker.Results.Clear()
		jg := planJobGraph(b, ticker.ProgramClass, []string{"--rate", "1000", "--output", "collect"}, parallelism)
		if err := cluster.UploadJar(jg, jar); err != nil {
			b.Fatal(err)
		}
		if _, err := cluster.SubmitJob(ctx, jg); err != nil {
			b.Fatal(err)
		}
		if err := cluster.Trace().Await(ctx, jg.JobID, func(events []trace.Event) bool {
			return trace.Count(events, trace.K6) >= 2
		}); err != nil {
			b.Fatal(err)
		}
		graph, err := cluster.Dispatcher().RequestJob(ctx, jg.JobID)
		if err != nil {
			b.Fatal(err)
		}
		victim := slices.IndexFunc(cluster.TaskExecutors(), func(te *taskexecutor.TaskExecutor) bool {
			return te.ResourceID() == graph.Vertices[0].Subtasks[0].TaskManager
		})
		b.StartTimer()

		start := time.Now()
		closed := make(chan error, 1)
		go func() { closed <- cluster.TaskExecutors()[victim].Close() }()
		if err := cluster.Trace().Await(ctx, jg.JobID, func(events []trace.Event) bool {
			return runningAttempts(events, 1) == tasks
		}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))

		b.StopTimer()
		if err := <-closed; err != nil {
			b.Fatal(err)
		}
		if err := cluster.CancelJob(ctx, jg.JobID); err != nil {
			b.Fatal(err)
		}
		if _, err := cluster.RequestJobResult(ctx, jg.JobID); err != nil {
			b.Fatal(err)
		}
		cluster.Trace().Forget(jg.JobID)
		if err := cluster.StartTaskManager(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
}

// runningAttempts counts the m11 events in which a task of the given
// attempt switched to RUNNING ("…_<attempt>) switched from INITIALIZING to
// RUNNING.").
func runningAttempts(events []trace.Event, attempt int) int {
	suffix := "_" + strconv.Itoa(attempt) + ") switched from INITIALIZING to RUNNING."
	n := 0
	for _, e := range events {
		if e.Step == trace.M11 && !e.Failed && strings.HasSuffix(e.Message, suffix) {
			n++
		}
	}
	return n
}
