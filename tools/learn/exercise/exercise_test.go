package exercise

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const complete = `id: x01
title: Doubling
lesson: lessons/01-calc.md#double
holes:
  - file: runtime/calc/calc.go
    func: Double
    todo: Return twice n.
tests:
  must_fail:
    - test: TestDouble
hints: [a nudge, where to look, nearly the answer]
`

// mutants is a complete solutions/x01/mutants.yaml for complete.
const mutants = `# Wrong answers.
- name: adds two instead of doubling
  edits:
    - replace: "n * 2"
      with: "n + 2"
- name: squares
  body: "return n * n"
`

func load(t *testing.T, yaml string) (*Exercise, error) {
	t.Helper()
	return loadWithMutants(t, yaml, mutants)
}

// loadWithMutants loads exercise x01 from yaml, with mutants as its
// solutions/x01/mutants.yaml (none when mutants is "-").
func loadWithMutants(t *testing.T, yaml, mutants string) (*Exercise, error) {
	t.Helper()
	root := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	write("exercises/x01/exercise.yaml", yaml)
	if mutants != "-" {
		write("solutions/x01/mutants.yaml", mutants)
	}
	return LoadFile(root, filepath.Join(root, "exercises", "x01", "exercise.yaml"))
}

func TestLoadFileReadsACompleteExercise(t *testing.T) {
	e, err := load(t, complete)
	require.NoError(t, err)
	assert.Equal(t, Write, e.Kind, "the default kind")
	assert.Equal(t, "exercises/x01", e.Dir)
	assert.Equal(t, []string{"runtime/calc/calc.go"}, e.Files())
	assert.Equal(t, []Mutant{
		{Name: "adds two instead of doubling", Edits: []Edit{{Replace: "n * 2", With: "n + 2"}}},
		{Name: "squares", Body: "return n * n"},
	}, e.Mutants, "the mutants come from solutions/x01/mutants.yaml")
}

// The mutants are answers: the exercise's folder, which the learner reads,
// must not hold them.
func TestLoadFileRefusesMutantsInTheExercisesFolder(t *testing.T) {
	_, err := load(t, complete+"mutants:\n  - name: squares\n    body: \"return n * n\"\n")
	assert.ErrorContains(t, err, "line 12: mutants are answers and are not kept in the exercise's folder: move them to solutions/x01/mutants.yaml")
}

func TestLoadFileRefusesMissingOrIncompleteMutants(t *testing.T) {
	tests := []struct {
		name, mutants, want string
	}{
		{"no file", "-", "solutions/x01/mutants.yaml is missing: a writing exercise needs mutants"},
		{"an empty file", "# none yet\n", "solutions/x01/mutants.yaml lists no mutants"},
		{"an unknown field", "- name: squares\n  bodies: \"return n * n\"\n", "field bodies not found"},
		{"edits and a body", "- name: squares\n  body: \"return n * n\"\n  edits: [{replace: n, with: m}]\n", `mutant "squares": give edits or a body, not both`},
		{"no name", "- body: \"return n * n\"\n", "a mutant without a name"},
		{"two of one name", "- {name: squares, body: \"return n * n\"}\n- {name: squares, body: \"return n * n * 1\"}\n", `two mutants are called "squares"`},
		{"another function", "- {name: triples, func: Triple, body: \"return 3 * n\"}\n", `mutant "triples": Triple is not a hole`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadWithMutants(t, complete, tt.mutants)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A reading exercise has no holes, so no mutants either.
func TestLoadFileReadsAReadingExerciseWithoutMutants(t *testing.T) {
	e, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: read\nlesson: lessons/a.md\nhints: [a, b, c]\nreading: {from: a.F, to: a.G, answer: answer.txt, scenario: TestRun}\n", "-")
	require.NoError(t, err)
	assert.Empty(t, e.Mutants)
}

// A prediction of graphs is a predict exercise whose test compares the
// answers; its wrong answers are read on their own (LoadWrong).
func TestLoadFileReadsAPredictionOfGraphs(t *testing.T) {
	e, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md#counting\nhints: [a, b, c]\nprediction: {of: graphs, answer: answer.txt, test: TestYours}\n", "-")
	require.NoError(t, err)
	assert.True(t, e.Prediction.ByTest())
	assert.Equal(t, "lessons/a.md", e.LessonFile())

	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(WrongFile("x01")))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("- name: counts slots as subtasks\n  edits:\n    - replace: \"slots: 3\"\n      with: \"slots: 9\"\n"), 0o644))
	wrong, err := LoadWrong(root, "x01")
	require.NoError(t, err)
	assert.Equal(t, []Wrong{{Name: "counts slots as subtasks", Edits: []Edit{{Replace: "slots: 3", With: "slots: 9"}}}}, wrong)

	require.NoError(t, os.WriteFile(path, []byte("- name: x\n  answer: whole\n"), 0o644))
	_, err = LoadWrong(root, "x01")
	assert.ErrorContains(t, err, "field answer not found", "a wrong answer is edits of the reference")
}

// A prediction of logs is compared by its test too, and a wrong answer
// may name the words its refusal must contain.
func TestLoadFileReadsAPredictionOfLogs(t *testing.T) {
	e, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md#exercises\nhints: [a, b, c]\nprediction: {of: logs, answer: answer.txt, test: TestYours}\n", "-")
	require.NoError(t, err)
	assert.True(t, e.Prediction.ByTest())
	assert.Equal(t, PredictLogs, e.Prediction.Of)

	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(WrongFile("x01")))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("- name: the killed leader says goodbye\n  edits:\n    - {replace: \"SUSPENDED. = none\", with: \"SUSPENDED. = old-leader\"}\n"+
		"  message: \"no such line in the old leader's log\"\n"), 0o644))
	wrong, err := LoadWrong(root, "x01")
	require.NoError(t, err)
	assert.Equal(t, []Wrong{{Name: "the killed leader says goodbye",
		Edits:   []Edit{{Replace: "SUSPENDED. = none", With: "SUSPENDED. = old-leader"}},
		Message: "no such line in the old leader's log"}}, wrong)
}

// A trace is compared by learn, not by the exercise's test.
func TestAPredictionOfATraceIsNotComparedByItsTest(t *testing.T) {
	e, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md\nhints: [a, b, c]\nprediction: {answer: answer.txt, test: TestTrace}\n", "-")
	require.NoError(t, err)
	assert.False(t, e.Prediction.ByTest())
}

func TestLoadFileRefusesAnIncompleteExercise(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"an unknown field", complete + "hint: one\n", "field hint not found"},
		{"two hints", replace(complete, "[a nudge, where to look, nearly the answer]", "[a nudge, where to look]"), "2 hints; want three"},
		{"no expectation", replace(complete, "  must_fail:\n    - test: TestDouble\n", "  run: TestDouble\n"), "tests.must_fail is empty"},
		{"a hole outside Go", replace(complete, "runtime/calc/calc.go", "runtime/calc/mutants.yaml"), "hole Double: runtime/calc/mutants.yaml is not a Go file"},
		{"a hole without guidance", replace(complete, "    todo: Return twice n.\n", ""), "hole Double: no TODO guidance"},
		{"two files of one name", replace(complete, "tests:", "  - file: runtime/other/calc.go\n    func: Triple\n    todo: Three times.\ntests:"),
			"holes in runtime/calc/calc.go and runtime/other/calc.go"},
		{"a reading exercise without its answer", "id: x01\ntitle: t\nkind: read\nlesson: lessons/a.md\nhints: [a, b, c]\nreading: {from: a.F, to: a.G}\n",
			"a reading exercise needs reading.from, reading.to, reading.answer and reading.scenario"},
		{"a prediction of something unknown", "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md\nhints: [a, b, c]\nprediction: {of: metrics, answer: answer.txt, test: TestYours}\n",
			`prediction.of "metrics": want "trace", "graphs", "logs" or "run"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// replace returns s with old replaced by new, once; old must be there.
func replace(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic(fmt.Sprintf("replace: %q is not in the text", old))
	}
	return strings.Replace(s, old, new, 1)
}

// Graphs, logs and runs are compared by the exercise's own test; a trace
// is compared by learn.
func TestWhichPredictionsTheTestCompares(t *testing.T) {
	for of, byTest := range map[string]bool{"": false, PredictTrace: false, PredictGraphs: true, PredictLogs: true, PredictRun: true} {
		e, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md\nhints: [a, b, c]\nprediction: {of: '"+of+"', answer: answer.txt, test: TestYours}\n", "-")
		require.NoError(t, err, "of %q", of)
		assert.Equal(t, byTest, e.Prediction.ByTest(), "of %q", of)
	}
	_, err := loadWithMutants(t, "id: x01\ntitle: t\nkind: predict\nlesson: lessons/a.md\nhints: [a, b, c]\nprediction: {of: movies, answer: answer.txt, test: TestYours}\n", "-")
	assert.ErrorContains(t, err, `prediction.of "movies"`)
}
