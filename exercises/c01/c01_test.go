// Exercise c01: which regions restart when a task fails.
//
// Each test builds a real ExecutionGraph from a small JobGraph (vertices
// by name and parallelism, edges by distribution pattern and result
// type), makes the region failover strategy for it, as the
// DefaultScheduler does, and asks which subtasks restart when one fails
// (TasksNeedingRestart). A subtask is written "B1": its job vertex and its
// index, counted from 0. Which finished results can still be read is the
// test's to say: the BLOCKING results of the subtasks it names as
// available; every other result is lost. The last test runs a job on the
// DefaultScheduler, whose partition tracker says what is available, and
// loses a TaskManager.
package c01_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler"
)

// edge is one JobEdge: producer and consumer by name.
type edge struct {
	from, to   string
	pattern    jobgraph.DistributionPattern
	resultType jobgraph.ResultPartitionType
}

var (
	pipelined = jobgraph.PipelinedBounded
	blocking  = jobgraph.Blocking
	allToAll  = jobgraph.AllToAll
	pointwise = jobgraph.Pointwise
)

// job is an ExecutionGraph built from vertices "name:parallelism" and
// edges, with its subtasks by name.
type job struct {
	graph    *executiongraph.ExecutionGraph
	subtasks map[string]*executiongraph.ExecutionVertex
}

func build(t *testing.T, vertices []string, edges ...edge) job {
	t.Helper()
	jg := jobgraph.New("failover")
	byName := make(map[string]*jobgraph.JobVertex)
	for _, v := range vertices {
		name, parallelism, ok := strings.Cut(v, ":")
		require.True(t, ok, "vertex %q", v)
		var p int
		_, err := fmt.Sscan(parallelism, &p)
		require.NoError(t, err, "vertex %q", v)
		byName[name] = jobgraph.NewJobVertex(name, "Invokable", p)
		jg.AddVertex(byName[name])
	}
	for _, e := range edges {
		byName[e.to].ConnectNewDataSetAsInput(byName[e.from], e.pattern, e.resultType)
	}
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	j := job{graph: g, subtasks: make(map[string]*executiongraph.ExecutionVertex)}
	for ev := range g.AllExecutionVertices() {
		j.subtasks[j.name(ev.ID())] = ev
	}
	return j
}

func (j job) name(id api.ExecutionVertexID) string {
	return fmt.Sprintf("%s%d", j.graph.ExecutionVertex(id).JobVertex().Name(), id.SubtaskIndex)
}

// availableFrom is the availability checker under which the results of
// the named subtasks can be read again, and no others.
func (j job) availableFrom(t *testing.T, producers ...string) failover.ResultPartitionAvailabilityChecker {
	t.Helper()
	available := make(map[api.IntermediateResultPartitionID]bool)
	for _, name := range producers {
		ev, ok := j.subtasks[name]
		require.True(t, ok, "no subtask %s", name)
		for _, p := range ev.ProducedPartitions() {
			available[p.ID()] = true
		}
	}
	return func(id api.IntermediateResultPartitionID) bool { return available[id] }
}

// restarts asks the region failover strategy which subtasks restart when
// failed fails, and returns them sorted by name. A body that panics fails
// the test here, and so does a subtask named twice.
func (j job) restarts(t *testing.T, failed string, available failover.ResultPartitionAvailabilityChecker) []string {
	t.Helper()
	ev, ok := j.subtasks[failed]
	require.True(t, ok, "no subtask %s", failed)
	strategy := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.graph.PipelinedRegions(), available, nil)
	var ids []api.ExecutionVertexID
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("computing the tasks to restart must not panic: %v", r)
			}
		}()
		ids = strategy.TasksNeedingRestart(ev.ID(), errors.New("processElement threw"))
	}()
	var names []string
	for _, id := range ids {
		name := j.name(id)
		if slices.Contains(names, name) {
			t.Errorf("%s is among the tasks to restart twice: a region restarts once, however many ways lead to it", name)
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// failure is one row of a table: a failed subtask, the subtasks whose
// results can still be read, and what must restart, and why.
type failure struct {
	name      string
	failed    string
	available []string
	want      string // the subtasks to restart, by name, in any order
	why       string
}

func (j job) check(t *testing.T, tests []failure) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := j.restarts(t, tt.failed, j.availableFrom(t, tt.available...))
			want := strings.Fields(tt.want)
			slices.Sort(want)
			var extra, missing []string
			for _, name := range got {
				if !slices.Contains(want, name) {
					extra = append(extra, name)
				}
			}
			for _, name := range want {
				if !slices.Contains(got, name) {
					missing = append(missing, name)
				}
			}
			if len(extra) > 0 || len(missing) > 0 {
				t.Errorf("%s fails, results of [%s] available: restarts [%s], want [%s]\n"+
					"  restarted, but need not be: [%s]\n  not restarted, but must be: [%s]\n  why: %s",
					tt.failed, strings.Join(tt.available, " "), strings.Join(got, " "), strings.Join(want, " "),
					strings.Join(extra, " "), strings.Join(missing, " "), tt.why)
			}
		})
	}
}

// Forward (POINTWISE, pipelined) edges make one region per subtask index:
// a pipeline restarts as a whole, and the others run on.
func TestAPipelineRestartsAsAWhole(t *testing.T) {
	j := build(t, []string{"A:3", "B:3", "C:3"}, edge{"A", "B", pointwise, pipelined}, edge{"B", "C", pointwise, pipelined})
	j.check(t, []failure{
		{"a middle subtask", "B1", nil, "A1 B1 C1",
			"B1 streams from A1 and to C1: they are one pipelined region, and only that region restarts"},
		{"a source subtask", "A0", nil, "A0 B0 C0",
			"the failed task's region restarts, all of it, and no other"},
		{"a sink subtask", "C2", nil, "A2 B2 C2",
			"the failed task's region restarts, all of it, and no other"},
	})
}

// A pipelined all-to-all edge (a keyBy, a rebalance) joins every subtask
// into one region: region failover restarts the whole job.
func TestAPipelinedAllToAllJobRestartsEverything(t *testing.T) {
	j := build(t, []string{"A:2", "B:3"}, edge{"A", "B", allToAll, pipelined})
	j.check(t, []failure{
		{"a consumer fails", "B2", nil, "A0 A1 B0 B1 B2", "every subtask streams to or from every other: one region"},
		{"a producer fails", "A0", nil, "A0 A1 B0 B1 B2", "every subtask streams to or from every other: one region"},
	})
}

// Blocking edges cut a batch job into regions of one subtask each:
//
//	A (2) ══blocking, all-to-all══► B (2) ══blocking, all-to-all══► C (1)      D (1) alone
//
// A region that restarts produces its results again, so every region that
// reads them restarts too, and every region that reads theirs.
func TestBlockingStagesRestartWhatReadsTheFailedRegion(t *testing.T) {
	j := build(t, []string{"A:2", "B:2", "C:1", "D:1"}, edge{"A", "B", allToAll, blocking}, edge{"B", "C", allToAll, blocking})
	everything := []string{"A0", "A1", "B0", "B1"}
	j.check(t, []failure{
		{"a source subtask: its consumers, and theirs", "A1", everything, "A1 B0 B1 C0",
			"A1 writes its result again, so B0 and B1, which read it, restart; and C0 reads what they write again"},
		{"a middle subtask: its consumers, not its producers", "B0", everything, "B0 C0",
			"B0's input, A's results, can still be read: A keeps its attempt; C0 reads B0's result, which is written again"},
		{"a sink restarts alone", "C0", everything, "C0",
			"C0's inputs can still be read, and nobody reads C0"},
		{"a subtask that exchanges nothing restarts alone", "D0", everything, "D0",
			"D0 is a region of its own, joined to nothing"},
	})
}

// A region that restarts must read its inputs again; an input whose
// result is lost (its TaskManager is gone, or it was never finished) must
// be produced again, by its producer's region, and whatever reads that
// region's results restarts with it.
func TestLostInputsAreProducedAgain(t *testing.T) {
	j := build(t, []string{"A:2", "B:2", "C:1"}, edge{"A", "B", allToAll, blocking}, edge{"B", "C", allToAll, blocking})
	j.check(t, []failure{
		{"every input lost", "B1", []string{"B0", "B1"}, "A0 A1 B0 B1 C0",
			"A's results are lost: A0 and A1 produce them again, so B0 reads them again too; C0 reads B's new results"},
		{"one lost partition of an all-to-all input is enough", "B0", []string{"A0", "B0", "B1"}, "A1 B0 B1 C0",
			"B0 reads A0 and A1: A1's result is lost and A1 restarts; A0's is there, and A0 keeps its attempt; B1 reads A1's new result"},
		{"lost results behind an available input do not matter", "C0", []string{"B0", "B1"}, "C0",
			"C0's input, B's results, can be read: that A's results are lost concerns nobody who restarts"},
	})

	chain := build(t, []string{"A:1", "B:1", "C:1"}, edge{"A", "B", pointwise, blocking}, edge{"B", "C", pointwise, blocking})
	chain.check(t, []failure{
		{"a lost input whose own input is lost", "C0", nil, "A0 B0 C0",
			"C0's input is lost, so B0 restarts; B0's input is lost too, so A0 restarts"},
		{"a lost input whose own input is there", "C0", []string{"A0"}, "B0 C0",
			"B0 restarts to produce C0's input again, and reads A0's result, which is there"},
	})
}

// Regions are reached by several ways; each restarts once, and a region
// reached by a consumer's restart needs its own lost inputs too.
//
//	      ┌══► Y ══┐
//	X ════╡        ╞══► W      every edge blocking, every vertex one subtask
//	      └══► Z ══┘
func TestADiamondRestartsEachRegionOnce(t *testing.T) {
	j := build(t, []string{"X:1", "Y:1", "Z:1", "W:1"},
		edge{"X", "Y", pointwise, blocking}, edge{"X", "Z", pointwise, blocking},
		edge{"Y", "W", pointwise, blocking}, edge{"Z", "W", pointwise, blocking})
	everything := []string{"X0", "Y0", "Z0", "W0"}
	j.check(t, []failure{
		{"the top: W is reached twice and restarts once", "X0", everything, "W0 X0 Y0 Z0",
			"Y0 and Z0 read X0's result; W0 reads both of theirs"},
		{"one side", "Y0", everything, "W0 Y0",
			"W0 reads Y0's result; its other input, Z0's result, can be read again"},
		{"one side, with the other side's result lost", "Y0", []string{"X0", "Y0"}, "W0 Y0 Z0",
			"W0 restarts because it reads Y0; it must read Z0's result again, which is lost, so Z0 restarts too"},
	})
}

// Regions of several subtasks, joined by blocking edges:
//
//	A (2) ─forward─► B (2) ══blocking, all-to-all══► C (2) ─forward─► D (2)
//
// regions {A0 B0}, {A1 B1}, {C0 D0}, {C1 D1}.
func TestRegionsOfPipelinesJoinedByBlockingEdges(t *testing.T) {
	j := build(t, []string{"A:2", "B:2", "C:2", "D:2"},
		edge{"A", "B", pointwise, pipelined}, edge{"B", "C", allToAll, blocking}, edge{"C", "D", pointwise, pipelined})
	j.check(t, []failure{
		{"a sink", "D1", []string{"B0", "B1"}, "C1 D1",
			"D1 restarts with C1, its pipelined partner; their input, B's results, is there"},
		{"a source", "A0", []string{"B0", "B1"}, "A0 B0 C0 C1 D0 D1",
			"A0 restarts with B0; B0's result is written again, and both C regions read it"},
		{"a sink whose input is partly lost", "D1", []string{"B0"}, "A1 B1 C0 C1 D0 D1",
			"C1 reads B1's result, which is lost: the region {A1 B1} restarts, and C0 reads its result too"},
	})
}

// The DefaultScheduler asks the strategy, with its partition tracker as
// the availability checker: the results of a TaskManager that is gone are
// lost. A (2) ══blocking, all-to-all══► B (2): A0 and B0 run on tm-0, A1
// and B1 on tm-1. A has finished, B runs; tm-1 is lost. B1 fails, and
// restarts with A1, whose result was on tm-1, and B0, which reads A1; A0's
// result is on tm-0, and A0 keeps its attempt.
func TestTheSchedulerRestartsWhatYourCodeSays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := scenario.Vertex("A", 2, "default")
		b := scenario.Vertex("B", 2, "default")
		b.ConnectNewDataSetAsInput(a, allToAll, blocking)
		restarts, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: 3, Delay: time.Second})
		require.NoError(t, err)
		s, _ := scenario.StartDefaultScheduler(t, scenario.Job(a, b), scheduler.Config{RestartStrategy: restarts})
		require.NoError(t, s.StartScheduling())
		s.Offer("tm-0", 1) // A0's slot
		s.Offer("tm-1", 1) // A1's
		synctest.Wait()
		require.ElementsMatch(t, []string{"A/0#0", "A/1#0"}, scenario.Names(s.Deployed(0)))
		require.NoError(t, s.Run(s.Deployed(0)...))
		require.NoError(t, s.Finish(s.Deployed(0)...))
		synctest.Wait()
		require.ElementsMatch(t, []string{"B/0#0", "B/1#0"}, scenario.Names(s.Deployed(2)), "B runs once A has finished")
		for _, tdd := range s.Deployed(0) {
			require.Equal(t, fmt.Sprintf("tm-%d", tdd.SubtaskIndex()), string(s.TaskManagerOf(tdd)), "%s runs on tm-%d", scenario.Name(tdd), tdd.SubtaskIndex())
		}
		require.NoError(t, s.Run(s.Deployed(2)...))

		require.NoError(t, s.LoseTaskManager("tm-1"), "losing a TaskManager must not panic the JobMaster's main thread")
		synctest.Wait()
		restartLines := regexp.MustCompile(`msg="(\d+) tasks will be restarted to recover the failed task`).FindAllStringSubmatch(s.Logs.String(), -1)
		require.Len(t, restartLines, 1, "B1 fails with tm-1, and the job restarts once")
		assert.Equal(t, "3", restartLines[0][1], `the number in "N tasks will be restarted": B1, A1 (its result was on tm-1) and B0 (it reads A1)`)
		b0, _ := s.Latest("B", 0)
		assert.Equal(t, []api.ExecutionAttemptID{b0.ExecutionAttemptID}, s.Cancelled(), "B0 is cancelled, to restart with A1")
		require.NoError(t, s.Report(b0, api.ExecutionCanceled, nil))
		time.Sleep(time.Second) // the restart delay
		synctest.Wait()
		attempts := map[string]int{}
		for _, v := range s.Job().Vertices {
			for _, st := range v.Subtasks {
				attempts[fmt.Sprintf("%s%d", v.Name, st.SubtaskIndex)] = st.AttemptNumber
			}
		}
		assert.Equal(t, map[string]int{"A0": 0, "A1": 1, "B0": 1, "B1": 1}, attempts,
			"new attempts for A1, B0 and B1; A0's result is still on tm-0")
	})
}
