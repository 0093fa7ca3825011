package lint

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// goSources parses Go files on demand, each at most once. Only the files
// that links name are parsed, and the other files of their package only
// when a symbol is not where the link says: no type checking, no build,
// so checking every lesson takes milliseconds.
type goSources struct {
	fset  *token.FileSet
	files map[string]*goFile // by path
}

// goFile is one parsed Go file.
type goFile struct {
	path   string
	syntax *ast.File // nil when the file does not parse
	err    error     // why it does not parse
	lines  int       // how many lines it has
}

func newGoSources() *goSources {
	return &goSources{fset: token.NewFileSet(), files: map[string]*goFile{}}
}

// file reads and parses the Go file at path. The error is for failures to
// read it (fs.ErrNotExist when it is missing); a file that does not parse
// has syntax nil and err set.
func (s *goSources) file(path string) (*goFile, error) {
	if f, ok := s.files[path]; ok {
		return f, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &goFile{path: path, lines: countLines(src)}
	f.syntax, f.err = parser.ParseFile(s.fset, path, src, parser.SkipObjectResolution)
	if f.err != nil {
		f.syntax = nil
	}
	s.files[path] = f
	return f, nil
}

// packageMates returns the other Go files in f's folder that belong to
// f's package (so a package's external tests, package x_test, are left
// out), in name order. Files that do not parse are left out too.
func (s *goSources) packageMates(f *goFile) ([]*goFile, error) {
	entries, err := os.ReadDir(filepath.Dir(f.path))
	if err != nil {
		return nil, err
	}
	var mates []*goFile
	for _, e := range entries {
		path := filepath.Join(filepath.Dir(f.path), e.Name())
		if path == f.path || e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		mate, err := s.file(path)
		if err != nil {
			return nil, err
		}
		if mate.syntax != nil && mate.syntax.Name.Name == f.syntax.Name.Name {
			mates = append(mates, mate)
		}
	}
	return mates, nil
}

// countLines counts the lines of src; a last line without "\n" counts.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
