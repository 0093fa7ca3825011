package adaptive

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
)

func vertexIn(group string, lower, upper int) VertexInformation {
	return VertexInformation{JobVertexID: api.NewJobVertexID(), SlotSharingGroup: group, LowerBound: lower, UpperBound: upper}
}

func TestDetermineParallelism(t *testing.T) {
	source, sink := vertexIn("default", 1, 4), vertexIn("default", 1, 2)
	other := vertexIn("other", 2, 8)
	tests := []struct {
		name     string
		vertices []VertexInformation
		free     int
		want     []int // per vertex, in order; nil: not enough slots
	}{
		{"all the slots the widest vertex wants", []VertexInformation{source, sink}, 4, []int{4, 2}},
		{"more slots change nothing", []VertexInformation{source, sink}, 9, []int{4, 2}},
		{"fewer slots: every vertex at most as wide as its group", []VertexInformation{source, sink}, 2, []int{2, 2}},
		{"one slot is the minimum", []VertexInformation{source, sink}, 1, []int{1, 1}},
		{"no slot, no job", []VertexInformation{source, sink}, 0, nil},
		{"two groups: the minimums first", []VertexInformation{source, other}, 3, []int{1, 2}},
		{"below the sum of the minimums", []VertexInformation{source, other}, 2, nil},
		// ranges: default 3, other 6; default goes first and takes its
		// share of the 7 optional slots, 3 (7/2); other gets the other 4.
		{"spare slots evenly, narrowest range first", []VertexInformation{source, other}, 10, []int{4, 6}},
		{"a group that needs less leaves the rest to the others", []VertexInformation{source, other}, 12, []int{4, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DetermineParallelism(tt.vertices, tt.free)
			if tt.want == nil {
				assert.False(t, ok)
				return
			}
			assert.True(t, ok)
			var parallelism []int
			for _, v := range tt.vertices {
				parallelism = append(parallelism, got[v.JobVertexID])
			}
			assert.Equal(t, tt.want, parallelism)
		})
	}
}

func TestRequiredSlots(t *testing.T) {
	vertices := []VertexInformation{vertexIn("default", 1, 4), vertexIn("default", 3, 2), vertexIn("other", 2, 8)}
	assert.Equal(t, 12, CalculateRequiredSlots(vertices), "4 for default, 8 for other")
	assert.Equal(t, 5, MinimumRequiredSlots(vertices), "3 for default, 2 for other")
}
