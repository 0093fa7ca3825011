// Exercise c02: when a pipelined region may start.
//
// Each test runs a small job on a real DefaultScheduler, on a JobMaster's
// main thread of its own, with a fake TaskExecutor that accepts every
// deployment (scenario.StartDefaultScheduler). The test plays the
// TaskManagers: it offers slots, reports the deployed tasks RUNNING and
// FINISHED, fails them and loses a TaskManager, and looks at what the
// scheduler deploys. A deployment is written "B/1#0": the task, its
// subtask index counted from 0, and its attempt number.
package c02_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler"
	"flinklab/runtime/streaming"

	_ "flinklab/runtime/examples/wordcount" // the program "wordcount"
)

var (
	pipelined = jobgraph.PipelinedBounded
	blocking  = jobgraph.Blocking
	allToAll  = jobgraph.AllToAll
	pointwise = jobgraph.Pointwise
)

// start creates a DefaultScheduler for the job (every vertex in slot
// sharing group "default"), starts scheduling and offers slots of tm-0,
// more than the job needs. A restart, if any, follows at once.
func start(t *testing.T, vertices ...*jobgraph.JobVertex) *scenario.Scheduling {
	t.Helper()
	restarts, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: 5, Delay: 0})
	require.NoError(t, err)
	s, _ := scenario.StartDefaultScheduler(t, scenario.Job(vertices...), scheduler.Config{RestartStrategy: restarts})
	require.NoError(t, s.StartScheduling(), "deciding whether a region may start must not panic")
	s.Offer("tm-0", 4)
	synctest.Wait()
	return s
}

func vertex(name string, parallelism int) *jobgraph.JobVertex {
	return scenario.Vertex(name, parallelism, "default")
}

// latest returns the newest deployment of a subtask.
func latest(t *testing.T, s *scenario.Scheduling, task string, subtask int) gateway.TaskDeploymentDescriptor {
	t.Helper()
	tdd, ok := s.Latest(task, subtask)
	require.True(t, ok, "%s (%d) was never deployed", task, subtask)
	return tdd
}

// finish reports the subtasks RUNNING, then FINISHED; a panic on the
// main thread fails the test.
func finish(t *testing.T, s *scenario.Scheduling, tdds ...gateway.TaskDeploymentDescriptor) {
	t.Helper()
	require.NoError(t, s.Run(tdds...))
	require.NoError(t, s.Finish(tdds...), "deciding whether a region may start must not panic")
	synctest.Wait()
}

// A streaming job, every exchange pipelined, is deployed whole as soon as
// scheduling starts: its regions have no blocking input, and a pipelined
// input is read while it is written, so nobody waits for it to finish.
func TestAStreamingJobIsDeployedAtOnce(t *testing.T) {
	t.Run("a keyBy: one region", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, b := vertex("A", 2), vertex("B", 2)
			b.ConnectNewDataSetAsInput(a, allToAll, pipelined)
			s := start(t, a, b)
			assert.ElementsMatch(t, []string{"A/0#0", "A/1#0", "B/0#0", "B/1#0"}, scenario.Names(s.Deployed(0)),
				"the region's pipelined inputs are its own: it starts at once")
		})
	})
	t.Run("forward pipelines: a region per subtask index", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, b, c := vertex("A", 2), vertex("B", 2), vertex("C", 2)
			b.ConnectNewDataSetAsInput(a, pointwise, pipelined)
			c.ConnectNewDataSetAsInput(b, pointwise, pipelined)
			s := start(t, a, b, c)
			assert.ElementsMatch(t, []string{"A/0#0", "A/1#0", "B/0#0", "B/1#0", "C/0#0", "C/1#0"}, scenario.Names(s.Deployed(0)),
				"no region has a blocking input: all start at once")
		})
	})
}

// A BLOCKING exchange cuts the job into stages: a consumer's region starts
// when every partition of its input has been finished by its producer.
func TestABlockingConsumerWaitsForEveryProducer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := vertex("A", 2), vertex("B", 2)
		b.ConnectNewDataSetAsInput(a, allToAll, blocking)
		s := start(t, a, b)
		require.ElementsMatch(t, []string{"A/0#0", "A/1#0"}, scenario.Names(s.Deployed(0)), "the sources first, B reads a blocking input")

		finish(t, s, latest(t, s, "A", 0))
		assert.Empty(t, scenario.Names(s.Deployed(2)), "A1 has not finished: half of B's input is not there yet")
		finish(t, s, latest(t, s, "A", 1))
		assert.ElementsMatch(t, []string{"B/0#0", "B/1#0"}, scenario.Names(s.Deployed(2)), "every partition of B's input is finished")
	})
}

// WordCount in BATCH mode: its keyBy is a BLOCKING exchange, so the
// counters start once every tokenizer has finished, in the slots the
// tokenizers ran in.
//
//	Source: file-input -> tokenizer (2) ══HASH, blocking══► counter -> Sink: print-sink (2)
func TestBatchWordCountRunsStageAfterStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		streamGraph, err := streaming.PlanProgram("wordcount", []string{"--execution-mode", "BATCH"}, 2)
		require.NoError(t, err)
		jg, err := streamGraph.JobGraph()
		require.NoError(t, err)
		s, _ := scenario.StartDefaultScheduler(t, jg, scheduler.Config{})
		require.NoError(t, s.StartScheduling(), "deciding whether a region may start must not panic")
		assert.Equal(t, 2, s.Offer("tm-0", 2), "two slots for the first stage")
		synctest.Wait()
		const tokenizer, counter = "Source: file-input -> tokenizer", "counter -> Sink: print-sink"
		require.ElementsMatch(t, []string{tokenizer + "/0#0", tokenizer + "/1#0"}, scenario.Names(s.Deployed(0)), "the first stage")

		finish(t, s, latest(t, s, tokenizer, 1))
		assert.Empty(t, scenario.Names(s.Deployed(2)), "one tokenizer has not finished: the counters wait")
		finish(t, s, latest(t, s, tokenizer, 0))
		assert.ElementsMatch(t, []string{counter + "/0#0", counter + "/1#0"}, scenario.Names(s.Deployed(2)),
			"every tokenizer has finished: the second stage starts")
		slots := func(tdds []gateway.TaskDeploymentDescriptor) (ids []api.AllocationID) {
			for _, tdd := range tdds {
				ids = append(ids, tdd.AllocationID)
			}
			return ids
		}
		assert.ElementsMatch(t, slots(s.Deployed(0)[:2]), slots(s.Deployed(2)), "the counters run in the two slots the tokenizers ran in")
	})
}

// A region with two blocking inputs waits for both, whichever finishes
// first.
//
//	A (1) ══blocking══╗
//	                  ╠══► C (1)
//	B (1) ══blocking══╝
func TestAConsumerOfTwoInputsWaitsForBoth(t *testing.T) {
	for _, order := range [][2]string{{"A", "B"}, {"B", "A"}} {
		t.Run(order[0]+" finishes first", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b, c := vertex("A", 1), vertex("B", 1), vertex("C", 1)
				c.ConnectNewDataSetAsInput(a, pointwise, blocking)
				c.ConnectNewDataSetAsInput(b, pointwise, blocking)
				s := start(t, a, b, c)
				require.ElementsMatch(t, []string{"A/0#0", "B/0#0"}, scenario.Names(s.Deployed(0)), "the two sources first")

				finish(t, s, latest(t, s, order[0], 0))
				assert.Empty(t, scenario.Names(s.Deployed(2)), "%s has finished, but C's input from %s is not there yet", order[0], order[1])
				finish(t, s, latest(t, s, order[1], 0))
				assert.Equal(t, []string{"C/0#0"}, scenario.Names(s.Deployed(2)), "both of C's inputs are finished")
			})
		})
	}
}

// A consumer that fails restarts alone, and its region is deployed again
// at once: its input is still on the TaskManager that wrote it.
func TestARestartedConsumerReadsItsInputAgainAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := vertex("A", 2), vertex("B", 2)
		b.ConnectNewDataSetAsInput(a, allToAll, blocking)
		s := start(t, a, b)
		finish(t, s, s.Deployed(0)...)
		require.NoError(t, s.Run(s.Deployed(2)...))

		require.NoError(t, s.Report(latest(t, s, "B", 0), api.ExecutionFailed, errors.New("processElement threw")),
			"deciding whether a region may start must not panic")
		synctest.Wait()
		assert.Equal(t, []string{"B/0#1"}, scenario.Names(s.Deployed(4)), "B0's input, A's results, is still there: B0 starts again at once")
	})
}

// A TaskManager that is lost takes the results it held with it. Here A0
// and B0 run on tm-0, A1 and B1 on tm-1; A has finished and B runs when
// tm-1 is lost. A1 restarts to write its result again, and B0 and B1,
// which read it, restart with it. A0's result is still on tm-0, but
// that is half of B's input: B waits until A1's new attempt has finished.
func TestAConsumerWaitsForALostInputToBeProducedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := vertex("A", 2), vertex("B", 2)
		b.ConnectNewDataSetAsInput(a, allToAll, blocking)
		restarts, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: 5, Delay: 0})
		require.NoError(t, err)
		s, _ := scenario.StartDefaultScheduler(t, scenario.Job(a, b), scheduler.Config{RestartStrategy: restarts})
		require.NoError(t, s.StartScheduling(), "deciding whether a region may start must not panic")
		s.Offer("tm-0", 1) // A0's slot
		s.Offer("tm-1", 1) // A1's
		synctest.Wait()
		finish(t, s, s.Deployed(0)...)
		require.ElementsMatch(t, []string{"B/0#0", "B/1#0"}, scenario.Names(s.Deployed(2)))
		for _, tdd := range s.Deployed(0) {
			require.Equal(t, []string{"tm-0", "tm-1"}[tdd.SubtaskIndex()], string(s.TaskManagerOf(tdd)), "where %s runs", scenario.Name(tdd))
		}
		require.NoError(t, s.Run(s.Deployed(2)...))

		require.NoError(t, s.LoseTaskManager("tm-1"), "deciding whether a region may start must not panic")
		synctest.Wait()
		require.NoError(t, s.Report(latest(t, s, "B", 0), api.ExecutionCanceled, nil), "deciding whether a region may start must not panic")
		synctest.Wait()
		s.Offer("tm-2", 2) // for whatever asks for a slot now
		synctest.Wait()
		assert.Equal(t, []string{"A/1#1"}, scenario.Names(s.Deployed(4)),
			"only A1 starts again: B's input has a partition that is not written yet, A1's")

		finish(t, s, latest(t, s, "A", 1))
		s.Offer("tm-3", 2) // tm-0 has one slot; the second B needs another
		synctest.Wait()
		assert.ElementsMatch(t, []string{"A/1#1", "B/0#1", "B/1#1"}, scenario.Names(s.Deployed(4)),
			"A1's new attempt has finished: every partition of B's input is there again")
	})
}

// A blocking all-to-all exchange between two vertices that a pipelined
// exchange joins anyway does not cut their region (FLINK-17330): the
// region produces that input itself, and does not wait for it.
//
//	A (2) ─forward, pipelined─► B (2)
//	A     ══all-to-all, blocking══► B      one region: A0 A1 B0 B1
func TestARegionDoesNotWaitForWhatItProducesItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := vertex("A", 2), vertex("B", 2)
		b.ConnectNewDataSetAsInput(a, pointwise, pipelined)
		b.ConnectNewDataSetAsInput(a, allToAll, blocking)
		s := start(t, a, b)
		assert.ElementsMatch(t, []string{"A/0#0", "A/1#0", "B/0#0", "B/1#0"}, scenario.Names(s.Deployed(0)),
			"B's blocking input is written by its own region, which can only start as a whole")
	})
}

// A region can read a blocking input it partly writes itself: here A0, B0
// and C0 are one region (pipelined), and C0 also reads A0's and A1's
// blocking results. It waits for A1, in another region, and not for A0,
// its own, which could never finish before the region runs.
//
//	A (4) ─pipelined, pointwise─► B (3) ─pipelined, pointwise─► C (2)
//	A (4) ══blocking, pointwise══► C (2)
func TestARegionWaitsOnlyForThePartOfItsInputOthersWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, c := vertex("A", 4), vertex("B", 3), vertex("C", 2)
		b.ConnectNewDataSetAsInput(a, pointwise, pipelined)
		c.ConnectNewDataSetAsInput(a, pointwise, blocking)
		c.ConnectNewDataSetAsInput(b, pointwise, pipelined)
		s := start(t, a, b, c)
		require.ElementsMatch(t, []string{"A/1#0", "A/2#0", "A/3#0", "B/1#0", "B/2#0", "C/1#0"}, scenario.Names(s.Deployed(0)),
			"the region of A1–A3, B1, B2 and C1 reads no other region's blocking result, and starts at once; "+
				"the region of A0, B0 and C0 waits for A1")
		finish(t, s, latest(t, s, "A", 1))
		s.Offer("tm-0", 1)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"A/0#0", "B/0#0", "C/0#0"}, scenario.Names(s.Deployed(6)),
			"A1 has finished: the region of A0, B0 and C0 has all it waits for from other regions, and starts")
	})
}
