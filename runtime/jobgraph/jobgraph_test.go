package jobgraph

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testInvokable = "flinklab.NoOpInvokable"

func vertex(name string, parallelism int) *JobVertex {
	return NewJobVertex(name, testInvokable, parallelism)
}

func graphOf(vertices ...*JobVertex) *JobGraph {
	g := New("test job")
	for _, v := range vertices {
		g.AddVertex(v)
	}
	return g
}

func names(vertices []*JobVertex) []string {
	out := make([]string, len(vertices))
	for i, v := range vertices {
		out[i] = v.Name
	}
	return out
}

func TestDistributionPatternText(t *testing.T) {
	tests := []struct {
		pattern DistributionPattern
		want    string
	}{
		{Pointwise, "POINTWISE"},
		{AllToAll, "ALL_TO_ALL"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.pattern.String())

		out, err := json.Marshal(tt.pattern)
		require.NoError(t, err)
		assert.Equal(t, `"`+tt.want+`"`, string(out))

		var got DistributionPattern
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, tt.pattern, got)
	}

	assert.Equal(t, "DistributionPattern(7)", DistributionPattern(7).String())
	_, err := json.Marshal(DistributionPattern(7))
	assert.Error(t, err)
	var p DistributionPattern
	assert.Error(t, json.Unmarshal([]byte(`"FORWARD"`), &p))
}

func TestResultPartitionTypeText(t *testing.T) {
	tests := []struct {
		resultType ResultPartitionType
		want       string
		pipelined  bool
	}{
		{PipelinedBounded, "PIPELINED_BOUNDED", true},
		{Blocking, "BLOCKING", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.resultType.String())
		assert.Equal(t, tt.pipelined, tt.resultType.IsPipelined())
		assert.Equal(t, !tt.pipelined, tt.resultType.IsBlocking())

		out, err := json.Marshal(tt.resultType)
		require.NoError(t, err)
		assert.Equal(t, `"`+tt.want+`"`, string(out))

		var got ResultPartitionType
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, tt.resultType, got)
	}

	var zero ResultPartitionType
	assert.Equal(t, PipelinedBounded, zero, "the zero value is the streaming default")
	var rt ResultPartitionType
	assert.Error(t, json.Unmarshal([]byte(`"PIPELINED"`), &rt))
}

func TestNewJobVertex(t *testing.T) {
	a, b := vertex("Map", 4), vertex("Map", 4)

	assert.False(t, a.ID.IsZero())
	assert.NotEqual(t, a.ID, b.ID, "every vertex gets a random ID")
	assert.Equal(t, "Map", a.Name)
	assert.Equal(t, testInvokable, a.InvokableClassName)
	assert.Equal(t, 4, a.Parallelism)
	assert.Equal(t, 0, a.MaxParallelism, "max parallelism starts unset")
	assert.True(t, a.IsInputVertex())
	assert.True(t, a.IsOutputVertex())
}

func TestConnectNewDataSetAsInput(t *testing.T) {
	source, sink := vertex("Source", 2), vertex("Sink", 1)

	edge := sink.ConnectNewDataSetAsInput(source, Pointwise, Blocking)

	// The producing side: one new data set, produced by the source.
	require.Len(t, source.ProducedDataSets(), 1)
	ds := source.ProducedDataSets()[0]
	assert.False(t, ds.ID.IsZero())
	assert.Same(t, source, ds.Producer)
	assert.Equal(t, Blocking, ds.ResultType)
	assert.Equal(t, []*JobEdge{edge}, ds.Consumers())

	// The consuming side: one input edge from that data set.
	assert.Equal(t, []*JobEdge{edge}, sink.Inputs())
	assert.Same(t, ds, edge.Source)
	assert.Same(t, sink, edge.Target)
	assert.Equal(t, Pointwise, edge.DistributionPattern)
	assert.Equal(t, "Source -> Sink (POINTWISE)", edge.String())

	assert.True(t, source.IsInputVertex())
	assert.False(t, source.IsOutputVertex())
	assert.False(t, sink.IsInputVertex())
	assert.True(t, sink.IsOutputVertex())

	// A second connection makes a second data set, as in Flink.
	sink.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded)
	assert.Len(t, source.ProducedDataSets(), 2)
	assert.Len(t, sink.Inputs(), 2)
	assert.NotEqual(t, source.ProducedDataSets()[0].ID, source.ProducedDataSets()[1].ID)
}

func TestJobGraphVertices(t *testing.T) {
	g := New("WordCount")
	assert.False(t, g.JobID.IsZero())
	assert.Equal(t, "WordCount", g.Name)
	assert.True(t, g.IsEmpty())
	assert.Equal(t, 0, g.NumberOfVertices())

	sink, source := vertex("Sink", 1), vertex("Source", 1)
	g.AddVertex(sink)
	g.AddVertex(source)

	assert.False(t, g.IsEmpty())
	assert.Equal(t, 2, g.NumberOfVertices())
	assert.Equal(t, []string{"Sink", "Source"}, names(g.Vertices()), "insertion order")
	assert.Same(t, source, g.Vertex(source.ID))
	assert.Nil(t, g.Vertex(vertex("elsewhere", 1).ID))

	assert.PanicsWithValue(t, "jobgraph: AddVertex(nil)", func() { g.AddVertex(nil) })

	var zero JobGraph
	zero.AddVertex(source) // the zero value is usable too
	assert.Same(t, source, zero.Vertex(source.ID))
}

func TestSlotSharingGroups(t *testing.T) {
	a, b, c, d := vertex("a", 1), vertex("b", 1), vertex("c", 1), vertex("d", 1)
	a.SlotSharingGroup = "default"
	b.SlotSharingGroup = "heavy"
	// c has no name: it is alone in a group of its own.
	d.SlotSharingGroup = "default"

	got := graphOf(a, b, c, d).SlotSharingGroups()

	assert.Equal(t, []string{"default", "heavy"}, got)
}

// A slot holds one subtask of every vertex of its group: a group needs its
// largest parallelism in slots, a vertex in no group a slot per subtask.
func TestSlotsNeeded(t *testing.T) {
	source, mapper, sink, alone := vertex("source", 4), vertex("map", 2), vertex("sink", 3), vertex("alone", 2)
	source.SlotSharingGroup, mapper.SlotSharingGroup, sink.SlotSharingGroup = "default", "default", "output"
	total, perGroup := graphOf(source, mapper, sink, alone).SlotsNeeded()
	assert.Equal(t, 4+3+2, total)
	assert.Equal(t, map[string]int{"default": 4, "output": 3}, perGroup)
}

func TestVerticesSortedTopologicallyFromSources(t *testing.T) {
	tests := []struct {
		name  string
		build func() *JobGraph
		want  []string
	}{
		{
			name: "chain added backwards comes out source first",
			build: func() *JobGraph {
				source, mapper, sink := vertex("source", 1), vertex("map", 1), vertex("sink", 1)
				mapper.ConnectNewDataSetAsInput(source, Pointwise, PipelinedBounded)
				sink.ConnectNewDataSetAsInput(mapper, Pointwise, PipelinedBounded)
				return graphOf(sink, mapper, source)
			},
			want: []string{"source", "map", "sink"},
		},
		{
			// source feeds a and b; join waits for both. From source, a is
			// placed, then join is skipped (b is not placed yet), then b,
			// and from b the join.
			name: "diamond",
			build: func() *JobGraph {
				source, a, b, join := vertex("source", 1), vertex("a", 1), vertex("b", 1), vertex("join", 1)
				a.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded)
				b.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded)
				join.ConnectNewDataSetAsInput(a, AllToAll, PipelinedBounded)
				join.ConnectNewDataSetAsInput(b, AllToAll, PipelinedBounded)
				return graphOf(join, b, a, source)
			},
			want: []string{"source", "a", "b", "join"},
		},
		{
			// Sources come first in insertion order (s2 was added first).
			name: "two sources into a join",
			build: func() *JobGraph {
				s1, s2, join := vertex("s1", 1), vertex("s2", 1), vertex("join", 1)
				join.ConnectNewDataSetAsInput(s1, AllToAll, PipelinedBounded)
				join.ConnectNewDataSetAsInput(s2, AllToAll, PipelinedBounded)
				return graphOf(join, s2, s1)
			},
			want: []string{"s2", "s1", "join"},
		},
		{
			// Flink's traversal is depth first: a's consumer a2 comes
			// before a's sibling b.
			name: "depth first",
			build: func() *JobGraph {
				source, a, a2, b := vertex("source", 1), vertex("a", 1), vertex("a2", 1), vertex("b", 1)
				a.ConnectNewDataSetAsInput(source, Pointwise, PipelinedBounded)
				b.ConnectNewDataSetAsInput(source, Pointwise, PipelinedBounded)
				a2.ConnectNewDataSetAsInput(a, Pointwise, PipelinedBounded)
				return graphOf(b, a2, a, source)
			},
			want: []string{"source", "a", "a2", "b"},
		},
		{
			name:  "empty graph",
			build: func() *JobGraph { return New("empty") },
			want:  []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.build()

			got, err := g.VerticesSortedTopologicallyFromSources()
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(got))

			again, err := g.VerticesSortedTopologicallyFromSources()
			require.NoError(t, err)
			assert.Equal(t, got, again, "the order is deterministic")
		})
	}
}

func TestVerticesSortedTopologicallyFromSourcesRejectsCycles(t *testing.T) {
	tests := []struct {
		name  string
		build func() *JobGraph
	}{
		{
			name: "no source at all",
			build: func() *JobGraph {
				a, b := vertex("a", 1), vertex("b", 1)
				b.ConnectNewDataSetAsInput(a, Pointwise, PipelinedBounded)
				a.ConnectNewDataSetAsInput(b, Pointwise, PipelinedBounded)
				return graphOf(a, b)
			},
		},
		{
			name: "cycle behind a source",
			build: func() *JobGraph {
				source, a, b := vertex("source", 1), vertex("a", 1), vertex("b", 1)
				a.ConnectNewDataSetAsInput(source, Pointwise, PipelinedBounded)
				b.ConnectNewDataSetAsInput(a, Pointwise, PipelinedBounded)
				a.ConnectNewDataSetAsInput(b, Pointwise, PipelinedBounded)
				return graphOf(source, a, b)
			},
		},
		{
			name: "self loop",
			build: func() *JobGraph {
				source, a := vertex("source", 1), vertex("a", 1)
				a.ConnectNewDataSetAsInput(source, Pointwise, PipelinedBounded)
				a.ConnectNewDataSetAsInput(a, Pointwise, PipelinedBounded)
				return graphOf(source, a)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.build().VerticesSortedTopologicallyFromSources()

			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidJobGraph))
			assert.Contains(t, err.Error(), "The job graph is cyclic.")
		})
	}
}

func TestDefaultMaxParallelism(t *testing.T) {
	tests := []struct {
		parallelism int
		want        int
	}{
		{1, 128},     // 1 → 1, raised to the lower bound
		{85, 128},    // 85 + 42 = 127 → 128
		{86, 256},    // 86 + 43 = 129 → 256
		{171, 256},   // 171 + 85 = 256 → 256 (Flink's "round up part 1")
		{172, 512},   // 172 + 86 = 258 → 512 (Flink's "round up part 2")
		{1000, 2048}, // 1500 → 2048
		{21845, 32768},
		{21846, 32768}, // 32769 → 65536, capped
		{UpperBoundMaxParallelism, UpperBoundMaxParallelism},
		{1 << 40, UpperBoundMaxParallelism}, // no overflow
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DefaultMaxParallelism(tt.parallelism), "parallelism %d", tt.parallelism)
	}
	assert.Equal(t, 32768, UpperBoundMaxParallelism)
}
