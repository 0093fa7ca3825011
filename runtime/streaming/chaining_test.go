package streaming

import (
	"slices"
	"strings"
	"testing"
)

// nodeNamed returns the node with the given operator name.
func nodeNamed(t *testing.T, g *StreamGraph, name string) *StreamNode {
	t.Helper()
	for _, n := range g.StreamNodes() {
		if n.OperatorName == name {
			return n
		}
	}
	t.Fatalf("no node named %q in %v", name, g.StreamNodes())
	return nil
}

// edgeBetween returns the edge from the node named from to the node named to.
func edgeBetween(t *testing.T, g *StreamGraph, from, to string) *StreamEdge {
	t.Helper()
	for _, e := range nodeNamed(t, g, from).OutEdges {
		if e.Target.OperatorName == to {
			return e
		}
	}
	t.Fatalf("no edge %s -> %s", from, to)
	return nil
}

// identity and keep are user functions for pipelines whose records do not
// matter.
func identity(s string) string { return s }
func keep(string) bool         { return true }

// TestChainingDecisions has one row per chaining condition, and a row for
// each way it can be broken. Each program names two operators "A" and "B";
// the row decides whether the edge A → B is chainable.
func TestChainingDecisions(t *testing.T) {
	tests := []struct {
		name string
		// build defines the program; env has parallelism 2.
		build func(env *StreamExecutionEnvironment)
		// modify changes the StreamGraph where the API offers no setting.
		modify func(t *testing.T, g *StreamGraph)
		// from and to name the edge; "" means "A" and "B".
		from, to string
		// want is "" for a chainable edge, else a fragment of the reason.
		want string
	}{
		{
			name: "all conditions hold",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").Print()
			},
		},
		{
			name: "source (HEAD) chains to a downstream ALWAYS",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Name("A").Filter(keep).Name("B").Print()
			},
			from: "Source: A",
		},
		{
			name: "1: downstream has two inputs",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Name("Other").Print()
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").Print()
			},
			modify: func(t *testing.T, g *StreamGraph) {
				g.addEdge(nodeNamed(t, g, "Source: Other"), nodeNamed(t, g, "B"), &ForwardPartitioner{})
			},
			want: "has 2 inputs",
		},
		{
			name: "2: chaining disabled for the job",
			build: func(env *StreamExecutionEnvironment) {
				env.DisableOperatorChaining()
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").Print()
			},
			want: "chaining disabled for the job (disableOperatorChaining)",
		},
		{
			name: "3: downstream in another slot sharing group",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").SlotSharingGroup("other").Print()
			},
			want: `slot sharing group "default" ≠ "other"`,
		},
		{
			name: "3: upstream in another slot sharing group",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").SlotSharingGroup("other").Filter(keep).Name("B").SlotSharingGroup("default").Print()
			},
			want: `slot sharing group "other" ≠ "default"`,
		},
		{
			name: "3: downstream inherits the upstream's group",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").SlotSharingGroup("other").Filter(keep).Name("B").Print()
			},
		},
		{
			name: "4: upstream NEVER (DisableChaining)",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").DisableChaining().Filter(keep).Name("B").Print()
			},
			want: "A-2 is NEVER (disableChaining)",
		},
		{
			name: "4: upstream HEAD (StartNewChain) still lets B chain to it",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").StartNewChain().Filter(keep).Name("B").Print()
			},
		},
		{
			name: "5: downstream NEVER (DisableChaining)",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").DisableChaining().Print()
			},
			want: "B-3 is NEVER (disableChaining)",
		},
		{
			name: "5: downstream HEAD (StartNewChain)",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").StartNewChain().Print()
			},
			want: "B-3 is HEAD (startNewChain)",
		},
		{
			name: "5: downstream HEAD_WITH_SOURCES behind an operator",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").Print()
			},
			modify: func(t *testing.T, g *StreamGraph) { nodeNamed(t, g, "B").ChainingStrategy = HeadWithSources },
			want:   "B-3 is HEAD_WITH_SOURCES, and A-2 is no source",
		},
		{
			name: "5: downstream HEAD_WITH_SOURCES behind a source",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Name("A").Filter(keep).Name("B").Print()
			},
			modify: func(t *testing.T, g *StreamGraph) { nodeNamed(t, g, "B").ChainingStrategy = HeadWithSources },
			from:   "Source: A",
		},
		{
			name: "6: parallelism differs",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Filter(keep).Name("B").SetParallelism(3).Print()
			},
			want: "parallelism 2 ≠ 3",
		},
		{
			name: "7: REBALANCE",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Rebalance().Filter(keep).Name("B").Print()
			},
			want: "REBALANCE, not FORWARD",
		},
		{
			name: "7: RESCALE",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Rescale().Filter(keep).Name("B").Print()
			},
			want: "RESCALE, not FORWARD",
		},
		{
			name: "7: BROADCAST",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Broadcast().Filter(keep).Name("B").Print()
			},
			want: "BROADCAST, not FORWARD",
		},
		{
			name: "7: SHUFFLE",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Shuffle().Filter(keep).Name("B").Print()
			},
			want: "SHUFFLE, not FORWARD",
		},
		{
			name: "7: HASH (KeyBy)",
			build: func(env *StreamExecutionEnvironment) {
				KeyBy(Map(FromElements(env, "x"), identity).Name("A"), identity).Filter(keep).Name("B").Print()
			},
			want: "HASH, not FORWARD",
		},
		{
			name: "7: explicit FORWARD",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Forward().Filter(keep).Name("B").Print()
			},
		},
		{
			name: "7: the partitioning nearest the consumer wins",
			build: func(env *StreamExecutionEnvironment) {
				Map(FromElements(env, "x"), identity).Name("A").Rebalance().Forward().Filter(keep).Name("B").Print()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewStreamExecutionEnvironment().SetParallelism(2)
			tt.build(env)
			g, err := env.GetStreamGraph("chaining")
			if err != nil {
				t.Fatalf("GetStreamGraph: %v", err)
			}
			if tt.modify != nil {
				tt.modify(t, g)
			}
			from, to := tt.from, tt.to
			if from == "" {
				from = "A"
			}
			if to == "" {
				to = "B"
			}
			edge := edgeBetween(t, g, from, to)

			got := NotChainableReason(edge, g)
			if tt.want == "" && got != "" {
				t.Fatalf("edge %v not chainable: %s; want chainable", edge, got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("reason for %v = %q, want it to contain %q", edge, got, tt.want)
			}
			if IsChainable(edge, g) != (tt.want == "") {
				t.Fatalf("IsChainable(%v) = %v, disagrees with the reason %q", edge, !(tt.want == ""), got)
			}
		})
	}
}

// TestChainedNamesAndOutputOrder checks Flink's chain naming with fan-out
// and the order of a chain's outputs: the outputs of chained successors
// come before the node's own.
func TestChainedNamesAndOutputOrder(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetParallelism(2)
	a := Map(FromElements(env, "x"), identity).Name("A")
	b := a.Filter(keep).Name("B")                                          // chained to A
	Map(b, identity).Name("C").SetParallelism(3).Print().SetParallelism(3) // B → C breaks: parallelism
	a.Rebalance().Filter(keep).Name("D").Print()                           // A → D breaks: REBALANCE
	a.Print()                                                              // chained to A

	g, err := env.GetStreamGraph("fan-out")
	if err != nil {
		t.Fatal(err)
	}
	jg, err := CreateJobGraph(g)
	if err != nil {
		t.Fatal(err)
	}

	var names []string
	for _, v := range jg.Vertices() {
		names = append(names, v.Name)
	}
	want := []string{
		"Source: Collection Source -> A -> (B, Sink: Print to Std. Out)",
		"C -> Sink: Print to Std. Out",
		"D -> Sink: Print to Std. Out",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("vertex names:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}

	head := jg.Vertices()[0]
	config, err := ReadStreamConfig(head.Configuration)
	if err != nil {
		t.Fatal(err)
	}
	// Node IDs: 1 source, 2 A, 3 B, 4 C, 5 sink of C, 6 rebalance, 7 D, 8 sink of D, 9 sink of A.
	if got, want := config.ChainedNodeIDs, []int{1, 2, 3, 9}; !slices.Equal(got, want) {
		t.Errorf("chained node IDs = %v, want %v", got, want)
	}
	wantOut := []OutEdge{
		{SourceNodeID: 3, TargetNodeID: 4, Partitioner: "REBALANCE"}, // B's output first: B is chained to A
		{SourceNodeID: 2, TargetNodeID: 7, Partitioner: "REBALANCE"}, // then A's own
	}
	if len(config.OutEdges) != len(wantOut) {
		t.Fatalf("out edges = %v, want %v", config.OutEdges, wantOut)
	}
	for i, ds := range head.ProducedDataSets() {
		if config.OutEdges[i] != wantOut[i] {
			t.Errorf("out edge %d = %+v, want %+v", i, config.OutEdges[i], wantOut[i])
		}
		target := ds.Consumers()[0].Target.Name
		if wantTarget := want[i+1]; target != wantTarget {
			t.Errorf("data set %d is read by %q, want %q", i, target, wantTarget)
		}
	}

	// Each JobEdge is a chain broken on purpose; NotChainedReasons says why.
	reasons, err := NotChainedReasons(g, jg)
	if err != nil {
		t.Fatal(err)
	}
	wantReasons := map[string]string{
		"C -> Sink: Print to Std. Out": "parallelism 2 ≠ 3",
		"D -> Sink: Print to Std. Out": "REBALANCE, not FORWARD",
	}
	if len(reasons) != len(wantReasons) {
		t.Errorf("reasons for %d JobEdges, want %d", len(reasons), len(wantReasons))
	}
	for edge, reason := range reasons {
		if want := wantReasons[edge.Target.Name]; reason != want {
			t.Errorf("the edge into %q is not chained because %q, want %q", edge.Target.Name, reason, want)
		}
	}
}
