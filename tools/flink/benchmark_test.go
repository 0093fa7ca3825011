//go:build unix

package main

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// BenchmarkSubmitToRunningAcrossProcesses is BenchmarkSubmitToRunning
// (runtime/minicluster) on a cluster of real processes: the JobManager and
// two TaskManagers × 2 slots, started once per sub-benchmark, off the
// clock, by `flink start-cluster` (built as the end-to-end tests build
// it), every RPC, the jar and the records between them over loopback TCP.
//
// Each iteration plans the ticker at parallelism 4 off the clock (8 tasks
// in 4 shared slots on both TaskManagers; its keyBy sends records from
// one process to the other), then measures from POST /jobs, which
// carries the JobGraph and the jar (steps m1 to m3), until the JobManager
// counts all 8 tasks RUNNING: every TaskManager has fetched the jar from
// the BlobServer, started its tasks and reported RUNNING to the JobMaster
// over TCP (m4 to m11). Only the JobManager's REST endpoint can tell, so
// the clock stops at the first GET /jobs/{jobid} that counts them,
// asked again at once after each answer (one loopback round trip, well
// under a millisecond). Then, off the clock, the job is cancelled and the
// benchmark waits until its 4 slots are free again.
//
// slotmanager.requirement-check.delay is given to the JobManager with -D:
// Flink's default of 50 ms would be most of the figure, so the first
// sub-benchmark sets 1 µs, the second keeps Flink's default. (With 50 ms
// the figure is less than 50 ms plus the first one: the check scheduled
// when the previous job's slots were freed is still pending when the next
// job declares its requirements, and serves both.) Run with
// -benchtime=100x for a stable median:
//
//	go test -run '^$' -bench SubmitToRunningAcrossProcesses -benchtime 100x ./tools/flink
func BenchmarkSubmitToRunningAcrossProcesses(b *testing.B) {
	bin := flinktest.Build(b)
	for _, bc := range []struct{ name, delay string }{
		{"requirementCheckDelay=1µs", "1µs"},
		{"requirementCheckDelay=50ms", "50ms"},
	} {
		b.Run(bc.name, func(b *testing.B) { benchmarkSubmitToRunningAcrossProcesses(b, bin, bc.delay) })
	}
}

func benchmarkSubmitToRunningAcrossProcesses(b *testing.B, bin, requirementCheckDelay string) {
	cl := startTestCluster(b, bin, b.TempDir(), "-D", entrypoint.KeyRequirementCheckDelay+"="+requirementCheckDelay)
	defer cl.stop(b)
	awaitFreeSlots(b, cl.rc, 4)
	jar, err := ticker.Jar()
	if err != nil {
		b.Fatal(err)
	}
	program, err := client.ReadPackagedProgram(jar)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var durations []time.Duration
	for b.Loop() {
		b.StopTimer()
		g, err := client.StreamingProgramRunner{}.JobGraph(program, "", nil, 4)
		if err != nil {
			b.Fatal(err)
		}
		tasks := numberOfTasks(g)
		b.StartTimer()

		start := time.Now()
		jobID, err := cl.rc.SubmitJob(ctx, g, "Ticker.jar", jar)
		if err != nil {
			b.Fatal(err)
		}
		for {
			var details rest.JobDetailsInfo
			if err := cl.rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String(), &details); err != nil {
				b.Fatal(err)
			}
			if details.StatusCounts[api.ExecutionRunning] == tasks {
				break
			}
			if details.State.IsGloballyTerminalState() {
				b.Fatalf("job %s ended %s before it ran", jobID, details.State)
			}
		}
		durations = append(durations, time.Since(start))

		b.StopTimer()
		if err := cl.rc.SendRequest(ctx, http.MethodPatch, "/jobs/"+jobID.String()+"?mode=cancel", &rest.EmptyResponseBody{}); err != nil {
			b.Fatal(err)
		}
		result, err := awaitJobResult(ctx, cl.rc, jobID)
		if err != nil || result.ApplicationStatus != api.ApplicationCanceled {
			b.Fatalf("cancel: %v %v", result, err)
		}
		awaitFreeSlots(b, cl.rc, 4)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(median(durations).Microseconds())/1000, "median-ms")
}

// numberOfTasks is how many tasks the job runs: the sum of its vertices'
// parallelism.
func numberOfTasks(g *jobgraph.JobGraph) int {
	n := 0
	for _, v := range g.Vertices() {
		n += v.Parallelism
	}
	return n
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[len(sorted)/2]
}
