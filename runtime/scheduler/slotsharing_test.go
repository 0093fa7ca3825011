package scheduler

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
)

// sharedSlots builds the ExecutionGraph of g and returns its shared slots
// as "group[index]: A0 B0 ..." lines, sorted, a vertex named by its
// JobVertex's name and subtask index.
func sharedSlots(t *testing.T, g *jobgraph.JobGraph) []string {
	t.Helper()
	graph, err := executiongraph.BuildGraph(g)
	require.NoError(t, err)
	groups := buildExecutionSlotSharingGroups(graph)
	seen := make(map[*executionSlotSharingGroup]bool)
	var lines []string
	for _, ejv := range graph.VerticesTopologically() {
		for _, ev := range ejv.TaskVertices() {
			group := groups[ev.ID()]
			require.NotNil(t, group, "every vertex has a shared slot: %s", ev.TaskNameWithSubtaskIndex())
			if seen[group] {
				continue
			}
			seen[group] = true
			var names []string
			for _, id := range group.vertices {
				member := graph.ExecutionVertex(id)
				names = append(names, fmt.Sprintf("%s%d", member.JobVertex().Name(), member.SubtaskIndex()))
			}
			lines = append(lines, fmt.Sprintf("%s[%d]: %s", group.slotSharingGroup, group.index, strings.Join(names, " ")))
		}
	}
	slices.Sort(lines)
	return lines
}

func vertex(name string, parallelism int, group string) *jobgraph.JobVertex {
	v := jobgraph.NewJobVertex(name, "test."+name, parallelism)
	v.SlotSharingGroup = group
	return v
}

func TestAConsumerSharesTheSlotOfItsForwardProducer(t *testing.T) {
	g := jobgraph.New("forward")
	a, b := vertex("A", 3, "default"), vertex("B", 3, "default")
	b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	assert.Equal(t, []string{"default[0]: A0 B0", "default[1]: A1 B1", "default[2]: A2 B2"}, sharedSlots(t, g))
}

func TestAllToAllConsumersTakeTheProducersSlotsInTurn(t *testing.T) {
	g := jobgraph.New("all-to-all")
	a, b := vertex("A", 2, "default"), vertex("B", 3, "default")
	b.ConnectNewDataSetAsInput(a, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	// Every B reads both partitions: one ConsumedPartitionGroup, whose
	// producers' slots the Bs try in turn. B0 joins A0's slot, B1 A1's;
	// for B2 no producer's slot is left, and no free slot: a new one.
	assert.Equal(t, []string{"default[0]: A0 B0", "default[1]: A1 B1", "default[2]: B2"}, sharedSlots(t, g))
}

func TestARescaleConsumerJoinsTheSlotOfTheProducerItReads(t *testing.T) {
	g := jobgraph.New("rescale")
	a, b := vertex("A", 4, "default"), vertex("B", 2, "default")
	b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	// B1 reads A2 and A3 (EdgeManagerBuildUtil), so it joins A2's slot,
	// not slot 1: its input stays local.
	assert.Equal(t, []string{"default[0]: A0 B0", "default[1]: A1", "default[2]: A2 B1", "default[3]: A3"}, sharedSlots(t, g))
}

func TestDifferentSlotSharingGroupsNeverShare(t *testing.T) {
	g := jobgraph.New("two groups")
	a, b := vertex("A", 2, "default"), vertex("B", 2, "sink")
	b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	assert.Equal(t, []string{"default[0]: A0", "default[1]: A1", "sink[0]: B0", "sink[1]: B1"}, sharedSlots(t, g))
}

func TestAVertexWithoutGroupIsAlone(t *testing.T) {
	g := jobgraph.New("no group")
	a, b := vertex("A", 1, ""), vertex("B", 1, "")
	b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	slots := sharedSlots(t, g)
	require.Len(t, slots, 2, "each vertex in a group of its own")
	assert.Contains(t, slots[0]+slots[1], "A0")
	assert.NotContains(t, slots[0], "B0 A0")
}

func TestCoLocatedSubtasksShareASlotAgainstTheInputPreference(t *testing.T) {
	// B1 reads A2 and A3 (RESCALE, 4 → 2), so by its input it would join
	// A2's slot. Co-located with C, subtask i of B must run where C's
	// subtask i runs, and C, a second source placed before B, took the
	// first free slots.
	build := func(coLocated bool) []string {
		g := jobgraph.New("co-location")
		a, c, b := vertex("A", 4, "default"), vertex("C", 2, "default"), vertex("B", 2, "default")
		if coLocated {
			b.CoLocationGroup, c.CoLocationGroup = "b-and-c", "b-and-c"
		}
		b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
		for _, v := range []*jobgraph.JobVertex{a, c, b} {
			g.AddVertex(v)
		}
		return sharedSlots(t, g)
	}
	assert.Equal(t, []string{"default[0]: A0 C0 B0", "default[1]: A1 C1", "default[2]: A2 B1", "default[3]: A3"}, build(false),
		"by input alone")
	assert.Equal(t, []string{"default[0]: A0 C0 B0", "default[1]: A1 C1 B1", "default[2]: A2", "default[3]: A3"}, build(true),
		"co-located: B1 goes where C1 is")
}

func TestASharedSlotAsksForItsGroupsResources(t *testing.T) {
	g := jobgraph.New("resources")
	a, b := vertex("A", 2, "default"), vertex("B", 2, "counting")
	b.ConnectNewDataSetAsInput(a, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	g.AddVertex(a)
	g.AddVertex(b)
	counting := api.NewResourceProfile(0.5, configuration.OfMebiBytes(64), 0, configuration.OfMebiBytes(32), 0)
	g.SlotSharingGroupResources = map[string]api.ResourceProfile{"counting": counting}
	graph, err := executiongraph.BuildGraph(g)
	require.NoError(t, err)
	groups := buildExecutionSlotSharingGroups(graph)

	profileOf := func(v *jobgraph.JobVertex) api.ResourceProfile {
		return sharedSlotProfile(g, graph, groups[api.ExecutionVertexID{JobVertexID: v.ID}])
	}
	assert.Equal(t, counting, profileOf(b), "the group's resources, whatever its vertices")
	assert.True(t, profileOf(a).IsUnknown(), "no resources given: any slot, of the default profile")
}

// BenchmarkSharedSlots builds the shared slots of two vertices of n
// subtasks joined all-to-all, as the scheduler does when it is created.
// The candidates of the one ConsumedPartitionGroup are computed once and
// every shared slot is found in O(1), so the work is linear in n (Flink's
// ExecutionSlotSharingGroupBuilder since FLINK-22767).
func BenchmarkSharedSlots(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("all-to-all %d→%d", n, n), func(b *testing.B) {
			g := jobgraph.New("benchmark")
			source, sink := vertex("Source", n, "default"), vertex("Sink", n, "default")
			sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
			g.AddVertex(source)
			g.AddVertex(sink)
			graph, err := executiongraph.BuildGraph(g)
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if groups := buildExecutionSlotSharingGroups(graph); len(groups) != 2*n {
					b.Fatalf("%d vertices placed, want %d", len(groups), 2*n)
				}
			}
		})
	}
}
