package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler"
)

// The distribution patterns of the JobEdges the slot sharing exercises
// build, with the partitioners that make them.
var (
	Pointwise = jobgraph.Pointwise // FORWARD and RESCALE
	AllToAll  = jobgraph.AllToAll  // HASH (keyBy), REBALANCE, BROADCAST
)

// Vertex makes a JobVertex in a slot sharing group ("" for none).
func Vertex(name string, parallelism int, slotSharingGroup string) *jobgraph.JobVertex {
	v := jobgraph.NewJobVertex(name, "test."+name, parallelism)
	v.SlotSharingGroup = slotSharingGroup
	return v
}

// Connect makes consumer read producer's output, pipelined.
func Connect(producer, consumer *jobgraph.JobVertex, pattern jobgraph.DistributionPattern) {
	consumer.ConnectNewDataSetAsInput(producer, pattern, jobgraph.PipelinedBounded)
}

// Job makes a JobGraph of the vertices, in the order given.
func Job(vertices ...*jobgraph.JobVertex) *jobgraph.JobGraph {
	jg := jobgraph.New("slot sharing")
	for _, v := range vertices {
		jg.AddVertex(v)
	}
	return jg
}

// PlanSharedSlots builds the ExecutionGraph of jg and returns the shared
// slots the scheduler would request for it (scheduler.SharedSlots). A body
// that panics fails the test here; so does a plan that leaves a subtask
// out, puts one in two shared slots, or puts two subtasks of one
// JobVertex into one shared slot.
func PlanSharedSlots(t *testing.T, jg *jobgraph.JobGraph) (graph *executiongraph.ExecutionGraph, slots []scheduler.SharedSlot) {
	t.Helper()
	graph, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("placing the subtasks into shared slots must not panic: %v", r)
			}
		}()
		slots = scheduler.SharedSlots(jg, graph)
	}()

	placed := make(map[api.ExecutionVertexID]int)
	for _, slot := range slots {
		seen := make(map[api.JobVertexID]bool)
		for _, id := range slot.Vertices {
			placed[id]++
			if seen[id.JobVertexID] {
				t.Errorf("shared slot %s[%d] holds two subtasks of %s: a slot runs at most one subtask of each JobVertex",
					slot.SlotSharingGroup, slot.Index, graph.ExecutionVertex(id).JobVertex().Name())
			}
			seen[id.JobVertexID] = true
		}
	}
	for ev := range graph.AllExecutionVertices() {
		if n := placed[ev.ID()]; n != 1 {
			t.Errorf("%s is in %d shared slots: every subtask runs in exactly one", ev.TaskNameWithSubtaskIndex(), n)
		}
	}
	return graph, slots
}

// SharedSlots returns the shared slots of jg (PlanSharedSlots) as
// "group[index]: A0 B0" lines, ordered by group and index, each subtask
// named by its JobVertex's name and its index; a vertex without a slot
// sharing group is in group "none".
func SharedSlots(t *testing.T, jg *jobgraph.JobGraph) []string {
	t.Helper()
	graph, slots := PlanSharedSlots(t, jg)
	slices.SortStableFunc(slots, func(a, b scheduler.SharedSlot) int {
		return cmp.Or(cmp.Compare(groupOf(graph, a), groupOf(graph, b)), cmp.Compare(a.Index, b.Index))
	})
	var lines []string
	for _, slot := range slots {
		var names []string
		for _, id := range slot.Vertices {
			names = append(names, fmt.Sprintf("%s%d", graph.ExecutionVertex(id).JobVertex().Name(), id.SubtaskIndex))
		}
		lines = append(lines, fmt.Sprintf("%s[%d]: %s", groupOf(graph, slot), slot.Index, strings.Join(names, " ")))
	}
	return lines
}

// groupOf names the slot sharing group of a shared slot's vertices.
func groupOf(graph *executiongraph.ExecutionGraph, slot scheduler.SharedSlot) string {
	if len(slot.Vertices) == 0 {
		return "(empty)"
	}
	if group := graph.ExecutionVertex(slot.Vertices[0]).JobVertex().SlotSharingGroup(); group != "" {
		return group
	}
	return "none"
}
