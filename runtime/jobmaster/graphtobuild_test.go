package jobmaster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// The fault slot-sharing-group-too-large gives its resources to the slot
// sharing group of the first vertex in topological order, in place of what
// the program gave it, and to no other group; a first vertex in no group
// has none to give them to, and there the fault does not fire. The
// JobGraph itself is never changed.
func TestTheSlotSharingGroupFaultPicksTheFirstVertexsGroup(t *testing.T) {
	programs := api.ResourceProfileFromResources(0.5, 64)
	tests := []struct {
		name   string
		groups []string // of source → map → sink
		want   string   // the group that gets the resources; "": the fault does not fire
	}{
		{"the source's group", []string{"reading", "default", "default"}, "reading"},
		{"one group for all", []string{"default", "default", "default"}, "default"},
		{"a source in no group", []string{"", "default", "default"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := jobgraph.New("sized job")
			source := jobgraph.NewJobVertex("Source", "test.Source", 2)
			mapper := jobgraph.NewJobVertex("Map", "test.Map", 2)
			sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
			source.SlotSharingGroup, mapper.SlotSharingGroup, sink.SlotSharingGroup = tt.groups[0], tt.groups[1], tt.groups[2]
			mapper.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
			sink.ConnectNewDataSetAsInput(mapper, jobgraph.Pointwise, jobgraph.PipelinedBounded)
			g.AddVertex(sink) // out of order: the fault follows the topological order
			g.AddVertex(mapper)
			g.AddVertex(source)
			g.SlotSharingGroupResources = map[string]api.ResourceProfile{"default": programs}
			stored, err := jobgraph.Encode(g)
			require.NoError(t, err)
			faults := fault.NewInjector(nil)
			require.NoError(t, faults.Inject(fault.Fault{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge}))

			built, slotsTooLarge := graphToBuild(g, faults)
			assert.Equal(t, tt.want != "", slotsTooLarge, "the JobMaster knows whether the fault fired")

			again, err := jobgraph.Encode(g)
			require.NoError(t, err)
			assert.Equal(t, string(stored), string(again), "the JobGraph itself is not changed")
			if tt.want == "" {
				assert.Same(t, g, built, "nothing to change")
				assert.Len(t, faults.Armed(), 1, "the fault stays armed")
				return
			}
			assert.Empty(t, faults.Armed(), "the fault fired")
			assert.Equal(t, tooLargeSlotSharingGroup, built.SlotSharingGroupResourceProfile(tt.want))
			for _, other := range tt.groups {
				if other != tt.want && other != "" {
					assert.Equal(t, g.SlotSharingGroupResourceProfile(other), built.SlotSharingGroupResourceProfile(other),
						"group %q keeps what the program gave it", other)
				}
			}
		})
	}
}
