package minicluster

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/fault"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/trace"
)

// resourceManagerUnreachable breaks step m5 on every attempt: the
// JobMaster's registration at the ResourceManager is never answered.
var resourceManagerUnreachable = fault.Fault{Step: trace.M5, Kind: fault.ResourceManagerUnreachable, Times: fault.Always}

const bulkNotFulfillable = "NoResourceAvailableException: Slot request bulk is not fulfillable! " +
	"Could not allocate the required slot within slot request timeout"

// A JobMaster that cannot reach the ResourceManager (step m5) keeps
// retrying its registration, and its tasks stay SCHEDULED: their slot
// requests never even reach the SlotManager. After slot.request.timeout
// (Flink's default, 5 min) the JobMaster gives up on them itself, and the
// job, without restarts, fails with Flink's NoResourceAvailableException.
func TestAJobThatCannotReachTheResourceManagerFailsAfterTheSlotRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, 2, 2)
		require.NoError(t, cluster.Faults().Inject(resourceManagerUnreachable))
		collector := numbers.NewCollector()
		start := time.Now()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Count: 40, Parallelism: 2, Collector: collector}))
		require.NoError(t, err)

		time.Sleep(slotpool.DefaultSlotRequestTimeout - time.Second) // fake time
		synctest.Wait()
		graph := requestJob(t, cluster, jobID)
		assert.Equal(t, api.JobRunning, graph.State)
		for name, sub := range subtasks(graph) {
			assert.Equal(t, api.ExecutionScheduled, sub.State, name)
		}

		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, slotpool.DefaultSlotRequestTimeout, time.Since(start), "the job fails when its slot requests time out")
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Equal(t, "JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy: "+bulkNotFulfillable+
			" Caused by: TimeoutException: Timeout has occurred: PT5M", result.FailureCause)
		assert.Empty(t, collector.Values())
		assertInOrder(t, logs.String(),
			"Connecting to ResourceManager",
			"Injecting fault resourcemanager-unreachable at step m5",
			"switched from SCHEDULED to FAILED on [unassigned resource].",
			bulkNotFulfillable,
			"switched from state RUNNING to FAILING.",
			"switched from state FAILING to FAILED.")
		assert.NotContains(t, logs.String(), "JobManager successfully registered at ResourceManager")

		d, ok := fault.Diagnose(cluster.Trace().JobEvents(jobID))
		require.True(t, ok)
		assert.Equal(t, trace.M5, d.Step, "the trace points at the registration, not at the timeout")
	})
}

// With a fixed-delay restart strategy the job restarts after each
// slot.request.timeout and asks for its slots again, until the restarts
// are used up. The timeout here is 30 s (slot.request.timeout: 30 s).
func TestAJobThatCannotReachTheResourceManagerRestartsAfterEachSlotRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 30 * time.Second
		cluster, logs := startClusterWith(t, Config{
			NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
			RestartStrategy: threeRestarts, SlotRequestTimeout: timeout,
		})
		require.NoError(t, cluster.Faults().Inject(resourceManagerUnreachable))
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Count: 40, Parallelism: 2, Collector: collector}))
		require.NoError(t, err)

		time.Sleep(timeout) // the first round times out: RESTARTING, for the 1 s backoff
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, requestJob(t, cluster, jobID).State)
		time.Sleep(time.Second) // the second round asks again
		synctest.Wait()
		graph := requestJob(t, cluster, jobID)
		assert.Equal(t, api.JobRunning, graph.State)
		for name, sub := range subtasks(graph) {
			assert.Equal(t, api.ExecutionScheduled, sub.State, name)
			assert.Equal(t, 1, sub.AttemptNumber, name)
		}

		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Equal(t, "JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3, backoffTimeMS=1000): "+
			bulkNotFulfillable+" Caused by: TimeoutException: Timeout has occurred: PT30S", result.FailureCause)
		graph = requestJob(t, cluster, jobID)
		for name, sub := range subtasks(graph) {
			assert.Equal(t, 3, sub.AttemptNumber, name)
		}
		require.Len(t, graph.ExceptionHistory, 4, "one failure per round")
		for _, entry := range graph.ExceptionHistory {
			assert.Contains(t, entry.Exception, bulkNotFulfillable)
		}
		assert.Equal(t, 3, strings.Count(logs.String(), "Job numbers ("+jobID.String()+") switched from state RUNNING to RESTARTING."))
		assert.Equal(t, 3, strings.Count(logs.String(), "tasks will be restarted to recover the failed task"))
	})
}

// On the normal path every round gets its slots, and a job that runs far
// longer than slot.request.timeout is never failed by it.
func TestARunningJobOutlivesItsSlotRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		cluster, logs := startClusterWith(t, Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2, SlotRequestTimeout: timeout})
		collector := numbers.NewCollector()
		jobID, err := cluster.SubmitJob(context.Background(), numbersJob(t, cluster, numbers.Config{Parallelism: 2, Unbounded: true, Collector: collector}))
		require.NoError(t, err)

		time.Sleep(3 * timeout)
		synctest.Wait()
		graph := requestJob(t, cluster, jobID)
		assert.Equal(t, api.JobRunning, graph.State)
		for name, sub := range subtasks(graph) {
			assert.Equal(t, api.ExecutionRunning, sub.State, name)
			assert.Equal(t, 0, sub.AttemptNumber, name)
		}
		assert.Empty(t, graph.ExceptionHistory)
		assert.NotContains(t, logs.String(), "Slot request bulk is not fulfillable")

		require.NoError(t, cluster.CancelJob(context.Background(), jobID))
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobCanceled, result.JobStatus)
	})
}
