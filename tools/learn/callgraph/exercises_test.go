package callgraph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"flinklab/tools/learn/exercise"
)

// The reading exercises' references must be honest (they pass the code's
// call graph, and no name in them can be left out), and their answer
// templates must hold just the first and the last name, and fail: a
// learner who checks before writing anything is told so. (learn verify
// checks the references against the run of each exercise's scenario.)
func TestReadingExercises(t *testing.T) {
	g := loadRuntime(t)
	all, err := exercise.Load(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	reading := 0
	for _, e := range all {
		if e.Kind != exercise.Read {
			continue
		}
		reading++
		t.Run(e.ID, func(t *testing.T) {
			from, to := e.Reading.From, e.Reading.To

			reference := readChain(t, filepath.Join(moduleRoot, "solutions", e.ID, "reference.txt"))
			if err := g.VerifyReference(reference, from, to, nil); err != nil {
				t.Errorf("reference: %v", err)
			}

			template := []string{from, to}
			templateFile := strings.TrimSuffix(e.Reading.Answer, ".txt") + ".template.txt"
			if got := readChain(t, filepath.Join(moduleRoot, e.Dir, templateFile)); !slices.Equal(got, template) {
				t.Errorf("%s holds %q; want just the first and the last name, %s and %s", templateFile, got, from, to)
			}
			if r := g.Check(template, from, to, nil); r.OK {
				t.Errorf("the untouched answer template passes; want it to fail")
			} else {
				t.Logf("the untouched template says: %s", r.Problem)
			}
		})
	}
	if reading == 0 {
		t.Error("no reading exercise in exercises/")
	}
}

func readChain(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseAnswer(data)
}
