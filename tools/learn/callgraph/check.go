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
	// Via is the plumbing the call passes through, in order: closures,
	// mailbox and RPC functions, gateway stubs. Empty for a plain call.
	Via []string
}

// Check verifies a chain of written names: it starts at from, ends at to,
// every name is a function of the runtime, and each name calls the next
// (see the package documentation for what counts as a call). Problem
// names the first thing that is wrong.
func (g *Graph) Check(chain []string, from, to string) Result {
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
	for i := 0; i+1 < len(steps); i++ {
		a, b := steps[i], steps[i+1]
		if a < 0 || b < 0 {
			continue
		}
		hop := Hop{From: g.display(a), To: g.display(b)}
		if via, ok := g.calls(a, b); ok {
			hop.OK, hop.Via = true, via
		} else {
			problem("%s", g.explain(a, b))
		}
		res.Hops = append(res.Hops, hop)
	}
	if last := steps[len(steps)-1]; last >= 0 && last != toStep && len(chain) > 1 {
		problem("The chain stops at %s; it must go on to %s.", g.display(last), g.display(toStep))
	}
	res.OK = res.Problem == ""
	return res
}

// VerifyReference proves a reference chain honest: it passes Check; it
// fails when any one name between the first and the last is left out (so
// every name is a step a learner must find); and, reversed, it fails too
// (so the hops have a direction).
func (g *Graph) VerifyReference(chain []string, from, to string) error {
	if r := g.Check(chain, from, to); !r.OK {
		return fmt.Errorf("the reference does not pass: %s", r.Problem)
	}
	var errs []error
	for i := 1; i+1 < len(chain); i++ {
		shorter := slices.Delete(slices.Clone(chain), i, i+1)
		if r := g.Check(shorter, from, to); r.OK {
			errs = append(errs, fmt.Errorf("the reference still passes without %s: it is not a step of its own", chain[i]))
		}
	}
	reversed := slices.Clone(chain)
	slices.Reverse(reversed)
	if r := g.Check(reversed, to, from); r.OK {
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

// explain says why a hop from a to b is wrong: what a calls, and the
// shortest way from a to b, if there is one.
func (g *Graph) explain(a, b int32) string {
	if a == b {
		return fmt.Sprintf("%s comes twice in a row. Write each function once, then the one it calls.", g.display(a))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s does not call %s.", g.display(a), g.display(b))
	if names := g.calleeNames(a, 12); len(names) == 0 {
		sb.WriteString(" It calls no function of the runtime.")
	} else {
		fmt.Fprintf(&sb, " It calls: %s.", strings.Join(names, ", "))
	}
	switch path := g.shortestPath(a, b); {
	case path != nil:
		fmt.Fprintf(&sb, " There is a longer way: %s.", g.longerWay(path))
	case g.shortestPath(b, a) != nil:
		fmt.Fprintf(&sb, " It is the other way round: %s leads to %s. Check the order of your lines.",
			g.display(b), g.display(a))
	default:
		fmt.Fprintf(&sb, " No way leads from %s to %s at all.", g.display(a), g.display(b))
	}
	return sb.String()
}

// calleeNames lists up to max of the steps a calls, nearest first: a
// direct call before one through a closure, and that before one through
// the RPC layer. Steps found only deep inside the RPC layer (error
// messages and codecs the wire format calls) are counted, not named.
func (g *Graph) calleeNames(a int32, max int) []string {
	const deepest = 3 // plumbing nodes on the way to a callee that is named
	d := g.directOf(a)
	type entry struct {
		name  string
		depth int
	}
	var all []entry
	for _, c := range d.callees {
		if strings.ContainsAny(g.steps[c.step].key.name, "#$") {
			continue // package initializers
		}
		all = append(all, entry{g.display(c.step), len(d.via(g, c))})
	}
	slices.SortFunc(all, func(x, y entry) int {
		if x.depth != y.depth {
			return x.depth - y.depth
		}
		return strings.Compare(x.name, y.name)
	})
	var names []string
	for i, e := range all {
		if i == max || (e.depth > deepest && i > 0) {
			names = append(names, fmt.Sprintf("and %d more", len(all)-i))
			break
		}
		names = append(names, e.name)
	}
	return names
}

// longerWay shows a path that a hop skipped over: in full when it skips
// one or two functions, else its beginning and its end, so that the
// learner still has the rest to find.
func (g *Graph) longerWay(path []int32) string {
	const shown = 2 // skipped functions shown
	var names []string
	for i, s := range path {
		if i > shown && i < len(path)-1 {
			if i == shown+1 {
				names = append(names, "…")
			}
			continue
		}
		names = append(names, g.display(s))
	}
	skipped := len(path) - 2
	first := g.display(path[1])
	switch skipped {
	case 1:
		return fmt.Sprintf("%s (you skipped %s)", strings.Join(names, " → "), first)
	case 2:
		return fmt.Sprintf("%s (you skipped %s and %s)", strings.Join(names, " → "), first, g.display(path[2]))
	}
	return fmt.Sprintf("%s (you skipped %s and at least %d more)", strings.Join(names, " → "), first, skipped-1)
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
