package hole

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"slices"
	"strings"
)

// Dispatch returns src with the named function turned into a switch over
// variants of it: each variant (key → the text of a body) becomes a copy of
// the function with that body, named name_variantKEY, and the function
// itself calls the copy whose key the environment variable env holds, or
// runs its own body when env names none. Imports the variants use are
// taken from known, and os is added for the switch.
//
// It lets one build of a package try many bodies of one function: `learn
// verify` compiles an exercise's tests once with every mutant in, and runs
// the binary once per mutant, instead of building once per mutant.
func Dispatch(src []byte, name string, variants map[string]string, env string, known []Import) ([]byte, error) {
	fset, f, err := parse(src)
	if err != nil {
		return nil, err
	}
	fn := lookup(f, name)
	if fn == nil {
		return nil, fmt.Errorf("no function %s in the file", name)
	}
	keys := make([]string, 0, len(variants))
	for k := range variants {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	// The copies keep the function's signature as written.
	var copies strings.Builder
	for _, k := range keys {
		header, err := signature(fset, fn, fn.Name.Name+"_variant"+k)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&copies, "\n\n%s {%s\n}", header, variants[k])
	}

	// The dispatcher needs a name for every parameter it passes on.
	recv, args := nameParameters(fn)
	call := fn.Name.Name + "_variant%s"
	if recv != "" {
		call = recv + "." + call
	}
	if tp := fn.Type.TypeParams; tp != nil {
		var names []string
		for _, field := range tp.List {
			for _, n := range field.Names {
				names = append(names, n.Name)
			}
		}
		call += "[" + strings.Join(names, ", ") + "]"
	}
	call += "(" + strings.Join(args, ", ") + ")"
	var dispatch strings.Builder
	fmt.Fprintf(&dispatch, "\n\tswitch os.Getenv(%q) {", env)
	for _, k := range keys {
		fmt.Fprintf(&dispatch, "\n\tcase %q:\n\t\t", k)
		if fn.Type.Results != nil && len(fn.Type.Results.List) > 0 {
			fmt.Fprintf(&dispatch, "return "+call, k)
		} else {
			fmt.Fprintf(&dispatch, call+"\n\t\treturn", k)
		}
	}
	dispatch.WriteString("\n\t}\n")
	header, err := signature(fset, fn, fn.Name.Name)
	if err != nil {
		return nil, err
	}
	body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
	decl := header + " {" + dispatch.String() + body + "}" + copies.String()

	from, to := fset.Position(fn.Pos()).Offset, fset.Position(fn.End()).Offset
	out := slices.Concat(src[:from], []byte(decl), src[to:])
	return fixImports(out, append(slices.Clone(known), Import{Path: "os"}))
}

// nameParameters gives every unnamed or blank receiver and parameter of
// fn a name, so that the dispatcher can pass them on, and returns the
// receiver's name and the arguments to pass ("rest..." for a variadic
// parameter). It changes fn.
func nameParameters(fn *ast.FuncDecl) (recv string, args []string) {
	if fn.Recv != nil && len(fn.Recv.List) > 0 {
		field := fn.Recv.List[0]
		if len(field.Names) == 0 || field.Names[0].Name == "_" {
			field.Names = []*ast.Ident{ast.NewIdent("variantRecv")}
		}
		recv = field.Names[0].Name
	}
	i := 0
	for _, field := range fn.Type.Params.List {
		if len(field.Names) == 0 {
			field.Names = []*ast.Ident{ast.NewIdent("")}
		}
		for _, n := range field.Names {
			if n.Name == "" || n.Name == "_" {
				n.Name = fmt.Sprintf("variantArg%d", i)
			}
			arg := n.Name
			if _, variadic := field.Type.(*ast.Ellipsis); variadic {
				arg += "..."
			}
			args = append(args, arg)
			i++
		}
	}
	return recv, args
}

// signature prints fn's header ("func (r T) Name[P any](a int) error")
// under another name, without its body or doc comment.
func signature(fset *token.FileSet, fn *ast.FuncDecl, name string) (string, error) {
	header := &ast.FuncDecl{Recv: fn.Recv, Name: ast.NewIdent(name), Type: fn.Type}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, header); err != nil {
		return "", err
	}
	return b.String(), nil
}
