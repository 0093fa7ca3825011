package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// checker checks the links of markdown files under one root. It remembers
// every Go and markdown file it has read, so a file linked from many
// lessons is read once.
type checker struct {
	root    string
	sources *goSources
	docs    map[string]*document // markdown files by path
}

// finding is a Problem and, when Fix can repair it, the target that does.
type finding struct {
	Problem
	targetAt  int    // byte offset of the link's target in the markdown file
	target    string // the target as written
	newTarget string // the target that repairs the link, or "" when Fix cannot
}

func newChecker(root string) *checker {
	return &checker{root: root, sources: newGoSources(), docs: map[string]*document{}}
}

// checkFile checks the links of one markdown file, named relative to the
// root. It returns the file's document and a finding per broken link.
func (c *checker) checkFile(rel string) (*document, []finding, error) {
	path := filepath.Join(c.root, filepath.FromSlash(rel))
	doc, err := c.document(path)
	if err != nil {
		return nil, nil, err
	}
	var findings []finding
	for _, l := range doc.links {
		message, newTarget, err := c.checkLink(path, doc, l)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", rel, doc.lineOf(l.at), err)
		}
		if message == "" {
			continue
		}
		findings = append(findings, finding{
			Problem:   Problem{File: rel, Line: doc.lineOf(l.at), Link: oneLine(l.written), Message: message},
			targetAt:  l.targetAt,
			target:    l.target,
			newTarget: newTarget,
		})
	}
	return doc, findings, nil
}

// document reads and parses a markdown file, once.
func (c *checker) document(path string) (*document, error) {
	if doc, ok := c.docs[path]; ok {
		return doc, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc := parseDocument(string(src))
	c.docs[path] = doc
	return doc, nil
}

// external matches a target with a scheme (https:, mailto:) or a host
// (//example.com); those are not checked.
var external = regexp.MustCompile(`^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)`)

// checkLink checks one link of the markdown file at from. It returns what
// is wrong ("" when nothing is) and, for a code link Fix can repair, the
// new target. The error is for failures to read a file.
func (c *checker) checkLink(from string, doc *document, l link) (message, newTarget string, err error) {
	if external.MatchString(l.target) {
		return "", "", nil
	}
	written, fragment, _ := strings.Cut(l.target, "#")
	if written == "" && fragment == "" {
		return "the link has no target", "", nil
	}
	if written == "" {
		return anchorMessage(doc, "this file", fragment), "", nil
	}
	path, inside := c.resolve(from, written)
	if !inside {
		return l.target + " points outside the repository", "", nil
	}
	if strings.HasSuffix(path, ".go") {
		if sym, ok := parseSymbol(l.text); ok {
			return c.checkCodeLink(path, written, fragment, sym)
		}
	}

	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c.rel(path) + " does not exist", "", nil
	}
	if err != nil || fragment == "" {
		return "", "", err
	}
	switch {
	case strings.HasSuffix(path, ".go") && !info.IsDir():
		message, err := c.checkLineAnchor(path, fragment)
		return message, "", err
	case isMarkdown(path) && !info.IsDir():
		target, err := c.document(path)
		if err != nil {
			return "", "", err
		}
		return anchorMessage(target, c.rel(path), fragment), "", nil
	}
	return "", "", nil // a fragment on an image or folder is not ours to check
}

// resolve returns the file that a target path names, relative to the
// markdown file at from; a path starting with / is relative to the root, as
// on GitHub. inside is false when the file would be outside the root.
func (c *checker) resolve(from, written string) (path string, inside bool) {
	p, err := url.PathUnescape(written)
	if err != nil {
		p = written
	}
	if strings.HasPrefix(p, "/") {
		path = filepath.Join(c.root, filepath.FromSlash(p))
	} else {
		path = filepath.Join(filepath.Dir(from), filepath.FromSlash(p))
	}
	rel, err := filepath.Rel(c.root, path)
	inside = err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return path, inside
}

// rel returns path relative to the root, slash-separated, for messages.
func (c *checker) rel(path string) string {
	rel, err := filepath.Rel(c.root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// anchorMessage says what is wrong with a #fragment pointing into doc
// (called name in the message), or returns "" when doc has that anchor.
func anchorMessage(doc *document, name, fragment string) string {
	anchor, err := url.PathUnescape(fragment)
	if err != nil {
		anchor = fragment
	}
	if anchor == "" || doc.anchors[anchor] {
		return ""
	}
	if lower := strings.ToLower(anchor); doc.anchors[lower] {
		return fmt.Sprintf("%s has no heading or anchor #%s; heading anchors are lower case: #%s", name, fragment, lower)
	}
	return fmt.Sprintf("%s has no heading or anchor #%s", name, fragment)
}
