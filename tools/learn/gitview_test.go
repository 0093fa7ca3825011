package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
)

// newTinyClone is newTinyCourse in a git repository, everything
// committed, as a fresh clone is.
func newTinyClone(t *testing.T) (*course, *exercise.Exercise) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	c, e := newTinyCourse(t)
	require.NoError(t, os.WriteFile(c.path(".gitignore"), []byte("/.learn-progress\n/.learn-backups/\n/exercises/*/answer.txt\n"), 0o644))
	c.mustGit(t, "init", "-q")
	c.mustGit(t, "add", ".")
	c.mustGit(t, "-c", "user.name=learner", "-c", "user.email=learner@example.com", "commit", "-q", "-m", "a fresh clone")
	return c, e
}

func (c *course) mustGit(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.gitOutput(args...)
	require.NoError(t, err)
	return out
}

// After start, neither git diff nor git status shows the reference that
// the hole replaced; once the exercise is done, git shows the learner's
// work again.
func TestGitDoesNotShowTheReferenceWhileAnExerciseIsInProgress(t *testing.T) {
	c, e := newTinyClone(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	require.Contains(t, c.mustRead(t, "runtime/calc/calc.go"), `panic("TODO(x01)`, "the hole is punched")

	assert.Empty(t, c.mustGit(t, "diff"), "git diff right after start")
	assert.Empty(t, c.mustGit(t, "status", "--porcelain"), "git status right after start")

	learners := strings.Replace(tinyCourse["runtime/calc/calc.go"], "return n * 2", "return n + n", 1)
	require.NoError(t, c.writeFile("runtime/calc/calc.go", []byte(learners)))
	passed, err := c.check(t.Context(), e, &bytes.Buffer{})
	require.NoError(t, err)
	require.True(t, passed)

	assert.Contains(t, c.mustGit(t, "diff"), "+\treturn n + n", "done: git diff shows the learner's version")
	assert.Equal(t, " M runtime/calc/calc.go\n", c.mustGit(t, "status", "--porcelain"))
}

// Reset gives the file back to git, as committed.
func TestResetGivesTheFileBackToGit(t *testing.T) {
	c, e := newTinyClone(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	require.NoError(t, c.reset(e, &bytes.Buffer{}))

	assert.Equal(t, "H runtime/calc/calc.go\n", c.mustGit(t, "ls-files", "-v", "runtime/calc/calc.go"), "git looks at the file again")
	assert.Empty(t, c.mustGit(t, "status", "--porcelain"))
}

// Reset keeps a copy of what the learner wrote, and says where; a hole
// nobody wrote in is not worth a copy.
func TestResetKeepsTheLearnersCode(t *testing.T) {
	c, e := newTinyCourse(t)
	now = func() time.Time { return time.Date(2026, 12, 1, 10, 15, 0, 0, time.Local) }
	t.Cleanup(func() { now = time.Now })

	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	var out bytes.Buffer
	require.NoError(t, c.reset(e, &out))
	assert.NotContains(t, out.String(), "kept", "only punched: nothing of the learner's to keep")
	assert.NoDirExists(t, c.path(backupDir))

	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	learners := strings.Replace(c.mustRead(t, "runtime/calc/calc.go"), `panic("TODO(x01)`, `return n << 1 // panic("TODO(x01)`, 1)
	require.NoError(t, c.writeFile("runtime/calc/calc.go", []byte(learners)))
	out.Reset()
	require.NoError(t, c.reset(e, &out))

	assert.Contains(t, out.String(), "Your version is kept in .learn-backups/x01-20261201-101500/.")
	kept, err := os.ReadFile(c.path(".learn-backups/x01-20261201-101500/runtime/calc/calc.go"))
	require.NoError(t, err)
	assert.Equal(t, learners, string(kept))
	assert.Equal(t, tinyCourse["runtime/calc/calc.go"], c.mustRead(t, "runtime/calc/calc.go"), "the reference is back")

	// A second reset within the same second keeps a second copy.
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	require.NoError(t, c.writeFile("runtime/calc/calc.go", []byte(learners)))
	out.Reset()
	require.NoError(t, c.reset(e, &out))
	assert.Contains(t, out.String(), "Your version is kept in .learn-backups/x01-20261201-101500-2/.")
}

// A reading exercise starts from its template; reset puts the template
// back and keeps the learner's answer.
func TestResetOfAReadingExerciseKeepsTheAnswer(t *testing.T) {
	c, _ := newTinyCourse(t)
	dir := c.path("exercises/r01")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "exercise.yaml"), []byte(`id: r01
title: Read
kind: read
lesson: lessons/01-calc.md#double
flink: none
reading: {from: calc.Double, to: calc.Format, answer: answer.txt, scenario: TestScenario}
hints: [a nudge, where to look, nearly the answer]
`), 0o644))
	template := "# r01\ncalc.Double\n\ncalc.Format\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "answer.template.txt"), []byte(template), 0o644))
	all, err := exercise.Load(c.root)
	require.NoError(t, err)
	c.exercises = all
	r, err := c.exercise("r01")
	require.NoError(t, err)

	require.NoError(t, c.start(r, false, &bytes.Buffer{}))
	assert.Equal(t, template, c.mustRead(t, "exercises/r01/answer.txt"), "start writes the answer from the template")

	answer := "# r01\ncalc.Double\ncalc.helper\ncalc.Format\n"
	require.NoError(t, c.writeFile("exercises/r01/answer.txt", []byte(answer)))
	var out bytes.Buffer
	require.NoError(t, c.reset(r, &out))

	assert.Equal(t, template, c.mustRead(t, "exercises/r01/answer.txt"))
	assert.Contains(t, out.String(), "Your version is kept in .learn-backups/r01-")
	matches, err := filepath.Glob(c.path(".learn-backups/r01-*/exercises/r01/answer.txt"))
	require.NoError(t, err)
	require.Len(t, matches, 1)
	kept, err := os.ReadFile(matches[0])
	require.NoError(t, err)
	assert.Equal(t, answer, string(kept))
}
