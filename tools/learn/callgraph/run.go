package callgraph

import (
	"slices"

	"flinklab/tools/learn/runpath"
)

// Run is what the program did when it ran a reading exercise's scenario:
// the ways it took from the exercise's first function to its last, as
// the scenario recorded them (runpath.Between), each frame read as a
// reader reads it. A chain is right only if the run took it.
type Run struct {
	paths [][]frame
}

// frame is one frame of a recorded path, as a reader sees it.
type frame struct {
	kind frameKind
	step int32 // stepFrame, literalFrame: the step; else -1
}

type frameKind uint8

const (
	// passFrame needs no naming: the RPC layer and the gateways, code
	// the compiler wrote, the standard library, and whatever is not in
	// the graph.
	passFrame frameKind = iota
	// stepFrame is a step: a learner who follows the run names it.
	stepFrame
	// literalFrame is a function literal written in a step: the step's
	// code, running later, where someone called the literal.
	literalFrame
)

// NewRun reads recorded paths against the graph.
func (g *Graph) NewRun(paths []runpath.Path) *Run {
	r := &Run{}
	for _, p := range paths {
		frames := make([]frame, len(p.Frames))
		for i, name := range p.Frames {
			frames[i] = g.frameOf(name)
		}
		r.paths = append(r.paths, frames)
	}
	return r
}

// frameOf classifies one function name of a recorded path.
func (g *Graph) frameOf(name string) frame {
	f, ok := runpath.ParseFunction(name)
	if !ok || f.Wrapper {
		return frame{kind: passFrame, step: -1}
	}
	s, ok := g.byKey[stepKey{pkgPath: f.PkgPath, recv: f.Recv, name: f.Name}]
	if !ok { // the transport packages, the standard library, tests
		return frame{kind: passFrame, step: -1}
	}
	if f.Literal {
		return frame{kind: literalFrame, step: s}
	}
	return frame{kind: stepFrame, step: s}
}

// Empty reports whether the run recorded no way at all.
func (r *Run) Empty() bool { return r == nil || len(r.paths) == 0 }

// How a chain is matched against a path.
//
// Each name of the chain takes a stretch of the path. It begins at a
// frame of the function itself (for the first name, a literal written in
// it will do: the run may have been cut there). It ends there too, or at
// a later frame of a literal written in that function, before the
// function shows up again: the function handed the literal to someone
// who called it later (a mailbox, a retrying registration, a helper), and
// what the literal calls the function calls, for a reader. From the end
// of one name's stretch to the next name, the path may pass only through
// frames that need no naming and through literals; the next name must be
// the first step that comes.

// match follows chain through one path. It returns how many names of the
// chain, from the first, the path takes in a row, and the frames where
// the stretch of the last of them may end.
func match(p []frame, chain []int32) (matched int, ends []int) {
	walked := map[[2]int]bool{} // (name, frame): several stretches may lead to one frame
	var walk func(k, begin int)
	walk = func(k, begin int) {
		if walked[[2]int{k, begin}] {
			return
		}
		walked[[2]int{k, begin}] = true
		stretch := stretchEnds(p, begin, chain[k])
		switch {
		case k+1 > matched:
			matched, ends = k+1, slices.Clone(stretch)
		case k+1 == matched:
			ends = append(ends, stretch...)
		}
		if k+1 == len(chain) {
			return
		}
		for _, end := range stretch {
			if next := nextStep(p, end); next >= 0 && p[next].step == chain[k+1] {
				walk(k+1, next)
			}
		}
	}
	for i, f := range p {
		if f.kind != passFrame && f.step == chain[0] {
			walk(0, i)
		}
	}
	return matched, ends
}

// stretchEnds returns where the stretch of step s that begins at frame
// begin may end: there, or at a literal of s before s comes again.
func stretchEnds(p []frame, begin int, s int32) []int {
	ends := []int{begin}
	for j := begin + 1; j < len(p); j++ {
		if p[j].step != s {
			continue
		}
		if p[j].kind == stepFrame {
			break
		}
		ends = append(ends, j)
	}
	return ends
}

// nextStep returns the first step frame after frame i, or -1.
func nextStep(p []frame, i int) int {
	for j := i + 1; j < len(p); j++ {
		if p[j].kind == stepFrame {
			return j
		}
	}
	return -1
}

// takes returns how many names of chain, from the first, the run takes
// in a row on one of its paths: len(chain) when it took the whole chain.
func (r *Run) takes(chain []int32) int {
	best := 0
	for _, p := range r.paths {
		n, _ := match(p, chain)
		best = max(best, n)
	}
	return best
}

// gap is what a run shows about a hop a → b that it does not take.
type gap struct {
	between []int32 // the steps the run passes through from a to b, on the shortest such stretch; nil if none
	found   bool    // the run goes from a on to b, through between
	before  bool    // the run reaches b only before a
}

// gapAfter looks, on the paths that take prefix (the chain up to a, its
// last name), for where the run goes from a on to b.
func (r *Run) gapAfter(prefix []int32, b int32) gap {
	var g gap
	for _, p := range r.paths {
		matched, ends := match(p, prefix)
		if matched < len(prefix) {
			continue
		}
		for _, end := range ends {
			var between []int32
			for j := end + 1; j < len(p); j++ {
				if p[j].kind != stepFrame {
					continue
				}
				if p[j].step == b {
					if !g.found || len(between) < len(g.between) {
						g.found, g.between = true, between
					}
					break
				}
				between = append(between, p[j].step)
			}
		}
		for _, f := range p[:ends[0]] {
			g.before = g.before || (f.kind == stepFrame && f.step == b)
		}
	}
	g.before = g.before && !g.found
	return g
}
