package lint

import (
	"errors"
	"fmt"
	"go/scanner"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// checkCodeLink checks a link from a Go symbol to the Go file at path:
// the file exists and parses, its package declares the symbol, in that
// file, at the line the anchor names. written is the target's path as
// written and fragment what follows its '#'. For a stale anchor or a
// symbol that moved to another file of the package, newTarget is the
// target that repairs the link.
func (c *checker) checkCodeLink(path, written, fragment string, sym symbol) (message, newTarget string, err error) {
	file, err := c.sources.file(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c.rel(path) + " does not exist", "", nil
	}
	if err != nil {
		return "", "", err
	}
	if file.syntax == nil {
		return fmt.Sprintf("%s does not parse: %s", c.rel(path), parseError(file.err)), "", nil
	}
	anchor, hasAnchor := parseLineAnchor(fragment)
	if fragment != "" && !hasAnchor {
		return fmt.Sprintf("#%s is not a line anchor such as #L42", fragment), "", nil
	}

	pkg := file.syntax.Name.Name
	meanings := inPackage(sym.meanings, pkg)
	if len(meanings) == 0 {
		return fmt.Sprintf("%s is in package %s, not %s", c.rel(path), pkg, sym.meanings[0].pkg), "", nil
	}
	found, line, err := c.find(file, meanings)
	if err != nil {
		return "", "", err
	}
	name := strings.TrimSuffix(sym.written, "()")
	switch {
	case found == nil:
		return c.notDeclared(file, name, meanings)

	case found != file:
		// The symbol moved to another file of the package: keep the
		// folder as written, change the file's name and the line.
		newTarget = written[:strings.LastIndex(written, "/")+1] + filepath.Base(found.path)
		if hasAnchor {
			newTarget += "#" + anchor.movedTo(line)
			return fmt.Sprintf("%s is declared in %s at line %d, not in %s", name, c.rel(found.path), line, filepath.Base(path)), newTarget, nil
		}
		return fmt.Sprintf("%s is declared in %s, not in %s", name, c.rel(found.path), filepath.Base(path)), newTarget, nil

	case hasAnchor && anchor.start != line:
		newTarget = written + "#" + anchor.movedTo(line)
		return fmt.Sprintf("%s is declared at line %d, not %d", name, line, anchor.start), newTarget, nil
	}
	return "", "", nil
}

// parseError returns the first syntax error as "line 3:14: expected ...",
// without the file's path, which the message names already.
func parseError(err error) string {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return fmt.Sprintf("line %d:%d: %s", list[0].Pos.Line, list[0].Pos.Column, list[0].Msg)
	}
	return err.Error()
}

// inPackage keeps the meanings that fit a file of package pkg: those not
// qualified, and those qualified with pkg.
func inPackage(meanings []meaning, pkg string) []meaning {
	var fit []meaning
	for _, m := range meanings {
		if m.pkg == "" || m.pkg == pkg {
			fit = append(fit, m)
		}
	}
	return fit
}

// find looks for a declaration of any of the meanings, in file first, then
// in the other files of its package. It returns the file and line of the
// first it finds, or a nil file.
func (c *checker) find(file *goFile, meanings []meaning) (*goFile, int, error) {
	if f, line := declaredIn([]*goFile{file}, c.sources, meanings); f != nil {
		return f, line, nil
	}
	mates, err := c.sources.packageMates(file)
	if err != nil {
		return nil, 0, err
	}
	f, line := declaredIn(mates, c.sources, meanings)
	return f, line, nil
}

// declaredIn returns the first of files that declares one of the meanings,
// and the line.
func declaredIn(files []*goFile, s *goSources, meanings []meaning) (*goFile, int) {
	for _, f := range files {
		for _, m := range meanings {
			if line := declaredLine(s.fset, f.syntax, m); line > 0 {
				return f, line
			}
		}
	}
	return nil, 0
}

// notDeclared says that no file of the package declares the symbol, naming
// the type when the type exists but lacks the member.
func (c *checker) notDeclared(file *goFile, name string, meanings []meaning) (message, newTarget string, err error) {
	mates, err := c.sources.packageMates(file)
	if err != nil {
		return "", "", err
	}
	for _, m := range meanings {
		if m.typ == "" {
			continue
		}
		for _, f := range append([]*goFile{file}, mates...) {
			if declaresType(f.syntax, m.typ) {
				return fmt.Sprintf("%s has no method or field %s", m.typ, m.name), "", nil
			}
		}
	}
	return fmt.Sprintf("%s is not declared in package %s (%s)", name, file.syntax.Name.Name, c.rel(filepath.Dir(file.path))), "", nil
}

// checkLineAnchor checks a line anchor on a link to a Go file that does not
// name a symbol: the line must exist.
func (c *checker) checkLineAnchor(path, fragment string) (string, error) {
	anchor, ok := parseLineAnchor(fragment)
	if !ok {
		return fmt.Sprintf("#%s is not a line anchor such as #L42", fragment), nil
	}
	file, err := c.sources.file(path)
	if err != nil {
		return "", err
	}
	if last := max(anchor.start, anchor.end); last > file.lines {
		return fmt.Sprintf("line %d is past the end of %s (%d lines)", last, c.rel(path), file.lines), nil
	}
	return "", nil
}

// lineAnchor is a GitHub line anchor: #L42, or #L42-L50 for a range.
type lineAnchor struct {
	start int
	end   int // 0 when the anchor is a single line
}

var lineAnchorPattern = regexp.MustCompile(`^L([1-9][0-9]*)(?:-L([1-9][0-9]*))?$`)

// parseLineAnchor reads a fragment such as "L42" or "L42-L50".
func parseLineAnchor(fragment string) (lineAnchor, bool) {
	m := lineAnchorPattern.FindStringSubmatch(fragment)
	if m == nil {
		return lineAnchor{}, false
	}
	a := lineAnchor{}
	a.start, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		a.end, _ = strconv.Atoi(m[2])
	}
	return a, true
}

// movedTo returns the anchor for a declaration now at line: a range keeps
// its length.
func (a lineAnchor) movedTo(line int) string {
	if a.end == 0 {
		return "L" + strconv.Itoa(line)
	}
	return fmt.Sprintf("L%d-L%d", line, a.end+line-a.start)
}
