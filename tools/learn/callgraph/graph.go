package callgraph

import (
	"errors"
	"fmt"
	"go/types"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Pattern is the set of packages Load analyses, relative to the module
// root: the runtime, where the reading exercises take place.
const Pattern = "./runtime/..."

// transport lists the packages, relative to the module path, whose
// functions are plumbing: the mailbox and RPC layer, and the gateway
// interfaces and their stubs. A path that goes through them needs no
// naming.
var transport = []string{"runtime/rpc", "runtime/gateway"}

// Graph is the call graph of the runtime as a reader sees it: one node per
// function, an edge wherever a function calls another, creates a closure
// or takes a function as a value. It is safe for concurrent use once Load
// has returned.
type Graph struct {
	nodes []node
	steps []step

	// byKey finds a step by its package path, receiver type and name.
	byKey map[stepKey]int32
	// transportKeys holds the declared functions of the transport
	// packages, so that a learner who names one is told to leave it out.
	transportKeys map[stepKey]bool
	// packages maps each analysed package path to its Go package name.
	packages map[string]string

	// Timing says how long Load took, phase by phase.
	Timing Timing

	direct directCache
}

// Timing is how long each phase of Load took.
type Timing struct {
	Load  time.Duration // packages.Load: go list, parsing, type checking
	SSA   time.Duration // building SSA for every function
	VTA   time.Duration // VTA call graph
	Index time.Duration // our nodes, closure edges and names
}

// Total is the time Load took.
func (t Timing) Total() time.Duration { return t.Load + t.SSA + t.VTA + t.Index }

func (t Timing) String() string {
	return fmt.Sprintf("load %v, SSA %v, VTA %v, index %v, total %v",
		t.Load.Round(time.Millisecond), t.SSA.Round(time.Millisecond),
		t.VTA.Round(time.Millisecond), t.Index.Round(time.Millisecond),
		t.Total().Round(time.Millisecond))
}

// kind says what a node is to a reader.
type kind uint8

const (
	// kindStep is a function a reader names in a chain: a function or
	// method declared in the runtime, outside the transport packages.
	// The instances of a generic function are one step.
	kindStep kind = iota
	// kindPlumbing is passed through without naming: functions of the
	// transport packages (and closures inside them), and the wrappers and
	// thunks the compiler generates.
	kindPlumbing
	// kindClosure is a function literal or a bound method value (x.M used
	// as a value). It is plumbing only on a path that starts at a step
	// that creates it: a closure written in B is B's code, and a path
	// that reaches it without passing through B has skipped B.
	kindClosure
	// kindExternal is a function outside the analysed packages (the
	// standard library, other modules). It has no body here, so no
	// path leads through it.
	kindExternal
)

// node is one function of the program.
type node struct {
	kind   kind
	step   int32   // kindStep: index into Graph.steps; else -1
	owners []int32 // kindClosure: the steps that create it
	label  string  // a readable name, for paths shown to the learner
	succ   []int32
}

// step is a named function: what a learner writes in a chain.
type step struct {
	key   stepKey
	nodes []int32 // its nodes: one, or one per instance of a generic function
}

// stepKey identifies a step: pkgPath.Func or pkgPath.Recv.Method.
type stepKey struct {
	pkgPath string
	recv    string // receiver type name, without pointer or type arguments
	name    string
}

// Load analyses the runtime of the module at root: packages.Load (typed
// syntax for the runtime, export data for its dependencies), SSA with
// generics instantiated, and a VTA call graph. With a warm build cache
// it takes under a second on a quiet machine; Timing says where it went.
//
// overlay holds files that stand in for the tree's, keyed by path
// relative to root, slash-separated: `learn` passes the runtime files of
// the writing exercises with the reference in their holes, so that a
// chain is checked against the complete runtime whatever the learner's
// holes hold. It may be nil.
func Load(root string, overlay map[string][]byte) (*Graph, error) {
	var t Timing
	start := time.Now()
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		// packages.LoadSyntax (deprecated as a name, not as a mode),
		// spelled out, and the module, to find the transport packages.
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
			packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
			packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir:     root,
		Overlay: make(map[string][]byte, len(overlay)),
	}
	for rel, src := range overlay {
		cfg.Overlay[filepath.Join(absRoot, filepath.FromSlash(rel))] = src
	}
	pkgs, err := packages.Load(cfg, Pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", Pattern, err)
	}
	if err := packageErrors(pkgs); err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("load %s: no packages under %s", Pattern, root)
	}
	t.Load = time.Since(start)

	start = time.Now()
	prog, _ := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	t.SSA = time.Since(start)

	start = time.Now()
	funcs := ssautil.AllFunctions(prog)
	cg := vta.CallGraph(funcs, nil)
	t.VTA = time.Since(start)

	start = time.Now()
	b := newBuilder(pkgs)
	for fn := range funcs {
		b.add(fn)
	}
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		for _, e := range n.Out {
			b.edge(fn, e.Callee.Func)
		}
	}
	for fn := range funcs {
		b.scanValues(fn)
	}
	g := b.finish()
	t.Index = time.Since(start)
	g.Timing = t
	return g, nil
}

// packageErrors collects the errors of the loaded packages: a runtime
// that does not compile has no call graph.
func packageErrors(pkgs []*packages.Package) error {
	var errs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
	})
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Errorf("and %d more errors", len(errs)-10))
	}
	if len(errs) > 0 {
		return fmt.Errorf("the runtime does not compile: %w", errors.Join(errs...))
	}
	return nil
}

// builder turns SSA functions into nodes.
type builder struct {
	g       *Graph
	ids     map[*ssa.Function]int32
	local   map[string]bool // the analysed packages, by path
	modPath string
	// creators records, for each bound method value, the functions that
	// create it (MakeClosure); their steps become its owners.
	creators map[int32][]*ssa.Function
	seen     map[[2]int32]bool
	// order is a stable sort key per node (the SSA name), so that
	// searches, and the paths they show, do not depend on map order.
	order []string
}

func newBuilder(pkgs []*packages.Package) *builder {
	b := &builder{
		g: &Graph{
			byKey:         make(map[stepKey]int32),
			transportKeys: make(map[stepKey]bool),
			packages:      make(map[string]string),
		},
		ids:      make(map[*ssa.Function]int32),
		local:    make(map[string]bool),
		creators: make(map[int32][]*ssa.Function),
		seen:     make(map[[2]int32]bool),
	}
	for _, p := range pkgs {
		b.local[p.PkgPath] = true
		b.g.packages[p.PkgPath] = p.Name
		if p.Module != nil && b.modPath == "" {
			b.modPath = p.Module.Path
		}
	}
	return b
}

// add gives fn a node, classified by what it is to a reader.
func (b *builder) add(fn *ssa.Function) int32 {
	if id, ok := b.ids[fn]; ok {
		return id
	}
	id := int32(len(b.g.nodes))
	b.ids[fn] = id
	b.g.nodes = append(b.g.nodes, node{step: -1, label: label(fn)})
	b.order = append(b.order, fn.String())
	n := &b.g.nodes[id]

	top := root(fn)
	pkg := declaringPackage(top)
	switch {
	case strings.HasPrefix(fn.Synthetic, "bound "):
		n.kind = kindClosure // owned by its creators, set in finish
	case pkg == nil || !b.local[pkg.Path()]:
		n.kind = kindExternal
	case b.isTransport(pkg.Path()):
		n.kind = kindPlumbing
		if fn.Parent() == nil && (fn.Synthetic == "" || strings.HasPrefix(fn.Synthetic, "instance of ")) {
			b.g.transportKeys[keyOf(fn)] = true
		}
	case fn.Parent() != nil:
		n.kind = kindClosure // owned by the step of top, set in finish
	case fn.Synthetic != "" && !strings.HasPrefix(fn.Synthetic, "instance of "):
		n.kind = kindPlumbing // wrappers, thunks, instantiation wrappers
	default:
		n.kind = kindStep
		n.step = b.stepOf(top)
		s := &b.g.steps[n.step]
		s.nodes = append(s.nodes, id)
	}
	return id
}

// stepOf returns the step of a top-level source function (or an instance
// of one), creating it.
func (b *builder) stepOf(fn *ssa.Function) int32 {
	k := keyOf(fn)
	if s, ok := b.g.byKey[k]; ok {
		return s
	}
	s := int32(len(b.g.steps))
	b.g.steps = append(b.g.steps, step{key: k})
	b.g.byKey[k] = s
	return s
}

// keyOf returns the key of a top-level source function or an instance
// of one.
func keyOf(fn *ssa.Function) stepKey {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	k := stepKey{pkgPath: declaringPackage(fn).Path(), name: fn.Name()}
	if recv := fn.Signature.Recv(); recv != nil {
		k.recv = typeName(recv.Type())
	}
	return k
}

func (b *builder) isTransport(pkgPath string) bool {
	for _, t := range transport {
		p := path.Join(b.modPath, t)
		if pkgPath == p || strings.HasPrefix(pkgPath, p+"/") {
			return true
		}
	}
	return false
}

func (b *builder) edge(from, to *ssa.Function) {
	f, t := b.add(from), b.add(to)
	if b.seen[[2]int32{f, t}] {
		return
	}
	b.seen[[2]int32{f, t}] = true
	b.g.nodes[f].succ = append(b.g.nodes[f].succ, t)
}

// scanValues adds the edges a reader sees that a call graph does not:
// creating a closure (the mailbox will run it), and taking a function or
// method as a value (someone will call it).
func (b *builder) scanValues(fn *ssa.Function) {
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			if mc, ok := instr.(*ssa.MakeClosure); ok {
				callee := mc.Fn.(*ssa.Function)
				b.edge(fn, callee)
				if id := b.ids[callee]; strings.HasPrefix(callee.Synthetic, "bound ") {
					b.creators[id] = append(b.creators[id], fn)
				}
				continue
			}
			var callee *ssa.Value
			if call, ok := instr.(ssa.CallInstruction); ok {
				callee = &call.Common().Value
			}
			for _, op := range instr.Operands(nil) {
				if op == callee || op == nil {
					continue
				}
				if f, ok := (*op).(*ssa.Function); ok {
					b.edge(fn, f)
				}
			}
		}
	}
}

// finish sets the owners of closures: a function literal belongs to the
// step it is written in; a bound method value to every step that
// creates it. A closure created by transport code is plumbing.
func (b *builder) finish() *Graph {
	for fn, id := range b.ids {
		if b.g.nodes[id].kind != kindClosure {
			continue
		}
		makers := b.creators[id]
		if fn.Parent() != nil {
			makers = []*ssa.Function{fn}
		}
		var owners []int32
		plumbing := false
		for _, m := range makers {
			switch owner := b.g.nodes[b.add(root(m))]; owner.kind {
			case kindStep:
				owners = appendUnique(owners, owner.step)
			case kindPlumbing:
				plumbing = true
			}
		}
		if plumbing {
			b.g.nodes[id].kind, owners = kindPlumbing, nil
		}
		b.g.nodes[id].owners = owners
	}
	byOrder := func(x, y int32) int { return strings.Compare(b.order[x], b.order[y]) }
	for i := range b.g.nodes {
		slices.SortFunc(b.g.nodes[i].succ, byOrder)
	}
	for i := range b.g.steps {
		slices.SortFunc(b.g.steps[i].nodes, byOrder)
	}
	return b.g
}

func appendUnique(s []int32, v int32) []int32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// root returns the top-level function a closure is written in (fn itself
// for a top-level function).
func root(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// declaringPackage returns the package fn is declared in, also for
// instances of generic functions (which have no Pkg of their own) and for
// wrappers of methods.
func declaringPackage(fn *ssa.Function) *types.Package {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Pkg != nil {
		return fn.Pkg.Pkg
	}
	if obj := fn.Object(); obj != nil {
		return obj.Pkg()
	}
	return nil
}

// typeName returns the name of a receiver type: T for T, *T, T[K] and *T[K].
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return t.Obj().Name()
	case *types.Interface:
		return "interface"
	}
	return t.String()
}

// label is a readable name for any node: pkg.Recv.Name, with $n for
// closures and $bound for bound method values.
func label(fn *ssa.Function) string {
	top := root(fn)
	if o := top.Origin(); o != nil {
		top = o
	}
	name := fn.Name()
	if o := fn.Origin(); o != nil {
		name = o.Name()
	}
	prefix := ""
	if pkg := declaringPackage(top); pkg != nil {
		prefix = pkg.Name() + "."
	}
	if recv := top.Signature.Recv(); recv != nil {
		prefix += typeName(recv.Type()) + "."
	}
	if i := strings.IndexByte(name, '['); i >= 0 { // instances: Foo[int]$1
		end := strings.LastIndexByte(name, ']')
		name = name[:i] + name[end+1:]
	}
	if strings.HasPrefix(fn.Synthetic, "bound ") && fn.Object() != nil {
		if f, ok := fn.Object().(*types.Func); ok {
			if sig, ok := f.Type().(*types.Signature); ok && sig.Recv() != nil {
				return f.Pkg().Name() + "." + typeName(sig.Recv().Type()) + "." + f.Name() + "$bound"
			}
		}
	}
	return prefix + name
}
