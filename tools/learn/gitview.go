package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	"flinklab/tools/learn/exercise"
)

// While an exercise is in progress, git diff and git status would show
// the reference body that its holes replaced: the answer, one command
// away. So learn keeps the files with holes in progress out of git's
// view (git update-index --skip-worktree: git leaves the file in the
// tree alone and compares nothing), and gives them back when the
// exercise is reset or done. A file that holes of two exercises share
// stays hidden while either is in progress.
//
// Git then looks away from such a file in every command, not only diff
// and status: commit -a and stash leave it out, checkout -- FILE does not
// restore it, and a pull that changes it stops, telling of local changes
// (nothing is lost). start says so, and so does exercises/README.md.
//
// Outside a git work tree, or without git, nothing is hidden.

// syncGitView hides from git the files of the writing exercises in
// progress, and shows again those of the others. What git refuses is
// reported on warn, never as an error: the exercise works without it.
func (c *course) syncGitView(warn io.Writer) {
	var hide, show []string
	for _, e := range c.exercises {
		if e.Kind != exercise.Write {
			continue
		}
		for _, f := range e.Files() {
			if c.state(e) == inProgress {
				hide = appendUniqueFile(hide, f)
			} else {
				show = appendUniqueFile(show, f)
			}
		}
	}
	show = slices.DeleteFunc(show, func(f string) bool { return slices.Contains(hide, f) }) // shared with one in progress
	tracked, ok := c.gitTracked(append(slices.Clone(hide), show...))
	if !ok {
		return
	}
	hidden := c.gitHidden(tracked)
	var toHide, toShow []string
	for _, f := range hide {
		if slices.Contains(tracked, f) && !hidden[f] {
			toHide = append(toHide, f)
		}
	}
	for _, f := range show {
		if hidden[f] {
			toShow = append(toShow, f)
		}
	}
	if len(toHide) > 0 {
		if err := c.git(append([]string{"update-index", "--skip-worktree", "--"}, toHide...)...); err != nil {
			fmt.Fprintf(warn, "learn: could not keep %s out of git diff: %v\n", strings.Join(toHide, ", "), err)
		}
	}
	if len(toShow) > 0 {
		if err := c.git(append([]string{"update-index", "--no-skip-worktree", "--"}, toShow...)...); err != nil {
			fmt.Fprintf(warn, "learn: could not give %s back to git diff: %v\n", strings.Join(toShow, ", "), err)
		}
	}
}

// gitHiddenFrom reports whether git does not look at file now, because an
// exercise in progress hides it.
func (c *course) gitHiddenFrom(file string) bool {
	return c.gitHidden([]string{file})[file]
}

// gitTracked returns which of files git tracks; ok is false outside a
// git work tree.
func (c *course) gitTracked(files []string) (tracked []string, ok bool) {
	out, err := c.gitOutput(append([]string{"ls-files", "--"}, files...)...)
	if err != nil {
		return nil, false
	}
	return strings.Fields(out), true
}

// gitHidden tells, of files, which git skips (ls-files -v marks them S).
func (c *course) gitHidden(files []string) map[string]bool {
	hidden := map[string]bool{}
	if len(files) == 0 {
		return hidden
	}
	out, err := c.gitOutput(append([]string{"ls-files", "-v", "--"}, files...)...)
	if err != nil {
		return hidden
	}
	for line := range strings.SplitSeq(out, "\n") {
		if tag, file, ok := strings.Cut(line, " "); ok && tag == "S" {
			hidden[file] = true
		}
	}
	return hidden
}

func (c *course) git(args ...string) error {
	_, err := c.gitOutput(args...)
	return err
}

func (c *course) gitOutput(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = c.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func appendUniqueFile(files []string, f string) []string {
	if slices.Contains(files, f) {
		return files
	}
	return append(files, f)
}
