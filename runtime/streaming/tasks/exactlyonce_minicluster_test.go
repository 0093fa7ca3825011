package tasks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/trace"
)

// The bounded ticker of the chaos runs: 2,000 events at 200 a second,
// so each run takes at least 10 s of fake time, and its faults, all
// within its first 7 s, find it running.
const (
	exactlyOnceEvents     = 2000
	exactlyOnceRate       = 200
	exactlyOnceSeeds      = 20
	exactlyOnceFirstFault = 1500 * time.Millisecond
	exactlyOnceLastFault  = 7 * time.Second
)

// exactlyOnceRun is one chaos run: the job's parallelism, its checkpoint
// interval, and the faults that hit it, in the order they come.
type exactlyOnceRun struct {
	seed        uint64
	parallelism int
	interval    time.Duration
	faults      []exactlyOnceFault
}

// exactlyOnceFault is one fault of a run, armed (or done) at a moment
// after the submission. Each kind leaves the sink's transactions in
// another state when the job fails over:
//
//	killTaskManager            the TaskManager of one of the job's subtasks dies at a random moment: mostly while
//	                           the sinks write their open transactions, sometimes while a checkpoint is pending
//	taskManagerDiesAtCheckpoint the TaskManager of a task dies as the task acknowledges one of the next checkpoints
//	                           (fault k5): other sinks have pre-committed that checkpoint, which never completes
//	metadataWriteFails         the next checkpoint fails after every task acknowledged it (fault k6): every sink has
//	                           pre-committed it; the job runs on (a FINALIZE_CHECKPOINT_FAILURE is not counted),
//	                           and the next checkpoint to complete commits its transaction with its own, unless a
//	                           failover first aborts both
//	killAtCompletion           the next checkpoint completes, and at that instant the TaskManager of one of the
//	                           job's subtasks dies: its sink may not have heard of the completion, and commits the
//	                           checkpoint's transaction only when it restores
//
// With failRestore ≥ 0 the job fails again while it restores: the task
// deployed after failRestore others throws in open (fault m11), and the
// tasks of that attempt, which may have committed or aborted their
// restored transactions already, are restored once more.
type exactlyOnceFault struct {
	at          time.Duration
	kind        exactlyOnceFaultKind
	subtask     int // killTaskManager, killAtCompletion: whose TaskManager
	after       int // taskManagerDiesAtCheckpoint: the acknowledgements that go by first
	failRestore int
}

type exactlyOnceFaultKind int

const (
	killTaskManager exactlyOnceFaultKind = iota
	taskManagerDiesAtCheckpoint
	metadataWriteFails
	killAtCompletion
)

// String prints the run as a line of the test's log.
func (r exactlyOnceRun) String() string {
	s := fmt.Sprintf("seed %d: parallelism %d, a checkpoint every %v", r.seed, r.parallelism, r.interval)
	for _, f := range r.faults {
		s += fmt.Sprintf("; at %v %v", f.at, f.kind)
		switch f.kind {
		case killTaskManager, killAtCompletion:
			s += fmt.Sprintf(" (subtask %d's)", f.subtask)
		case taskManagerDiesAtCheckpoint:
			s += fmt.Sprintf(" (after %d acknowledgements)", f.after)
		}
		if f.failRestore >= 0 {
			s += fmt.Sprintf(", the restore's task %d fails", f.failRestore+1)
		}
	}
	return s
}

// failsOver reports whether a fault of the run surely fails the job over
// while records flow.
func (r exactlyOnceRun) failsOver() bool {
	return slices.ContainsFunc(r.faults, func(f exactlyOnceFault) bool {
		return f.kind == killTaskManager || f.kind == taskManagerDiesAtCheckpoint
	})
}

func (k exactlyOnceFaultKind) String() string {
	return [...]string{"killTaskManager", "taskManagerDiesAtCheckpoint", "metadataWriteFails", "killAtCompletion"}[k]
}

// planExactlyOnceRun draws a run from seed: parallelism 2 or 3, a
// checkpoint every 100 to 200 ms, and one to three faults between 1.5 s
// and 7 s.
func planExactlyOnceRun(seed uint64) exactlyOnceRun {
	rng := rand.New(rand.NewPCG(seed, 0x7e57))
	run := exactlyOnceRun{
		seed:        seed,
		parallelism: 2 + rng.IntN(2),
		interval:    time.Duration(100+rng.IntN(101)) * time.Millisecond,
	}
	for range 1 + rng.IntN(3) {
		f := exactlyOnceFault{
			at:          exactlyOnceFirstFault + time.Duration(rng.Int64N(int64(exactlyOnceLastFault-exactlyOnceFirstFault)/1e6))*time.Millisecond,
			kind:        exactlyOnceFaultKind(rng.IntN(4)),
			subtask:     rng.IntN(run.parallelism),
			after:       rng.IntN(2 * run.parallelism),
			failRestore: -1,
		}
		if rng.IntN(3) == 0 {
			f.failRestore = rng.IntN(2 * run.parallelism)
		}
		run.faults = append(run.faults, f)
	}
	slices.SortFunc(run.faults, func(a, b exactlyOnceFault) int { return int(a.at - b.at) })
	return run
}

// The bounded ticker writes its running counts through the transactional
// file sink while its TaskManagers die and its checkpoints fail, at
// random moments (see exactlyOnceFault): while the sinks write, after
// some or all of them pre-committed a checkpoint that then never
// completes, and while the job restores, when a task of the restoring
// job may fail too. Each of 20 seeded runs must finish, and its committed
// part files must hold exactly what a run without failures commits:
// every count of every sensor, 1 to 400, once. Nothing in progress or
// pending is left behind.
//
// The same faults with the collect sink, which is not transactional, show
// the counts emitted between the restored checkpoint and the failure
// twice, as would a file sink that committed at the barrier instead of at
// the checkpoint's completion.
func TestTheTickerWritesEveryCountExactlyOnceThroughFailures(t *testing.T) {
	var want []string
	t.Run("without failures", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			dir := memoryDir(t)
			runTickerWithFaults(t, exactlyOnceRun{parallelism: 2, interval: 100 * time.Millisecond}, "--output", "file", "--path", dir)
			want = committedLines(t, dir)
		})
	})
	require.Equal(t, everyCountOnce(), want, "without failures, every count is committed once")

	// The seeds run side by side, each in its own bubble and directory.
	t.Run("with failures", func(t *testing.T) {
		var runs, restoredFromCheckpoints atomic.Int64
		t.Cleanup(func() { // after every seed's run
			t.Logf("%d runs restored %d checkpoints", runs.Load(), restoredFromCheckpoints.Load())
			assert.GreaterOrEqual(t, restoredFromCheckpoints.Load(), runs.Load(), "the runs fail over, mostly to checkpoints")
		})
		for seed := uint64(1); seed <= exactlyOnceSeeds; seed++ {
			run := planExactlyOnceRun(seed)
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					dir := memoryDir(t)
					logs := runTickerWithFaults(t, run, "--output", "file", "--path", dir)
					runs.Add(1)
					restoredFromCheckpoints.Add(int64(strings.Count(logs, "from Checkpoint ")))

					got := committedLines(t, dir)
					assert.Equal(t, len(want), len(got), "committed counts")
					assert.Equal(t, want, got, "the committed counts of %v", run)
					for _, hidden := range []string{inProgressDir, pendingDir} {
						leftovers, err := os.ReadDir(filepath.Join(dir, hidden))
						require.NoError(t, err)
						assert.Empty(t, leftovers, "%s: every transaction was committed or aborted", hidden)
					}
				})
			})
		}
	})

	// The first three runs that surely fail over, with the collect sink.
	contrasts := 0
	for seed := uint64(1); contrasts < 3; seed++ {
		run := planExactlyOnceRun(seed)
		if !run.failsOver() {
			continue
		}
		contrasts++
		t.Run(fmt.Sprintf("collect sink, seed=%d", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ticker.Results.Clear()
				t.Cleanup(ticker.Results.Clear)
				runTickerWithFaults(t, run, "--output", "collect")
				var got []string
				for _, count := range ticker.Results.Values() {
					got = append(got, count.String())
				}
				slices.Sort(got)
				assert.Greater(t, len(got), len(want), "%v: the collect sink emits counts again after a failover", run)
				assert.Equal(t, want, slices.Compact(got), "and loses none")
			})
		})
	}
}

// runTickerWithFaults runs the bounded ticker with args on a MiniCluster
// of 3 TaskManagers × 2 slots, checkpointing into files every
// run.interval, injects run's faults (and starts a spare TaskManager for
// each) and waits until the job has FINISHED. It returns the cluster's
// log.
func runTickerWithFaults(t *testing.T, run exactlyOnceRun, args ...string) string {
	t.Helper()
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = run.interval
	cfg.CheckpointsDir = memoryDir(t) // in files: fault k6 breaks the writing of _metadata
	cluster, logs := startClusterWith(t, minicluster.Config{
		NumTaskManagers:        3,
		NumSlotsPerTaskManager: 2,
		Heartbeat:              heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second},
		RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 20, Delay: 200 * time.Millisecond}},
		Checkpointing: cfg,
	})

	args = append(args, "--count", fmt.Sprint(exactlyOnceEvents), "--rate", fmt.Sprint(exactlyOnceRate))
	jg := planJobGraph(t, ticker.ProgramClass, args, run.parallelism)
	require.NoError(t, cluster.UploadJar(jg, jarBytes(t, ticker.ProgramClass, nil)))
	jobID, err := cluster.SubmitJob(context.Background(), jg)
	require.NoError(t, err)

	submitted := time.Now()
	killed := map[int]bool{}
	for _, f := range run.faults {
		time.Sleep(time.Until(submitted.Add(f.at)))
		if f.failRestore >= 0 {
			require.NoError(t, cluster.Faults().Inject(fault.Fault{Step: trace.M11, After: f.failRestore, JobID: jobID}))
		}
		switch f.kind {
		case killTaskManager:
			victim := taskManagerOfSubtask(t, cluster, jobID, f.subtask, killed)
			cluster.KillTaskManager(victim)
			killed[victim] = true
		case taskManagerDiesAtCheckpoint:
			require.NoError(t, cluster.Faults().Inject(fault.Fault{Step: trace.K5, Kind: fault.TaskExecutorDiesDuringCheckpoint,
				After: f.after, JobID: jobID}))
		case metadataWriteFails:
			require.NoError(t, cluster.Faults().Inject(fault.Fault{Step: trace.K6, Kind: fault.MetadataWriteFails, JobID: jobID}))
		case killAtCompletion:
			awaitNextCompletedCheckpoint(t, cluster, jobID)
			victim := taskManagerOfSubtask(t, cluster, jobID, f.subtask, killed)
			cluster.KillTaskManager(victim)
			killed[victim] = true
		}
		// A spare for a TaskManager that died, or will.
		require.NoError(t, cluster.StartTaskManager())
	}

	result, err := cluster.RequestJobResult(context.Background(), jobID)
	require.NoError(t, err)
	require.Equal(t, api.JobFinished, result.JobStatus, "%v: %s", run, result.FailureCause)
	return logs.String()
}

// awaitNextCompletedCheckpoint waits until one more checkpoint of the job
// has completed (step k6), but no longer than 5 s.
func awaitNextCompletedCheckpoint(t *testing.T, cluster *minicluster.MiniCluster, jobID api.JobID) {
	t.Helper()
	completed := func(events []trace.Event) int {
		n := 0
		for _, e := range events {
			if e.Step == trace.K6 && !e.Failed {
				n++
			}
		}
		return n
	}
	before := completed(cluster.Trace().JobEvents(jobID))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = cluster.Trace().Await(ctx, jobID, func(events []trace.Event) bool { return completed(events) > before })
}

// taskManagerOfSubtask returns the index of the TaskManager that runs the
// first vertex's subtask, or, while the job restarts and the subtask runs
// nowhere, of the first live TaskManager.
func taskManagerOfSubtask(t *testing.T, cluster *minicluster.MiniCluster, jobID api.JobID, subtask int, killed map[int]bool) int {
	t.Helper()
	graph, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
	require.NoError(t, err)
	runsOn := graph.Vertices[0].Subtasks[subtask].TaskManager
	first := -1
	for i, te := range cluster.TaskExecutors() {
		if killed[i] {
			continue
		}
		if te.ResourceID() == runsOn {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// memoryDir returns a new directory for a run's part files or
// checkpoints: in memory (/dev/shm) where the machine has it, else a
// temporary directory. The runs test the commit protocol, not the disk,
// and a busy disk takes seconds for the thousands of files and fsyncs of
// 20 runs; the sink's unit tests write to the disk.
func memoryDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "flinklab-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { require.NoError(t, os.RemoveAll(dir)) })
	return dir
}

// everyCountOnce is what the ticker's sink receives without failures:
// every sensor's running counts, 1 to 400, as lines, sorted.
func everyCountOnce() []string {
	var lines []string
	for sensor := range ticker.NumSensors {
		for count := 1; count <= exactlyOnceEvents/ticker.NumSensors; count++ {
			lines = append(lines, fmt.Sprintf("(sensor-%d,%d)", sensor+1, count))
		}
	}
	slices.Sort(lines)
	return lines
}
