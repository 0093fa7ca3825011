package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/hole"
)

func testCourse(t *testing.T) *course {
	t.Helper()
	all, err := exercise.Load("../..")
	require.NoError(t, err)
	require.NotEmpty(t, all)
	return &course{root: "../..", exercises: all, progress: &progress{path: filepath.Join(t.TempDir(), progressFile), records: map[string]record{}}}
}

// Starting and resetting an exercise must give the runtime back byte for
// byte, whatever the exercise: the holes' imports come back, and nothing
// outside the holes moves.
func TestStartThenResetGivesTheRuntimeBack(t *testing.T) {
	c := testCourse(t)
	for _, e := range c.exercises {
		if e.Kind != exercise.Write {
			continue
		}
		t.Run(e.ID, func(t *testing.T) {
			for _, file := range e.Files() {
				original, err := c.read(file)
				require.NoError(t, err)
				todo := map[string]string{}
				for _, h := range e.Holes {
					if h.File == file {
						todo[h.Func] = h.TODO
					}
				}
				punched, err := hole.Punch(original, e.ID, todo)
				require.NoError(t, err)
				for name := range todo {
					assert.True(t, hole.IsPunched(punched, e.ID, name), "%s is punched", name)
				}

				bodies, imports, err := c.reference(e, file)
				require.NoError(t, err)
				restored, err := hole.Replace(punched, bodies, imports)
				require.NoError(t, err)
				if !bytes.Equal(original, restored) {
					t.Errorf("%s after start and reset differs from the runtime", file)
				}
			}
		})
	}
}

func TestDescribeFailureQuotesTheFirstFailingAssertion(t *testing.T) {
	result := &gotest.Result{Tests: []*gotest.Test{
		{Name: "TestA", Action: "pass"},
		{Name: "TestB", Action: "fail", Output: []string{
			"=== RUN   TestB",
			"    b_test.go:12: learn-trace: {\"step\":\"m3\"}",
			"    b_test.go:20: ",
			"        \tError:      \tNot equal: ",
			"        \t            \texpected: 1",
			"        \t            \tactual  : 2",
			"--- FAIL: TestB (0.00s)",
		}},
	}}
	got := describeFailure(result)
	assert.Equal(t, `TestB fails:
  b_test.go:20: 
      	Error:      	Not equal: 
      	            	expected: 1
      	            	actual  : 2
`, got)
}

func TestDescribeFailureExplainsACrash(t *testing.T) {
	result := &gotest.Result{Crashed: true, Output: []string{
		"=== RUN   TestA",
		"panic: deadlock: main bubble goroutine has exited but blocked goroutines remain [recovered, repanicked]",
		"",
		"goroutine 7 [running]:",
	}, Tests: []*gotest.Test{{Name: "TestA", Action: "fail", Output: []string{"=== RUN   TestA"}}}}
	got := describeFailure(result)
	assert.Contains(t, got, "The test binary crashed:\n  panic: deadlock")
	assert.Contains(t, got, "goroutines of the cluster were still waiting")
	assert.NotContains(t, got, "goroutine 7")
}

func TestDescribeFailureListsCompilerErrors(t *testing.T) {
	result := &gotest.Result{BuildFailed: true, Output: []string{
		"# flinklab/runtime/dispatcher",
		"runtime/dispatcher/dispatcher.go:140:2: undefined: jobId",
		"FAIL\tflinklab/exercises/m03 [build failed]",
	}}
	assert.Equal(t, "The code does not compile:\n  runtime/dispatcher/dispatcher.go:140:2: undefined: jobId\n", describeFailure(result))
}

// A body that blocks forever ends in go test's -timeout; the learner is
// told what that means, not only shown the panic.
func TestDescribeFailureExplainsATimeout(t *testing.T) {
	result := &gotest.Result{Crashed: true, Output: []string{
		"=== RUN   TestAValidJobIsPersistedAndRuns",
		"panic: test timed out after 2m0s",
		"\trunning tests:",
		"\t\tTestAValidJobIsPersistedAndRuns (2m0s)",
		"",
		"goroutine 1 [running]:",
	}}
	got := describeFailure(result)
	assert.Contains(t, got, "The test binary crashed:\n  panic: test timed out after 2m0s\n")
	assert.Contains(t, got, "TestAValidJobIsPersistedAndRuns (2m0s)")
	assert.Contains(t, got, "the test never ended: something waits forever")
	assert.NotContains(t, got, "goroutine 1")
}

func TestDescribeFailureSaysWhenNoTestRan(t *testing.T) {
	result := &gotest.Result{NoTests: true, Output: []string{"ok  \tflinklab/exercises/m03\t0.01s [no tests to run]"}}
	assert.Equal(t, "No test passed: none matched the exercise's tests.run pattern, or each was skipped.\n", describeFailure(result))
}

// list shows the exercises lesson by lesson, each lesson under its title,
// in the order of the lessons' files, and the drill of a lesson's fault
// with the lesson's exercises.
func TestListGroupsTheExercisesUnderTheirLessons(t *testing.T) {
	c := testCourse(t)
	var out bytes.Buffer
	c.list(&out)
	text := out.String()

	anatomy := strings.Index(text, "  01 · Anatomy of the JobManager\n")
	graphs := strings.Index(text, "  02a · Graph transformations\n")
	require.True(t, anatomy >= 0 && graphs > anatomy, "the lessons' titles, in order:\n%s", text)
	for _, id := range []string{" m01 ", " r03 ", " d18 "} {
		at := strings.Index(text, id)
		assert.True(t, at > anatomy && at < graphs, "%s is listed under lesson 01", id)
	}
	for _, id := range []string{" g01 ", " g05 ", " d19 "} {
		assert.Greater(t, strings.Index(text, id), graphs, "%s is listed under lesson 02a", id)
	}
}
