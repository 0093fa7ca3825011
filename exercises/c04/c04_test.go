// Exercise c04: the parallelism for the slots there are.
//
// Most tests are a table: the vertices of a job, each with its slot
// sharing group and the bounds of its parallelism [lower, upper], and a
// number of free slots; they ask adaptive.DetermineParallelism what each
// vertex runs with, or whether the slots are too few. The last test runs
// a real AdaptiveScheduler (scenario.StartAdaptiveScheduler) with two slot
// sharing groups and reads the parallelism the job runs with.
package c04_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler/adaptive"
)

// vertex is "name group [lower, upper]".
type vertex struct {
	name, group  string
	lower, upper int
}

// decide asks DetermineParallelism and returns "name=p" per vertex, in
// order, or "too few slots"; a body that panics fails the test here.
func decide(t *testing.T, vertices []vertex, free int) string {
	t.Helper()
	info := make([]adaptive.VertexInformation, len(vertices))
	for i, v := range vertices {
		info[i] = adaptive.VertexInformation{JobVertexID: api.NewJobVertexID(), SlotSharingGroup: v.group, LowerBound: v.lower, UpperBound: v.upper}
	}
	var parallelism map[api.JobVertexID]int
	var ok bool
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("deciding the parallelism must not panic: %v", r)
			}
		}()
		parallelism, ok = adaptive.DetermineParallelism(info, free)
	}()
	if !ok {
		return "too few slots"
	}
	var out []string
	for i, v := range vertices {
		out = append(out, fmt.Sprintf("%s=%d", v.name, parallelism[info[i].JobVertexID]))
	}
	return strings.Join(out, " ")
}

type decision struct {
	name     string
	vertices []vertex
	free     int
	want     string
	why      string
}

func check(t *testing.T, tests []decision) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bounds []string
			for _, v := range tt.vertices {
				bounds = append(bounds, fmt.Sprintf("%s in %q [%d, %d]", v.name, v.group, v.lower, v.upper))
			}
			assert.Equal(t, tt.want, decide(t, tt.vertices, tt.free), "%d free slots for %s: %s",
				tt.free, strings.Join(bounds, ", "), tt.why)
		})
	}
}

// One slot sharing group: a slot holds one subtask of each vertex, so the
// group runs as wide as it has slots, and each vertex as wide as the
// group, up to its own upper bound.
func TestOneSlotSharingGroup(t *testing.T) {
	source, sink := vertex{"source", "default", 1, 4}, vertex{"sink", "default", 1, 2}
	job := []vertex{source, sink}
	check(t, []decision{
		{"the slots it wants", job, 4, "source=4 sink=2",
			"4 slots for the group; the sink runs no wider than its upper bound, 2"},
		{"more slots change nothing", job, 9, "source=4 sink=2",
			"no vertex runs wider than its upper bound"},
		{"fewer slots", job, 2, "source=2 sink=2",
			"2 slots: the group runs 2 wide"},
		{"exactly the minimum", job, 1, "source=1 sink=1",
			"every lower bound is 1, and one slot holds a subtask of each: 1 slot is enough"},
		{"no slot", job, 0, "too few slots",
			"below the minimum, 1 slot, the job cannot run"},
	})
	wide := []vertex{{"source", "default", 3, 4}, {"sink", "default", 2, 4}}
	check(t, []decision{
		{"the minimum is the widest lower bound", wide, 3, "source=3 sink=3",
			"a slot holds one subtask of each vertex: the group needs 3 slots, the widest lower bound, not 3 + 2"},
		{"below the widest lower bound", wide, 2, "too few slots",
			"the source needs 3 subtasks, so the group 3 slots"},
	})
}

// Two slot sharing groups need slots side by side. Each gets its minimum
// first; the slots left over are shared out evenly, and what a group
// cannot use goes to the groups after it.
func TestTwoGroupsShareTheSpareSlots(t *testing.T) {
	job := []vertex{{"source", "a", 1, 4}, {"enrich", "b", 2, 8}}
	check(t, []decision{
		{"the sum of the minimums", job, 3, "source=1 enrich=2",
			"group a needs 1 slot, group b 2: 3 slots run the job at its minimum"},
		{"below the sum of the minimums", job, 2, "too few slots",
			"the groups need 1 + 2 slots side by side"},
		{"the spare slots evenly", job, 10, "source=4 enrich=6",
			"3 slots are the minimums; a has the narrower range (3, against 6) and goes first: " +
				"half of the 7 spare slots, 3, makes it 1 + 3 = 4; b gets the 4 left, 2 + 4 = 6"},
		{"a group that needs less leaves the rest to the others", job, 12, "source=4 enrich=8",
			"a takes 3 of its half of the 9 spare slots, no more than its upper bound; b gets the other 6, 2 + 6 = 8"},
	})
}

// The group with the narrowest range goes first: it gives back what it
// cannot use, and the wider groups after it take it. Going in another
// order leaves slots unused, or gives them elsewhere.
func TestTheNarrowestRangeGoesFirst(t *testing.T) {
	check(t, []decision{
		{"the wide group declared first", []vertex{{"source", "wide", 1, 8}, {"sink", "narrow", 1, 2}}, 6, "source=4 sink=2",
			"narrow (range 1) goes first: 1 + min(1, 4/2) = 2; wide gets the 4 slots left. " +
				"Wide first would take 1 + 4/2 = 3, leave narrow its 2, and one slot unused"},
		{"the narrow group declared first", []vertex{{"sink", "narrow", 1, 2}, {"source", "wide", 1, 8}}, 6, "sink=2 source=4",
			"the same job, declared the other way round: the order of the ranges decides, not the order of the vertices"},
		{"by range, not by upper bound", []vertex{{"state", "big", 6, 8}, {"parse", "small", 1, 4}}, 10, "state=7 parse=3",
			"big's range is 2, small's 3: big goes first and takes 6 + half of the 3 spare slots, 1; small gets 1 + 2"},
	})
}

// The share is rounded down: what is left over after the division goes to
// the groups that come later, the wider ones.
func TestTheRemainderGoesToTheWiderGroups(t *testing.T) {
	check(t, []decision{
		{"an odd number of spare slots", []vertex{{"left", "l", 1, 8}, {"right", "r", 1, 9}}, 7, "left=3 right=4",
			"5 spare slots: l (range 7) takes 5/2 = 2, r (range 8) the 3 left"},
		{"a minimum above 1", []vertex{{"keyed", "k", 3, 4}, {"free", "f", 1, 9}}, 6, "keyed=4 free=2",
			"k needs 3, f 1: 2 spare slots; k goes first and takes its 3 + min(1, 2/2); f gets 1 + the one left. " +
				"Sharing all 6 slots evenly would give k 3 and f 3"},
	})
}

// Three groups, each with its own range.
func TestThreeGroups(t *testing.T) {
	job := []vertex{{"source", "s", 1, 2}, {"window", "w", 2, 12}, {"sink", "k", 1, 3}}
	check(t, []decision{
		{"a share each, in the order of the ranges", job, 11, "source=2 window=6 sink=3",
			"minimums 1 + 2 + 1 = 4, so 7 spare. s (range 1) first: 1 + min(1, 7/3) = 2; " +
				"k (range 2): 1 + min(2, 6/2) = 3; w last: the 6 slots left, its 2 and 4 spare"},
	})
}

// The AdaptiveScheduler runs the job with the parallelism you decide:
//
//	Source [1, 8], group "sources" ─► Sink [1, 2], group "sinks"
//
// It wants 10 slots and gets 6; after the stabilization timeout it runs
// with them.
func TestTheSchedulerRunsWithTheParallelismYouDecide(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		source := scenario.Vertex("Source", 8, "sources")
		sink := scenario.Vertex("Sink", 2, "sinks")
		sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
		s, a := scenario.StartAdaptiveScheduler(t, scenario.Job(source, sink), adaptive.Config{Settings: adaptive.DefaultSettings()})
		require.NoError(t, s.StartScheduling())
		synctest.Wait()
		s.Offer("tm-0", 6)
		time.Sleep(10 * time.Second) // resource-stabilization-timeout
		synctest.Wait()
		require.Empty(t, s.Panics(), "deciding the parallelism must not panic the JobMaster's main thread")
		var state string
		require.NoError(t, s.OnMain(func() { state = a.State() }))
		require.Equal(t, "Executing", state, "6 slots are sufficient: the job runs once they have been stable")
		var got []string
		for _, v := range s.Job().Vertices {
			got = append(got, fmt.Sprintf("%s=%d", v.Name, v.Parallelism))
		}
		assert.Equal(t, "Source=4 Sink=2", strings.Join(got, " "),
			"sinks (range 1) first: 2 slots; sources get the other 4, and every slot is used")
		assert.Len(t, s.Deployed(0), 6, "4 sources and 2 sinks, each in a slot of its group")
	})
}
