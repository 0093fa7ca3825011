package callgraph

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Result is the verdict on one chain.
type Result struct {
	OK   bool
	Hops []Hop // one per pair of neighbouring names that both exist
	// Problem is the first thing wrong with the chain, in plain words;
	// empty when OK.
	Problem string
}

// Hop is one step of a chain: From calls To, in the reader's sense.
type Hop struct {
	From, To string // the names as the graph spells them
	OK       bool
	// Judged is false for the hops after the first wrong one: once a
	// chain has left the run's way, its later hops say nothing.
	Judged bool
	// Via is the plumbing the call passes through that a learner may see:
	// the mailbox and RPC functions, gateway stubs, From's own closures.
	// Empty for a plain call.
	Via []string
}

// Check verifies a chain of written names: it starts at from, ends at to,
// every name is a function of the runtime, each name calls the next (see
// the package documentation for what counts as a call), and, when run is
// not nil, the run took the chain: the program, running the exercise's
// scenario, really went this way. Problem says what is wrong first, in
// words that send the learner back to the code; it never names a function
// the learner has not written, other than from and to, and the spellings
// of a name that is not a function of the runtime.
func (g *Graph) Check(chain []string, from, to string, run *Run) Result {
	fromStep, err := g.resolve(from)
	if err != nil {
		return Result{Problem: fmt.Sprintf("The exercise's start is broken: %v", err)}
	}
	toStep, err := g.resolve(to)
	if err != nil {
		return Result{Problem: fmt.Sprintf("The exercise's end is broken: %v", err)}
	}
	if len(chain) == 0 {
		return Result{Problem: fmt.Sprintf("The answer is empty. Write the chain from %s to %s, one name per line.",
			g.display(fromStep), g.display(toStep))}
	}

	var res Result
	problem := func(format string, args ...any) {
		if res.Problem == "" {
			res.Problem = fmt.Sprintf(format, args...)
		}
	}
	steps := make([]int32, len(chain))
	for i, written := range chain {
		s, err := g.resolve(written)
		if err != nil {
			problem("Line %d: %v", i+1, err)
		}
		steps[i] = s
	}
	if steps[0] >= 0 && steps[0] != fromStep {
		problem("The chain must start at %s; it starts at %s.", g.display(fromStep), g.display(steps[0]))
	}
	if len(chain) == 1 && steps[0] >= 0 && fromStep != toStep {
		problem("The chain has only %s. Write every function on the way to %s, one per line.",
			g.display(steps[0]), g.display(toStep))
	}
	// The run took the chain up to names[taken-1]; the hop after it is
	// the first the run did not take.
	taken := len(steps)
	if run != nil && res.Problem == "" {
		taken = run.takes(steps)
	}
	for i := 0; i+1 < len(steps); i++ {
		a, b := steps[i], steps[i+1]
		if a < 0 || b < 0 {
			continue
		}
		hop := Hop{From: g.display(a), To: g.display(b), Judged: res.Problem == ""}
		via, called := g.calls(a, b)
		switch {
		case !hop.Judged:
		case !called:
			problem("Line %d: %s", i+2, g.explain(a, b, g.gapOf(run, steps[:i+1], b)))
		case i+1 >= taken:
			problem("Line %d: %s", i+2, g.explainNotTaken(a, b, to, run.gapAfter(steps[:i+1], b)))
		default:
			hop.OK, hop.Via = true, g.plumbingOf(a, via)
		}
		res.Hops = append(res.Hops, hop)
	}
	if last := steps[len(steps)-1]; last >= 0 && last != toStep && len(chain) > 1 {
		if slices.Contains(steps, toStep) {
			problem("The chain must end at %s; it goes on past it to %s.", g.display(toStep), g.display(last))
		} else {
			problem("The chain stops at %s; it must go on to %s.", g.display(last), g.display(toStep))
		}
	}
	res.OK = res.Problem == ""
	return res
}

// VerifyReference proves a reference chain honest: it passes Check on
// run; it fails when any one name between the first and the last is left
// out (so every name is a step a learner must find); and, reversed, it
// fails too (so the hops have a direction).
func (g *Graph) VerifyReference(chain []string, from, to string, run *Run) error {
	if r := g.Check(chain, from, to, run); !r.OK {
		return fmt.Errorf("the reference does not pass: %s", r.Problem)
	}
	var errs []error
	for i := 1; i+1 < len(chain); i++ {
		shorter := slices.Delete(slices.Clone(chain), i, i+1)
		if r := g.Check(shorter, from, to, run); r.OK {
			errs = append(errs, fmt.Errorf("the reference still passes without %s: it is not a step of its own", chain[i]))
		}
	}
	reversed := slices.Clone(chain)
	slices.Reverse(reversed)
	if r := g.Check(reversed, to, from, nil); r.OK {
		errs = append(errs, errors.New("the reference passes reversed too"))
	}
	return errors.Join(errs...)
}

// calls reports whether step a calls step b in the reader's sense, and
// the plumbing in between.
func (g *Graph) calls(a, b int32) ([]string, bool) {
	d := g.directOf(a)
	for _, c := range d.callees {
		if c.step == b {
			return d.via(g, c), true
		}
	}
	return nil, false
}

// explain says why a hop from a to b is not a call: how far apart the
// two are, on the run's way or else in the code, and in which packages
// the functions in between are, without naming them.
func (g *Graph) explain(a, b int32, gap gap) string {
	if a == b {
		return fmt.Sprintf("%s comes twice in a row. Write each function once, then the one it calls.", g.display(a))
	}
	what := fmt.Sprintf("%s does not call %s.", g.display(a), g.display(b))
	switch {
	case gap.found:
		return fmt.Sprintf("%s On the way this run took, %s: read %s and follow the call that leads on.",
			what, g.count(gap.between), g.display(a))
	case gap.before:
		return fmt.Sprintf("%s In this run %s comes before %s, not after it. Check the order of your lines.",
			what, g.display(b), g.display(a))
	}
	switch path := g.shortestPath(a, b); {
	case path != nil:
		return fmt.Sprintf("%s In the code, at least %s: read %s and follow the call that leads on.",
			what, g.count(path[1:len(path)-1]), g.display(a))
	case g.shortestPath(b, a) != nil:
		return fmt.Sprintf("%s It is the other way round: %s leads to %s. Check the order of your lines.",
			what, g.display(b), g.display(a))
	}
	return fmt.Sprintf("%s No way leads from %s to %s at all.", what, g.display(a), g.display(b))
}

// explainNotTaken says why a hop that is a call in the code is wrong for
// the exercise: the run did not go that way.
func (g *Graph) explainNotTaken(a, b int32, to string, gap gap) string {
	what := fmt.Sprintf("%s can call %s, but this run does not go that way:", g.display(a), g.display(b))
	switch {
	case gap.found:
		return fmt.Sprintf("%s on the way it took, %s.", what, g.count(gap.between))
	case gap.before:
		return fmt.Sprintf("%s in this run %s comes before %s, not after it.", what, g.display(b), g.display(a))
	}
	return fmt.Sprintf("%s that call is not on its way to %s. Either it sits on a branch this scenario does not take "+
		"(read the conditions around it), or it returns before the way goes on. Find the call of %s that leads on.",
		what, to, g.display(a))
}

// gapOf is run.gapAfter, or nothing to say when there is no run.
func (g *Graph) gapOf(run *Run, prefix []int32, b int32) gap {
	if run == nil || run.takes(prefix) < len(prefix) {
		return gap{}
	}
	return run.gapAfter(prefix, b)
}

// count says how many functions lie between two lines, and in which
// packages, without naming them: "2 more functions come between them
// (in package slotmanager)".
func (g *Graph) count(between []int32) string {
	var pkgs []string
	for _, s := range between {
		pkgs = appendUniqueString(pkgs, g.pkgLabel(g.steps[s].key.pkgPath))
	}
	slices.Sort(pkgs)
	n := "1 more function comes"
	if len(between) != 1 {
		n = fmt.Sprintf("%d more functions come", len(between))
	}
	word := "package"
	if len(pkgs) > 1 {
		word = "packages"
	}
	return fmt.Sprintf("%s between them (in %s %s)", n, word, andList(pkgs))
}

func appendUniqueString(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func andList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// plumbingOf keeps, of the plumbing a hop from a passes through, what a
// learner may see without learning a name to write: the RPC layer, the
// gateways, and a's own closures.
func (g *Graph) plumbingOf(a int32, via []string) []string {
	var kept []string
	own := g.display(a) + "$"
	for _, v := range via {
		if strings.HasPrefix(v, "rpc.") || strings.HasPrefix(v, "gateway.") || strings.HasPrefix(v, own) {
			kept = append(kept, v)
		}
	}
	return kept
}

// shortestPath returns the chain of steps from a to b with the fewest
// steps, a and b included, or nil if b cannot be reached. It is a
// breadth-first search over the steps, where the neighbours of a step
// are the steps it calls in the reader's sense (directOf), so every hop
// of the result would pass Check.
func (g *Graph) shortestPath(a, b int32) []int32 {
	parent := map[int32]int32{a: -1}
	queue := []int32{a}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, c := range g.directOf(s).callees {
			if _, seen := parent[c.step]; seen {
				continue
			}
			parent[c.step] = s
			if c.step == b {
				var path []int32
				for x := b; x >= 0; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, c.step)
		}
	}
	return nil
}

// direct is what one step calls in the reader's sense: the steps that
// can be reached from it through plumbing alone.
type direct struct {
	callees []callee
	// parent is the breadth-first tree over nodes: for each plumbing
	// node reached, the node it was reached from (-1 at the step's own
	// nodes).
	parent map[int32]int32
}

// callee is a step that a step calls, and the last node on the way
// there, from which the plumbing is read back.
type callee struct {
	step int32
	from int32
}

func (d *direct) via(g *Graph, c callee) []string {
	var via []string
	for n := c.from; n >= 0 && g.nodes[n].kind != kindStep; n = d.parent[n] {
		via = append(via, g.nodes[n].label)
	}
	slices.Reverse(via)
	return via
}

type directCache struct {
	mu sync.Mutex
	m  map[int32]*direct
}

// directOf computes, once per step, the steps s calls: a breadth-first
// search from s's nodes that passes only through plumbing — transport
// functions, compiler-generated wrappers, and closures that s itself
// creates — and stops at the first step on every branch.
func (g *Graph) directOf(s int32) *direct {
	g.direct.mu.Lock()
	defer g.direct.mu.Unlock()
	if d, ok := g.direct.m[s]; ok {
		return d
	}
	d := &direct{parent: make(map[int32]int32)}
	seenStep := make(map[int32]bool)
	var queue []int32
	for _, n := range g.steps[s].nodes {
		d.parent[n] = -1
		queue = append(queue, n)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range g.nodes[n].succ {
			next := &g.nodes[m]
			if next.kind == kindStep {
				if !seenStep[next.step] {
					seenStep[next.step] = true
					d.callees = append(d.callees, callee{step: next.step, from: n})
				}
				continue
			}
			if _, seen := d.parent[m]; seen || !g.passable(&g.nodes[n], next, s) {
				continue
			}
			d.parent[m] = n
			queue = append(queue, m)
		}
	}
	if g.direct.m == nil {
		g.direct.m = make(map[int32]*direct)
	}
	g.direct.m[s] = d
	return d
}

// passable reports whether a path that starts at step owner may pass
// from node prev through node n without naming n. Plumbing always may. A
// closure may if owner creates it, or if it is called straight from
// owner's own code (a callback in a field or a parameter, such as a
// factory); a closure that plumbing calls — the mailbox runs every
// component's messages — counts only for the step that made it.
func (g *Graph) passable(prev, n *node, owner int32) bool {
	switch n.kind {
	case kindPlumbing:
		return true
	case kindClosure:
		return slices.Contains(n.owners, owner) || prev.kind == kindStep || prev.kind == kindClosure
	}
	return false
}
