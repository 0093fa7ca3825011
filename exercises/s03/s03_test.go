// Exercise s03: which subtasks share which slot.
//
// Each test builds a JobGraph, from vertices by name and parallelism or by
// planning a real program, and asks the scheduler for the shared slots it
// would request (scheduler.SharedSlots): one slot request per shared slot,
// and every subtask of the job in exactly one of them. A shared slot is
// written "default[2]: A2 B1": its slot sharing group, its place among
// that group's shared slots, and the subtasks in it (job vertex and
// subtask index), in the order they were placed. The last test runs a
// program on a MiniCluster and reads, from the JobMaster's "Deploying …
// with allocation id …" lines, which subtasks really ran in one slot.
package s03_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// The JobGraph builders and the plan of shared slots are the scenario
// package's, shared with the other slot sharing exercise.
var (
	pointwise   = scenario.Pointwise
	allToAll    = scenario.AllToAll
	vertex      = scenario.Vertex
	connect     = scenario.Connect
	job         = scenario.Job
	plan        = scenario.PlanSharedSlots
	sharedSlots = scenario.SharedSlots
)

// A FORWARD edge: subtask i reads only subtask i of its producer, and runs
// in its slot. Three JobVertices at parallelism 3 need three slots.
func TestAForwardConsumerRunsInItsProducersSlot(t *testing.T) {
	a, b, c := vertex("A", 3, "default"), vertex("B", 3, "default"), vertex("C", 3, "default")
	connect(a, b, pointwise)
	connect(b, c, pointwise)
	assert.Equal(t, []string{"default[0]: A0 B0 C0", "default[1]: A1 B1 C1", "default[2]: A2 B2 C2"},
		sharedSlots(t, job(a, b, c)), "subtask i of a forward chain of JobVertices runs with subtask i of its producer")
}

// An ALL_TO_ALL edge: every consumer reads every producer, through one
// ConsumedPartitionGroup that all of them share. Its candidates are the
// slots of its producers, in partition order, A0's first, and the
// consumers take them in turn: each tries the first candidate no consumer
// has tried yet. A consumer that finds the candidates used up takes the
// first slot that runs no subtask of its JobVertex, and a new slot when
// there is none.
func TestAllToAllConsumersTakeTheProducersSlotsInTurn(t *testing.T) {
	tests := []struct {
		name   string
		a, b   int
		want   []string
		reason string
	}{
		{"2 → 3: a third slot for B2", 2, 3,
			[]string{"default[0]: A0 B0", "default[1]: A1 B1", "default[2]: B2"},
			"B0 takes A0's slot, the first candidate, and B1 the next one, A1's; B2 finds the candidates used up and no slot without a B, and needs a new one"},
		{"3 → 2: A2's slot runs no B", 3, 2,
			[]string{"default[0]: A0 B0", "default[1]: A1 B1", "default[2]: A2"},
			"B0 takes A0's slot, the first candidate, and B1 the next one, A1's, not a new slot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := vertex("A", tt.a, "default"), vertex("B", tt.b, "default")
			connect(a, b, allToAll)
			assert.Equal(t, tt.want, sharedSlots(t, job(a, b)), tt.reason)
		})
	}
}

// The candidates are the producers' slots, not the first free ones. A
// reads P RESCALE 4 → 2, so A0 runs in slot 0 and A1 in slot 2. B reads A
// ALL_TO_ALL: its candidates are A0's slot, then A1's. B0 takes slot 0 and
// B1 slot 2, where A1 writes, though slot 1 runs no B either (a consumer
// that looked at the producer of the first partition only, A0, would find
// it taken by B0 and fall back to slot 1). B2 finds both candidates tried
// and takes the first slot without a B, slot 1.
func TestAllToAllConsumersRunWithEachProducerBeforeAFreeSlot(t *testing.T) {
	p, a, b := vertex("P", 4, "default"), vertex("A", 2, "default"), vertex("B", 3, "default")
	connect(p, a, pointwise)
	connect(a, b, allToAll)
	assert.Equal(t, []string{"default[0]: P0 A0 B0", "default[1]: P1 B2", "default[2]: P2 A1 B1", "default[3]: P3"},
		sharedSlots(t, job(p, a, b)),
		"B1 takes the next candidate, A1's slot (slot 2); only B2, with the candidates used up, takes the first free slot, slot 1")
}

// RESCALE 4 → 2 (POINTWISE): B0 reads A0 and A1, B1 reads A2 and A3
// (executiongraph.EdgeManagerBuildUtil), each through a
// ConsumedPartitionGroup of its own. B1's candidates are the slots of A2
// and A3, in that order: it runs in A2's slot, not in slot 1, which would
// make all its input remote.
func TestARescaleConsumerRunsInTheSlotOfAProducerItReads(t *testing.T) {
	a, b := vertex("A", 4, "default"), vertex("B", 2, "default")
	connect(a, b, pointwise)
	assert.Equal(t, []string{"default[0]: A0 B0", "default[1]: A1", "default[2]: A2 B1", "default[3]: A3"},
		sharedSlots(t, job(a, b)), "B1 reads A2 and A3, so it runs in A2's slot")
}

// POINTWISE 2 → 4: B0 and B1 read A0, B2 and B3 read A1, each pair
// through one ConsumedPartitionGroup. B0 takes A0's slot, the only
// candidate of its group, and B2 A1's. B1 and B3 find their group's
// candidate tried already; they are placed only after every B that has a
// producer's slot has taken it, so B1 cannot take A1's slot from B2. No
// slot is left without a B: two new slots.
func TestMoreConsumersThanProducersNeedNewSlots(t *testing.T) {
	a, b := vertex("A", 2, "default"), vertex("B", 4, "default")
	connect(a, b, pointwise)
	assert.Equal(t, []string{"default[0]: A0 B0", "default[1]: A1 B2", "default[2]: B1", "default[3]: B3"},
		sharedSlots(t, job(a, b)),
		"B2 reads A1 and runs in its slot; B1, which reads A0, must not take that slot before B2 has had its turn")
}

// Slots are shared within a slot sharing group only: the scheduler requests
// the slots of each group apart, with the group's resources. B reads A
// FORWARD, but A and B are in different groups, so B never runs in A's
// slot; C, back in "default", reads B and finds no slot of its group by
// its input, so it takes the first free one of "default".
func TestDifferentSlotSharingGroupsNeverShareASlot(t *testing.T) {
	a, b, c := vertex("A", 2, "default"), vertex("B", 2, "sink"), vertex("C", 2, "default")
	connect(a, b, pointwise)
	connect(b, c, pointwise)
	assert.Equal(t, []string{"default[0]: A0 C0", "default[1]: A1 C1", "sink[0]: B0", "sink[1]: B1"},
		sharedSlots(t, job(a, b, c)), `B is in "sink": none of its subtasks runs in a slot of "default", nor C's in one of "sink"`)
}

// C reads two inputs: first X, in slot sharing group "side", then B,
// RESCALE 4 → 2. X's slots are no candidates for C: they are not in its
// group. B's are: C1 reads B2 and B3 and runs in B2's slot.
func TestAConsumerOfTwoInputsRunsWithTheProducerInItsGroup(t *testing.T) {
	b, x, c := vertex("B", 4, "default"), vertex("X", 2, "side"), vertex("C", 2, "default")
	connect(x, c, pointwise)
	connect(b, c, pointwise)
	assert.Equal(t, []string{"default[0]: B0 C0", "default[1]: B1", "default[2]: B2 C1", "default[3]: B3", "side[0]: X0", "side[1]: X1"},
		sharedSlots(t, job(b, x, c)),
		`C's first input comes from "side", another group: C1 runs with the producer of its second input, B2`)
}

// C reads A ALL_TO_ALL, then B RESCALE 4 → 2, all in one group. C0 takes
// A0's slot, the only candidate of its first input. C1 finds that
// candidate tried already, so it tries its next input: it reads B2 and B3,
// and runs in B2's slot.
func TestAConsumerTriesEachInputInTurn(t *testing.T) {
	a, b, c := vertex("A", 1, "default"), vertex("B", 4, "default"), vertex("C", 2, "default")
	connect(a, c, allToAll)
	connect(b, c, pointwise)
	assert.Equal(t, []string{"default[0]: A0 B0 C0", "default[1]: B1", "default[2]: B2 C1", "default[3]: B3"},
		sharedSlots(t, job(a, b, c)),
		"A0's slot runs C0 already: C1 runs with the producer of its second input, B2")
}

// C reads A (2) ALL_TO_ALL, then B (3) ALL_TO_ALL. C0 and C1 take the
// candidates of their first input, A0's and A1's slots, which run B0 and
// B1 too. C2 finds them used up and tries its second input: the candidates
// of B's group are slots 0, 1 and 2, and the first two run a C already. A
// candidate is a place only if it runs no subtask of the consumer's
// JobVertex: C2 passes over them to slot 2.
func TestACandidateThatRunsASiblingIsPassedOver(t *testing.T) {
	a, b, c := vertex("A", 2, "default"), vertex("B", 3, "default"), vertex("C", 3, "default")
	connect(a, c, allToAll)
	connect(b, c, allToAll)
	assert.Equal(t, []string{"default[0]: A0 B0 C0", "default[1]: A1 B1 C1", "default[2]: B2 C2"},
		sharedSlots(t, job(a, b, c)),
		"B0's and B1's slots run C0 and C1 already: C2 runs with B2, the first candidate of its second input without a C")
}

// A JobVertex without a slot sharing group shares its slots with no other
// JobVertex (Flink gives it a SlotSharingGroup of its own): each of its
// subtasks needs a slot.
func TestAVertexWithoutASlotSharingGroupRunsAlone(t *testing.T) {
	a, b := vertex("A", 2, ""), vertex("B", 2, "")
	connect(a, b, pointwise)
	slots := sharedSlots(t, job(a, b))
	assert.ElementsMatch(t, []string{"none[0]: A0", "none[1]: A1", "none[0]: B0", "none[1]: B1"}, slots,
		"A and B have no slot sharing group: neither shares a slot with the other, FORWARD edge or not")
}

// The example programs: each slot sharing group needs as many shared slots
// as its largest parallelism (jobgraph.JobGraph.SlotsNeeded), which is
// what slot sharing is for: a job at parallelism 4 runs on 4 slots however
// many JobVertices it has.
func TestTheExampleProgramsNeedTheLargestParallelismOfEachGroup(t *testing.T) {
	tests := []struct {
		program     string
		parallelism int
		want        map[string]int
	}{
		{wordcount.ProgramClass, 2, map[string]int{"default": 2}},
		{wordcount.ProgramClass, 4, map[string]int{"default": 4}},
		{shapes.ChainsProgramClass, 2, map[string]int{"default": 2, "output": 2}},
		{shapes.FanOutProgramClass, 2, map[string]int{"default": 4}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s at parallelism %d", tt.program, tt.parallelism), func(t *testing.T) {
			jg := planProgram(t, tt.program, tt.parallelism)
			_, needed := jg.SlotsNeeded()
			require.Equal(t, tt.want, needed, "the program's slot sharing groups and their largest parallelism")
			_, slots := plan(t, jg)
			got := make(map[string]int)
			for _, slot := range slots {
				got[slot.SlotSharingGroup]++
			}
			assert.Equal(t, tt.want, got, "shared slots per slot sharing group: one per subtask of its largest JobVertex, no more")
		})
	}
}

// fanOutSlots are the shared slots of the fanout program at parallelism 2,
// each subtask as its task name. readings (4) takes four slots and
// late-readings (3) the first three. compact reads readings RESCALE 4 → 2:
// compact (2/2) reads readings 3 and 4, and runs in slot 3. widen reads
// compact 2 → 4: widen (1/4) and (3/4) follow compact, (2/4) and (4/4) find
// their candidate tried and take the free slots 2 and 4. audit reads widen
// ALL_TO_ALL, then late-readings FORWARD: the candidates of its first input
// are widen's slots in partition order, 1, 2, 3 and 4, and audit (i/3)
// takes the i-th.
var fanOutSlots = [][]string{
	{"Source: readings (1/4)", "Source: late-readings (1/3)", "compact (1/2)", "widen (1/4)", "audit -> Sink: collect-sink (1/3)"},
	{"Source: readings (2/4)", "Source: late-readings (2/3)", "widen (2/4)", "audit -> Sink: collect-sink (2/3)"},
	{"Source: readings (3/4)", "Source: late-readings (3/3)", "compact (2/2)", "widen (3/4)", "audit -> Sink: collect-sink (3/3)"},
	{"Source: readings (4/4)", "widen (4/4)"},
}

func TestTheFanOutProgramsSubtasksRunWithWhatTheyRead(t *testing.T) {
	jg := planProgram(t, shapes.FanOutProgramClass, 2, "--output", shapes.OutputCollect)
	graph, slots := plan(t, jg)
	var got [][]string
	for _, slot := range slots {
		var names []string
		for _, id := range slot.Vertices {
			names = append(names, graph.ExecutionVertex(id).TaskNameWithSubtaskIndex())
		}
		got = append(got, names)
	}
	assert.Equal(t, fanOutSlots, got, "the shared slots of fanout at parallelism 2, in the order the scheduler requests them")
}

// planProgram plans an example program into its JobGraph.
func planProgram(t *testing.T, program string, parallelism int, args ...string) *jobgraph.JobGraph {
	t.Helper()
	g, err := streaming.PlanProgram(program, args, parallelism)
	require.NoError(t, err)
	jg, err := g.JobGraph()
	require.NoError(t, err)
	return jg
}

// deploying matches the JobMaster's line for each deployment (step m9):
// the task, and the slot it goes to.
var deploying = regexp.MustCompile(`Deploying (.+?) \(attempt #\d+\) with attempt id \S+ and vertex id \S+ to .+? with allocation id ([0-9a-f]+)`)

// The shared slots are what really runs together: fanout at parallelism 2
// runs on a MiniCluster of exactly the 4 slots it needs, and the
// JobMaster deploys the subtasks of each shared slot into one slot (one
// allocation), the subtasks of different shared slots into different ones.
func TestTheJobRunsInItsSharedSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jg := planProgram(t, shapes.FanOutProgramClass, 2, "--output", shapes.OutputCollect)
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 4})
		shapes.Results.Clear()
		defer shapes.Results.Clear()

		var jar bytes.Buffer
		require.NoError(t, client.WriteJar(&jar, shapes.FanOutProgramClass, nil))
		require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus,
			"fanout at parallelism 2 needs 4 slots, one per subtask of its largest JobVertex, and the cluster has 4; the job must finish: %s", result.FailureCause)

		slotOf := make(map[string][]string) // allocation ID → tasks deployed into it
		var allocations []string
		for _, m := range deploying.FindAllStringSubmatch(logs.String(), -1) {
			task, allocation := m[1], m[2]
			if _, seen := slotOf[allocation]; !seen {
				allocations = append(allocations, allocation)
			}
			slotOf[allocation] = append(slotOf[allocation], task)
		}
		var got [][]string
		for _, allocation := range allocations {
			got = append(got, slotOf[allocation])
		}
		var want [][]string
		for _, tasks := range fanOutSlots {
			want = append(want, slices.Clone(tasks))
		}
		for _, slots := range [][][]string{got, want} {
			for _, tasks := range slots {
				slices.Sort(tasks)
			}
			slices.SortFunc(slots, func(a, b []string) int { return slices.Compare(a, b) })
		}
		assert.Equal(t, want, got, "the tasks deployed into each slot (one allocation ID each)")
	})
}
