package executiongraph

import (
	"testing"

	"flinklab/runtime/jobgraph"
)

// allToAllJob is the job of Flink's scheduler benchmarks and of the
// "scheduler performance" blog posts: a source and a sink of the same
// parallelism, joined by one ALL_TO_ALL edge.
func allToAllJob(parallelism int) *jobgraph.JobGraph {
	source := jobgraph.NewJobVertex("Source", "SourceStreamTask", parallelism)
	sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", parallelism)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g := jobgraph.New("all-to-all benchmark")
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
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
