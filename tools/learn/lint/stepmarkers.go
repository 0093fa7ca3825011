package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/hole"
)

// MarkerProblem is a hole of a writing exercise that does not show where
// the exercise's step happens: its function has no "// Step mN" comment
// of the step, or the hole cannot be found.
type MarkerProblem struct {
	Exercise string // "m07"
	File     string // the hole's file, relative to the root, slash-separated
	Line     int    // the line of the function's "func" keyword; 0 when it was not found
	Func     string // "DefaultResourceAllocationStrategy.TryFulfillRequirements"
	Message  string // what is wrong, e.g. "no `// Step m7:` marker in its doc comment or body"
}

// String returns the problem as one line, file and line first:
//
//	runtime/x/x.go:40: exercise m07, hole X.Y: no `// Step m7:` marker in its doc comment or body; …
func (p MarkerProblem) String() string {
	return fmt.Sprintf("%s:%d: exercise %s, hole %s: %s", p.File, p.Line, p.Exercise, p.Func, p.Message)
}

// markerLine matches a step marker, a comment line that begins with
// "// Step m7": the step, then what follows it (": …", " (continued): …").
var markerLine = regexp.MustCompile(`^//\s*Step ([a-z]+[0-9]+)([^0-9].*)?$`)

// CheckStepMarkers checks that the hole functions of the given writing
// exercises are marked with their exercise's step: the doc comment or the
// body of each holds a comment line "// Step mN…" of the exercise's step
// (step: mN in its exercise.yaml; for a range, m2-m4, a marker of any step
// in it). A marker of another step does not count, nor one that marks the
// step's injected fault, "// Step mN (fault): …": that line says what goes
// wrong, not where the step happens.
//
// The guidance that `learn start` puts in the punched body (the hole's
// todo) must show the step too, with a line "Step mN: …", so that the hole
// still shows where the step happens when its marker was in the body.
//
// Exercises without a step, and exercises without holes (the reading and
// predict exercises) have nothing to check. The error is only for failures
// to read the tree; a missing file, function or marker is a MarkerProblem.
func CheckStepMarkers(root string, exercises []*exercise.Exercise) ([]MarkerProblem, error) {
	var problems []MarkerProblem
	for _, e := range exercises {
		if e.Step == "" || len(e.Holes) == 0 {
			continue
		}
		steps, err := stepsOf(e.Step)
		for _, h := range e.Holes {
			p := MarkerProblem{Exercise: e.ID, File: h.File, Func: h.Func}
			if err != nil {
				p.Message = err.Error()
				problems = append(problems, p)
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(h.File)))
			if errors.Is(err, fs.ErrNotExist) {
				p.Message = h.File + " does not exist"
				problems = append(problems, p)
				continue
			}
			if err != nil {
				return nil, err
			}
			fn, err := hole.Find(src, h.Func)
			if err != nil {
				p.Message = err.Error()
				problems = append(problems, p)
				continue
			}
			p.Line = fn.Line
			if found := markers(fn.Decl); !marksOneOf(found, steps) {
				p.Message = missingMarker(e.Step, steps, found)
				problems = append(problems, p)
			}
			if !marksOneOf(markers(hole.PunchedBody(e.ID, h.Func, h.TODO)), steps) {
				p.Message = fmt.Sprintf("its todo in %s/exercise.yaml has no line \"Step %s: …\": the punched hole would not show its step",
					e.Dir, steps[0])
				problems = append(problems, p)
			}
		}
	}
	return problems, nil
}

// marksOneOf reports whether one of the markers found is of one of the
// steps.
func marksOneOf(found, steps []string) bool {
	return slices.ContainsFunc(found, func(m string) bool { return slices.Contains(steps, m) })
}

// missingMarker says which marker a hole lacks and which ones it has.
func missingMarker(step string, steps, found []string) string {
	want, where := fmt.Sprintf("`// Step %s:` marker", step), "step "+step
	if len(steps) > 1 {
		want, where = "`// Step mN:` marker of a step in "+step, "one of the steps "+step
	}
	msg := "no " + want + " in its doc comment or body"
	if len(found) > 0 {
		msg += fmt.Sprintf(" (it marks %s: another step, or the step's fault)", strings.Join(found, ", "))
	}
	return msg + "; add one where " + where + " happens, saying what happens there in Flink's terms"
}

// markers returns the steps marked in a function's declaration, doc
// comment included, in order of appearance; a fault marker is returned as
// "m7 (fault)".
func markers(decl string) []string {
	var found []string
	for line := range strings.SplitSeq(decl, "\n") {
		m := markerLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		step := m[1]
		if strings.HasPrefix(strings.TrimSpace(m[2]), "(fault)") {
			step += " (fault)"
		}
		if !slices.Contains(found, step) {
			found = append(found, step)
		}
	}
	return found
}

// step is one step name, a prefix and a number: "m7".
var step = regexp.MustCompile(`^([a-z]+)([0-9]+)$`)

// stepsOf returns the steps an exercise's step field names: "m7" is one,
// "m2-m4" is m2, m3 and m4.
func stepsOf(field string) ([]string, error) {
	first, last, isRange := strings.Cut(field, "-")
	if !isRange {
		last = first
	}
	a, b := step.FindStringSubmatch(first), step.FindStringSubmatch(last)
	if a == nil || b == nil || a[1] != b[1] {
		return nil, fmt.Errorf("step %q is neither a step such as m7 nor a range such as m2-m4", field)
	}
	from, _ := strconv.Atoi(a[2])
	to, _ := strconv.Atoi(b[2])
	if from > to {
		return nil, fmt.Errorf("step %q is a range that ends before it begins", field)
	}
	var steps []string
	for n := from; n <= to; n++ {
		steps = append(steps, a[1]+strconv.Itoa(n))
	}
	return steps, nil
}
