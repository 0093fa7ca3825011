package failover_test

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/jobgraph"
)

func TestRestartAllFailoverStrategyRestartsEverything(t *testing.T) {
	all := slices.Concat(subtasks(2), subtasks(3))
	s := failover.NewRestartAllFailoverStrategy(all)
	for _, failed := range all {
		assert.Equal(t, all, s.TasksNeedingRestart(failed, errBoom))
	}
	got := s.TasksNeedingRestart(all[0], errBoom)
	got[0] = all[4]
	assert.Equal(t, all, s.TasksNeedingRestart(all[0], errBoom), "each call returns a fresh slice")
}

// regionJob is a job of blocking exchanges only, built into an
// ExecutionGraph: each of its six subtasks is a pipelined region.
//
//	A (2) ══blocking, all-to-all══► B (2) ══blocking, all-to-all══► C (1)
//	D (1): alone
type regionJob struct {
	graph      *executiongraph.ExecutionGraph
	regions    []*executiongraph.PipelinedRegion
	a, b, c, d []api.ExecutionVertexID
}

func newRegionJob(t testing.TB) regionJob {
	t.Helper()
	a := jobgraph.NewJobVertex("A", "SourceStreamTask", 2)
	b := jobgraph.NewJobVertex("B", "OneInputStreamTask", 2)
	c := jobgraph.NewJobVertex("C", "OneInputStreamTask", 1)
	d := jobgraph.NewJobVertex("D", "SourceStreamTask", 1)
	b.ConnectNewDataSetAsInput(a, jobgraph.AllToAll, jobgraph.Blocking)
	c.ConnectNewDataSetAsInput(b, jobgraph.AllToAll, jobgraph.Blocking)
	jg := jobgraph.New("regions")
	for _, v := range []*jobgraph.JobVertex{a, b, c, d} {
		jg.AddVertex(v)
	}
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	subtasksOf := func(v *jobgraph.JobVertex) []api.ExecutionVertexID {
		var ids []api.ExecutionVertexID
		for _, ev := range g.JobVertex(v.ID).TaskVertices() {
			ids = append(ids, ev.ID())
		}
		return ids
	}
	return regionJob{graph: g, regions: g.PipelinedRegions(),
		a: subtasksOf(a), b: subtasksOf(b), c: subtasksOf(c), d: subtasksOf(d)}
}

// all returns the job's subtasks in the order of its regions.
func (j regionJob) all() []api.ExecutionVertexID { return slices.Concat(j.a, j.b, j.c, j.d) }

// producedBy returns an availability checker under which the results of
// the given subtasks can be read again, and no others.
func (j regionJob) producedBy(producers ...[]api.ExecutionVertexID) failover.ResultPartitionAvailabilityChecker {
	available := make(map[api.IntermediateResultPartitionID]bool)
	for _, ids := range producers {
		for _, id := range ids {
			for _, p := range j.graph.ExecutionVertex(id).ProducedPartitions() {
				available[p.ID()] = true
			}
		}
	}
	return func(id api.IntermediateResultPartitionID) bool { return available[id] }
}

func TestRestartPipelinedRegionFailoverStrategy(t *testing.T) {
	j := newRegionJob(t)
	tests := []struct {
		name      string
		available failover.ResultPartitionAvailabilityChecker
		failed    api.ExecutionVertexID
		want      []api.ExecutionVertexID
	}{
		{"a source subtask restarts with everything downstream of it", j.producedBy(j.a, j.b), j.a[1], slices.Concat(j.a[1:], j.b, j.c)},
		{"a middle subtask restarts with its consumers and reads its inputs again",
			j.producedBy(j.a, j.b), j.b[0], slices.Concat(j.b[:1], j.c)},
		{"a sink restarts alone", j.producedBy(j.a, j.b), j.c[0], j.c},
		{"an unconnected region restarts alone", j.producedBy(j.a, j.b), j.d[0], j.d},
		{"producers whose results are lost restart, and so do their other consumers",
			j.producedBy(j.b), j.b[1], slices.Concat(j.a, j.b, j.c)},
		{"one lost partition of an all-to-all input is enough", j.producedBy(j.a[:1], j.b), j.b[0], slices.Concat(j.a[1:], j.b, j.c)},
		{"lost results upstream of the inputs do not matter", j.producedBy(j.b), j.c[0], j.c},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.regions, tt.available, nil)
			assert.Equal(t, tt.want, s.TasksNeedingRestart(tt.failed, errBoom))
		})
	}
}

func TestRestartPipelinedRegionFailoverStrategyDiamond(t *testing.T) {
	// X feeds Y and Z, both feed W, each its own region: W is reached twice
	// and restarts once.
	x := jobgraph.NewJobVertex("X", "SourceStreamTask", 1)
	y := jobgraph.NewJobVertex("Y", "OneInputStreamTask", 1)
	z := jobgraph.NewJobVertex("Z", "OneInputStreamTask", 1)
	w := jobgraph.NewJobVertex("W", "TwoInputStreamTask", 1)
	y.ConnectNewDataSetAsInput(x, jobgraph.Pointwise, jobgraph.Blocking)
	z.ConnectNewDataSetAsInput(x, jobgraph.Pointwise, jobgraph.Blocking)
	w.ConnectNewDataSetAsInput(y, jobgraph.Pointwise, jobgraph.Blocking)
	w.ConnectNewDataSetAsInput(z, jobgraph.Pointwise, jobgraph.Blocking)
	jg := jobgraph.New("diamond")
	for _, v := range []*jobgraph.JobVertex{x, y, z, w} {
		jg.AddVertex(v)
	}
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	id := func(v *jobgraph.JobVertex) api.ExecutionVertexID {
		return api.ExecutionVertexID{JobVertexID: v.ID, SubtaskIndex: 0}
	}
	everything := func(api.IntermediateResultPartitionID) bool { return true }
	s := failover.NewRestartPipelinedRegionFailoverStrategy(g, g.PipelinedRegions(), everything, nil)
	assert.Equal(t, []api.ExecutionVertexID{id(x), id(y), id(z), id(w)}, s.TasksNeedingRestart(id(x), errBoom))
	assert.Equal(t, []api.ExecutionVertexID{id(y), id(w)}, s.TasksNeedingRestart(id(y), errBoom))
}

func TestRestartPipelinedRegionFailoverStrategyOneRegion(t *testing.T) {
	// All exchanges pipelined: the job is one region, and region failover
	// restarts everything, as restart-all would.
	source := jobgraph.NewJobVertex("Source", "SourceStreamTask", 2)
	sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", 2)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	jg := jobgraph.New("one region")
	jg.AddVertex(source)
	jg.AddVertex(sink)
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	all := slices.Collect(func(yield func(api.ExecutionVertexID) bool) {
		for ev := range g.AllExecutionVertices() {
			if !yield(ev.ID()) {
				return
			}
		}
	})
	s := failover.NewRestartPipelinedRegionFailoverStrategy(g, g.PipelinedRegions(), nil, nil)
	assert.Equal(t, all, s.TasksNeedingRestart(all[3], errBoom))
}

func TestRestartPipelinedRegionFailoverStrategyUnknownVertex(t *testing.T) {
	j := newRegionJob(t)
	s := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.regions, nil, nil)
	stranger := subtasks(1)[0]
	assert.PanicsWithValue(t, "Can not find the failover region for task "+stranger.String(), func() {
		s.TasksNeedingRestart(stranger, errBoom)
	})
}

// The lines Flink's strategy logged (up to 1.16) for each failure.
func TestRestartPipelinedRegionFailoverStrategyLogs(t *testing.T) {
	j := newRegionJob(t)
	var out strings.Builder
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	s := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.regions, j.producedBy(j.a, j.b), logger)
	s.TasksNeedingRestart(j.b[1], errBoom)
	assert.Equal(t, fmt.Sprintf(`level=INFO msg="Calculating tasks to restart to recover the failed task %[1]s." logger=RestartPipelinedRegionFailoverStrategy
level=INFO msg="2 tasks should be restarted to recover the failed task %[1]s. " logger=RestartPipelinedRegionFailoverStrategy
`, j.b[1]), out.String())
}

func TestLoadFailoverStrategy(t *testing.T) {
	for value, want := range map[string]string{"": "region", "region": "region", "Region": "region", "full": "full", "FULL": "full"} {
		got, err := failover.LoadFailoverStrategy(value)
		require.NoError(t, err, value)
		assert.Equal(t, want, got, value)
	}
	_, err := failover.LoadFailoverStrategy("individual")
	assert.EqualError(t, err, "Unknown failover strategy: individual")
	assert.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// The names the scheduler logs in "Using failover strategy {} for {} ({}).".
func TestFailoverStrategyNames(t *testing.T) {
	all := subtasks(1)
	assert.Equal(t, "RestartAllFailoverStrategy", fmt.Sprint(failover.NewRestartAllFailoverStrategy(all)))
	j := newRegionJob(t)
	assert.Equal(t, "RestartPipelinedRegionFailoverStrategy",
		fmt.Sprint(failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.regions, nil, nil)))
}
