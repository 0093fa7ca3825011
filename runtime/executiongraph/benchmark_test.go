package executiongraph

import (
	"testing"

	"flinklab/runtime/jobgraph"
)

// twoVertexJob is a source and a sink joined by one edge of the given
// pattern. With ALL_TO_ALL and equal parallelisms it is the job of Flink's
// scheduler benchmarks and of the "scheduler performance" blog posts; with
// POINTWISE, the JobEdge of a rescale.
func twoVertexJob(sourceParallelism, sinkParallelism int, pattern jobgraph.DistributionPattern) *jobgraph.JobGraph {
	source := jobgraph.NewJobVertex("Source", "SourceStreamTask", sourceParallelism)
	sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", sinkParallelism)
	sink.ConnectNewDataSetAsInput(source, pattern, jobgraph.PipelinedBounded)
	g := jobgraph.New(pattern.String() + " benchmark")
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
}

// allToAllJob is twoVertexJob at one parallelism, ALL_TO_ALL.
func allToAllJob(parallelism int) *jobgraph.JobGraph {
	return twoVertexJob(parallelism, parallelism, jobgraph.AllToAll)
}

// BenchmarkBuildExecutionGraph mirrors Flink's BuildExecutionGraphBenchmark
// at the blog's scale: 2 × 10,000 subtasks and 100,000,000 logical edges.
// Flink 1.12 needed 11.4 s to initialize this job; 1.14, with partition
// groups, 0.6 s.
//
//	go test -run='^$' -bench=BuildExecutionGraph -benchmem ./runtime/executiongraph/
func BenchmarkBuildExecutionGraph(b *testing.B) {
	jg := allToAllJob(10_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildGraph(jg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildExecutionGraphPointwise builds a rescale from 10,000 to
// 1,000 subtasks: each sink subtask reads its own range of 10 partitions,
// one ConsumedPartitionGroup each (EdgeManagerBuildUtil.connectPointwise).
//
//	go test -run='^$' -bench=BuildExecutionGraphPointwise -benchmem ./runtime/executiongraph/
func BenchmarkBuildExecutionGraphPointwise(b *testing.B) {
	jg := twoVertexJob(10_000, 1_000, jobgraph.Pointwise)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildGraph(jg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipelinedRegions computes the regions of the two jobs above,
// built once: one region for the all-to-all job, decided at the level of
// job vertices without looking at its 100,000,000 logical edges, and 1,000
// regions of 11 subtasks for the rescale, subtask by subtask.
//
//	go test -run='^$' -bench=PipelinedRegions -benchmem ./runtime/executiongraph/
func BenchmarkPipelinedRegions(b *testing.B) {
	for _, job := range []struct {
		name    string
		graph   *jobgraph.JobGraph
		regions int
	}{
		{"all-to-all 10000x10000", allToAllJob(10_000), 1},
		{"pointwise 10000x1000", twoVertexJob(10_000, 1_000, jobgraph.Pointwise), 1_000},
	} {
		b.Run(job.name, func(b *testing.B) {
			g, err := BuildGraph(job.graph)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if regions := g.PipelinedRegions(); len(regions) != job.regions {
					b.Fatalf("%d regions, want %d", len(regions), job.regions)
				}
			}
		})
	}
}
