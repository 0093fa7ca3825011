// Exercise g01: the rules that decide whether two operators chain.
//
// Each program below names two operators "A" and "B" and asks about the
// edge A → B, as Flink's StreamingJobGraphGenerator#isChainable would: the
// tests build real StreamGraphs with the DataStream API, so every rule is
// met the way a program meets it. The last test plans a whole program into
// its JobGraph and compares the tasks with the ones Flink makes for it.
package g01_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/streaming"
)

// program builds a StreamGraph at parallelism 2 from build.
func program(t *testing.T, build func(env *streaming.StreamExecutionEnvironment)) *streaming.StreamGraph {
	t.Helper()
	env := streaming.NewStreamExecutionEnvironment().SetParallelism(2)
	build(env)
	g, err := env.GetStreamGraph("g01")
	require.NoError(t, err)
	return g
}

// edgeBetween returns the edge between the operators named from and to.
func edgeBetween(t *testing.T, g *streaming.StreamGraph, from, to string) *streaming.StreamEdge {
	t.Helper()
	for _, n := range g.StreamNodes() {
		if n.OperatorName != from {
			continue
		}
		for _, e := range n.OutEdges {
			if e.Target.OperatorName == to {
				return e
			}
		}
	}
	t.Fatalf("the program has no edge %s → %s", from, to)
	return nil
}

// reasonFor asks NotChainableReason about the edge; a body that panics
// fails the test here instead of ending the test binary.
func reasonFor(t *testing.T, e *streaming.StreamEdge, g *streaming.StreamGraph) (reason string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("NotChainableReason must decide, not panic: %v", r)
		}
	}()
	return streaming.NotChainableReason(e, g)
}

func identity(s string) string { return s }
func keep(string) bool         { return true }

// A → B with nothing in the way: the row every other row breaks once.
func chainable(env *streaming.StreamExecutionEnvironment) *streaming.DataStream[string] {
	return streaming.Map(streaming.FromElements(env, "x"), identity).Name("A")
}

type rule struct {
	name  string
	build func(env *streaming.StreamExecutionEnvironment)
	from  string // "" is "A"
	to    string // "" is "B"
	setup func(g *streaming.StreamGraph)
	// words are what the reason must name, for an edge that does not
	// chain; none for an edge that does.
	words []string
}

// The seven rules of isChainable, each kept and each broken, one row each.
var rules = []rule{
	{name: "all rules hold", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").Print()
	}},
	{name: "a source chains to an ALWAYS operator", from: "Source: A", build: func(env *streaming.StreamExecutionEnvironment) {
		streaming.FromElements(env, "x").Name("A").Filter(keep).Name("B").Print()
	}},
	{name: "1: an operator reading a union has two inputs", from: "Source: A", build: func(env *streaming.StreamExecutionEnvironment) {
		a := streaming.FromElements(env, "x").Name("A")
		streaming.Map(a.Union(streaming.FromElements(env, "y").Name("other")), identity).Name("B").Print()
	}, words: []string{"B-", "2 inputs"}},
	{name: "2: chaining disabled for the job", build: func(env *streaming.StreamExecutionEnvironment) {
		env.DisableOperatorChaining()
		chainable(env).Filter(keep).Name("B").Print()
	}, words: []string{"disableOperatorChaining"}},
	{name: "3: B in another slot sharing group", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").SlotSharingGroup("heavy").Print()
	}, words: []string{`"default"`, `"heavy"`}},
	{name: "3: B inherits A's slot sharing group", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).SlotSharingGroup("heavy").Filter(keep).Name("B").Print()
	}},
	{name: "4: A is NEVER (disableChaining)", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).DisableChaining().Filter(keep).Name("B").Print()
	}, words: []string{"A-", "NEVER"}},
	{name: "4: A is HEAD (startNewChain): B still chains to it", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).StartNewChain().Filter(keep).Name("B").Print()
	}},
	{name: "5: B is NEVER (disableChaining)", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").DisableChaining().Print()
	}, words: []string{"B-", "NEVER"}},
	{name: "5: B is HEAD (startNewChain)", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").StartNewChain().Print()
	}, words: []string{"B-", "HEAD"}},
	{name: "5: B is HEAD_WITH_SOURCES behind an operator", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").Print()
	}, setup: headWithSources("B"), words: []string{"B-", "HEAD_WITH_SOURCES", "A-"}},
	{name: "5: B is HEAD_WITH_SOURCES behind a source", from: "Source: A", build: func(env *streaming.StreamExecutionEnvironment) {
		streaming.FromElements(env, "x").Name("A").Filter(keep).Name("B").Print()
	}, setup: headWithSources("B")},
	{name: "6: parallelism 2 → 3", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Filter(keep).Name("B").SetParallelism(3).Print()
	}, words: []string{"parallelism", "2", "3"}},
	{name: "7: rebalance", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Rebalance().Filter(keep).Name("B").Print()
	}, words: []string{"REBALANCE"}},
	{name: "7: rescale", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Rescale().Filter(keep).Name("B").Print()
	}, words: []string{"RESCALE"}},
	{name: "7: shuffle", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Shuffle().Filter(keep).Name("B").Print()
	}, words: []string{"SHUFFLE"}},
	{name: "7: broadcast", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Broadcast().Filter(keep).Name("B").Print()
	}, words: []string{"BROADCAST"}},
	{name: "7: keyBy", build: func(env *streaming.StreamExecutionEnvironment) {
		streaming.KeyBy(chainable(env), identity).Filter(keep).Name("B").Print()
	}, words: []string{"HASH"}},
	{name: "7: an explicit forward", build: func(env *streaming.StreamExecutionEnvironment) {
		chainable(env).Forward().Filter(keep).Name("B").Print()
	}},
}

func headWithSources(name string) func(g *streaming.StreamGraph) {
	return func(g *streaming.StreamGraph) {
		for _, n := range g.StreamNodes() {
			if n.OperatorName == name {
				n.ChainingStrategy = streaming.HeadWithSources
			}
		}
	}
}

func TestEachChainingRule(t *testing.T) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			g := program(t, r.build)
			if r.setup != nil {
				r.setup(g)
			}
			from, to := cmp.Or(r.from, "A"), cmp.Or(r.to, "B")
			reason := reasonFor(t, edgeBetween(t, g, from, to), g)
			if len(r.words) == 0 {
				assert.Empty(t, reason, "%s → %s can be chained: every rule holds, so the reason must be empty", from, to)
				return
			}
			require.NotEmpty(t, reason, "%s → %s cannot be chained (%s), yet the reason is empty", from, to, r.name)
			for _, w := range r.words {
				assert.Contains(t, reason, w, "the reason for %q must name %s", r.name, w)
			}
		})
	}
}

// When an edge breaks two rules, the reason names the first one, in
// isChainable's order: the one a learner fixing the program meets first.
func TestTheFirstBrokenRuleIsTheOneNamed(t *testing.T) {
	tests := []struct {
		name  string
		build func(env *streaming.StreamExecutionEnvironment)
		words []string
		not   []string
	}{
		{"slot sharing group before parallelism", func(env *streaming.StreamExecutionEnvironment) {
			chainable(env).Filter(keep).Name("B").SlotSharingGroup("heavy").SetParallelism(3).Print()
		}, []string{`"heavy"`}, []string{"parallelism"}},
		{"parallelism before the partitioner", func(env *streaming.StreamExecutionEnvironment) {
			chainable(env).Rebalance().Filter(keep).Name("B").SetParallelism(3).Print()
		}, []string{"parallelism"}, []string{"REBALANCE"}},
		{"B's strategy before parallelism", func(env *streaming.StreamExecutionEnvironment) {
			chainable(env).Filter(keep).Name("B").StartNewChain().SetParallelism(3).Print()
		}, []string{"HEAD"}, []string{"parallelism"}},
		{"A's NEVER before B's HEAD", func(env *streaming.StreamExecutionEnvironment) {
			chainable(env).DisableChaining().Filter(keep).Name("B").StartNewChain().Print()
		}, []string{"A-", "NEVER"}, []string{"HEAD"}},
		{"the job's setting before the slot sharing group", func(env *streaming.StreamExecutionEnvironment) {
			env.DisableOperatorChaining()
			chainable(env).Filter(keep).Name("B").SlotSharingGroup("heavy").Print()
		}, []string{"disableOperatorChaining"}, []string{"heavy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := program(t, tt.build)
			reason := reasonFor(t, edgeBetween(t, g, "A", "B"), g)
			require.NotEmpty(t, reason, "A → B breaks two rules, yet the reason is empty")
			for _, w := range tt.words {
				assert.Contains(t, reason, w, "the reason must name the first rule broken (%s)", tt.name)
			}
			for _, w := range tt.not {
				assert.NotContains(t, reason, w, "the reason names a later rule than the first one broken (%s)", tt.name)
			}
		})
	}
}

// IsChainable is NotChainableReason's yes or no; the JobGraph generator
// asks it for every edge.
func TestIsChainableAgreesWithTheReason(t *testing.T) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			g := program(t, r.build)
			if r.setup != nil {
				r.setup(g)
			}
			e := edgeBetween(t, g, cmp.Or(r.from, "A"), cmp.Or(r.to, "B"))
			reason := reasonFor(t, e, g)
			assert.Equal(t, reason == "", streaming.IsChainable(e, g))
		})
	}
}

// The chains program of runtime/examples/shapes breaks its chains for
// every reason but the partitioner. Flink makes four tasks of it:
// numbers and double chain (a source and an ALWAYS operator, forward);
// multiples-of-4 starts a new chain (HEAD); square is NEVER, so it chains
// neither to what comes before nor to what comes after; label moves to
// the slot sharing group "output", and the sink that inherits the group
// chains to it.
func TestTheChainsProgramMakesFlinksTasks(t *testing.T) {
	g, err := streaming.PlanProgram(shapes.ChainsProgramClass, nil, 0)
	require.NoError(t, err, "planning the chains program")
	jobGraph := func() (jg []string) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("planning the program must not panic: %v", r)
			}
		}()
		built, err := g.JobGraph()
		require.NoError(t, err)
		for _, v := range built.Vertices() {
			jg = append(jg, v.Name)
		}
		return jg
	}()
	slices.Sort(jobGraph)
	assert.Equal(t, []string{
		"Source: numbers -> double",
		"label -> Sink: print-sink",
		"multiples-of-4",
		"square",
	}, jobGraph, "the JobVertices of the chains program, one per task")
}
