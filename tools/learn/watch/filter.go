package watch

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultMatters reports whether a change to the file at path should start
// a run when Config.Matters is nil. Files ending in .go, .yaml, .txt or .md
// count, and so does every file below a testdata directory (golden files
// and fuzz seeds have other names, or none). Dot-files and editor temp and
// backup files never count: a name ending in "~", ".swp", ".swo" or ".swx",
// Emacs' "#name#", Vim's "4913" probe, and JetBrains' "___jb_tmp___" and
// "___jb_old___".
//
// Combine it to count more, for example JSON as well:
//
//	Matters: func(path string) bool {
//		return watch.DefaultMatters(path) || filepath.Ext(path) == ".json"
//	}
func DefaultMatters(path string) bool {
	name := filepath.Base(path)
	if isEditorTempOrDotFile(name) {
		return false
	}
	if slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(path)), "/"), "testdata") {
		return true
	}
	switch filepath.Ext(name) {
	case ".go", ".yaml", ".txt", ".md":
		return true
	}
	return false
}

// isEditorTempOrDotFile reports whether a file name is a dot-file or one of
// the temp and backup files editors write next to the file being saved.
func isEditorTempOrDotFile(name string) bool {
	switch {
	case strings.HasPrefix(name, "."): // also Vim's .name.swp and Emacs' .#name lock
		return true
	case strings.HasSuffix(name, "~"),
		strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swo"), strings.HasSuffix(name, ".swx"),
		strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"):
		return true
	case len(name) >= 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	case name == "4913": // Vim creates and deletes it to test that it may write the directory
		return true
	}
	return false
}

// isDotDir reports whether a directory below a root is skipped: .git,
// .idea, .cache and every other dot-directory. Nothing in them is watched.
func isDotDir(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// walkTree calls visit for root and for every directory and file below it,
// except dot-directories and their contents. Entries that vanish or cannot
// be read while it walks are skipped; only an error about root itself, or
// one visit returns, ends the walk with that error.
func walkTree(root string, visit func(path string, d fs.DirEntry) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // removed meanwhile, or no permission: not ours to watch
		}
		if d.IsDir() && path != root && isDotDir(d.Name()) {
			return filepath.SkipDir
		}
		return visit(path, d)
	})
}
