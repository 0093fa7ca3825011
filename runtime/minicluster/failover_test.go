package minicluster

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
)

// fastHeartbeats are short heartbeat options, so a lost TaskManager is
// noticed after 5 s of fake time instead of 50 s.
var fastHeartbeats = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second}

// oneRestart is restart-strategy.type fixed-delay with one attempt, 1 s
// apart.
var oneRestart = failover.Config{Type: failover.TypeFixedDelay, FixedDelay: failover.FixedDelayConfig{Attempts: 1, Delay: time.Second}}

// runningOnOneTaskManager submits the unbounded numbers job at parallelism
// 2 to a cluster of 2 TaskManagers × 2 slots, lets it run for a second and
// returns it with the index of the TaskManager it runs on. The SlotManager
// fills one TaskManager before it touches the next, so that is all of it.
func runningOnOneTaskManager(t *testing.T, cluster *MiniCluster) (jobID api.JobID, victim, survivor int) {
	t.Helper()
	job := numbersJob(t, cluster, numbers.Config{Parallelism: 2, Unbounded: true, Collector: numbers.NewCollector()})
	jobID, err := cluster.SubmitJob(context.Background(), job)
	require.NoError(t, err)
	time.Sleep(time.Second) // fake time: the job runs
	synctest.Wait()

	graph := requestJob(t, cluster, jobID)
	require.Equal(t, api.JobRunning, graph.State)
	placement := subtasks(graph)
	require.Len(t, placement, 6) // 3 vertices × parallelism 2
	var runsOn api.ResourceID
	for name, sub := range placement {
		require.Equal(t, api.ExecutionRunning, sub.State, name)
		require.Equal(t, 0, sub.AttemptNumber, name)
		if runsOn == "" {
			runsOn = sub.TaskManager
		}
		require.Equal(t, runsOn, sub.TaskManager, "%s: the job is spread over both TaskManagers", name)
	}
	for i, te := range cluster.TaskExecutors() {
		if te.ResourceID() == runsOn {
			return jobID, i, 1 - i
		}
	}
	t.Fatalf("the job runs on %s, which is no TaskManager of the cluster", runsOn)
	return
}

func requestJob(t *testing.T, cluster *MiniCluster, jobID api.JobID) *gateway.ArchivedExecutionGraph {
	t.Helper()
	graph, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
	require.NoError(t, err)
	return graph
}

// subtasks returns the current attempt of every subtask, by "name_index".
func subtasks(graph *gateway.ArchivedExecutionGraph) map[string]gateway.ArchivedExecution {
	out := make(map[string]gateway.ArchivedExecution)
	for _, v := range graph.Vertices {
		for _, sub := range v.Subtasks {
			out[fmt.Sprintf("%s_%d", v.Name, sub.SubtaskIndex)] = sub
		}
	}
	return out
}

// assertRunsAgainOn checks that every subtask runs again, as its second
// attempt (number 1), on the TaskManager survivor.
func assertRunsAgainOn(t *testing.T, graph *gateway.ArchivedExecutionGraph, survivor api.ResourceID) {
	t.Helper()
	assert.Equal(t, api.JobRunning, graph.State)
	for name, sub := range subtasks(graph) {
		assert.Equal(t, api.ExecutionRunning, sub.State, name)
		assert.Equal(t, 1, sub.AttemptNumber, name)
		assert.Equal(t, survivor, sub.TaskManager, name)
	}
}

// A TaskManager is killed under a running job (kill -9: it says nothing).
// The JobMaster notices through its heartbeat timeout, between
// timeout − interval and timeout after the death, releases the
// TaskManager's slots and fails the job over: RUNNING → RESTARTING →
// RUNNING, every task in its second attempt on the surviving TaskManager.
// The ResourceManager, which watches the TaskManager's heartbeat too, has
// dropped its slots, so the new ones come from the survivor.
func TestAKilledTaskManagerIsNoticedByItsHeartbeatAndTheJobFailsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startClusterWith(t, Config{
			NumTaskManagers: 2, NumSlotsPerTaskManager: 2, Heartbeat: fastHeartbeats, RestartStrategy: oneRestart,
		})
		jobID, victim, survivor := runningOnOneTaskManager(t, cluster)
		victimID, survivorID := cluster.TaskExecutors()[victim].ResourceID(), cluster.TaskExecutors()[survivor].ResourceID()
		timedOut := fmt.Sprintf("Heartbeat of TaskManager with id %s timed out.", victimID)

		cluster.KillTaskManager(victim)

		// Its last heartbeat answer came within the last interval, so the
		// timeout runs out within the last interval of heartbeat.timeout.
		time.Sleep(fastHeartbeats.Timeout - fastHeartbeats.Interval)
		synctest.Wait()
		assert.NotContains(t, logs.String(), timedOut, "noticed before the heartbeat timeout")
		assert.Equal(t, api.JobRunning, requestJob(t, cluster, jobID).State, "the JobMaster cannot know yet")
		time.Sleep(fastHeartbeats.Interval)
		synctest.Wait()
		assert.Contains(t, logs.String(), timedOut)

		// After the restart delay the job runs again on the survivor.
		time.Sleep(oneRestart.FixedDelay.Delay + time.Second)
		synctest.Wait()
		graph := requestJob(t, cluster, jobID)
		assertRunsAgainOn(t, graph, survivorID)
		require.NotEmpty(t, graph.ExceptionHistory)
		assert.Equal(t, "TimeoutException: "+timedOut, graph.ExceptionHistory[0].Exception, "the tasks failed because of the timeout, not of a report")
		assert.Equal(t, victimID, graph.ExceptionHistory[0].TaskManagerID)

		assertInOrder(t, logs.String(),
			fmt.Sprintf("Killing TaskManager %s.", victimID),
			timedOut,
			fmt.Sprintf("Disconnect TaskExecutor %s because: %s", victimID, timedOut),
			"switched from state RUNNING to RESTARTING.",
			"switched from state RESTARTING to RUNNING.")
		assertInOrder(t, logs.String(),
			fmt.Sprintf("The heartbeat of TaskManager with id %s timed out.", victimID),
			fmt.Sprintf("Closing TaskExecutor connection %s because: The heartbeat of TaskManager with id %s timed out.", victimID, victimID))
		assert.NotContains(t, logs.String(), "switched from state RESTARTING to FAILING.")
	})
}

// A TaskManager that is shut down says goodbye: the ResourceManager and the
// JobMaster hear of it at once and do not wait for a heartbeat timeout.
// The job fails over to the other TaskManager as soon as the restart delay
// has passed.
func TestAStoppedTaskManagerSaysGoodbyeAndTheJobFailsOverAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startClusterWith(t, Config{
			NumTaskManagers: 2, NumSlotsPerTaskManager: 2, RestartStrategy: oneRestart, // Flink's heartbeat defaults
		})
		jobID, victim, survivor := runningOnOneTaskManager(t, cluster)
		victimID, survivorID := cluster.TaskExecutors()[victim].ResourceID(), cluster.TaskExecutors()[survivor].ResourceID()

		start := time.Now()
		require.NoError(t, cluster.TaskExecutors()[victim].Close())
		synctest.Wait()
		assert.Zero(t, time.Since(start), "Close waited for something")
		// The failed tasks' reports and the goodbye race to the JobMaster;
		// either restarts the job.
		for _, line := range []string{
			fmt.Sprintf("Disconnect TaskExecutor %s because: The TaskExecutor is shutting down.", victimID),
			fmt.Sprintf("Closing TaskExecutor connection %s because: The TaskExecutor is shutting down.", victimID),
			"switched from state RUNNING to RESTARTING.",
		} {
			assert.Contains(t, logs.String(), line)
		}
		registered, err := cluster.ResourceManager().NumberOfRegisteredTaskManagers(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, registered)

		time.Sleep(oneRestart.FixedDelay.Delay + time.Second)
		synctest.Wait()
		assertRunsAgainOn(t, requestJob(t, cluster, jobID), survivorID)
		assert.NotContains(t, logs.String(), "timed out.", "nobody waited for a heartbeat timeout")
	})
}

func TestNewRejectsInvalidHeartbeatOptions(t *testing.T) {
	_, err := New(Config{Heartbeat: heartbeat.HeartbeatServices{Interval: time.Minute, Timeout: time.Second}})
	assert.EqualError(t, err, "minicluster: The heartbeat timeout should be larger or equal than the heartbeat interval.")
}
