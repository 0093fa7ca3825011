package minicluster

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startCluster starts a cluster inside the test's synctest bubble and
// closes it when the test ends.
func startCluster(t *testing.T, taskManagers, slots int) (*MiniCluster, *logbuf.Buffer) {
	t.Helper()
	return startClusterWith(t, Config{NumTaskManagers: taskManagers, NumSlotsPerTaskManager: slots})
}

// startClusterWith is startCluster with more of the Config; it sets the
// working directory and the logger.
func startClusterWith(t *testing.T, cfg Config) (*MiniCluster, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.WorkingDir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cluster, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { require.NoError(t, cluster.Close()) })
	synctest.Wait() // the TaskExecutors have registered at the ResourceManager
	return cluster, logs
}

func numbersJob(t *testing.T, cluster *MiniCluster, cfg numbers.Config) *jobgraph.JobGraph {
	t.Helper()
	t.Cleanup(cfg.Collector.Close)
	g := numbers.JobGraph(cfg)
	require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
	return g
}

func squares(count int) []int64 {
	out := make([]int64, count)
	for n := 1; n <= count; n++ {
		out[n-1] = int64(n * n)
	}
	return out
}

// freeSlots returns how many slots the ResourceManager counts as free,
// after checking that every TaskExecutor agrees with it.
func freeSlots(t *testing.T, cluster *MiniCluster) int {
	t.Helper()
	free, err := cluster.ResourceManager().NumberOfFreeSlots(context.Background())
	require.NoError(t, err)
	onTaskExecutors := 0
	for _, te := range cluster.TaskExecutors() {
		n, err := te.NumberOfFreeSlots(context.Background())
		require.NoError(t, err)
		onTaskExecutors += n
	}
	assert.Equal(t, free, onTaskExecutors, "the ResourceManager's and the TaskExecutors' free slots differ")
	return free
}

// The story of one job, start to end: 1 JobManager, 2 TaskExecutors × 2
// slots, the numbers job at parallelism 4.
func TestJobRunsFromSubmissionToFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, 2, 2)
		assert.Equal(t, 4, freeSlots(t, cluster))
		collector := numbers.NewCollector()
		job := numbersJob(t, cluster, numbers.Config{Count: 1000, Parallelism: 4, Collector: collector})

		jobID, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)

		// The job finished with exactly the expected output.
		assert.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
		assert.Equal(t, squares(1000), collector.Values())

		// Its states went INITIALIZING → CREATED → RUNNING → FINISHED.
		synctest.Wait() // the Dispatcher logs the terminal state on its own main thread
		final, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		var statuses []api.JobStatus
		for s := range final.StatusTimestamps {
			statuses = append(statuses, s)
		}
		assert.ElementsMatch(t, []api.JobStatus{api.JobInitializing, api.JobCreated, api.JobRunning, api.JobFinished}, statuses)
		assertInOrder(t, logs.String(),
			"Received JobGraph submission 'numbers'",
			"Creating new JobMasterServiceProcess.", // INITIALIZING: no JobMaster yet
			"Created execution graph",               // CREATED
			"switched from state CREATED to RUNNING.",
			"switched from state RUNNING to FINISHED.",
			"reached terminal state FINISHED.")

		// Its trace has m3…m11 in order, and m9 → m10 → m11 for every task.
		events := cluster.Trace().JobEvents(jobID)
		assertStepsInOrder(t, events)
		assertEveryTaskWentThroughM9ToM11(t, events, 12) // 3 vertices × parallelism 4

		// Every slot is free again.
		assert.Equal(t, 4, freeSlots(t, cluster))
	})
}

// assertStepsInOrder checks that each of m3…m11 happened, and that the
// first time each step happened follows the first time of the one before.
func assertStepsInOrder(t *testing.T, events []trace.Event) {
	t.Helper()
	first := map[trace.Step]int{}
	for i, e := range events {
		if _, seen := first[e.Step]; !seen {
			first[e.Step] = i
		}
	}
	steps := []trace.Step{trace.M3, trace.M4, trace.M5, trace.M6, trace.M7, trace.M8, trace.M9, trace.M10, trace.M11}
	for i, step := range steps {
		require.Contains(t, first, step, "step %s did not happen; trace:\n%s", step, render(events))
		if i > 0 {
			assert.Less(t, first[steps[i-1]], first[step], "step %s came before %s; trace:\n%s", step, steps[i-1], render(events))
		}
	}
}

var attemptIDPattern = regexp.MustCompile(`[0-9a-f]{32}_[0-9a-f]{32}_\d+_\d+`)

// assertEveryTaskWentThroughM9ToM11 groups the m9, m10 and m11 events by
// the execution attempt they name and checks each task's order.
func assertEveryTaskWentThroughM9ToM11(t *testing.T, events []trace.Event, tasks int) {
	t.Helper()
	perTask := map[string][]trace.Step{}
	for _, e := range events {
		if e.Step != trace.M9 && e.Step != trace.M10 && e.Step != trace.M11 {
			continue
		}
		attempt := attemptIDPattern.FindString(e.Message)
		require.NotEmpty(t, attempt, "event %q names no execution attempt", e)
		perTask[attempt] = append(perTask[attempt], e.Step)
	}
	assert.Len(t, perTask, tasks)
	for attempt, steps := range perTask {
		assert.Equal(t, []trace.Step{trace.M9, trace.M10, trace.M11}, steps, "task %s", attempt)
	}
}

func render(events []trace.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

func assertInOrder(t *testing.T, text string, phrases ...string) {
	t.Helper()
	at := 0
	for _, p := range phrases {
		i := strings.Index(text[at:], p)
		if !assert.GreaterOrEqual(t, i, 0, "%q missing (or out of order) in the log", p) {
			return
		}
		at += i + len(p)
	}
}

func TestParallelismUpToTheSlotCountRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, 2, 2)
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Count: 40, Parallelism: 4, Collector: collector}))
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFinished, result.JobStatus)
		assert.Equal(t, squares(40), collector.Values())
	})
}

// A job that needs more slots than the cluster has waits for TaskManagers
// during the ResourceManager's start-up period (Flink's default, 5 min);
// once the period is over the ResourceManager reports that the
// requirements cannot be met, and the job (without restarts) fails with
// Flink's NoResourceAvailableException.
//
// The job's own slot.request.timeout is longer here than the start-up
// period. Both are 5 min by default, and whichever ends first fails the
// job: a job that asks for its slots the moment the cluster starts, as
// this one does, would hear from its slot request timeout first, 50 ms
// (slotmanager.requirement-check.delay) before the ResourceManager speaks.
func TestParallelismAboveTheSlotCountWaitsForResourcesThenFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startClusterWith(t, Config{
			NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
			StartUpPeriod: resourcemanager.DefaultStartUpPeriod, SlotRequestTimeout: 2 * resourcemanager.DefaultStartUpPeriod,
		})
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Count: 40, Parallelism: 5, Collector: collector}))
		require.NoError(t, err)

		time.Sleep(resourcemanager.DefaultStartUpPeriod - time.Second) // fake time
		synctest.Wait()
		status, err := cluster.RequestJobStatus(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, status, "scheduled, waiting for a fifth slot")
		job, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		for _, v := range job.Vertices {
			for _, sub := range v.Subtasks {
				assert.Equal(t, api.ExecutionScheduled, sub.State, "%s subtask %d was deployed", v.Name, sub.SubtaskIndex)
			}
		}
		for _, e := range cluster.Trace().JobEvents(jobID) {
			assert.NotEqual(t, trace.M9, e.Step, "no task may be deployed: %s", e)
		}
		assert.Empty(t, collector.Values())

		time.Sleep(time.Second) // the start-up period ends
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Contains(t, result.FailureCause, "NoResourceAvailableException: Could not acquire the minimum required resources.")
		assertInOrder(t, logs.String(),
			"Could not fulfill resource requirements of job "+jobID.String()+".",
			"Could not acquire the minimum required resources, failing slot requests.",
			"switched from state RUNNING to FAILING.")
	})
}

func TestCancellingARunningUnboundedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, 2, 2)
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Parallelism: 2, Unbounded: true, Collector: collector}))
		require.NoError(t, err)

		time.Sleep(time.Second) // fake time: the sources tick along
		synctest.Wait()
		job, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, job.State)
		for _, v := range job.Vertices {
			for _, sub := range v.Subtasks {
				assert.Equal(t, api.ExecutionRunning, sub.State, "%s subtask %d", v.Name, sub.SubtaskIndex)
			}
		}

		require.NoError(t, cluster.CancelJob(context.Background(), jobID))
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobCanceled, result.JobStatus)
		synctest.Wait()
		assert.Equal(t, 4, freeSlots(t, cluster))
		final, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		for _, v := range final.Vertices {
			for _, sub := range v.Subtasks {
				assert.Equal(t, api.ExecutionCanceled, sub.State)
			}
		}
	})
	// synctest.Test fails if a goroutine of the bubble is still blocked when
	// the test ends, and goleak (TestMain) checks the whole process: nothing
	// the cluster started is left.
}

// Closing the cluster while a job runs suspends the job: it is not done,
// so no result is written for it.
func TestClosingTheClusterSuspendsRunningJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, 2, 2)
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Parallelism: 4, Unbounded: true, Collector: collector}))
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()

		resultStore := cluster.ha.JobResultStore()
		require.NoError(t, cluster.Close())
		assert.False(t, resultStore.HasJobResultEntry(jobID), "a suspended job has no result")
		assert.Contains(t, logs.String(), "Job "+jobID.String()+" reached terminal state SUSPENDED.")
		assert.Equal(t, 1, strings.Count(logs.String(), "reached terminal state"), "SUSPENDED is the job's only end")
	})
}

func TestRejectedSubmissionsPersistNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, 1, 2)
		ctx := context.Background()
		stored := func() []api.JobID {
			ids, err := cluster.JobGraphStore().JobIDs()
			require.NoError(t, err)
			return ids
		}

		// A running job submitted again.
		running := numbersJob(t, cluster, numbers.Config{Parallelism: 1, Unbounded: true, Collector: numbers.NewCollector()})
		_, err := cluster.SubmitJob(ctx, running)
		require.NoError(t, err)
		_, err = cluster.SubmitJob(ctx, running)
		var dup *dispatcher.DuplicateJobSubmissionError
		require.ErrorAs(t, err, &dup)
		assert.False(t, dup.GloballyTerminated)
		assert.Equal(t, []api.JobID{running.JobID}, stored())

		// A finished job submitted again.
		done := numbersJob(t, cluster, numbers.Config{Count: 3, Parallelism: 1, Collector: numbers.NewCollector()})
		require.NoError(t, cluster.CancelJob(ctx, running.JobID))
		_, err = cluster.RequestJobResult(ctx, running.JobID)
		require.NoError(t, err)
		_, err = cluster.SubmitJob(ctx, done)
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(ctx, done.JobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus)
		synctest.Wait()
		_, err = cluster.SubmitJob(ctx, done)
		require.ErrorAs(t, err, &dup)
		assert.True(t, dup.GloballyTerminated)

		// An invalid JobGraph.
		invalid := numbersJob(t, cluster, numbers.Config{Count: 3, Parallelism: 1, Collector: numbers.NewCollector()})
		invalid.Vertices()[1].InvokableClassName = ""
		_, err = cluster.SubmitJob(ctx, invalid)
		var submission *dispatcher.JobSubmissionError
		require.ErrorAs(t, err, &submission)
		assert.ErrorContains(t, err, "has no invokable class.")

		assert.Empty(t, stored(), "nothing persisted, and finished jobs cleaned up")
	})
}

// TestAJobPastItsMaxParallelismIsAcceptedAndFailsDuringInitialization: a
// vertex whose parallelism is higher than its max parallelism (a job
// rescaled past the max parallelism its program sets) passes the client
// and the Dispatcher, as in Flink. The submission is acknowledged; the
// JobMaster fails building the ExecutionGraph, in the ExecutionJobVertex,
// so the job ends FAILED during initialization with Flink's JobException
// as the cause, and never asks for a slot.
func TestAJobPastItsMaxParallelismIsAcceptedAndFailsDuringInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, 2, 2)
		ctx := context.Background()
		job := numbersJob(t, cluster, numbers.Config{Count: 10, Parallelism: 4, Collector: numbers.NewCollector()})
		square := job.Vertices()[1]
		require.Equal(t, "Map: square", square.Name)
		square.MaxParallelism = 2

		jobID, err := cluster.SubmitJob(ctx, job)
		require.NoError(t, err, "the Dispatcher acknowledges the submission: it does not check the max parallelism")
		assert.Equal(t, job.JobID, jobID)

		result, err := cluster.RequestJobResult(ctx, job.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.True(t, strings.HasPrefix(result.FailureCause, "JobInitializationException: Could not start the JobMaster.: "), result.FailureCause)
		assert.Contains(t, result.FailureCause, "JobException: Vertex Map: square's parallelism (4) is higher than the max parallelism (2). "+
			"Please lower the parallelism or increase the max parallelism.", "the cause is the ExecutionJobVertex's, in Flink's words")
		synctest.Wait()

		log := logs.String()
		assertInOrder(t, log,
			"Submitting job 'numbers' ("+job.JobID.String()+").",
			"Initializing job 'numbers' ("+job.JobID.String()+").",
			"Job "+job.JobID.String()+" reached terminal state FAILED.")
		assert.NotContains(t, log, "Created execution graph", "the ExecutionGraph is never built")
		assert.NotContains(t, log, "Received resource requirements from job", "nor are slots asked for")
		assert.Equal(t, 4, freeSlots(t, cluster))

		events := cluster.Trace().JobEvents(job.JobID)
		failures := trace.Failures(events)
		require.Len(t, failures, 1)
		assert.Equal(t, trace.M4, failures[0].Step, "the JobMaster's creation broke, after the Dispatcher's step m3")
		assert.Contains(t, trace.Steps(events), trace.M3)
	})
}
