package failover_test

import (
	"testing"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/jobgraph"
)

// twoVertexGraph builds Source (n) → Sink (n) with one exchange.
func twoVertexGraph(b *testing.B, n int, pattern jobgraph.DistributionPattern, resultType jobgraph.ResultPartitionType) *executiongraph.ExecutionGraph {
	b.Helper()
	source := jobgraph.NewJobVertex("Source", "SourceStreamTask", n)
	sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", n)
	sink.ConnectNewDataSetAsInput(source, pattern, resultType)
	jg := jobgraph.New("failover benchmark")
	jg.AddVertex(source)
	jg.AddVertex(sink)
	g, err := executiongraph.BuildGraph(jg)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// benchmarkTasksNeedingRestart times one restart-set computation for a
// failure of the first source subtask.
func benchmarkTasksNeedingRestart(b *testing.B, g *executiongraph.ExecutionGraph, isAvailable failover.ResultPartitionAvailabilityChecker, want int) {
	regions := g.PipelinedRegions()
	s := failover.NewRestartPipelinedRegionFailoverStrategy(g, regions, isAvailable, nil)
	failed := g.VerticesTopologically()[0].TaskVertices()[0].ID()
	b.ReportAllocs()
	for b.Loop() {
		if got := len(s.TasksNeedingRestart(failed, errBoom)); got != want {
			b.Fatalf("%d tasks to restart, want %d", got, want)
		}
	}
}

// BenchmarkRegionFailoverAllToAll: 2 × 10,000 subtasks joined all-to-all,
// pipelined, so one region of 20,000 subtasks restarts. Flink's
// RegionFailoverBenchmark at this scale (FLINK-21110, Flink 1.14): 170 ms.
//
//	go test -run='^$' -bench=RegionFailover -benchmem ./runtime/executiongraph/failover/
func BenchmarkRegionFailoverAllToAll(b *testing.B) {
	g := twoVertexGraph(b, 10_000, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	benchmarkTasksNeedingRestart(b, g, nil, 20_000)
}

// BenchmarkRegionFailoverAllToAllBlocking: the same job with a blocking
// exchange, 20,000 regions of one subtask: the failed source and all
// 10,000 consumers of its result restart, and each consumer's input is
// checked once for all of them.
func BenchmarkRegionFailoverAllToAllBlocking(b *testing.B) {
	g := twoVertexGraph(b, 10_000, jobgraph.AllToAll, jobgraph.Blocking)
	always := func(api.IntermediateResultPartitionID) bool { return true }
	benchmarkTasksNeedingRestart(b, g, always, 10_001)
}

// BenchmarkRegionFailoverIndependentRegions: 10,000 independent regions
// (Source → Sink, forward): one of them restarts, two subtasks.
func BenchmarkRegionFailoverIndependentRegions(b *testing.B) {
	g := twoVertexGraph(b, 10_000, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	benchmarkTasksNeedingRestart(b, g, nil, 2)
}
