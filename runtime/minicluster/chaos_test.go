package minicluster

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// chaosSeed replays TestChaos with one seed; by default it runs a fixed
// set of seeds, and chaosExplore runs chaosSeedsPerRun new, time-based
// ones. chaosLog prints the cluster log of every run, not only of a failed
// one.
var (
	chaosSeed    = flag.Uint64("chaos.seed", 0, "run TestChaos with this seed only")
	chaosExplore = flag.Bool("chaos.explore", false, "run TestChaos with new, time-based seeds")
	chaosLog     = flag.Bool("chaos.log", false, "print TestChaos's cluster log even when the run passes")
)

const chaosSeedsPerRun = 5

// The chaos cluster: 3 TaskManagers × 2 slots, every timeout short so that
// a failover takes a second or two of fake time.
const (
	chaosTaskManagers  = 3
	chaosSlotsPerTM    = 2
	chaosJobs          = 4
	chaosRPCTimeout    = 500 * time.Millisecond
	chaosStartUpPeriod = 500 * time.Millisecond
	// chaosSampleEvery is how often the test looks at every live
	// TaskExecutor's tasks.
	chaosSampleEvery = 10 * time.Millisecond
	// chaosDeadline bounds the fake time the jobs may take to end.
	chaosDeadline = 30 * time.Second
	// chaosRecordPace is how much fake time the chaos jobs' sources take
	// per number, so that a job runs for 35 ms to 500 ms of fake time and
	// the faults, the kill and the samples find it running.
	chaosRecordPace = 5 * time.Millisecond
)

// pacedSourceClass is the numbers job's source emitting one number per
// chaosRecordPace of fake time, then ending as the numbers source does.
// Without a pace, a bounded job would run to its end within the very
// instant of fake time it was deployed in, and no sample would see it.
const pacedSourceClass = "flinklab.minicluster.chaos.PacedNumberSource"

func init() {
	taskmanager.RegisterInvokable(pacedSourceClass, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		count, err := strconv.Atoi(env.TaskInfo.TaskConfiguration["count"])
		if err != nil {
			return nil, fmt.Errorf("PacedNumberSource needs a count: %w", err)
		}
		return pacedSource{env: env, count: count}, nil
	})
}

type pacedSource struct {
	env   *taskmanager.Environment
	count int
}

func (pacedSource) Restore(context.Context) error { return nil }

// Invoke emits this subtask's share of 1…count as the numbers source
// does, each number to the subpartition n mod p, flushed, one per pace.
func (s pacedSource) Invoke(ctx context.Context) error {
	out := s.env.Writers[0]
	p, subtask := s.env.TaskInfo.NumberOfSubtasks, s.env.SubtaskIndex
	pace := time.NewTicker(chaosRecordPace)
	defer pace.Stop()
	for n := int64(subtask + 1); n <= int64(s.count); n += int64(p) {
		record := binary.BigEndian.AppendUint64(nil, uint64(n))
		if err := out.EmitRecord(ctx, record, int(n%int64(out.NumberOfSubpartitions()))); err != nil {
			return err
		}
		if err := out.Flush(ctx); err != nil {
			return err
		}
		select {
		case <-pace.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

var (
	chaosHeartbeats = heartbeat.HeartbeatServices{Interval: 200 * time.Millisecond, Timeout: time.Second}
	chaosRestarts   = failover.Config{Type: failover.TypeFixedDelay,
		FixedDelay: failover.FixedDelayConfig{Attempts: 10, Delay: 100 * time.Millisecond}}
)

// chaosPlan is what one seed does to the cluster: the jobs, the faults
// armed before they are submitted, and maybe one TaskManager killed.
type chaosPlan struct {
	jobs   []chaosJob
	faults []chaosFault
	kill   *chaosKill
}

type chaosJob struct{ parallelism, count int }

// chaosFault is a fault for one job (job ≥ 0, the job's index) or for any
// job (job = -1).
type chaosFault struct {
	fault.Fault
	job int
}

type chaosKill struct {
	taskManager int
	at          time.Duration // fake time after the submissions
}

// newChaosPlan draws a plan from seed. Faults go to steps m3…m11 with a
// random kind, a third of them firing 2 or 3 times, half of them limited
// to one job. At most one TaskManager dies (the m9 fault kills the one it
// fires on, KillTaskManager the chosen one), so 4 slots always remain for
// jobs of parallelism 3 at most.
func newChaosPlan(seed uint64) chaosPlan {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var p chaosPlan
	for range chaosJobs {
		p.jobs = append(p.jobs, chaosJob{parallelism: 1 + rng.IntN(3), count: 20 + rng.IntN(81)})
	}
	steps := fault.Steps()[2:] // m3 … m11
	taskManagerDies := false
	for range 3 + rng.IntN(4) {
		step := steps[rng.IntN(len(steps))]
		// A slot sharing group too large for every TaskManager is a
		// program no restart can save: it only fails jobs, and the chaos
		// is about recovery.
		kinds := slices.DeleteFunc(fault.Kinds(step), func(k fault.Kind) bool { return k == fault.SlotSharingGroupTooLarge })
		f := chaosFault{Fault: fault.Fault{Step: step, Kind: kinds[rng.IntN(len(kinds))], Times: 1}, job: -1}
		if rng.IntN(3) == 0 {
			f.Times = 2 + rng.IntN(2)
		}
		if rng.IntN(2) == 0 {
			f.job = rng.IntN(chaosJobs)
		}
		if step == trace.M9 {
			if taskManagerDies {
				continue
			}
			taskManagerDies, f.Times = true, 1
		}
		p.faults = append(p.faults, f)
	}
	if !taskManagerDies && rng.IntN(2) == 0 {
		p.kill = &chaosKill{
			taskManager: rng.IntN(chaosTaskManagers),
			at:          time.Duration(1+rng.IntN(800)) * time.Millisecond,
		}
	}
	return p
}

func (p chaosPlan) String() string {
	var b strings.Builder
	for i, j := range p.jobs {
		fmt.Fprintf(&b, "job%d: parallelism %d, count %d; ", i, j.parallelism, j.count)
	}
	for _, f := range p.faults {
		times := ""
		if f.Times > 1 {
			times = fmt.Sprintf(",times=%d", f.Times)
		}
		target := "any job"
		if f.job >= 0 {
			target = fmt.Sprintf("job%d", f.job)
		}
		fmt.Fprintf(&b, "fault %s:%s%s for %s; ", f.Step, f.Kind, times, target)
	}
	if p.kill != nil {
		fmt.Fprintf(&b, "kill TaskManager %d at +%v", p.kill.taskManager, p.kill.at)
	} else {
		b.WriteString("no kill")
	}
	return b.String()
}

// seededT puts the seed in front of every failure message, so that any
// failure names the seed that replays it.
type seededT struct {
	*testing.T
	prefix string
}

func (s seededT) Errorf(format string, args ...any) {
	s.T.Helper()
	s.T.Errorf(s.prefix+format, args...)
}

// TestChaos runs four bounded numbers jobs (parallelism 1–3) together on 3
// TaskManagers × 2 slots with fixed-delay restarts, arms random faults at
// random steps m3…m11 (some for one job, some firing more than once) and
// maybe kills a TaskManager at a random moment, all drawn from a seed, and
// checks what must hold whatever happens:
//
//   - every job ends FINISHED, or FAILED for a reason a fault explains (its
//     JobMaster did not start, step m4, or its restarts ran out), within
//     chaosDeadline of fake time; a submission refused at step m3 is
//     submitted again, as a client would;
//   - a FINISHED job's sink collected every square, and nothing else
//     (duplicates allowed: without checkpoints a restart replays);
//   - two attempts of one subtask never live at once: every chaosSampleEvery
//     of fake time, with the cluster quiet, no ExecutionVertexID has two
//     non-terminal tasks on the live TaskExecutors;
//   - once every job has ended, no slot is leaked: every live TaskExecutor
//     has all its slots free, and the ResourceManager counts exactly
//     those, registered on exactly the live TaskExecutors (a slot a
//     TaskExecutor allocated for a job that ended before the slot could be
//     offered is freed by the slot timeout, as in Flink);
//   - no goroutine is left behind (synctest.Test fails if the bubble's
//     goroutines outlive the test, goleak in TestMain checks the process).
//
// Each run logs its seed and plan; a failure names the seed and prints the
// cluster log. Replay one with
//
//	go test ./runtime/minicluster -run 'TestChaos$' -chaos.seed=SEED -v
//
// (add -chaos.log for the cluster log of a run that passes).
//
// The seed fixes the plan and the fake timeline; the order in which
// goroutines run within one fake instant is still the Go scheduler's.
func TestChaos(t *testing.T) {
	seeds := []uint64{*chaosSeed}
	switch {
	case *chaosSeed != 0:
	case *chaosExplore:
		base := uint64(time.Now().UnixNano())
		seeds = seeds[:0]
		for i := range uint64(chaosSeedsPerRun) {
			seeds = append(seeds, base+i)
		}
	default:
		// The same seeds every run, so that `make test` is repeatable;
		// -chaos.explore draws new ones.
		seeds = []uint64{1, 10075, 10641, 20011, 40070}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			plan := newChaosPlan(seed)
			t.Logf("chaos seed %d: %s", seed, plan)
			synctest.Test(t, func(t *testing.T) {
				runChaos(seededT{T: t, prefix: fmt.Sprintf("chaos seed %d (replay with -chaos.seed=%d): ", seed, seed)}, plan)
			})
		})
	}
}

func runChaos(t seededT, plan chaosPlan) {
	cluster, logs := startClusterWith(t.T, Config{
		NumTaskManagers: chaosTaskManagers, NumSlotsPerTaskManager: chaosSlotsPerTM,
		Heartbeat: chaosHeartbeats, RestartStrategy: chaosRestarts,
		StartUpPeriod: chaosStartUpPeriod, RPCTimeout: chaosRPCTimeout,
	})
	ctx := context.Background()
	t.Cleanup(func() {
		if t.Failed() || *chaosLog {
			t.Logf("faults fired:\n%s\ncluster log:\n%s", firings(cluster.Faults().Fired()), logs.String())
		}
	})

	jobs := make([]*jobgraph.JobGraph, len(plan.jobs))
	collectors := make([]*numbers.Collector, len(plan.jobs))
	for i, j := range plan.jobs {
		collectors[i] = numbers.NewCollector()
		jobs[i] = numbersJob(t.T, cluster, numbers.Config{Count: j.count, Parallelism: j.parallelism, Collector: collectors[i]})
		for _, v := range jobs[i].Vertices() {
			if v.InvokableClassName == numbers.SourceClass {
				v.InvokableClassName = pacedSourceClass
			}
		}
	}
	for _, f := range plan.faults {
		armed := f.Fault
		if f.job >= 0 {
			armed.JobID = jobs[f.job].JobID
		}
		require.NoError(t, cluster.Faults().Inject(armed))
	}

	// Submit every job; one refused at step m3 is submitted again.
	for i, job := range jobs {
		for refused := 0; ; refused++ {
			_, err := cluster.SubmitJob(ctx, job)
			if err == nil {
				break
			}
			require.Less(t, refused, 20, "job%d refused again and again: %v", i, err)
			var duplicate *dispatcher.DuplicateJobSubmissionError
			var invalid *dispatcher.JobSubmissionError
			require.True(t, errors.As(err, &duplicate) || errors.As(err, &invalid), "job%d: submission failed: %v", i, err)
			require.Equal(t, refused+1, firedFor(cluster, trace.M3, job.JobID), "job%d refused without an m3 fault: %v", i, err)
		}
	}

	// Kill a TaskManager when the plan says so, even if every job has ended
	// by then.
	start := time.Now()
	killed := make(chan struct{})
	if plan.kill != nil {
		go func() {
			defer close(killed)
			time.Sleep(plan.kill.at)
			cluster.KillTaskManager(plan.kill.taskManager)
		}()
	} else {
		close(killed)
	}

	// Let the jobs run and look at the tasks every chaosSampleEvery.
	for {
		time.Sleep(chaosSampleEvery)
		synctest.Wait()
		assertOneLiveAttemptPerSubtask(t, cluster, time.Since(start))
		if allGloballyTerminal(t, cluster, jobs) {
			break
		}
		require.Less(t, time.Since(start), chaosDeadline, "the jobs have not ended after %v of fake time: %s",
			chaosDeadline, jobStatuses(t, cluster, jobs))
	}
	t.Logf("all jobs ended after %v of fake time", time.Since(start))

	for i, job := range jobs {
		result, err := cluster.RequestJobResult(ctx, job.JobID)
		require.NoError(t, err)
		t.Logf("job%d (parallelism %d, count %d): %s %s", i, plan.jobs[i].parallelism, plan.jobs[i].count,
			result.JobStatus, result.FailureCause)
		switch result.JobStatus {
		case api.JobFinished:
			assertEverySquareCollected(t, collectors[i].Values(), plan.jobs[i].count, fmt.Sprintf("job%d", i))
		case api.JobFailed:
			// Either kind of m4: the JobMaster did not start, or could not
			// build the ExecutionGraph of a job past its max parallelism.
			m4 := strings.Contains(result.FailureCause, fault.Injected(trace.M4, fault.JobMasterStartFailure).Error()) ||
				strings.Contains(result.FailureCause, "is higher than the max parallelism")
			exhausted := strings.Contains(result.FailureCause, fmt.Sprintf(
				"Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=%d,", chaosRestarts.FixedDelay.Attempts))
			assert.True(t, m4 || exhausted, "job%d FAILED with no fault to explain it: %s", i, result.FailureCause)
			if m4 {
				assert.Positive(t, firedFor(cluster, trace.M4, job.JobID), "job%d: an m4 failure, but no m4 fault fired for it", i)
			}
		default:
			t.Errorf("job%d ended %s: nobody cancelled it", i, result.JobStatus)
		}
	}

	// The slots come back once the ResourceManager has dropped a killed
	// TaskManager (heartbeat timeout) and the freed slots have been
	// reported.
	<-killed
	time.Sleep(chaosHeartbeats.Timeout + 2*chaosHeartbeats.Interval)
	synctest.Wait()
	assertNoSlotLeaked(t, cluster)
}

// assertOneLiveAttemptPerSubtask checks that no subtask has two attempts
// that are not terminal on the live TaskExecutors. The cluster is quiet
// (synctest.Wait), so the TaskExecutors' answers make one snapshot.
func assertOneLiveAttemptPerSubtask(t seededT, cluster *MiniCluster, at time.Duration) {
	live := map[api.ExecutionVertexID][]string{}
	for _, te := range liveTaskExecutors(cluster) {
		tasks, err := te.Tasks(context.Background())
		require.NoError(t, err, "Tasks of %s", te.ResourceID())
		for attempt, state := range tasks {
			if !state.IsTerminal() {
				live[attempt.ExecutionVertexID] = append(live[attempt.ExecutionVertexID],
					fmt.Sprintf("attempt #%d %s on %s", attempt.AttemptNumber, state, te.ResourceID()))
			}
		}
	}
	for vertex, attempts := range live {
		if len(attempts) > 1 {
			slices.Sort(attempts)
			t.Errorf("at +%v subtask %s lives twice: %s", at, vertex, strings.Join(attempts, ", "))
		}
	}
}

// allGloballyTerminal reports whether every job is FINISHED, CANCELED or
// FAILED.
func allGloballyTerminal(t seededT, cluster *MiniCluster, jobs []*jobgraph.JobGraph) bool {
	for _, job := range jobs {
		status, err := cluster.RequestJobStatus(context.Background(), job.JobID)
		require.NoError(t, err)
		if !status.IsGloballyTerminalState() {
			return false
		}
	}
	return true
}

func jobStatuses(t seededT, cluster *MiniCluster, jobs []*jobgraph.JobGraph) string {
	var out []string
	for i, job := range jobs {
		status, err := cluster.RequestJobStatus(context.Background(), job.JobID)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("job%d %s", i, status))
	}
	return strings.Join(out, ", ")
}

// assertEverySquareCollected checks that the sink got every square 1…count²
// at least once, and nothing else.
func assertEverySquareCollected(t seededT, values []int64, count int, job string) {
	want := squares(count)
	got := slices.Compact(slices.Clone(values)) // sorted already
	assert.Equal(t, want, got, "%s: the distinct values collected (%d values in all)", job, len(values))
}

// assertNoSlotLeaked checks that every slot of every live TaskExecutor is
// free, and that the ResourceManager knows exactly those TaskExecutors and
// counts exactly those slots free.
func assertNoSlotLeaked(t seededT, cluster *MiniCluster) {
	ctx := context.Background()
	live := liveTaskExecutors(cluster)
	for _, te := range live {
		slots, err := te.Slots(ctx)
		require.NoError(t, err)
		for _, slot := range slots {
			t.Errorf("%s holds %s after every job ended", te.ResourceID(), slot)
		}
		n, err := te.NumberOfFreeSlots(ctx)
		require.NoError(t, err)
		assert.Equal(t, chaosSlotsPerTM, n, "%s: NumberOfFreeSlots and Slots disagree", te.ResourceID())
	}
	registered, err := cluster.ResourceManager().NumberOfRegisteredTaskManagers(ctx)
	require.NoError(t, err)
	assert.Equal(t, len(live), registered, "TaskManagers registered at the ResourceManager")
	free, err := cluster.ResourceManager().NumberOfFreeSlots(ctx)
	require.NoError(t, err)
	assert.Equal(t, len(live)*chaosSlotsPerTM, free, "free slots at the ResourceManager after every job ended")
}

// liveTaskExecutors returns the TaskExecutors that have not been killed
// (by KillTaskManager or the m9 fault).
func liveTaskExecutors(cluster *MiniCluster) []*taskexecutor.TaskExecutor {
	var live []*taskexecutor.TaskExecutor
	for _, te := range cluster.TaskExecutors() {
		select {
		case <-te.Terminated():
		default:
			live = append(live, te)
		}
	}
	return live
}

// firedFor counts the passes on which a fault of step fired for job.
func firedFor(cluster *MiniCluster, step trace.Step, job api.JobID) int {
	n := 0
	for _, f := range cluster.Faults().Fired() {
		if f.Fault.Step == step && f.JobID == job {
			n++
		}
	}
	return n
}

func firings(fired []fault.Firing) string {
	var b strings.Builder
	for _, f := range fired {
		fmt.Fprintf(&b, "  %s %s for job %s\n", f.Time.Format("15:04:05.000"), f.Fault, f.JobID)
	}
	return b.String()
}
