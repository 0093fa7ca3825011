package callgraph

import (
	"slices"
	"strings"
	"testing"
)

// testNode describes one node of a hand-made graph. Steps are written as
// learners write them (pkg.Func, pkg.Type.Method); plumbing and closures
// get any label.
type testNode struct {
	label  string
	kind   kind
	owners []string // kindClosure: the steps that create it
	succ   []string
}

// newTestGraph builds a Graph without loading any code. A step "p.X"
// lives in the package "example/p", named p.
func newTestGraph(t *testing.T, spec []testNode) *Graph {
	t.Helper()
	g := &Graph{byKey: make(map[stepKey]int32), packages: make(map[string]string)}
	ids := make(map[string]int32)
	for _, tn := range spec {
		id := int32(len(g.nodes))
		ids[tn.label] = id
		n := node{kind: tn.kind, step: -1, label: tn.label}
		if tn.kind == kindStep {
			name, err := ParseName(tn.label)
			if err != nil {
				t.Fatal(err)
			}
			k := stepKey{pkgPath: "example/" + name.Pkg, recv: name.Recv, name: name.Func}
			g.packages[k.pkgPath] = name.Pkg
			n.step = int32(len(g.steps))
			g.steps = append(g.steps, step{key: k, nodes: []int32{id}})
			g.byKey[k] = n.step
		}
		g.nodes = append(g.nodes, n)
	}
	for i, tn := range spec {
		for _, s := range tn.succ {
			id, ok := ids[s]
			if !ok {
				t.Fatalf("node %s: unknown successor %s", tn.label, s)
			}
			g.nodes[i].succ = append(g.nodes[i].succ, id)
		}
		for _, o := range tn.owners {
			g.nodes[i].owners = append(g.nodes[i].owners, g.nodes[ids[o]].step)
		}
	}
	return g
}

// mailboxGraph is the shape of a gateway call in the runtime, in small:
//
//	d.Dispatcher.SubmitJob creates SubmitJob$1 and hands it to rpc.CallAsync;
//	the mailbox (rpc.run) runs every message, SubmitJob$1 and Other$1 alike;
//	SubmitJob$1 calls submitJob → check → internal → r.Runner.Start.
//	rpc.CallAsync also reaches the mailbox's messages through rpc.run,
//	which is how a context-insensitive call graph sees it.
func mailboxGraph(t *testing.T) *Graph {
	return newTestGraph(t, []testNode{
		{label: "d.Dispatcher.SubmitJob", kind: kindStep, succ: []string{"rpc.CallAsync", "d.Dispatcher.SubmitJob$1"}},
		{label: "d.Dispatcher.SubmitJob$1", kind: kindClosure, owners: []string{"d.Dispatcher.SubmitJob"}, succ: []string{"d.Dispatcher.submitJob"}},
		{label: "rpc.CallAsync", kind: kindPlumbing, succ: []string{"rpc.run"}},
		{label: "rpc.run", kind: kindPlumbing, succ: []string{"d.Dispatcher.SubmitJob$1", "o.Other.Do$1"}},
		{label: "o.Other.Do", kind: kindStep, succ: []string{"rpc.CallAsync", "o.Other.Do$1"}},
		{label: "o.Other.Do$1", kind: kindClosure, owners: []string{"o.Other.Do"}, succ: []string{"o.Other.secret"}},
		{label: "o.Other.secret", kind: kindStep},
		// o.Other.Wire hands d.Dispatcher.check a callback (o.Other.Wire$1)
		// that d.Dispatcher.check calls: a call of what the callback calls.
		{label: "o.Other.Wire", kind: kindStep, succ: []string{"o.Other.Wire$1"}},
		{label: "o.Other.Wire$1", kind: kindClosure, owners: []string{"o.Other.Wire"}, succ: []string{"o.callback"}},
		{label: "o.callback", kind: kindStep},
		{label: "d.Dispatcher.submitJob", kind: kindStep, succ: []string{"d.Dispatcher.check", "d.log"}},
		{label: "d.log", kind: kindStep},
		{label: "d.Dispatcher.check", kind: kindStep, succ: []string{"d.Dispatcher.internal", "o.Other.Wire$1"}},
		{label: "d.Dispatcher.internal", kind: kindStep, succ: []string{"r.Runner.Start"}},
		{label: "r.Runner.Start", kind: kindStep},
	})
}

func TestCallsThroughOwnClosureAndMailbox(t *testing.T) {
	g := mailboxGraph(t)
	tests := []struct {
		from, to string
		want     bool
		via      []string
	}{
		{"d.Dispatcher.SubmitJob", "d.Dispatcher.submitJob", true, []string{"d.Dispatcher.SubmitJob$1"}},
		{"d.Dispatcher.submitJob", "d.Dispatcher.check", true, nil},
		// The mailbox runs other components' closures too; passing through
		// them would skip the function that wrote them.
		{"d.Dispatcher.SubmitJob", "o.Other.secret", false, nil},
		{"o.Other.Do", "d.Dispatcher.submitJob", false, nil},
		{"d.Dispatcher.SubmitJob", "d.Dispatcher.check", false, nil},
		{"d.Dispatcher.check", "d.Dispatcher.submitJob", false, nil},
		{"d.Dispatcher.check", "o.callback", true, []string{"o.Other.Wire$1"}},
	}
	for _, tt := range tests {
		via, got := g.calls(g.mustResolve(t, tt.from), g.mustResolve(t, tt.to))
		if got != tt.want || !slices.Equal(via, tt.via) {
			t.Errorf("calls(%s, %s) = %v via %q; want %v via %q", tt.from, tt.to, got, via, tt.want, tt.via)
		}
	}
}

func TestShortestPathIsBreadthFirst(t *testing.T) {
	// a.A reaches a.Z both through a long branch (listed first, so a
	// depth-first search would take it) and a short one.
	g := newTestGraph(t, []testNode{
		{label: "a.A", kind: kindStep, succ: []string{"a.L1", "a.S1"}},
		{label: "a.L1", kind: kindStep, succ: []string{"a.L2"}},
		{label: "a.L2", kind: kindStep, succ: []string{"a.L3"}},
		{label: "a.L3", kind: kindStep, succ: []string{"a.Z"}},
		{label: "a.S1", kind: kindStep, succ: []string{"a.Z"}},
		{label: "a.Z", kind: kindStep},
		{label: "a.Alone", kind: kindStep},
	})
	path := g.shortestPath(g.mustResolve(t, "a.A"), g.mustResolve(t, "a.Z"))
	if got, want := g.names(path), []string{"a.A", "a.S1", "a.Z"}; !slices.Equal(got, want) {
		t.Errorf("shortestPath(a.A, a.Z) = %q; want %q", got, want)
	}
	if path := g.shortestPath(g.mustResolve(t, "a.A"), g.mustResolve(t, "a.Alone")); path != nil {
		t.Errorf("shortestPath(a.A, a.Alone) = %q; want none", g.names(path))
	}
}

func TestCheckOnHandMadeGraph(t *testing.T) {
	g := mailboxGraph(t)
	const from, to = "d.Dispatcher.SubmitJob", "r.Runner.Start"
	tests := []struct {
		name    string
		chain   []string
		ok      bool
		problem []string // pieces of Result.Problem
	}{
		{"complete", []string{from, "d.Dispatcher.submitJob", "d.Dispatcher.check", "d.Dispatcher.internal", to}, true, nil},
		{"pointer receiver spelling", []string{from, "d.(*Dispatcher).submitJob", "d.*Dispatcher.check", "d.Dispatcher.internal()", to}, true, nil},
		{"skips one", []string{from, "d.Dispatcher.submitJob", "d.Dispatcher.internal", to}, false, []string{
			"Line 3: d.Dispatcher.submitJob does not call d.Dispatcher.internal. In the code, at least 1 more function comes between them (in package d)",
		}},
		{"template", []string{from, to}, false, []string{
			"Line 2: d.Dispatcher.SubmitJob does not call r.Runner.Start. In the code, at least 3 more functions come between them (in package d)",
		}},
		{"reversed hop", []string{from, "d.Dispatcher.submitJob", "d.Dispatcher.check", "d.Dispatcher.submitJob", "d.Dispatcher.check", "d.Dispatcher.internal", to}, false, []string{
			"It is the other way round",
		}},
		{"wrong start", []string{"d.Dispatcher.submitJob", "d.Dispatcher.check"}, false, []string{
			"The chain must start at d.Dispatcher.SubmitJob; it starts at d.Dispatcher.submitJob.",
		}},
		{"stops early", []string{from, "d.Dispatcher.submitJob"}, false, []string{
			"The chain stops at d.Dispatcher.submitJob; it must go on to r.Runner.Start.",
		}},
		{"unknown name", []string{from, "d.Dispatcher.submitjob", to}, false, []string{
			"Line 2: d.Dispatcher.submitjob is not a function or method of the runtime. Did you mean d.Dispatcher.submitJob",
		}},
		{"twice", []string{from, from}, false, []string{"comes twice in a row"}},
		{"empty", nil, false, []string{"The answer is empty."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := g.Check(tt.chain, from, to, nil)
			if r.OK != tt.ok {
				t.Fatalf("Check(%q).OK = %v; want %v (problem: %s)", tt.chain, r.OK, tt.ok, r.Problem)
			}
			for _, p := range tt.problem {
				if !strings.Contains(r.Problem, p) {
					t.Errorf("problem = %q\nwant it to contain %q", r.Problem, p)
				}
			}
		})
	}
}

func TestVerifyReferenceOnHandMadeGraph(t *testing.T) {
	g := newTestGraph(t, []testNode{
		{label: "a.A", kind: kindStep, succ: []string{"a.B", "a.C"}},
		{label: "a.B", kind: kindStep, succ: []string{"a.C"}},
		{label: "a.C", kind: kindStep, succ: []string{"a.D"}},
		{label: "a.D", kind: kindStep},
	})
	if err := g.VerifyReference([]string{"a.A", "a.C", "a.D"}, "a.A", "a.D", nil); err != nil {
		t.Errorf("VerifyReference(A C D) = %v; want nil", err)
	}
	// a.A calls a.C itself, so a.B is no step of its own.
	err := g.VerifyReference([]string{"a.A", "a.B", "a.C", "a.D"}, "a.A", "a.D", nil)
	if err == nil || !strings.Contains(err.Error(), "still passes without a.B") {
		t.Errorf("VerifyReference(A B C D) = %v; want it to say a.B can be left out", err)
	}
	if err := g.VerifyReference([]string{"a.A", "a.D"}, "a.A", "a.D", nil); err == nil {
		t.Error("VerifyReference(A D) = nil; want the reference to fail")
	}
}

func (g *Graph) mustResolve(t *testing.T, name string) int32 {
	t.Helper()
	s, err := g.resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
