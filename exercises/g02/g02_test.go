// Exercise g02: building the chains of a JobGraph.
//
// The tests plan programs into JobGraphs and look at what the generator
// made of them: how many JobVertices, their names, which operators each
// runs and in which order, which JobEdges leave each one and in which
// order. The last test runs two programs on a MiniCluster: a chain whose
// operators are out of order computes the wrong numbers, or none.
package g02_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/shapes"
	_ "flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// jobGraphOf plans g into its JobGraph; a body that panics fails the test
// here instead of ending the test binary.
func jobGraphOf(t *testing.T, g *streaming.StreamGraph) (jg *jobgraph.JobGraph) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("planning the program must not panic: %v", r)
		}
	}()
	jg, err := g.JobGraph()
	require.NoError(t, err, "the program must plan into a JobGraph")
	return jg
}

// shape describes a JobGraph: each vertex as "name ×parallelism", each
// edge as "producer → consumer PATTERN", in the generator's order.
func shape(jg *jobgraph.JobGraph) (vertices, edges []string) {
	for _, v := range jg.Vertices() {
		vertices = append(vertices, fmt.Sprintf("%s ×%d", v.Name, v.Parallelism))
		for _, ds := range v.ProducedDataSets() {
			for _, e := range ds.Consumers() {
				edges = append(edges, fmt.Sprintf("%s → %s %s", v.Name, e.Target.Name, e.DistributionPattern))
			}
		}
	}
	return vertices, edges
}

// The example programs become the JobGraphs Flink makes of them, one
// JobVertex per chain, one JobEdge per edge that does not chain.
func TestTheExampleProgramsMakeFlinksJobGraphs(t *testing.T) {
	tests := []struct {
		program  string
		vertices []string
		edges    []string
	}{
		{
			// The tokenizer chains to its source; keyBy is a HASH
			// exchange, so the counter starts a chain, and the sink joins it.
			program:  "wordcount",
			vertices: []string{"Source: file-input -> tokenizer ×2", "counter -> Sink: print-sink ×2"},
			edges:    []string{"Source: file-input -> tokenizer → counter -> Sink: print-sink ALL_TO_ALL"},
		},
		{
			// HEAD, NEVER and another slot sharing group cut it in four.
			program: shapes.ChainsProgramClass,
			vertices: []string{
				"Source: numbers -> double ×2", "multiples-of-4 ×2", "square ×2", "label -> Sink: print-sink ×2",
			},
			edges: []string{
				"Source: numbers -> double → multiples-of-4 POINTWISE",
				"multiples-of-4 → square POINTWISE",
				"square → label -> Sink: print-sink POINTWISE",
			},
		},
		{
			// Nothing chains across a change of parallelism; the union's
			// reader has two inputs, so it is one task reading two
			// JobEdges, and chains only to its sink.
			program: shapes.FanOutProgramClass,
			vertices: []string{
				"Source: readings ×4", "compact ×2", "widen ×4", "audit -> Sink: print-sink ×3", "Source: late-readings ×3",
			},
			edges: []string{
				"Source: readings → compact POINTWISE",
				"compact → widen POINTWISE",
				"widen → audit -> Sink: print-sink ALL_TO_ALL",
				"Source: late-readings → audit -> Sink: print-sink POINTWISE",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.program, func(t *testing.T) {
			g, err := streaming.PlanProgram(tt.program, nil, 2)
			require.NoError(t, err)
			vertices, edges := shape(jobGraphOf(t, g))
			assert.Equal(t, tt.vertices, vertices, "the JobVertices, in the order the chains were started")
			assert.ElementsMatch(t, tt.edges, edges, "the JobEdges")
		})
	}
}

func identity(s string) string { return s }
func keep(string) bool         { return true }

// A chain may fork: A has two chainable successors, each with its own
// sink. It stays one task, and its name says so with parentheses, the
// successors in the order A's outputs were declared.
func TestAChainThatForksIsOneTaskNamedWithParentheses(t *testing.T) {
	env := streaming.NewStreamExecutionEnvironment().SetParallelism(2)
	a := streaming.Map(streaming.FromElements(env, "x").Name("words"), identity).Name("A")
	a.Filter(keep).Name("B").Print().Name("out-1")
	a.Filter(keep).Name("C").Print().Name("out-2")
	g, err := env.GetStreamGraph("fork")
	require.NoError(t, err)

	jg := jobGraphOf(t, g)
	vertices, edges := shape(jg)
	assert.Equal(t, []string{"Source: words -> A -> (B -> Sink: out-1, C -> Sink: out-2) ×2"}, vertices)
	assert.Empty(t, edges)
	assert.Equal(t, []string{"Source: words", "A", "B", "Sink: out-1", "C", "Sink: out-2"}, chainedOperators(t, g, jg.Vertices()[0]),
		"the task runs its operators head first, each before the operators it feeds")
}

// The edges that leave a chain are its outputs, in Flink's order: those of
// the chained successors first, then the head's own. Each becomes one
// data set of the JobVertex, in that order.
func TestTheEdgesLeavingAChainComeInFlinksOrder(t *testing.T) {
	env := streaming.NewStreamExecutionEnvironment().SetParallelism(2)
	a := streaming.Map(streaming.FromElements(env, "x").Name("words"), identity).Name("A")
	a.Filter(keep).Name("B").Rebalance().Print().Name("X")
	a.Rebalance().Print().Name("Y")
	g, err := env.GetStreamGraph("outputs")
	require.NoError(t, err)

	jg := jobGraphOf(t, g)
	vertices, edges := shape(jg)
	assert.Equal(t, []string{"Source: words -> A -> B ×2", "Sink: X ×2", "Sink: Y ×2"}, vertices,
		"one chain for the source, A and B; each sink starts its own, in the order the edges leave the chain")
	assert.Equal(t, []string{
		"Source: words -> A -> B → Sink: X ALL_TO_ALL",
		"Source: words -> A -> B → Sink: Y ALL_TO_ALL",
	}, edges, "B's output (a chained successor's) comes before A's own")
	assert.Equal(t, []string{"Source: words", "A", "B"}, chainedOperators(t, g, jg.Vertices()[0]))
}

// chainedOperators names the operators a JobVertex's task runs, in the
// order its StreamConfig lists them.
func chainedOperators(t *testing.T, g *streaming.StreamGraph, v *jobgraph.JobVertex) []string {
	t.Helper()
	config, err := streaming.ReadStreamConfig(v.Configuration)
	require.NoError(t, err)
	var names []string
	for _, id := range config.ChainedNodeIDs {
		for _, n := range g.StreamNodes() {
			if n.ID == id {
				names = append(names, n.OperatorName)
			}
		}
	}
	return names
}

// The chains and fan-out programs run to the end on a MiniCluster, and
// their sinks get what their operators compute: every task runs the
// operators its StreamConfig names, in that order, and sends its records
// on the edges the chain has.
func TestTheChainedProgramsComputeTheirResults(t *testing.T) {
	var chains []string // 2n, kept when a multiple of 4, squared
	for n := range int64(shapes.Count) {
		if 2*n%4 == 0 {
			chains = append(chains, fmt.Sprintf("n=%d", 2*n*2*n))
		}
	}
	var fanout []string // 2n squared, broadcast to the 3 audit subtasks; and the late readings
	for n := range int64(shapes.Count) {
		for range 3 {
			fanout = append(fanout, fmt.Sprintf("n=%d", 2*n*2*n))
		}
		fanout = append(fanout, fmt.Sprintf("n=%d", n))
	}
	for _, tt := range []struct {
		program string
		want    []string
	}{
		{shapes.ChainsProgramClass, chains},
		{shapes.FanOutProgramClass, fanout},
	} {
		t.Run(tt.program, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plan, err := streaming.PlanProgram(tt.program, []string{"--output", shapes.OutputCollect}, 2)
				require.NoError(t, err)
				job := jobGraphOf(t, plan)
				slots, _ := job.SlotsNeeded()
				cluster, err := minicluster.New(minicluster.Config{
					NumTaskManagers: 1, NumSlotsPerTaskManager: slots,
					WorkingDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
				})
				require.NoError(t, err)
				require.NoError(t, cluster.Start())
				defer cluster.Close()
				shapes.Results.Clear()
				defer shapes.Results.Clear()

				var jar bytes.Buffer
				require.NoError(t, client.WriteJar(&jar, tt.program, nil))
				require.NoError(t, cluster.UploadJar(job, jar.Bytes()))
				jobID, err := cluster.SubmitJob(context.Background(), job)
				require.NoError(t, err)
				result, err := cluster.RequestJobResult(context.Background(), jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, "the job must finish: %v", result.FailureCause)

				got := shapes.Results.Values()
				slices.Sort(got)
				want := slices.Clone(tt.want)
				slices.Sort(want)
				assert.Equal(t, want, got, "what the sinks received")
			})
		})
	}
}
