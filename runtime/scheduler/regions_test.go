package scheduler

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// twoStageJob is Source (2) → Sink (2), joined by one exchange of the
// given pattern and type, both in slot sharing group "default".
func twoStageJob(pattern jobgraph.DistributionPattern, resultType jobgraph.ResultPartitionType) *jobgraph.JobGraph {
	g := jobgraph.New("job")
	source := jobgraph.NewJobVertex("Source", "test.Source", 2)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
	source.SlotSharingGroup, sink.SlotSharingGroup = "default", "default"
	sink.ConnectNewDataSetAsInput(source, pattern, resultType)
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
}

// deployment returns the newest deployment of a subtask, e.g. "Sink", 1.
func (h *harness) deployment(task string, subtask int) gateway.TaskDeploymentDescriptor {
	h.t.Helper()
	deployed := h.tm.deployed()
	for i := len(deployed) - 1; i >= 0; i-- {
		if deployed[i].TaskInfo.TaskName == task && deployed[i].SubtaskIndex() == subtask {
			return deployed[i]
		}
	}
	h.t.Fatalf("%s (%d) was never deployed", task, subtask)
	return gateway.TaskDeploymentDescriptor{}
}

// deployedNames lists the deployments from the given one on, as
// "Task/subtask#attempt".
func (h *harness) deployedNames(from int) []string {
	var names []string
	for _, tdd := range h.tm.deployed()[from:] {
		names = append(names, fmt.Sprintf("%s/%d#%d", tdd.TaskInfo.TaskName, tdd.SubtaskIndex(), tdd.AttemptNumber()))
	}
	return names
}

// A job of forward exchanges is one region per subtask pair: a failure
// restarts its own pair, and the other keeps running its first attempt.
func TestRegionFailoverRestartsOnlyTheFailedRegion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.Pointwise, jobgraph.PipelinedBounded),
			Config{RestartStrategy: fixedDelay(t, 3, time.Second)})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(2)
		synctest.Wait()
		require.Len(t, h.tm.deployed(), 4, "both regions are deployed at once")
		h.runAll(h.tm.deployed())

		failed := h.deployment("Sink", 1)
		h.report(failed, api.ExecutionFailed, errors.New("processElement threw"))
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		assert.Equal(t, []api.ExecutionAttemptID{h.deployment("Source", 1).ExecutionAttemptID}, h.tm.cancelled,
			"only the failed task's partner is cancelled")
		h.report(h.deployment("Source", 1), api.ExecutionCanceled, nil)
		assert.Contains(t, h.logs.String(), fmt.Sprintf("2 tasks will be restarted to recover the failed task %s.", failed.ExecutionAttemptID))

		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.ElementsMatch(t, []string{"Source/1#1", "Sink/1#1"}, h.deployedNames(4))
		assert.Equal(t, []int{0, 1, 0, 1}, h.attempts(), "Source 0, Source 1, Sink 0, Sink 1")
	})
}

func TestFullFailoverRestartsEveryTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.Pointwise, jobgraph.PipelinedBounded),
			Config{RestartStrategy: fixedDelay(t, 3, 0), FailoverStrategy: "Full"})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(2)
		synctest.Wait()
		h.runAll(h.tm.deployed())
		h.report(h.deployment("Sink", 1), api.ExecutionFailed, errors.New("processElement threw"))
		h.report(h.deployment("Source", 0), api.ExecutionCanceled, nil)
		h.report(h.deployment("Source", 1), api.ExecutionCanceled, nil)
		h.report(h.deployment("Sink", 0), api.ExecutionCanceled, nil)
		synctest.Wait()
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		assert.Contains(t, h.logs.String(), "Using failover strategy RestartAllFailoverStrategy")
	})
}

// Another region that fails while one restarts restarts too; the job is
// RUNNING again once both have.
func TestARegionFailingDuringARestartRestartsToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.Pointwise, jobgraph.PipelinedBounded),
			Config{RestartStrategy: fixedDelay(t, 3, time.Second)})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(2)
		synctest.Wait()
		h.runAll(h.tm.deployed())

		h.report(h.deployment("Sink", 0), api.ExecutionFailed, errors.New("first"))
		h.report(h.deployment("Source", 0), api.ExecutionCanceled, nil)
		time.Sleep(500 * time.Millisecond)
		h.report(h.deployment("Sink", 1), api.ExecutionFailed, errors.New("second"))
		h.report(h.deployment("Source", 1), api.ExecutionCanceled, nil)
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, api.JobRestarting, h.jobStatus(), "the second region still waits for its backoff")
		assert.ElementsMatch(t, []string{"Source/0#1", "Sink/0#1"}, h.deployedNames(4))

		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		h.onMain(func() {
			require.Len(t, h.scheduler.exceptionHistory, 2, "two failures, each a root cause")
			assert.Equal(t, "second", h.scheduler.exceptionHistory[0].Exception)
		})
	})
}

// A BLOCKING exchange cuts the job into stages: the consumers are deployed
// once every producer of their input has finished.
func TestABlockingConsumerStartsWhenItsProducersFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.AllToAll, jobgraph.Blocking), Config{})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(2)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"Source/0#0", "Source/1#0"}, h.deployedNames(0))
		h.runAll(h.tm.deployed())

		h.report(h.deployment("Source", 0), api.ExecutionFinished, nil)
		synctest.Wait()
		assert.Len(t, h.tm.deployed(), 2, "half the input is not enough")
		h.report(h.deployment("Source", 1), api.ExecutionFinished, nil)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"Sink/0#0", "Sink/1#0"}, h.deployedNames(2))
		gate := h.deployment("Sink", 1).InputGates[0]
		assert.Equal(t, h.deployment("Source", 1).ExecutionAttemptID, gate.ShuffleDescriptors[1].ResultPartitionID.ProducerID)
	})
}

// A consumer that fails reads its blocking input again: its producers,
// finished, keep their first attempt.
func TestAFailedBlockingConsumerRestartsAloneAndReadsItsInputAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.AllToAll, jobgraph.Blocking),
			Config{RestartStrategy: fixedDelay(t, 3, 0)})
		h.finishSources()
		h.report(h.deployment("Sink", 0), api.ExecutionFailed, errors.New("processElement threw"))
		synctest.Wait()
		assert.ElementsMatch(t, []string{"Sink/0#1"}, h.deployedNames(4))
		assert.Equal(t, []int{0, 0, 1, 0}, h.attempts())
		assert.Equal(t, h.deployment("Source", 0).ExecutionAttemptID,
			h.deployment("Sink", 0).InputGates[0].ShuffleDescriptors[0].ResultPartitionID.ProducerID)
	})
}

// The results of a TaskExecutor that is gone cannot be read again: their
// producers restart with the consumers, and the consumers wait for them.
func TestLostBlockingResultsAreProducedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.AllToAll, jobgraph.Blocking),
			Config{RestartStrategy: fixedDelay(t, 3, 0)})
		h.finishSources()
		lost := errors.New("Heartbeat of TaskManager with id tm-0 timed out.")
		h.loseTaskManager("tm-0", lost)
		synctest.Wait()
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		h.offerFrom("tm-1", 2)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"Source/0#1", "Source/1#1"}, h.deployedNames(4), "the producers first")
	})
}

// A blocking result is released when all its consumers have finished,
// not before: a consumer that restarts reads it again. A producer's
// restart releases what its old attempt wrote.
func TestBlockingResultsAreReleasedWhenNobodyNeedsThemAnyMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessForJob(t, twoStageJob(jobgraph.AllToAll, jobgraph.Blocking), Config{})
		h.finishSources()
		produced := func(subtask int) api.ResultPartitionID {
			return h.deployment("Source", subtask).ProducedPartitions[0].PartitionID
		}
		assert.Equal(t, jobgraph.Blocking, h.deployment("Source", 0).ProducedPartitions[0].PartitionType)
		h.report(h.deployment("Sink", 0), api.ExecutionFinished, nil)
		synctest.Wait()
		assert.Empty(t, h.tm.releasedPartitions(), "Sink 1 has not read them yet")
		h.report(h.deployment("Sink", 1), api.ExecutionFinished, nil)
		synctest.Wait()
		assert.ElementsMatch(t, []api.ResultPartitionID{produced(0), produced(1)}, h.tm.releasedPartitions())
		state, done := h.finalState()
		assert.True(t, done)
		assert.Equal(t, api.JobFinished, state)
	})
}

func TestARestartedProducerReleasesWhatItsOldAttemptWrote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// With full failover the finished producers restart too, although
		// their results are still there.
		h := newHarnessForJob(t, twoStageJob(jobgraph.AllToAll, jobgraph.Blocking),
			Config{RestartStrategy: fixedDelay(t, 3, 0), FailoverStrategy: failover.FailoverStrategyFull})
		h.finishSources()
		old := []api.ResultPartitionID{
			h.deployment("Source", 0).ProducedPartitions[0].PartitionID,
			h.deployment("Source", 1).ProducedPartitions[0].PartitionID,
		}
		h.report(h.deployment("Sink", 0), api.ExecutionFailed, errors.New("processElement threw"))
		h.report(h.deployment("Sink", 1), api.ExecutionCanceled, nil)
		synctest.Wait()
		assert.Equal(t, []int{1, 1, 1, 1}, h.attempts())
		assert.ElementsMatch(t, old, h.tm.releasedPartitions())
		assert.ElementsMatch(t, []string{"Source/0#1", "Source/1#1"}, h.deployedNames(4))
	})
}

// finishSources runs the two-stage blocking job up to its running sinks.
func (h *harness) finishSources() {
	h.t.Helper()
	h.onMain(h.scheduler.StartScheduling)
	h.offer(2)
	synctest.Wait()
	h.runAll(h.tm.deployed())
	h.report(h.deployment("Source", 0), api.ExecutionFinished, nil)
	h.report(h.deployment("Source", 1), api.ExecutionFinished, nil)
	synctest.Wait()
	require.Len(h.t, h.tm.deployed(), 4)
	h.runAll(h.tm.deployed()[2:])
}

// An unknown value of jobmanager.execution.failover-strategy is refused
// before a scheduler is made (see package entrypoint); the scheduler takes
// whatever LoadFailoverStrategy accepts.
func TestTheDefaultFailoverStrategyIsRegion(t *testing.T) {
	h := newHarnessForJob(t, twoStageJob(jobgraph.Pointwise, jobgraph.PipelinedBounded), Config{})
	assert.Contains(t, h.logs.String(), "Using failover strategy RestartPipelinedRegionFailoverStrategy")
	name, err := failover.LoadFailoverStrategy("")
	require.NoError(t, err)
	assert.Equal(t, failover.FailoverStrategyRegion, name)
}

// A region that partly produces its own blocking input (FLINK-17330's
// shape) waits only for the part other regions produce:
//
//	A (4) ─pipelined, pointwise─► B (3) ─pipelined, pointwise─► C (2)
//	A (4) ══blocking, pointwise══► C (2)
//
// A0, B0 and C0 are one region, which reads A1's blocking partition, and
// its own A0's: it is scheduled when A1 has finished.
func TestARegionThatPartlyProducesItsOwnBlockingInputStartsWhenTheRestIsFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := jobgraph.New("job")
		a := jobgraph.NewJobVertex("A", "test.A", 4)
		b := jobgraph.NewJobVertex("B", "test.B", 3)
		c := jobgraph.NewJobVertex("C", "test.C", 2)
		b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
		c.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.Blocking)
		c.ConnectNewDataSetAsInput(b, jobgraph.Pointwise, jobgraph.PipelinedBounded)
		for _, v := range []*jobgraph.JobVertex{a, b, c} {
			v.SlotSharingGroup = "default"
			g.AddVertex(v)
		}
		h := newHarnessForJob(t, g, Config{})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(4) // enough for both regions: the other one, A1–A3, B1, B2, C1, shares 3
		synctest.Wait()
		require.ElementsMatch(t, []string{"A/1#0", "A/2#0", "A/3#0", "B/1#0", "B/2#0", "C/1#0"}, h.deployedNames(0),
			"the region of A0, B0 and C0 waits for A1")
		h.runAll(h.tm.deployed())
		h.report(h.deployment("A", 1), api.ExecutionFinished, nil)
		h.offer(1)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"A/0#0", "B/0#0", "C/0#0"}, h.deployedNames(6))
	})
}

// A lost TaskManager fails the tasks that waited for its slots; the
// failover that follows cancels the rest, and nothing is deployed into the
// lost slots meanwhile: the job restarts, it does not fail a second time.
func TestNothingIsDeployedIntoALostSlotDuringTheFailover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := jobgraph.New("job")
		source := jobgraph.NewJobVertex("Source", "test.Source", 1)
		middle := jobgraph.NewJobVertex("Middle", "test.Middle", 1)
		sink := jobgraph.NewJobVertex("Sink", "test.Sink", 1)
		source.SlotSharingGroup, middle.SlotSharingGroup, sink.SlotSharingGroup = "a", "b", "a"
		middle.ConnectNewDataSetAsInput(source, jobgraph.Pointwise, jobgraph.PipelinedBounded)
		sink.ConnectNewDataSetAsInput(middle, jobgraph.Pointwise, jobgraph.PipelinedBounded)
		g.AddVertex(source)
		g.AddVertex(middle)
		g.AddVertex(sink)
		h := newHarnessForJob(t, g, Config{RestartStrategy: fixedDelay(t, 1, time.Second)})
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1) // group a's slot; group b's is still on its way
		synctest.Wait()
		h.loseTaskManager("tm-0", errors.New("TaskManager with id tm-0 is no longer reachable."))
		synctest.Wait()
		assert.Empty(t, h.tm.deployed(), "nothing deployed into the lost slot")
		assert.Equal(t, api.JobRestarting, h.jobStatus())
		h.onMain(func() {
			require.Len(t, h.scheduler.exceptionHistory, 1, "one failure, one restart")
		})
	})
}
