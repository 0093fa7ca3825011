package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Fix repairs, in place, the code links that point at the wrong line or at
// the wrong file of the right package: it rewrites the line anchor, and
// the file's name when the symbol moved to another file of the same
// folder. Nothing else in the markdown changes, and each file is replaced
// atomically (written to a temporary file beside it, then renamed), so a
// failure never leaves half a lesson. Fix returns the problems it fixed
// and those it could not, each in file and line order.
func Fix(root string) (fixed []Problem, remaining []Problem, err error) {
	c := newChecker(root)
	files, err := markdownFiles(root)
	if err != nil {
		return nil, nil, err
	}
	for _, file := range files {
		doc, findings, err := c.checkFile(file)
		if err != nil {
			return fixed, remaining, err
		}
		var repairs []finding
		for _, f := range findings {
			if f.newTarget == "" {
				remaining = append(remaining, f.Problem)
				continue
			}
			repairs = append(repairs, f)
		}
		if len(repairs) == 0 {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(file))
		if err := writeFileAtomically(path, []byte(retarget(doc.src, repairs))); err != nil {
			return fixed, remaining, err
		}
		for _, f := range repairs {
			fixed = append(fixed, f.Problem)
		}
	}
	return fixed, remaining, nil
}

// retarget returns src with the target of each repaired link replaced by
// its new target. Replacing from the end of the file backwards keeps the
// offsets of the earlier links valid.
func retarget(src string, repairs []finding) string {
	backwards := slices.Clone(repairs)
	sort.Slice(backwards, func(i, j int) bool { return backwards[i].targetAt > backwards[j].targetAt })
	for _, r := range backwards {
		end := r.targetAt + len(r.target)
		if src[r.targetAt:end] != r.target {
			panic(fmt.Sprintf("lint: link target %q is not at offset %d", r.target, r.targetAt))
		}
		src = src[:r.targetAt] + r.newTarget + src[end:]
	}
	return src
}

// writeFileAtomically replaces the file at path with data, keeping its
// permissions. Readers see the old file or the new one, never a mix.
func writeFileAtomically(path string, data []byte) (err error) {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
