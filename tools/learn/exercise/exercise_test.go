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

func load(t *testing.T, yaml string) (*Exercise, error) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "exercises", "x01", "exercise.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	return LoadFile(root, path)
}

func TestLoadFileReadsACompleteExercise(t *testing.T) {
	e, err := load(t, complete)
	require.NoError(t, err)
	assert.Equal(t, Write, e.Kind, "the default kind")
	assert.Equal(t, "exercises/x01", e.Dir)
	assert.Equal(t, []string{"runtime/calc/calc.go"}, e.Files())
}

func TestLoadFileRefusesAnIncompleteExercise(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"an unknown field", complete + "hint: one\n", "field hint not found"},
		{"two hints", replace(complete, "[a nudge, where to look, nearly the answer]", "[a nudge, where to look]"), "2 hints; want three"},
		{"no expectation", replace(complete, "  must_fail:\n    - test: TestDouble\n", "  run: TestDouble\n"), "tests.must_fail is empty"},
		{"a hole without guidance", replace(complete, "    todo: Return twice n.\n", ""), "hole Double: no TODO guidance"},
		{"two files of one name", replace(complete, "tests:", "  - file: runtime/other/calc.go\n    func: Triple\n    todo: Three times.\ntests:"),
			"holes in runtime/calc/calc.go and runtime/other/calc.go"},
		{"a reading exercise without its answer", "id: x01\ntitle: t\nkind: read\nlesson: lessons/a.md\nhints: [a, b, c]\nreading: {from: a.F, to: a.G}\n",
			"a reading exercise needs reading.from, reading.to and reading.answer"},
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
