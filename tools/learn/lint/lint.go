package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Problem is one broken link.
type Problem struct {
	File    string // the markdown file, relative to the root, slash-separated
	Line    int    // 1-based line of the link in that file
	Link    string // the link as written, e.g. "[`Dispatcher.submitJob`](../runtime/dispatcher/dispatcher.go#L42)"
	Message string // what is wrong, in plain words, e.g. "Dispatcher.submitJob is declared at line 120, not 42"
}

// String returns the problem as one line, file and line first, the way
// compilers report errors:
//
//	lessons/01-x.md:12: [`Dispatcher.submitJob`](...): Dispatcher.submitJob is declared at line 120, not 42
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Link, p.Message)
}

// Check reads every lesson (lessons/**/*.md), exercise README
// (exercises/*/README.md) and solution walkthrough (solutions/*/*.md) under
// root and returns every broken link, in file and line order. The error is
// only for failures to read the tree; a broken link is a Problem.
func Check(root string) ([]Problem, error) {
	c := newChecker(root)
	files, err := markdownFiles(root)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, file := range files {
		_, findings, err := c.checkFile(file)
		if err != nil {
			return nil, err
		}
		for _, f := range findings {
			problems = append(problems, f.Problem)
		}
	}
	return problems, nil
}

// markdownFiles returns the markdown files Check reads, relative to root,
// slash-separated and sorted.
func markdownFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "lessons"), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == filepath.Join(root, "lessons") {
			return filepath.SkipDir // no lessons yet
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && isMarkdown(path) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, pattern := range []struct{ dir, name string }{
		{"exercises", "README.md"}, // exercises/*/README.md
		{"solutions", "*.md"},      // solutions/*/*.md
	} {
		found, err := filesOneLevelDown(filepath.Join(root, pattern.dir), pattern.name)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	for i, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, err
		}
		files[i] = filepath.ToSlash(rel)
	}
	sort.Strings(files)
	return files, nil
}

// filesOneLevelDown returns the regular files matching pattern in each
// folder of dir: dir/*/pattern. A missing dir has none.
func filesOneLevelDown(dir, pattern string) ([]string, error) {
	folders, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, folder := range folders {
		if !folder.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, folder.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if ok, _ := filepath.Match(pattern, e.Name()); ok && e.Type().IsRegular() {
				files = append(files, filepath.Join(dir, folder.Name(), e.Name()))
			}
		}
	}
	return files, nil
}

// isMarkdown reports whether the file's name says it is markdown.
func isMarkdown(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".md" || ext == ".markdown"
}

// lineBreak matches a line break and the indentation around it.
var lineBreak = regexp.MustCompile(`[ \t]*\r?\n[ \t]*`)

// oneLine returns a link that wraps onto several lines as one line, so
// that each Problem prints on one line.
func oneLine(written string) string {
	return lineBreak.ReplaceAllString(written, " ")
}
