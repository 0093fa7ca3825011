// Exercise g04: pipelined regions.
//
// Each test builds a real ExecutionGraph from a small JobGraph, the
// vertices by name and parallelism and the edges by distribution pattern
// and result type, and asks it for its pipelined regions. A region is
// written "a0 a1 b0": the subtasks of job vertices a and b, by index.
package g04_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
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

// regionsOf builds the job (vertices as "name:parallelism", in order) and
// returns its pipelined regions; a body that panics fails the test here.
func regionsOf(t *testing.T, vertices []string, edges ...edge) (out []string) {
	t.Helper()
	jg := jobgraph.New("regions")
	byName := make(map[string]*jobgraph.JobVertex)
	for _, v := range vertices {
		var name string
		var parallelism int
		_, err := fmt.Sscanf(strings.Replace(v, ":", " ", 1), "%s %d", &name, &parallelism)
		require.NoError(t, err, "vertex %q", v)
		byName[name] = jobgraph.NewJobVertex(name, "Invokable", parallelism)
		jg.AddVertex(byName[name])
	}
	for _, e := range edges {
		byName[e.to].ConnectNewDataSetAsInput(byName[e.from], e.pattern, e.resultType)
	}
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("computing the pipelined regions must not panic: %v", r)
		}
	}()
	for _, region := range g.PipelinedRegions() {
		var names []string
		for _, ev := range region.Vertices {
			names = append(names, fmt.Sprintf("%s%d", ev.JobVertex().Name(), ev.SubtaskIndex()))
		}
		out = append(out, strings.Join(names, " "))
	}
	return out
}

// Streaming jobs: every result PIPELINED. What joins subtasks into one
// region is reading each other's partitions while they are written.
func TestRegionsOfAStreamingJob(t *testing.T) {
	tests := []struct {
		name     string
		vertices []string
		edges    []edge
		want     []string
	}{
		{"one vertex: each subtask alone", []string{"a:3"}, nil, []string{"a0", "a1", "a2"}},
		{"forward 3 → 3: one region per subtask index", []string{"a:3", "b:3", "c:3"},
			[]edge{{"a", "b", pointwise, pipelined}, {"b", "c", pointwise, pipelined}},
			[]string{"a0 b0 c0", "a1 b1 c1", "a2 b2 c2"}},
		{"keyBy (all-to-all): the whole job is one region", []string{"a:2", "b:2", "c:2"},
			[]edge{{"a", "b", pointwise, pipelined}, {"b", "c", allToAll, pipelined}},
			[]string{"a0 a1 b0 b1 c0 c1"}},
		{"rescale 4 → 2: each consumer with the producers it reads", []string{"a:4", "b:2"},
			[]edge{{"a", "b", pointwise, pipelined}},
			[]string{"a0 a1 b0", "a2 a3 b1"}},
		{"rescale 2 → 4: each producer with the consumers it feeds", []string{"a:2", "b:4"},
			[]edge{{"a", "b", pointwise, pipelined}},
			[]string{"a0 b0 b1", "a1 b2 b3"}},
		{"rescale 3 → 1: one consumer joins all three producers", []string{"a:3", "b:1"},
			[]edge{{"a", "b", pointwise, pipelined}},
			[]string{"a0 a1 a2 b0"}},
		{"4 → 2 → 4: the two halves stay apart", []string{"a:4", "b:2", "c:4"},
			[]edge{{"a", "b", pointwise, pipelined}, {"b", "c", pointwise, pipelined}},
			[]string{"a0 a1 b0 c0 c1", "a2 a3 b1 c2 c3"}},
		{"two sources into one reader (a union)", []string{"a:2", "b:2", "c:2"},
			[]edge{{"a", "c", pointwise, pipelined}, {"b", "c", pointwise, pipelined}},
			[]string{"a0 b0 c0", "a1 b1 c1"}},
		{"two jobs in one graph: their regions stay apart", []string{"a:2", "b:2", "c:1", "d:1"},
			[]edge{{"a", "b", allToAll, pipelined}, {"c", "d", pointwise, pipelined}},
			[]string{"a0 a1 b0 b1", "c0 d0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, regionsOf(t, tt.vertices, tt.edges...))
		})
	}
}

// Batch jobs: a BLOCKING result is written completely before it is read,
// so it cuts the job into regions that run one after the other, except
// where regions would wait for each other.
func TestRegionsCutByBlockingResults(t *testing.T) {
	tests := []struct {
		name     string
		vertices []string
		edges    []edge
		want     []string
	}{
		{"a blocking all-to-all edge: every subtask alone", []string{"a:2", "b:2"},
			[]edge{{"a", "b", allToAll, blocking}},
			[]string{"a0", "a1", "b0", "b1"}},
		{"a blocking forward edge: every subtask alone", []string{"a:2", "b:2"},
			[]edge{{"a", "b", pointwise, blocking}},
			[]string{"a0", "a1", "b0", "b1"}},
		{"pipelined all-to-all, then blocking: one region, then one per subtask", []string{"a:2", "b:2", "c:2"},
			[]edge{{"a", "b", allToAll, pipelined}, {"b", "c", allToAll, blocking}},
			[]string{"a0 a1 b0 b1", "c0", "c1"}},
		{"blocking all-to-all into a forward pipeline: the pipeline splits by subtask", []string{"a:2", "b:2", "c:2"},
			[]edge{{"a", "b", allToAll, blocking}, {"b", "c", pointwise, pipelined}},
			[]string{"a0", "a1", "b0 c0", "b1 c1"}},
		{"a blocking edge beside pipelined paths cuts nothing", []string{"a:2", "b:2", "c:2", "d:2"},
			[]edge{
				{"a", "b", pointwise, pipelined}, {"a", "c", pointwise, blocking},
				{"b", "d", pointwise, pipelined}, {"c", "d", pointwise, pipelined},
			},
			[]string{"a0 b0 c0 d0", "a1 b1 c1 d1"}},
		{"a blocking all-to-all edge inside a pipelined region does not split it (FLINK-17330)", []string{"a:2", "b:2", "c:2"},
			[]edge{
				{"a", "b", pointwise, pipelined}, {"a", "c", allToAll, blocking},
				{"b", "c", pointwise, pipelined},
			},
			[]string{"a0 a1 b0 b1 c0 c1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, regionsOf(t, tt.vertices, tt.edges...))
		})
	}
}

// Every subtask is in exactly one region, also in a graph too large to
// check by eye: 1,000 → 100 rescale, then forward, then keyBy into a
// second pipeline cut off by a blocking result.
func TestEverySubtaskIsInExactlyOneRegion(t *testing.T) {
	regions := regionsOf(t, []string{"a:1000", "b:100", "c:100", "d:10", "e:10"},
		edge{"a", "b", pointwise, pipelined}, edge{"b", "c", pointwise, pipelined},
		edge{"c", "d", allToAll, blocking}, edge{"d", "e", allToAll, pipelined})
	seen := map[string]int{}
	for _, region := range regions {
		for _, name := range strings.Fields(region) {
			seen[name]++
		}
	}
	assert.Len(t, seen, 1000+100+100+10+10, "every subtask is in a region")
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d regions", name, n)
		}
	}
	assert.Len(t, regions, 100+1, "100 regions of a, b and c (10 a, 1 b, 1 c each), then d and e as one")
}
