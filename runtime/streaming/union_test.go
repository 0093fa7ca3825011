package streaming

import (
	"errors"
	"testing"
)

// A union becomes no node: the operator that reads it gets an edge from
// each input, each with the partitioner nearest the consumer on its own
// path, and chains to none of them.
func TestUnionConnectsEachInput(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetParallelism(2)
	a := Map(FromElements(env, "x"), identity).Name("A")
	b := Map(FromElements(env, "y"), identity).Name("B")
	c := Map(FromElements(env, "z"), identity).Name("C")
	Map(a.Rebalance().Union(b, c.Broadcast()), identity).Name("D").Print()
	g, err := env.GetStreamGraph("union")
	if err != nil {
		t.Fatal(err)
	}
	d := nodeNamed(t, g, "D")
	if len(d.InEdges) != 3 {
		t.Fatalf("D has %d inputs, want 3", len(d.InEdges))
	}
	for from, want := range map[string]string{"A": "REBALANCE", "B": "FORWARD", "C": "BROADCAST"} {
		edge := edgeBetween(t, g, from, "D")
		if got := edge.Partitioner.String(); got != want {
			t.Errorf("%v: partitioner %s, want %s", edge, got, want)
		}
		if reason := NotChainableReason(edge, g); reason != "D-10 has 3 inputs" {
			t.Errorf("%v: not chained because %q, want %q", edge, reason, "D-10 has 3 inputs")
		}
	}

	// A partitioning after the union applies to every input.
	env = NewStreamExecutionEnvironment().SetParallelism(2)
	a = Map(FromElements(env, "x"), identity).Name("A")
	b = Map(FromElements(env, "y"), identity).Name("B")
	Map(a.Union(b).Rescale(), identity).Name("D").Print()
	if g, err = env.GetStreamGraph("union"); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"A", "B"} {
		if got := edgeBetween(t, g, from, "D").Partitioner.String(); got != "RESCALE" {
			t.Errorf("%s → D: partitioner %s, want RESCALE", from, got)
		}
	}
}

// Reading a union, an operator inherits its inputs' slot sharing group
// only when they all have the same one, as in Flink.
func TestUnionSlotSharingGroup(t *testing.T) {
	for _, tt := range []struct {
		groupA, groupB, want string
	}{
		{"blue", "blue", "blue"},
		{"blue", "red", DefaultSlotSharingGroup},
	} {
		env := NewStreamExecutionEnvironment()
		a := Map(FromElements(env, "x"), identity).Name("A").SlotSharingGroup(tt.groupA)
		b := Map(FromElements(env, "y"), identity).Name("B").SlotSharingGroup(tt.groupB)
		Map(a.Union(b), identity).Name("D").Print()
		g, err := env.GetStreamGraph("union")
		if err != nil {
			t.Fatal(err)
		}
		if got := nodeNamed(t, g, "D").SlotSharingGroup; got != tt.want {
			t.Errorf("inputs in %q and %q: D is in %q, want %q", tt.groupA, tt.groupB, got, tt.want)
		}
	}
}

// A union is no operator: it has no settings of its own.
func TestUnionIsNoOperator(t *testing.T) {
	env := NewStreamExecutionEnvironment()
	a := FromElements(env, "x")
	a.Union(FromElements(env, "y")).SetParallelism(3).Print()
	if _, err := env.GetStreamGraph("union"); !errors.Is(err, errNotAnOperator) {
		t.Fatalf("SetParallelism on a union: %v, want errNotAnOperator", err)
	}
}
