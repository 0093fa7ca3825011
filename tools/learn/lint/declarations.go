package lint

import (
	"go/ast"
	"go/token"
)

// declaredLine returns the line at which file declares m, or 0 when it does
// not: the line of "func" for a function or method, of the name for a
// type, const, var, struct field or interface method.
func declaredLine(fset *token.FileSet, file *ast.File, m meaning) int {
	line := func(pos token.Pos) int { return fset.Position(pos).Line }
	for _, decl := range file.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Name.Name == m.name && receiverType(decl) == m.typ {
				return line(decl.Pos()) // FuncDecl.Pos is the "func" keyword, after the doc comment
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				if pos := specDeclares(spec, m); pos.IsValid() {
					return line(pos)
				}
			}
		}
	}
	return 0
}

// specDeclares returns the position of m's name in spec, or token.NoPos.
func specDeclares(spec ast.Spec, m meaning) token.Pos {
	switch spec := spec.(type) {
	case *ast.TypeSpec:
		if m.typ == "" && spec.Name.Name == m.name {
			return spec.Name.Pos()
		}
		if m.typ == spec.Name.Name {
			return memberPos(spec.Type, m.name)
		}
	case *ast.ValueSpec:
		if m.typ != "" {
			return token.NoPos
		}
		for _, n := range spec.Names {
			if n.Name == m.name {
				return n.Pos()
			}
		}
	}
	return token.NoPos
}

// memberPos returns the position of the field (embedded fields count, by
// their type's name) or interface method called name in a struct or
// interface type, or token.NoPos.
func memberPos(typ ast.Expr, name string) token.Pos {
	var fields *ast.FieldList
	switch t := typ.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return token.NoPos
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 {
			if id := typeName(f.Type); id != nil && id.Name == name {
				return id.Pos()
			}
			continue
		}
		for _, n := range f.Names {
			if n.Name == name {
				return n.Pos()
			}
		}
	}
	return token.NoPos
}

// declaresType reports whether file declares a type called name.
func declaresType(file *ast.File, name string) bool {
	for _, decl := range file.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, spec := range g.Specs {
				if spec.(*ast.TypeSpec).Name.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// receiverType returns the name of the type a method belongs to ("Endpoint"
// for "func (e *Endpoint) Start()"), or "" for a plain function.
func receiverType(f *ast.FuncDecl) string {
	if f.Recv == nil || len(f.Recv.List) == 0 {
		return ""
	}
	if id := typeName(f.Recv.List[0].Type); id != nil {
		return id.Name
	}
	return ""
}

// typeName returns the identifier that names a type expression: T in T,
// *T, pkg.T, T[K] and T[K, V].
func typeName(expr ast.Expr) *ast.Ident {
	for {
		switch e := expr.(type) {
		case *ast.Ident:
			return e
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.SelectorExpr:
			return e.Sel
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		default:
			return nil
		}
	}
}
