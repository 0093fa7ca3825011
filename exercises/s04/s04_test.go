// Exercise s04: co-location, subtask i of co-located vertices in one slot.
//
// Each test builds a JobGraph, from vertices by name and parallelism or by
// planning the sharing program, and asks the scheduler for the shared
// slots it would request (scheduler.SharedSlots). A shared slot is written
// "default[2]: A2 B1": its slot sharing group, its place among that
// group's shared slots, and the subtasks in it (job vertex and subtask
// index), in the order they were placed. Vertices are placed sources
// first, so a co-located vertex that is a source is placed before the
// vertices co-located with it that read something.
package s04_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/sharing"
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
	sharedSlots = scenario.SharedSlots
)

// coLocate puts the vertices into one co-location group.
func coLocate(group string, vertices ...*jobgraph.JobVertex) {
	for _, v := range vertices {
		v.CoLocationGroup = group
	}
}

// B reads A RESCALE 4 → 2: B1 reads A2 and A3, and by its input alone runs
// in A2's slot, the first of its candidates. C is a source, placed before
// B in the first free slots. With B and C co-located, subtask i of B must
// run where subtask i of C runs: B1 goes to C1's slot, against its input.
func TestACoLocatedSubtaskRunsWhereItsPartnerRuns(t *testing.T) {
	tests := []struct {
		name      string
		coLocated bool
		want      []string
		reason    string
	}{
		{"not co-located: B follows its input", false,
			[]string{"default[0]: A0 C0 B0", "default[1]: A1 C1", "default[2]: A2 B1", "default[3]: A3"},
			"without co-location, B1 runs with A2, the first of the producers it reads"},
		{"co-located: B1 goes where C1 is", true,
			[]string{"default[0]: A0 C0 B0", "default[1]: A1 C1 B1", "default[2]: A2", "default[3]: A3"},
			"B and C are co-located: B1 must run in C1's slot, whatever it reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, c, b := vertex("A", 4, "default"), vertex("C", 2, "default"), vertex("B", 2, "default")
			if tt.coLocated {
				coLocate("b-and-c", b, c)
			}
			connect(a, b, pointwise)
			assert.Equal(t, tt.want, sharedSlots(t, job(a, c, b)), tt.reason)
		})
	}
}

// P, X and Z are co-located. P is a source and takes the first free slots;
// X and Z both read A RESCALE 4 → 2, so by their input their subtask 1
// would run in A2's slot. Co-located, subtask i of all three runs in one
// slot: P1's.
func TestCoLocationAcrossThreeVertices(t *testing.T) {
	a, p := vertex("A", 4, "default"), vertex("P", 2, "default")
	x, z := vertex("X", 2, "default"), vertex("Z", 2, "default")
	coLocate("p-x-z", p, x, z)
	connect(a, x, pointwise)
	connect(a, z, pointwise)
	assert.Equal(t, []string{"default[0]: A0 P0 X0 Z0", "default[1]: A1 P1 X1 Z1", "default[2]: A2", "default[3]: A3"},
		sharedSlots(t, job(a, p, x, z)), "subtask i of P, X and Z must run in one slot, the one P's subtask i took")
}

// Co-located vertices need not have the same parallelism. Subtask i follows
// subtask i of the vertices of its co-location group placed before it; a
// subtask whose index no earlier vertex of the group has is placed by the
// other rules: with a producer it reads, else in the first free slot.
func TestCoLocatedVerticesOfDifferentParallelism(t *testing.T) {
	t.Run("fewer subtasks than the partner: each follows its partner", func(t *testing.T) {
		// C reads A POINTWISE 2 → 4: C0 and C2 run with A0 and A1; C1 and
		// C3 find the one candidate they share with C0 and C2 tried
		// already, and no slot without a C: new slots. B reads A ALL_TO_ALL and by its
		// input would run in slots 0 and 1; co-located with C, B1 runs
		// where C1 is.
		a, c, b := vertex("A", 2, "default"), vertex("C", 4, "default"), vertex("B", 2, "default")
		coLocate("b-and-c", b, c)
		connect(a, c, pointwise)
		connect(a, b, allToAll)
		assert.Equal(t, []string{"default[0]: A0 C0 B0", "default[1]: A1 C2", "default[2]: C1 B1", "default[3]: C3"},
			sharedSlots(t, job(a, c, b)), "B1 must run in the slot of C1, which is slot 2, not slot 1")
	})
	t.Run("more subtasks than the partner: the others are placed by the other rules", func(t *testing.T) {
		// C reads A RESCALE 4 → 2: C0 and C1 run with A0 and A2. B
		// reads A ALL_TO_ALL; B0 and B1 follow C0 and C1, and take none
		// of B's candidates, the slots of A0 to A3. C has no subtask 2:
		// B2 tries the candidates in turn, passes over A0's slot, which
		// runs B0, and takes A1's.
		a, c, b := vertex("A", 4, "default"), vertex("C", 2, "default"), vertex("B", 3, "default")
		coLocate("b-and-c", b, c)
		connect(a, c, pointwise)
		connect(a, b, allToAll)
		assert.Equal(t, []string{"default[0]: A0 C0 B0", "default[1]: A1 B2", "default[2]: A2 C1 B1", "default[3]: A3"},
			sharedSlots(t, job(a, c, b)), "B1 runs with C1; B2 has no partner and takes the first of its candidates without a B, A1's slot")
	})
}

// A co-location group changes where its own vertices run, and nothing
// else. D reads A RESCALE 4 → 2 and is co-located with nothing: D1 runs
// with A2, as slot sharing alone decides. E, in slot sharing group "sink",
// shares no slot of "default" though its subtasks have the same indices.
func TestVerticesWithoutCoLocationAreUnaffected(t *testing.T) {
	a, c, b := vertex("A", 4, "default"), vertex("C", 2, "default"), vertex("B", 2, "default")
	d, e := vertex("D", 2, "default"), vertex("E", 2, "sink")
	coLocate("b-and-c", b, c)
	connect(a, b, pointwise)
	connect(a, d, pointwise)
	connect(d, e, pointwise)
	assert.Equal(t, []string{
		"default[0]: A0 C0 B0 D0", "default[1]: A1 C1 B1", "default[2]: A2 D1", "default[3]: A3",
		"sink[0]: E0", "sink[1]: E1",
	}, sharedSlots(t, job(a, c, b, d, e)), "D and E are in no co-location group: where they run is decided by slot sharing alone")
}

// planSharing plans the sharing program at parallelism 2.
func planSharing(t *testing.T) *jobgraph.JobGraph {
	t.Helper()
	g, err := streaming.PlanProgram(sharing.ProgramClass, []string{"--output", sharing.OutputCollect}, 2)
	require.NoError(t, err)
	jg, err := g.JobGraph()
	require.NoError(t, err)
	return jg
}

// The sharing program co-locates count and format (format reads count
// FORWARD). At parallelism 2 it needs 2 slots of "default" for its source
// and 2 of "counting", each running count i and format i.
func TestTheSharingProgramsCountAndFormatShareASlot(t *testing.T) {
	jg := planSharing(t)
	assert.Equal(t, []string{
		"counting[0]: count0 format -> Sink: collect-sink0",
		"counting[1]: count1 format -> Sink: collect-sink1",
		"default[0]: Source: lines -> tokenize0",
		"default[1]: Source: lines -> tokenize1",
	}, sharedSlots(t, jg), "count i and format i are co-located: one shared slot of \"counting\" each")
}

// deploying matches the JobMaster's line for each deployment (step m9):
// the task, and the slot it goes to.
var deploying = regexp.MustCompile(`Deploying (.+?) \(attempt #\d+\) with attempt id \S+ and vertex id \S+ to .+? with allocation id ([0-9a-f]+)`)

// The sharing program runs on a MiniCluster with the 4 slots it needs, and
// count i and format i are deployed into one slot (one allocation ID).
func TestTheSharingProgramRunsItsCoLocatedSubtasksInOneSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jg := planSharing(t)
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 4})
		sharing.Results.Clear()
		defer sharing.Results.Clear()

		var jar bytes.Buffer
		require.NoError(t, client.WriteJar(&jar, sharing.ProgramClass, nil))
		require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus,
			"sharing at parallelism 2 needs 4 slots, and the cluster has 4; the job must finish: %s", result.FailureCause)

		slotOf := make(map[string]string) // task → the allocation ID it was deployed into
		for _, m := range deploying.FindAllStringSubmatch(logs.String(), -1) {
			slotOf[m[1]] = m[2]
		}
		require.Len(t, slotOf, 6, "six tasks deployed: tokenize, count and format, two subtasks each")
		for i := 1; i <= 2; i++ {
			count, format := fmt.Sprintf("count (%d/2)", i), fmt.Sprintf("format -> Sink: collect-sink (%d/2)", i)
			assert.Equal(t, slotOf[count], slotOf[format], "%s and %s are co-located: they must be deployed into one slot", count, format)
		}
		assert.NotEqual(t, slotOf["count (1/2)"], slotOf["count (2/2)"], "the two subtasks of count run in two slots")
	})
}
