package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
)

// logsCourse is a course of one prediction of logs, x05, whose test
// compares the answers itself, as h05's does, with a run so small that
// its logs are written into the test: the line "started" is in the log,
// the line "stopped" is not. X05_SKIP makes it skip, as h05's does where
// no ZooKeeper server is installed.
var logsCourse = map[string]string{
	"go.mod": "module flinklab\n\ngo 1.26\n",
	"exercises/x05/exercise.yaml": `id: x05
title: Where the lines are
kind: predict
lesson: lessons/01-calc.md#logs
prediction:
  of: logs
  answer: answer.txt
  test: TestYourPrediction
hints: [a nudge, where to look, nearly the answer]
`,
	"exercises/x05/answer.template.txt": "# which lines are in the log?\nstarted =\nstopped =\n",
	"exercises/x05/x05_test.go": `package x05

import (
	"os"
	"strings"
	"testing"
)

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" || os.Getenv("X05_SKIP") != "" {
		t.Skip("this test needs a ZooKeeper server")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := map[string]string{"started": "yes", "stopped": "none"}
	for _, l := range strings.Split(string(data), "\n") {
		line, answer, ok := strings.Cut(l, " =")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		switch answer = strings.TrimSpace(answer); {
		case answer == "":
			t.Errorf("%q: not predicted yet", line)
		case answer != log[line]:
			t.Errorf("%q: not %s", line, answer)
		}
	}
}
`,
	"solutions/x05/reference.txt": "started = yes\nstopped = none\n",
	"solutions/x05/wrong.yaml": `- name: believes the process says goodbye
  edits:
    - replace: "stopped = none"
      with: "stopped = yes"
  message: "\"stopped\": not yes"
`,
}

// newLogsCourse writes logsCourse into a temporary directory and opens it.
func newLogsCourse(t *testing.T) (*course, *exercise.Exercise) {
	t.Helper()
	c := courseOf(t, logsCourse)
	e, err := c.exercise("x05")
	require.NoError(t, err)
	return c, e
}

// verify proves a prediction of logs as it proves one of graphs, by the
// exercise's test: the reference passes, the template and each wrong
// answer fail, the wrong answer with the words of its mistake.
func TestVerifyProvesAPredictionOfLogsByItsTest(t *testing.T) {
	c, _ := newLogsCourse(t)
	var out bytes.Buffer
	require.NoError(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✓ x05: the reference passes; the template and 1 wrong answers are refused")
}

// A wrong answer refused for another reason than its own mistake (a
// scenario that broke, a message that changed) proves nothing.
func TestVerifyRefusesAWrongAnswerRefusedWithoutItsMessage(t *testing.T) {
	c, _ := newLogsCourse(t)
	require.NoError(t, c.writeFile("solutions/x05/wrong.yaml", []byte(`- name: believes the process says goodbye
  edits:
    - replace: "stopped = none"
      with: "stopped = yes"
  message: "no such line in the log"
`)))
	var out bytes.Buffer
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), `✗ x05: wrong answer "believes the process says goodbye" is refused, but not with "no such line in the log"`)
}

// Where the scenario cannot run, verify has nothing to prove and says
// so, and check says why instead of a failure.
func TestAPredictionWhoseTestSkipsSaysWhy(t *testing.T) {
	t.Setenv("X05_SKIP", "yes")
	c, e := newLogsCourse(t)
	var out bytes.Buffer
	require.NoError(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✓ x05: not proved here: TestYourPrediction skips: x05_test.go:")
	assert.Contains(t, out.String(), "this test needs a ZooKeeper server")

	out.Reset()
	passed, err := c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.False(t, passed)
	assert.Contains(t, out.String(), "✗ x05: the check could not run:\n  x05_test.go:")
	assert.Contains(t, out.String(), "this test needs a ZooKeeper server")
}

// check compares the learner's answer by the test, and names the lines
// that are wrong.
func TestCheckOfAPredictionOfLogs(t *testing.T) {
	c, e := newLogsCourse(t)
	var out bytes.Buffer
	passed, err := c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.False(t, passed, "the template answers nothing")
	assert.Contains(t, out.String(), "✗ x05: not where the lines are in the logs.")
	assert.Contains(t, out.String(), `"started": not predicted yet`)

	require.NoError(t, c.writeFile("exercises/x05/answer.txt", []byte("started = yes\nstopped = none\n")))
	out.Reset()
	passed, err = c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.True(t, passed, out.String())
	assert.Contains(t, out.String(), "✓ x05: your prediction is where the lines are in the logs.")
	assert.Equal(t, done, c.state(e))
}
