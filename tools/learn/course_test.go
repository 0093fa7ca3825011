package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
)

// tinyCourse is a course of one writing exercise, x01, over a runtime of
// one function, in a module of its own: small enough for its go test runs
// to take a second, and a tree the tests may punch and break.
var tinyCourse = map[string]string{
	"go.mod": "module flinklab\n\ngo 1.26\n",
	"runtime/calc/calc.go": `package calc

import "strconv"

// Double returns twice n.
func Double(n int) int {
	return n * 2
}

// Format writes n in decimal.
func Format(n int) string { return strconv.Itoa(n) }
`,
	"exercises/x01/exercise.yaml": `id: x01
title: Doubling
lesson: lessons/01-calc.md#double
flink: none
holes:
  - file: runtime/calc/calc.go
    func: Double
    todo: Return twice n.
tests:
  must_fail:
    - test: TestDouble
      message: Double(2)
hints: [a nudge, where to look, nearly the answer]
`,
	"solutions/x01/mutants.yaml": `- name: add instead
  edits:
    - replace: "n * 2"
      with: "n + 2"
- name: square
  body: "return n * n"
`,
	// The test recovers the hole's panic, so that a punched hole fails on
	// the expectation and does not crash the test binary.
	"exercises/x01/x01_test.go": `package x01

import (
	"testing"

	"flinklab/runtime/calc"
)

func TestDouble(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Double(2) panics: %v", r)
		}
	}()
	for n, want := range map[int]int{2: 4, 3: 6} {
		if got := calc.Double(n); got != want {
			t.Errorf("Double(%d) = %d, want %d", n, got, want)
		}
	}
}
`,
}

// newTinyCourse writes tinyCourse into a temporary directory, generates
// the reference of x01 as `learn solutions` does, and opens the course.
func newTinyCourse(t *testing.T) (*course, *exercise.Exercise) {
	t.Helper()
	c := courseOf(t, tinyCourse)
	require.NoError(t, c.writeSolutions(nil, &bytes.Buffer{}))
	e, err := c.exercise("x01")
	require.NoError(t, err)
	return c, e
}

// courseOf writes files (by their slash-separated paths) into a
// temporary directory and opens the course there.
func courseOf(t *testing.T, files map[string]string) *course {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	all, err := exercise.Load(root)
	require.NoError(t, err)
	p, err := loadProgress(filepath.Join(root, progressFile))
	require.NoError(t, err)
	return &course{root: root, exercises: all, progress: p}
}

// The mutants sit beside the generated reference: regenerating it must
// leave them as they are.
func TestSolutionsLeavesTheMutantsAlone(t *testing.T) {
	c, _ := newTinyCourse(t)
	var out bytes.Buffer
	require.NoError(t, c.writeSolutions(nil, &out))
	assert.Contains(t, out.String(), "wrote solutions/x01/calc.go\n")
	assert.NotContains(t, out.String(), "mutants.yaml")
	assert.Equal(t, tinyCourse["solutions/x01/mutants.yaml"], c.mustRead(t, "solutions/x01/mutants.yaml"))
}

func (c *course) mustRead(t *testing.T, rel string) string {
	t.Helper()
	data, err := c.read(rel)
	require.NoError(t, err)
	return string(data)
}

// Before `start`, the reference is in the hole and the tests pass: check
// must say so, not mark the exercise done. Otherwise `learn check`, run
// again and again, would finish the course.
func TestCheckBeforeStartDoesNotMarkTheExerciseDone(t *testing.T) {
	c, e := newTinyCourse(t)
	var out bytes.Buffer

	passed, err := c.check(t.Context(), e, &out)

	require.NoError(t, err)
	assert.False(t, passed)
	assert.Contains(t, out.String(), "x01 is not started")
	assert.Contains(t, out.String(), "go run ./tools/learn start x01")
	assert.Equal(t, notStarted, c.state(e))
}

func TestCheckPassesOnceTheLearnerHasWrittenTheHole(t *testing.T) {
	c, e := newTinyCourse(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	var out bytes.Buffer
	passed, err := c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.False(t, passed, "the hole is punched")
	assert.Contains(t, out.String(), "Double(2) panics: TODO(x01)")

	punched := c.mustRead(t, "runtime/calc/calc.go")
	written := bytes.Replace([]byte(punched), []byte(`panic("TODO(x01): write Double (see exercises/x01/README.md)")`), []byte("return n + n"), 1)
	require.NoError(t, c.writeFile("runtime/calc/calc.go", written))
	out.Reset()
	passed, err = c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.True(t, passed, out.String())
	assert.Equal(t, done, c.state(e))
}

// verify runs on the complete runtime, whatever the learner has punched:
// an exercise in progress stays honest, and the summary says which check
// could not be made on the learner's tree.
func TestVerifyDoesNotDependOnTheLearnersTree(t *testing.T) {
	c, e := newTinyCourse(t)
	var out bytes.Buffer
	require.NoError(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✓ x01: holes fail 1 named expectations, 2 mutants caught, reference passes, solution in sync")

	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	out.Reset()
	require.NoError(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✓ x01: holes fail 1 named expectations, 2 mutants caught, reference passes, solution not compared (your version of x01 is in the tree)")
}

// go test says "ok" when -run matches no test; that proves nothing.
func TestVerifyRefusesAnExerciseWhoseTestsDoNotRun(t *testing.T) {
	c, e := newTinyCourse(t)
	e.Tests.Run = "^TestNothing$"
	var out bytes.Buffer
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✗ x01: the reference fails its own tests:\nNo test passed")
}

func TestVerifyCatchesAMutantThatSurvives(t *testing.T) {
	c, e := newTinyCourse(t)
	e.Mutants = append(e.Mutants, exercise.Mutant{Name: "shift", Body: "return n << 1"})
	var out bytes.Buffer
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), `✗ x01: mutant "shift" survives`)
}

// The mutants are built together; one that does not compile breaks that
// build, and verify then builds them one by one to name it.
func TestVerifyNamesAMutantThatDoesNotCompile(t *testing.T) {
	c, e := newTinyCourse(t)
	e.Mutants = append(e.Mutants, exercise.Mutant{Name: "undefined name", Body: "return m * 2"})
	var out bytes.Buffer
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), `✗ x01: mutant "undefined name" does not compile`)
	assert.Contains(t, out.String(), "undefined: m")
}

// With several holes, each must matter on its own: a hole no test needs
// could be left punched in an exercise that passes.
func TestVerifyCatchesAHoleNoTestNeeds(t *testing.T) {
	c, e := newTinyCourse(t)
	e.Holes = append(e.Holes, exercise.Hole{File: "runtime/calc/calc.go", Func: "Format", TODO: "Write n in decimal."})
	e.Mutants[0].Func, e.Mutants[1].Func = "Double", "Double"
	require.NoError(t, c.writeSolutions(nil, &bytes.Buffer{}))
	var out bytes.Buffer
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✗ x01: with only Format punched, every test passes")
}

func TestVerifyInterruptedSaysSoAndNothingElse(t *testing.T) {
	c, _ := newTinyCourse(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out bytes.Buffer
	assert.ErrorIs(t, c.verify(ctx, nil, &out), context.Canceled)
	assert.Empty(t, out.String(), "no exercise is reported dishonest because of Ctrl-C")
}

// A learner's syntax error must not leave reset with a bare "152:5:
// expected ..." and no file name.
func TestResetOfAFileThatDoesNotParseNamesItAndSaysWhatToDo(t *testing.T) {
	c, e := newTinyCourse(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	broken := bytes.Replace([]byte(c.mustRead(t, "runtime/calc/calc.go")), []byte("panic("), []byte("if x := 1 { panic("), 1)
	require.NoError(t, c.writeFile("runtime/calc/calc.go", broken))

	err := c.reset(e, &bytes.Buffer{})

	require.Error(t, err)
	assert.Contains(t, err.Error(), "runtime/calc/calc.go:8:")
	assert.Contains(t, err.Error(), "fix its syntax first")
	assert.Contains(t, err.Error(), "git checkout -- runtime/calc/calc.go")
}

func TestStartThenResetLeavesTheTreeAsItWas(t *testing.T) {
	c, e := newTinyCourse(t)
	original := c.mustRead(t, "runtime/calc/calc.go")
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	punched := c.mustRead(t, "runtime/calc/calc.go")
	require.NoError(t, c.start(e, false, &bytes.Buffer{}), "starting twice is harmless")
	assert.Equal(t, punched, c.mustRead(t, "runtime/calc/calc.go"))

	require.NoError(t, c.reset(e, &bytes.Buffer{}))
	assert.Equal(t, original, c.mustRead(t, "runtime/calc/calc.go"))
	assert.Equal(t, notStarted, c.state(e))
}

// The progress file is safe to delete: holes still punched keep their
// exercise in progress.
func TestPunchedHolesAreInProgressWithoutTheProgressFile(t *testing.T) {
	c, e := newTinyCourse(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	require.NoError(t, os.Remove(c.path(progressFile)))
	p, err := loadProgress(c.path(progressFile))
	require.NoError(t, err)
	c.progress = p

	assert.Equal(t, inProgress, c.state(e))
}

// `learn watch` in one terminal, `learn hint` in another: each learn has
// the progress it read at its start, and neither may lose what the other
// wrote.
func TestProgressOfTwoRunsOfLearnAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), progressFile)
	watching, err := loadProgress(path)
	require.NoError(t, err)
	hinting, err := loadProgress(path)
	require.NoError(t, err)

	require.NoError(t, hinting.update("m03", func(r *record) { r.hints++ }))
	require.NoError(t, watching.update("m03", func(r *record) { r.state = "done" }))
	require.NoError(t, hinting.update("m04", func(r *record) { r.state = "started" }))

	got, err := loadProgress(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]record{"m03": {state: "done", hints: 1}, "m04": {state: "started"}}, got.records)
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want invocation
	}{
		{nil, invocation{cmd: "watch"}},
		{[]string{"--poll"}, invocation{cmd: "watch", poll: true}},
		{[]string{"start", "m03"}, invocation{cmd: "start", ids: []string{"m03"}}},
		{[]string{"start", "--force", "m03"}, invocation{cmd: "start", ids: []string{"m03"}, force: true}},
		{[]string{"start", "m03", "--force"}, invocation{cmd: "start", ids: []string{"m03"}, force: true}},
		{[]string{"verify", "m03", "r01"}, invocation{cmd: "verify", ids: []string{"m03", "r01"}}},
		{[]string{"reset", "--all"}, invocation{cmd: "reset", all: true}},
		{[]string{"check", "-h"}, invocation{cmd: "help"}},
		{[]string{"help"}, invocation{cmd: "help"}},
	}
	for _, tt := range tests {
		got, err := parseArgs(tt.args)
		require.NoError(t, err, "%q", tt.args)
		assert.Equal(t, tt.want, got, "%q", tt.args)
	}

	_, err := parseArgs([]string{"start", "m03", "--forse"})
	assert.ErrorIs(t, err, errUsage)
	assert.ErrorContains(t, err, "-forse")
}

// At watch's question, Ctrl-C (which ends ctx, but not a read of the
// terminal) and Ctrl-D answer no; Enter answers yes.
func TestOfferStartAnswers(t *testing.T) {
	c, e := newTinyCourse(t)

	ctx, cancel := context.WithCancel(t.Context())
	nobodyTypes, keyboard := io.Pipe()
	t.Cleanup(func() { keyboard.Close() }) // ends the read offerStart left behind
	cancel()
	started, err := c.offerStart(ctx, e, nobodyTypes, true, &bytes.Buffer{})
	require.NoError(t, err)
	assert.False(t, started, "Ctrl-C")

	started, err = c.offerStart(t.Context(), e, strings.NewReader(""), true, &bytes.Buffer{})
	require.NoError(t, err)
	assert.False(t, started, "Ctrl-D")
	assert.Equal(t, notStarted, c.state(e))

	var out bytes.Buffer
	started, err = c.offerStart(t.Context(), e, strings.NewReader("x\n"), false, &out)
	require.NoError(t, err)
	assert.False(t, started, "no terminal, no question")
	assert.Contains(t, out.String(), "Start it with: go run ./tools/learn start x01")

	started, err = c.offerStart(t.Context(), e, strings.NewReader("\n"), true, &bytes.Buffer{})
	require.NoError(t, err)
	assert.True(t, started, "Enter")
	assert.Equal(t, inProgress, c.state(e))
	assert.Contains(t, c.mustRead(t, "runtime/calc/calc.go"), `panic("TODO(x01)`)
}

// lint --fix moves links to the lines of the tree; with a learner's code
// in the holes, those are not the reference's lines.
func TestLintFixRefusesWhileAnExerciseIsInProgress(t *testing.T) {
	c, e := newTinyCourse(t)
	require.NoError(t, c.lint(true, &bytes.Buffer{}))
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))

	err := c.lint(true, &bytes.Buffer{})
	assert.ErrorContains(t, err, "the tree holds your code for x01")
	var out bytes.Buffer
	require.NoError(t, c.lint(false, &out))
	assert.Contains(t, out.String(), "(the tree holds your code for x01: links below it may point elsewhere")
}

// solutions would copy a learner's code into the reference.
func TestSolutionsRefusesAnExerciseInProgress(t *testing.T) {
	c, e := newTinyCourse(t)
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	assert.ErrorContains(t, c.writeSolutions(nil, &bytes.Buffer{}), "x01 is in progress here")
}
