package callgraph

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"flinklab/tools/learn/exercise"
)

// The reading exercises' references must be honest (they pass, and no
// name in them can be left out), and their untouched answer templates
// must fail: a learner who checks before writing anything is told so.
// The template holds just the first and the last name. Once a learner has
// written a longer chain into it, those two names are checked on their
// own, so that the test goes on guarding the exercise on a learner's tree.
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
			if err := g.VerifyReference(reference, from, to); err != nil {
				t.Errorf("reference: %v", err)
			}

			template := []string{from, to}
			switch answer := readChain(t, filepath.Join(moduleRoot, e.Dir, e.Reading.Answer)); {
			case len(answer) > len(template):
				t.Logf("%s holds a learner's answer; checking the template's two names on their own", e.Reading.Answer)
			case !slices.Equal(answer, template):
				t.Errorf("the answer template holds %q; want just the first and the last name, %s and %s", answer, from, to)
			}
			if r := g.Check(template, from, to); r.OK {
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
