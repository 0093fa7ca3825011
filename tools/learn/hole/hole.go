// Package hole cuts and fills the holes of exercises: function bodies in a
// Go source file, found by name ("Dispatcher.checkAndSubmitJob" for a
// method, "isPartialResourceConfigured" for a function).
//
// Bodies are spliced as text, between the function's braces, and the file
// is then re-parsed and formatted: comments outside the body stay where
// they were, which rewriting the syntax tree does not guarantee. Imports
// that the new bodies no longer use are dropped, and imports they need are
// taken from a list of known ones (the complete file's).
package hole

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/imports"
)

// Import is one import of a file: its path and, if it has one, its name.
type Import struct {
	Name string
	Path string
}

// Func is one function of a file as text.
type Func struct {
	Name string // "Dispatcher.checkAndSubmitJob"
	Decl string // the whole declaration with its doc comment
	Body string // the text between the braces
	Line int    // the line of its "func" keyword
}

// Find returns the named function of src.
func Find(src []byte, name string) (Func, error) {
	fset, f, err := parse(src)
	if err != nil {
		return Func{}, err
	}
	fn := lookup(f, name)
	if fn == nil {
		return Func{}, fmt.Errorf("no function %s in the file", name)
	}
	start := fn.Pos()
	if fn.Doc != nil {
		start = fn.Doc.Pos()
	}
	lbrace, rbrace := fset.Position(fn.Body.Lbrace).Offset, fset.Position(fn.Body.Rbrace).Offset
	return Func{
		Name: name,
		Decl: string(src[fset.Position(start).Offset : rbrace+1]),
		Body: string(src[lbrace+1 : rbrace]),
		Line: fset.Position(fn.Pos()).Line,
	}, nil
}

// Imports returns the imports of src.
func Imports(src []byte) ([]Import, error) {
	_, f, err := parse(src)
	if err != nil {
		return nil, err
	}
	var out []Import
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		imp := Import{Path: path}
		if spec.Name != nil {
			imp.Name = spec.Name.Name
		}
		out = append(out, imp)
	}
	return out, nil
}

// Replace returns src with the bodies of the named functions replaced by
// the given texts (what goes between the braces), formatted. Imports no
// longer used are removed; imports from known that the new bodies use and
// src lacks are added.
func Replace(src []byte, bodies map[string]string, known []Import) ([]byte, error) {
	fset, f, err := parse(src)
	if err != nil {
		return nil, err
	}
	type span struct{ from, to int }
	var spans []span
	var texts []string
	for name, body := range bodies {
		fn := lookup(f, name)
		if fn == nil {
			return nil, fmt.Errorf("no function %s in the file", name)
		}
		spans = append(spans, span{fset.Position(fn.Body.Lbrace).Offset + 1, fset.Position(fn.Body.Rbrace).Offset})
		texts = append(texts, body)
	}
	// Splice from the end of the file backwards, so earlier offsets hold.
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return spans[b].from - spans[a].from })
	out := slices.Clone(src)
	for _, i := range order {
		out = slices.Concat(out[:spans[i].from], []byte(texts[i]), out[spans[i].to:])
	}
	return fixImports(out, known)
}

// Punch returns src with each named function's body replaced by the
// guidance comment todo[name] and a panic saying what to write, tagged
// with the exercise id: the hole a learner fills.
func Punch(src []byte, id string, todo map[string]string) ([]byte, error) {
	bodies := make(map[string]string, len(todo))
	for name, text := range todo {
		bodies[name] = PunchedBody(id, name, text)
	}
	return Replace(src, bodies, nil)
}

// PunchedBody is the body of a punched hole.
func PunchedBody(id, name, todo string) string {
	var b strings.Builder
	b.WriteString("\n")
	for line := range strings.SplitSeq(strings.TrimSpace(todo), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			b.WriteString("\t//\n")
			continue
		}
		fmt.Fprintf(&b, "\t// %s\n", line)
	}
	fmt.Fprintf(&b, "\tpanic(%q)\n", PanicText(id, name))
	return b.String()
}

// PanicText is what a punched hole panics with; `learn` looks for it to
// tell whether a hole is still open.
func PanicText(id, name string) string {
	return fmt.Sprintf("TODO(%s): write %s (see exercises/%s/README.md)", id, name, id)
}

// IsPunched reports whether the named function of src is still the hole
// of exercise id.
func IsPunched(src []byte, id, name string) bool {
	fn, err := Find(src, name)
	return err == nil && strings.Contains(fn.Body, strconv.Quote(PanicText(id, name)))
}

func parse(src []byte) (*token.FileSet, *ast.File, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	return fset, f, nil
}

// lookup finds "Type.Method" or "Func" among f's declarations.
func lookup(f *ast.File, name string) *ast.FuncDecl {
	typeName, funcName, isMethod := strings.Cut(name, ".")
	if !isMethod {
		funcName, typeName = typeName, ""
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != funcName || fn.Body == nil {
			continue
		}
		if receiverType(fn) == typeName {
			return fn
		}
	}
	return nil
}

// receiverType is "Dispatcher" for func (d *Dispatcher) and for
// func (d Dispatcher), "" for a plain function.
func receiverType(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t := t.(type) {
	case *ast.IndexExpr: // a generic type: T[K]
		t2, _ := t.X.(*ast.Ident)
		if t2 != nil {
			return t2.Name
		}
	case *ast.IndexListExpr:
		t2, _ := t.X.(*ast.Ident)
		if t2 != nil {
			return t2.Name
		}
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// fixImports drops unused imports, adds the known ones that are used and
// missing, and formats.
func fixImports(src []byte, known []Import) ([]byte, error) {
	fset, f, err := parse(src)
	if err != nil {
		return nil, fmt.Errorf("the spliced file does not parse: %w", err)
	}
	for _, imp := range known {
		if !hasImport(f, imp.Path) && uses(f, imp) {
			astutil.AddNamedImport(fset, f, imp.Name, imp.Path)
		}
	}
	for _, spec := range slices.Clone(f.Imports) {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := ""
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		if !uses(f, Import{Name: name, Path: path}) {
			astutil.DeleteNamedImport(fset, f, name, path)
		}
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, err
	}
	// astutil puts an added import next to the one whose path is most
	// alike, which can land a module import among the standard library's;
	// goimports' grouping (standard library, others, this module) puts it
	// back where the file had it (LocalPrefix, set once in init).
	return imports.Process("", buf.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
}

// init names this module for goimports' grouping. LocalPrefix is a global of
// package imports: set on every call, as it once was, it was a data race
// between exercises filled side by side.
func init() { imports.LocalPrefix = "flinklab" }

func hasImport(f *ast.File, path string) bool {
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == path {
			return true
		}
	}
	return false
}

// uses reports whether f refers to the package imp as a qualifier.
func uses(f *ast.File, imp Import) bool {
	name := imp.Name
	if name == "" {
		name = imp.Path[strings.LastIndex(imp.Path, "/")+1:]
		// "go.yaml.in/yaml/v3" is package yaml.
		if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
			rest := strings.TrimSuffix(imp.Path, "/"+name)
			name = rest[strings.LastIndex(rest, "/")+1:]
		}
	}
	used := false
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return !used
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
			used = true
		}
		return !used
	})
	return used
}
