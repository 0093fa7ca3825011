package callgraph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/runpath"
)

// forkGraph has two ways from p.A to p.Z, through p.B or through p.C,
// and a registration in small: p.X hands p.Reg a callback (p.X$1, which
// calls p.Y); p.W hands p.Reg another (p.W$1, which calls p.Z). p.Reg
// calls whichever callback it was given, through its own closure.
func forkGraph(t *testing.T) *Graph {
	return newTestGraph(t, []testNode{
		{label: "p.A", kind: kindStep, succ: []string{"p.B", "p.C"}},
		{label: "p.B", kind: kindStep, succ: []string{"p.D"}},
		{label: "p.C", kind: kindStep, succ: []string{"p.D"}},
		{label: "p.D", kind: kindStep, succ: []string{"p.Z"}},
		{label: "p.Z", kind: kindStep},

		{label: "p.X", kind: kindStep, succ: []string{"p.Reg", "p.X$1"}},
		{label: "p.X$1", kind: kindClosure, owners: []string{"p.X"}, succ: []string{"p.Y"}},
		{label: "p.Y", kind: kindStep, succ: []string{"p.W"}},
		{label: "p.W", kind: kindStep, succ: []string{"p.Reg", "p.W$1"}},
		{label: "p.W$1", kind: kindClosure, owners: []string{"p.W"}, succ: []string{"p.Z"}},
		{label: "p.Reg", kind: kindStep, succ: []string{"p.Reg$1"}},
		{label: "p.Reg$1", kind: kindClosure, owners: []string{"p.Reg"}, succ: []string{"p.X$1", "p.W$1"}},
	})
}

// runOf turns frames written as the Go runtime names functions, with
// "example/" before each package, into a recorded run.
func runOf(g *Graph, paths ...[]string) *Run {
	var recorded []runpath.Path
	for _, frames := range paths {
		p := runpath.Path{}
		for _, f := range frames {
			p.Frames = append(p.Frames, "example/"+f)
		}
		recorded = append(recorded, p)
	}
	return g.NewRun(recorded)
}

func TestARunAcceptsOnlyTheWayItTook(t *testing.T) {
	g := forkGraph(t)
	// The run went through p.C; the code could have gone through p.B.
	run := runOf(g, []string{"p.A", "mailbox.run", "p.C", "p.D", "p.Z"})

	assert.True(t, g.Check([]string{"p.A", "p.C", "p.D", "p.Z"}, "p.A", "p.Z", run).OK)

	r := g.Check([]string{"p.A", "p.B", "p.D", "p.Z"}, "p.A", "p.Z", run)
	assert.False(t, r.OK, "p.B is a call in the code, not one the run made")
	assert.Equal(t, "Line 2: p.A can call p.B, but this run does not go that way: that call is not on its way to p.Z. "+
		"Either it sits on a branch this scenario does not take (read the conditions around it), or it returns before the way goes on. "+
		"Find the call of p.A that leads on.", r.Problem)
	assert.True(t, g.Check([]string{"p.A", "p.B", "p.D", "p.Z"}, "p.A", "p.Z", nil).OK, "without a run, the code alone decides")

	r = g.Check([]string{"p.A", "p.D", "p.Z"}, "p.A", "p.Z", run)
	assert.Equal(t, "Line 2: p.A does not call p.D. On the way this run took, 1 more function comes between them (in package p): "+
		"read p.A and follow the call that leads on.", r.Problem)
}

// A function hands a callback to a registration, which calls it later:
// for a reader the function calls what its callback calls. The callback
// of one registration is not the callback of another, though the same
// function, p.Reg, calls both.
func TestACallbackBelongsToTheCallThatGaveIt(t *testing.T) {
	g := forkGraph(t)
	run := runOf(g, []string{
		"p.X", "p.Reg", "p.Reg.func1", "p.X.func1", // the first registration calls p.X's callback…
		"p.Y", "p.W", "p.Reg", "p.Reg.func1", "p.W.func1", // …and the second p.W's
		"p.Z",
	})
	for _, tt := range []struct {
		chain []string
		ok    bool
	}{
		{[]string{"p.X", "p.Y", "p.W", "p.Z"}, true},
		{[]string{"p.X", "p.Reg", "p.Y", "p.W", "p.Reg", "p.Z"}, true},
		// p.Reg calls p.Z's callback only in the second registration.
		{[]string{"p.X", "p.Reg", "p.Z"}, false},
	} {
		r := g.Check(tt.chain, "p.X", "p.Z", run)
		assert.Equal(t, tt.ok, r.OK, "%q: %s", tt.chain, r.Problem)
	}
}

// A checker that names the function to write next can be followed to
// green without reading any code; ours cannot.
func TestOnlyAChainCheckerThatSpoilsCanBeFollowedBlindly(t *testing.T) {
	g := mailboxGraph(t)
	const from, to = "d.Dispatcher.SubmitJob", "r.Runner.Start"
	require.True(t, g.Check([]string{from, "d.Dispatcher.submitJob", "d.Dispatcher.check", "d.Dispatcher.internal", to}, from, to, nil).OK)

	honest := func(chain []string) (bool, string) {
		r := g.Check(chain, from, to, nil)
		return r.OK, words(r)
	}
	// The checker as it was: it showed the way the learner skipped.
	spoiling := func(chain []string) (bool, string) {
		ok, said := honest(chain)
		for i := 0; i+1 < len(chain) && !ok; i++ {
			a, errA := g.resolve(chain[i])
			b, errB := g.resolve(chain[i+1])
			if errA != nil || errB != nil {
				break
			}
			if _, called := g.calls(a, b); !called {
				if path := g.shortestPath(a, b); path != nil {
					said += " There is a longer way: " + strings.Join(g.names(path), " → ") + "."
				}
				break
			}
		}
		return ok, said
	}

	checks, green := FollowTheWords(spoiling, g.Known, []string{from, to}, 20)
	assert.True(t, green, "a reader who follows a spoiling checker reaches green (after %d checks)", checks)

	checks, green = FollowTheWords(honest, g.Known, []string{from, to}, 20)
	assert.False(t, green, "a reader who only follows our checker's words reached green in %d checks", checks)
}

// words is what a learner reads of a verdict: the hops, then the
// problem.
func words(r Result) string {
	var b strings.Builder
	for _, h := range r.Hops {
		b.WriteString(h.From + " → " + h.To + " " + strings.Join(h.Via, ", ") + "\n")
	}
	return b.String() + r.Problem
}

// The words about a chain may name what the learner wrote, the two ends,
// and the spellings of a name the learner got wrong; any other function
// they name is given away.
func TestNamesGivenAway(t *testing.T) {
	g := mailboxGraph(t)
	const from, to = "d.Dispatcher.SubmitJob", "r.Runner.Start"
	chain := []string{from, "d.Dispatcher.submitjob", to}

	assert.Empty(t, g.NamesGivenAway("Line 2: d.Dispatcher.submitjob is not a function or method of the runtime. "+
		"Did you mean d.Dispatcher.submitJob? d.Dispatcher.SubmitJob → r.Runner.Start", chain, from, to))
	assert.Equal(t, []string{"d.Dispatcher.check"},
		g.NamesGivenAway("There is a longer way: d.Dispatcher.submitJob → d.Dispatcher.check → r.Runner.Start.", chain, from, to))
}
