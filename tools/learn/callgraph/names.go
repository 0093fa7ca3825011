package callgraph

import (
	"fmt"
	"sort"
	"strings"
)

// ParseAnswer reads an answers file: one name per line. Blank lines are
// skipped, and so is everything from a '#' to the end of its line.
// Leading list markers ("-", "*", "→", "->", "1.") are dropped, so a
// chain pasted from notes still reads.
func ParseAnswer(data []byte) []string {
	var chain []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		line = trimListMarker(line)
		if line != "" {
			chain = append(chain, line)
		}
	}
	return chain
}

func trimListMarker(s string) string {
	for _, m := range []string{"->", "→", "- ", "* "} {
		if strings.HasPrefix(s, m) {
			return strings.TrimSpace(s[len(m):])
		}
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i+1 < len(s) && s[i+1] == ' ' &&
		strings.Trim(s[:i], "0123456789") == "" {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

// Name is a function as a learner writes it: pkg.Func or pkg.Type.Method.
type Name struct {
	Pkg  string // the package name, or the end of its import path: "dispatcher", "runtime/dispatcher"
	Recv string // the receiver's type name, without '*' or type arguments; "" for a function
	Func string
}

func (n Name) String() string {
	if n.Recv == "" {
		return n.Pkg + "." + n.Func
	}
	return n.Pkg + "." + n.Recv + "." + n.Func
}

// ParseName reads one written name. It forgives the spellings Go itself
// uses: "(*Dispatcher).submitJob" after the package, a '*' before the
// type, type arguments ("TaskSlotTable[T]"), and a trailing "()".
func ParseName(s string) (Name, error) {
	orig := s
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "()")
	s = dropBrackets(s)
	s = strings.NewReplacer("(", "", ")", "", "*", "").Replace(s)
	if s == "" || strings.ContainsAny(s, " \t") {
		return Name{}, fmt.Errorf("%q is not a name: write pkg.Func or pkg.Type.Method", orig)
	}
	// The package part may hold slashes (runtime/dispatcher), never dots.
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		return Name{}, fmt.Errorf("%q has no package: write pkg.Func or pkg.Type.Method, e.g. dispatcher.Dispatcher.SubmitJob", orig)
	}
	pkg, rest := s[:slash+1+dot], s[slash+1+dot+1:]
	parts := strings.Split(rest, ".")
	for _, p := range parts {
		if p == "" {
			return Name{}, fmt.Errorf("%q is not a name: write pkg.Func or pkg.Type.Method", orig)
		}
	}
	switch len(parts) {
	case 1:
		return Name{Pkg: pkg, Func: parts[0]}, nil
	case 2:
		return Name{Pkg: pkg, Recv: parts[0], Func: parts[1]}, nil
	}
	return Name{}, fmt.Errorf("%q has too many parts: write pkg.Func or pkg.Type.Method", orig)
}

// dropBrackets removes type arguments: "T[K].M" becomes "T.M".
func dropBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pkgMatches reports whether a written package fits an import path: the
// package's name (or its directory's name), or the end of its path at
// a '/' boundary, e.g. "jobmaster/slotpool" for
// "flinklab/runtime/jobmaster/slotpool".
func pkgMatches(written, pkgPath, pkgName string) bool {
	if !strings.Contains(written, "/") {
		return written == pkgName || written == pkgPath[strings.LastIndexByte(pkgPath, '/')+1:]
	}
	return pkgPath == written || strings.HasSuffix(pkgPath, "/"+written)
}

// resolve finds the step a written name stands for. An unknown name gets
// an error that suggests the nearest names; a short package name that
// several packages share gets an error listing the longer spellings.
func (g *Graph) resolve(written string) (int32, error) {
	n, err := ParseName(written)
	if err != nil {
		return -1, err
	}
	var found []int32
	transport := false
	for pkgPath, pkgName := range g.packages {
		if !pkgMatches(n.Pkg, pkgPath, pkgName) {
			continue
		}
		k := stepKey{pkgPath: pkgPath, recv: n.Recv, name: n.Func}
		if s, ok := g.byKey[k]; ok {
			found = append(found, s)
		}
		transport = transport || g.transportKeys[k]
	}
	if len(found) == 0 && transport {
		return -1, fmt.Errorf("%s belongs to the RPC layer or the gateways, which a chain passes through without naming them: leave it out, and write the function it leads to", written)
	}
	if i := strings.IndexByte(n.Func, '$'); len(found) == 0 && i > 0 {
		return -1, fmt.Errorf("%s is a closure (a function literal or a method value) inside %s: closures need no line of their own; write the function the closure calls",
			written, Name{Pkg: n.Pkg, Recv: n.Recv, Func: n.Func[:i]})
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return -1, g.unknown(written, n)
	}
	var names []string
	for _, s := range found {
		names = append(names, g.qualified(s))
	}
	sort.Strings(names)
	return -1, fmt.Errorf("%s is ambiguous: several packages are called %s. Write one of: %s",
		written, n.Pkg, strings.Join(names, ", "))
}

// unknown explains a name that is not a function of the runtime.
func (g *Graph) unknown(written string, n Name) error {
	near := g.suggest(n, 5)
	msg := fmt.Sprintf("%s is not a function or method of the runtime", written)
	if !g.hasPackage(n.Pkg) {
		msg += fmt.Sprintf(" (there is no package %s)", n.Pkg)
	}
	if len(near) == 0 {
		return fmt.Errorf("%s.", msg)
	}
	return fmt.Errorf("%s. Did you mean %s?", msg, orList(near))
}

func (g *Graph) hasPackage(written string) bool {
	for p, name := range g.packages {
		if pkgMatches(written, p, name) {
			return true
		}
	}
	return false
}

func orList(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// suggest returns up to max names of steps close to n: first the same
// function or method name elsewhere (another type, another package), then
// names one or two typing mistakes away. Nothing farther: a suggestion is
// a spelling of what the learner wrote, never a name to try next.
func (g *Graph) suggest(n Name, max int) []string {
	type scored struct {
		name  string
		score int
		near  int // case-sensitive distance to the written name: the tie-break
	}
	want := strings.ToLower(n.String())
	var all []scored
	for i := range g.steps {
		k := g.steps[i].key
		if strings.ContainsAny(k.name, "#$") || k.name == "init" {
			continue
		}
		name := g.display(int32(i))
		score := 1000
		switch {
		case k.name == n.Func:
			score = 0
		case strings.EqualFold(k.name, n.Func):
			score = 1
		default:
			if d := distance(strings.ToLower(name), want); d <= maxTypos {
				score = 10 + d
			}
		}
		if score == 1000 {
			continue
		}
		// Among equals, prefer the written type, then the written package.
		if !strings.EqualFold(k.recv, n.Recv) {
			score += 2
		}
		if !pkgMatches(n.Pkg, k.pkgPath, g.packages[k.pkgPath]) {
			score++
		}
		all = append(all, scored{name, score, distance(name, n.String())})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score < all[j].score
		}
		if all[i].near != all[j].near {
			return all[i].near < all[j].near
		}
		return all[i].name < all[j].name
	})
	var out []string
	for i := 0; i < len(all) && i < max; i++ {
		out = append(out, all[i].name)
	}
	return out
}

// maxTypos is how many typing mistakes away a suggested name may be.
const maxTypos = 2

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// display is the name a learner would write for a step: the package name,
// or, when two analysed packages share it, the shortest end of the
// import path that tells them apart.
func (g *Graph) display(s int32) string {
	k := g.steps[s].key
	return Name{Pkg: g.pkgLabel(k.pkgPath), Recv: k.recv, Func: k.name}.String()
}

// qualified is display with at least two elements of the import path.
func (g *Graph) qualified(s int32) string {
	k := g.steps[s].key
	return Name{Pkg: lastElems(k.pkgPath, 2), Recv: k.recv, Func: k.name}.String()
}

func (g *Graph) pkgLabel(pkgPath string) string {
	name := g.packages[pkgPath]
	shared := false
	for p, n := range g.packages {
		if p != pkgPath && n == name {
			shared = true
			break
		}
	}
	if !shared {
		return name
	}
	for k := 2; ; k++ {
		label := lastElems(pkgPath, k)
		if label == pkgPath {
			return label
		}
		unique := true
		for p := range g.packages {
			if p != pkgPath && (p == label || strings.HasSuffix(p, "/"+label)) {
				unique = false
				break
			}
		}
		if unique {
			return label
		}
	}
}

// lastElems returns the last k elements of a slash-separated path.
func lastElems(p string, k int) string {
	parts := strings.Split(p, "/")
	if len(parts) <= k {
		return p
	}
	return strings.Join(parts[len(parts)-k:], "/")
}
