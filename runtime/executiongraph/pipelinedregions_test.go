package executiongraph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
)

// edge is one JobEdge of a test job: producer and consumer by name.
type edge struct {
	from, to   string
	pattern    jobgraph.DistributionPattern
	resultType jobgraph.ResultPartitionType
}

// regionsOf builds the job of the vertices (name → parallelism, in the
// order given) and edges, and returns its pipelined regions as
// "a0 a1 b0" strings.
func regionsOf(t *testing.T, vertices []string, parallelism map[string]int, edges ...edge) []string {
	t.Helper()
	jg := jobgraph.New("regions")
	byName := make(map[string]*jobgraph.JobVertex)
	for _, name := range vertices {
		byName[name] = jobgraph.NewJobVertex(name, "Invokable", parallelism[name])
		jg.AddVertex(byName[name])
	}
	for _, e := range edges {
		byName[e.to].ConnectNewDataSetAsInput(byName[e.from], e.pattern, e.resultType)
	}
	g, err := BuildGraph(jg)
	require.NoError(t, err)
	var out []string
	for _, region := range g.PipelinedRegions() {
		var names []string
		for _, ev := range region.Vertices {
			names = append(names, fmt.Sprintf("%s%d", ev.JobVertex().Name(), ev.SubtaskIndex()))
		}
		out = append(out, strings.Join(names, " "))
	}
	return out
}

var (
	pipelined = jobgraph.PipelinedBounded
	blocking  = jobgraph.Blocking
)

func TestPipelinedRegions(t *testing.T) {
	tests := []struct {
		name        string
		vertices    []string
		parallelism map[string]int
		edges       []edge
		want        []string
	}{
		{
			name:     "a streaming job with an all-to-all edge is one region",
			vertices: []string{"a", "b"}, parallelism: map[string]int{"a": 3, "b": 3},
			edges: []edge{{"a", "b", jobgraph.AllToAll, pipelined}},
			want:  []string{"a0 a1 a2 b0 b1 b2"},
		},
		{
			name:     "pipelined pointwise 4 → 2: each consumer with the producers it reads",
			vertices: []string{"a", "b"}, parallelism: map[string]int{"a": 4, "b": 2},
			edges: []edge{{"a", "b", jobgraph.Pointwise, pipelined}},
			want:  []string{"a0 a1 b0", "a2 a3 b1"},
		},
		{
			name:     "pipelined pointwise 2 → 4: each producer with the consumers it feeds",
			vertices: []string{"a", "b"}, parallelism: map[string]int{"a": 2, "b": 4},
			edges: []edge{{"a", "b", jobgraph.Pointwise, pipelined}},
			want:  []string{"a0 b0 b1", "a1 b2 b3"},
		},
		{
			name:     "a blocking all-to-all edge cuts the job: every subtask alone",
			vertices: []string{"a", "b"}, parallelism: map[string]int{"a": 2, "b": 2},
			edges: []edge{{"a", "b", jobgraph.AllToAll, blocking}},
			want:  []string{"a0", "a1", "b0", "b1"},
		},
		{
			name:     "pipelined, then blocking: one region, then a region per subtask",
			vertices: []string{"a", "b", "c"}, parallelism: map[string]int{"a": 2, "b": 2, "c": 2},
			edges: []edge{{"a", "b", jobgraph.AllToAll, pipelined}, {"b", "c", jobgraph.AllToAll, blocking}},
			want:  []string{"a0 a1 b0 b1", "c0", "c1"},
		},
		{
			name:     "a blocking edge inside pipelined paths cuts nothing",
			vertices: []string{"a", "b", "c", "d"}, parallelism: map[string]int{"a": 2, "b": 2, "c": 2, "d": 2},
			edges: []edge{
				{"a", "b", jobgraph.Pointwise, pipelined}, {"a", "c", jobgraph.Pointwise, blocking},
				{"b", "d", jobgraph.Pointwise, pipelined}, {"c", "d", jobgraph.Pointwise, pipelined},
			},
			want: []string{"a0 b0 c0 d0", "a1 b1 c1 d1"},
		},
		{
			name:     "a blocking all-to-all edge inside a logical region does not split it (FLINK-17330)",
			vertices: []string{"a", "b", "c"}, parallelism: map[string]int{"a": 2, "b": 2, "c": 2},
			edges: []edge{
				{"a", "b", jobgraph.Pointwise, pipelined}, {"a", "c", jobgraph.AllToAll, blocking},
				{"b", "c", jobgraph.Pointwise, pipelined},
			},
			want: []string{"a0 a1 b0 b1 c0 c1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, regionsOf(t, tt.vertices, tt.parallelism, tt.edges...))
		})
	}
}

// Regions that wait for each other's blocking results must run as one:
// each strongly connected component of the region graph is merged.
func TestStronglyConnectedComponents(t *testing.T) {
	// 0 → 1 → 2 → 0 is a cycle; 3 reaches it, but nothing reaches 3; 4 is alone.
	outEdges := [][]int{{1}, {2}, {0}, {1}, {}}
	assert.Equal(t, [][]int{{0, 1, 2}, {3}, {4}}, stronglyConnectedComponents(outEdges))
	assert.Equal(t, [][]int{{1}, {0}}, stronglyConnectedComponents([][]int{{1}, {}}), "no cycle: each alone, the reached one first")
}

// An input's groups: one shared by every subtask of an ALL_TO_ALL input,
// one per range of partitions of a POINTWISE one.
func TestConsumedPartitionGroupsOfAnInput(t *testing.T) {
	for _, tt := range []struct {
		pattern jobgraph.DistributionPattern
		want    int
	}{{jobgraph.AllToAll, 1}, {jobgraph.Pointwise, 2}} {
		g, err := BuildGraph(twoVertexJob(4, 2, tt.pattern))
		require.NoError(t, err)
		sink := g.VerticesTopologically()[1]
		assert.Len(t, sink.ConsumedPartitionGroups(0), tt.want, "%v", tt.pattern)
	}
}
