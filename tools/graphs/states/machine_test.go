package states_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/scheduler/adaptive"
	"flinklab/tools/graphs/states"
)

// schedulerSource is the AdaptiveScheduler's package.
var schedulerSource = filepath.Join("..", "..", "..", "runtime", "scheduler", "adaptive")

// TestTheTableIsTheSchedulersOwn reads the AdaptiveScheduler's source and
// works out every transition its code can make, so that the diagram draws
// the scheduler as it is:
//
//   - a state is a type whose String returns a name ("Executing");
//   - goToX, a method of the AdaptiveScheduler, moves to the state whose
//     type it hands to transitionToState;
//   - a state can make the moves its own methods name, and those of the
//     helpers of the types it embeds (withGraph.finishIfTerminal) that
//     its methods call; StartScheduling is the move out of Created
//     (Flink: Created#startScheduling).
func TestTheTableIsTheSchedulersOwn(t *testing.T) {
	code := transitionsInCode(t)

	var table []string
	for _, tr := range states.AdaptiveScheduler.Transitions {
		table = append(table, tr.From+" → "+tr.To)
	}
	slices.Sort(table)
	assert.Equal(t, code, table, "the transitions of runtime/scheduler/adaptive (left) and of the table (right)")

	var names []string
	for _, s := range states.AdaptiveScheduler.States {
		names = append(names, s.Name)
	}
	for _, tr := range states.AdaptiveScheduler.Transitions {
		assert.Contains(t, names, tr.From)
		assert.Contains(t, names, tr.To)
	}
}

// TestTheStatusesAreTheSchedulersOwn checks each state's JobStatus against
// the package documentation's list ("Executing  RUNNING  …").
func TestTheStatusesAreTheSchedulersOwn(t *testing.T) {
	fset := token.NewFileSet()
	doc, err := parser.ParseFile(fset, filepath.Join(schedulerSource, "doc.go"), nil, parser.ParseComments)
	require.NoError(t, err)
	text := doc.Doc.Text()
	for _, s := range states.AdaptiveScheduler.States {
		if s.Final {
			assert.Regexp(t, `(?m)^\s*`+s.Name+`\s+the graph's final status`, text)
			continue
		}
		row := regexp.MustCompile(`(?m)^\s*(?:\w+, )?` + s.Name + `(?:, \w+)?\s+(\w+)(?:, (\w+))?`).FindStringSubmatch(text)
		if assert.NotNil(t, row, "doc.go lists no JobStatus for %s", s.Name) {
			assert.Contains(t, row[1:], s.JobStatus.String(), "the JobStatus of %s", s.Name)
		}
	}
}

func TestCheck(t *testing.T) {
	m := states.AdaptiveScheduler
	path := func(names ...string) []adaptive.Transition {
		var out []adaptive.Transition
		for i := 1; i < len(names); i++ {
			out = append(out, adaptive.Transition{From: names[i-1], To: names[i]})
		}
		return out
	}
	assert.NoError(t, m.Check(path("Created", "WaitingForResources", "CreatingExecutionGraph", "Executing", "Canceling", "Finished")))
	assert.ErrorContains(t, m.Check(path("Created", "Executing")), "move 1, Created → Executing, is not a transition")
	assert.ErrorContains(t, m.Check(path("WaitingForResources", "CreatingExecutionGraph")), "starts in WaitingForResources, not in Created")
	broken := append(path("Created", "WaitingForResources"), adaptive.Transition{From: "Executing", To: "Canceling"})
	assert.ErrorContains(t, m.Check(broken), "move 2 starts in Executing, but move 1 ended in WaitingForResources")
}

// goTo names the AdaptiveScheduler's methods that move to a state.
var goTo = regexp.MustCompile(`^goTo[A-Z]\w*$`)

// transitionsInCode returns "From → To" for every move the package's code
// can make, sorted.
func transitionsInCode(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(schedulerSource, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files, "no source in %s", schedulerSource)

	// The states: types whose String returns a literal name.
	stateName := make(map[string]string)
	for _, fn := range methods(files) {
		if fn.Name.Name != "String" || len(fn.Body.List) != 1 {
			continue
		}
		if ret, ok := fn.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if lit, ok := ret.Results[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				stateName[receiver(fn)] = name
			}
		}
	}
	require.Contains(t, stateName, "executing", "the states are found by their String methods")

	// goToX → the state it hands to transitionToState.
	target := make(map[string]string)
	for _, fn := range methods(files) {
		if receiver(fn) != "AdaptiveScheduler" || !goTo.MatchString(fn.Name.Name) {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok {
				if id, ok := lit.Type.(*ast.Ident); ok && stateName[id.Name] != "" {
					target[fn.Name.Name] = stateName[id.Name]
				}
			}
			return true
		})
		require.Contains(t, target, fn.Name.Name, "%s hands no state to transitionToState", fn.Name.Name)
	}

	// What each method names: goTo methods, and other methods it calls.
	type method struct{ receiver, name string }
	goTos := make(map[method][]string)
	calls := make(map[method][]string)
	helpers := make(map[string][]method) // method name → methods of that name on types that are neither a state nor the scheduler
	for _, fn := range methods(files) {
		m := method{receiver(fn), fn.Name.Name}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if goTo.MatchString(sel.Sel.Name) {
					goTos[m] = append(goTos[m], sel.Sel.Name)
				} else {
					calls[m] = append(calls[m], sel.Sel.Name)
				}
			}
			return true
		})
		if stateName[m.receiver] == "" && m.receiver != "AdaptiveScheduler" {
			helpers[m.name] = append(helpers[m.name], m)
		}
	}

	set := make(map[string]bool)
	for m, names := range goTos {
		from := stateName[m.receiver]
		switch {
		case m.receiver == "AdaptiveScheduler" && m.name == "StartScheduling":
			from = "Created"
		case m.receiver == "AdaptiveScheduler" && goTo.MatchString(m.name):
			continue // the move itself
		case from == "":
			continue // a helper: counted for the states that call it
		}
		for _, name := range names {
			set[fmt.Sprintf("%s → %s", from, target[name])] = true
		}
	}
	for m, called := range calls {
		from := stateName[m.receiver]
		if from == "" {
			continue
		}
		for _, name := range called {
			for _, helper := range helpers[name] {
				for _, g := range goTos[helper] {
					set[fmt.Sprintf("%s → %s", from, target[g])] = true
				}
			}
		}
	}
	for m := range goTos {
		if m.receiver == "AdaptiveScheduler" && m.name != "StartScheduling" && !goTo.MatchString(m.name) {
			t.Errorf("AdaptiveScheduler.%s moves to another state: say from which in transitionsInCode", m.name)
		}
	}

	var out []string
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// methods returns the functions of files that have a receiver and a body.
func methods(files []*ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, f := range files {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Body != nil {
				out = append(out, fn)
			}
		}
	}
	return out
}

// receiver is the name of fn's receiver type, without the star.
func receiver(fn *ast.FuncDecl) string {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
