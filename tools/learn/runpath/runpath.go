// Package runpath carries the ways a real run of the runtime took from a
// reading exercise's scenario test to `go run ./tools/learn check`.
//
// A reading exercise (r01, r02) asks for the chain of calls from one
// function to another. Many chains exist in the code; one is right: the
// one the program takes when it runs the exercise's scenario. The
// scenario test records it with the runtime's causal traces
// (rpc.RecordCauses: every hand-over to a mailbox or a goroutine
// remembers the stack that made it, joined to that stack's own cause),
// keeps each recorded stack that goes from the exercise's first function
// to its last, and writes it to the test's log, one line each:
//
//	r01_test.go:52: learn-runpath: {"frames":["flinklab/runtime/rest.(*Server).handleJarRun",…],"handovers":[4,12]}
//
// ParseTestOutput reads them back. A Frame names a function as the Go
// runtime does ("flinklab/runtime/dispatcher.(*Dispatcher).SubmitJob.func1");
// ParseFunction splits such a name into package, receiver, function and
// the function literals it is nested in, so that the checker can tell a
// step a learner must name from a function literal or a wrapper that
// needs no naming.
//
// Like tracediff, the package imports nothing of the runtime: the learn
// tool must work while the learner's runtime does not build.
package runpath

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Prefix starts each recorded path in a test's log.
const Prefix = "learn-runpath: "

// Path is one way the run took, outermost call first.
type Path struct {
	Frames []string `json:"frames"` // function names, as the Go runtime spells them
	// Handovers are the indexes of the frames that run on another
	// goroutine than the frame before them: a message on a main thread,
	// an Ask's call, work started with rpc.Go.
	Handovers []int `json:"handovers,omitempty"`
}

// Line is the test-log line that carries p.
func (p Path) Line() string {
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // strings and ints always marshal
	}
	return Prefix + string(data)
}

// HandedOver reports whether frame i runs on another goroutine than the
// frame before it.
func (p Path) HandedOver(i int) bool { return slices.Contains(p.Handovers, i) }

// ParseTestOutput reads the paths a scenario test wrote to its log, from
// the output of go test -v or -json (each line holds at most one path).
func ParseTestOutput(r io.Reader) ([]Path, error) {
	var paths []Path
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, Prefix)
		if i < 0 {
			continue
		}
		payload := line[i+len(Prefix):]
		// In go test -json output the line is a JSON string: its quotes
		// are escaped, and it may end with an escaped newline.
		if strings.HasPrefix(line, "{") {
			var ev struct{ Output string }
			if json.Unmarshal([]byte(line), &ev) == nil {
				j := strings.Index(ev.Output, Prefix)
				if j < 0 {
					continue
				}
				payload = strings.TrimSpace(ev.Output[j+len(Prefix):])
			}
		}
		var p Path
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			return nil, fmt.Errorf("a recorded path that does not parse: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, sc.Err()
}

// Function is a function name of the Go runtime, taken apart.
type Function struct {
	PkgPath string // "flinklab/runtime/dispatcher"
	Recv    string // the receiver's type name without '*' or type arguments; "" for a function
	Name    string // "SubmitJob"
	// Literal is set for a function literal: the name of the function it
	// is written in, with its own suffix ("SubmitJob.func1"); Recv and
	// Name are then those of the enclosing function.
	Literal bool
	// Wrapper is set for code the compiler writes: a method value's
	// wrapper ("-fm"), a package-level literal (glob..func1).
	Wrapper bool
}

// literalPart matches the parts a function literal adds to its enclosing
// function's name: func1, and 2, 3, … for literals inside literals.
var literalPart = regexp.MustCompile(`^(func)?[0-9]+$`)

// ParseFunction takes a runtime function name apart:
//
//	flinklab/runtime/rest.(*Server).handleJarRun        → rest, Server, handleJarRun
//	flinklab/runtime/rpc.CallAsync[...].func1           → rpc, "", CallAsync, a literal
//	flinklab/runtime/registration.(*RetryingRegistration[...]).resolve
//	flinklab/runtime/jobmaster.(*JobMaster).startJobExecution-fm  → a wrapper
func ParseFunction(name string) (Function, bool) {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return Function{}, false
	}
	f := Function{PkgPath: name[:slash+1+dot]}
	rest := name[slash+1+dot+1:]
	if trimmed, ok := strings.CutSuffix(rest, "-fm"); ok {
		rest, f.Wrapper = trimmed, true
	}
	if strings.HasPrefix(rest, "(") { // a pointer receiver: (*T).M or (*T[...]).M
		end := strings.Index(rest, ").")
		if end < 0 {
			return Function{}, false
		}
		f.Recv = strings.TrimPrefix(rest[1:end], "*")
		rest = rest[end+2:]
	}
	parts := splitOutsideBrackets(rest)
	for len(parts) > 1 && literalPart.MatchString(parts[len(parts)-1]) {
		parts, f.Literal = parts[:len(parts)-1], true
	}
	switch {
	case len(parts) == 1 && parts[0] == "glob": // a literal in a package-level variable
		f.Wrapper = true
	case len(parts) == 1:
		f.Name = parts[0]
	case len(parts) == 2 && f.Recv == "":
		f.Recv, f.Name = parts[0], parts[1]
	default:
		return Function{}, false
	}
	f.Recv, f.Name = dropTypeArguments(f.Recv), dropTypeArguments(f.Name)
	return f, true
}

// splitOutsideBrackets splits at the dots that are not inside type
// arguments, and drops the empty part of "glob..func1".
func splitOutsideBrackets(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				if i > start {
					parts = append(parts, s[start:i])
				}
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func dropTypeArguments(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		return s[:i]
	}
	return s
}

// Short is the name as a learner writes it: pkg.Func or pkg.Recv.Method.
func (f Function) Short() string {
	pkg := f.PkgPath[strings.LastIndexByte(f.PkgPath, '/')+1:]
	if f.Recv == "" {
		return pkg + "." + f.Name
	}
	return pkg + "." + f.Recv + "." + f.Name
}

// Between keeps, of each path, the part from the first frame of from (the
// function itself or a literal written in it) to the last frame of to,
// and drops the parts that repeat one kept already. from and to are
// written as a learner writes them, pkg.Func or pkg.Recv.Method. A path
// that does not pass through from, and then to, is left out.
func Between(paths []Path, from, to string) []Path {
	var kept []Path
	seen := map[string]bool{}
	for _, p := range paths {
		first, last := -1, -1
		for i, name := range p.Frames {
			f, ok := ParseFunction(name)
			if !ok || f.Wrapper {
				continue
			}
			if first < 0 && f.Short() == from {
				first = i
			}
			if first >= 0 && !f.Literal && f.Short() == to {
				last = i
			}
		}
		if first < 0 || last < 0 {
			continue
		}
		cut := Path{Frames: p.Frames[first : last+1]}
		for _, h := range p.Handovers {
			if h > first && h <= last {
				cut.Handovers = append(cut.Handovers, h-first)
			}
		}
		if line := cut.Line(); !seen[line] {
			seen[line] = true
			kept = append(kept, cut)
		}
	}
	return kept
}
