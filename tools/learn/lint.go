package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/lint"
)

// lint checks every code link of the lessons, exercise READMEs and
// walkthroughs, and that each hole of a writing exercise is marked with
// its step (`// Step m3: …`); with fix it first rewrites the line numbers
// that drifted.
//
// Links are checked against the tree. While a learner's code is in the
// holes, the lines below it have moved: lint says so, and --fix, which
// would move the lessons' links to the learner's lines, refuses. The step
// markers of those holes are not checked: the learner's code need not
// carry them.
func (c *course) lint(fix bool, out io.Writer) error {
	var yours []string
	var reference []*exercise.Exercise // the exercises whose holes hold the reference
	for _, e := range c.exercises {
		if e.Kind == exercise.Write && c.state(e) != notStarted {
			yours = append(yours, e.ID)
			continue
		}
		reference = append(reference, e)
	}
	unmarked, err := lint.CheckStepMarkers(c.root, reference)
	if err != nil {
		return err
	}
	if len(yours) > 0 {
		if fix {
			return fmt.Errorf("the tree holds your code for %s: --fix would move the links of the lessons to its lines; "+
				"reset those exercises first", strings.Join(yours, ", "))
		}
		fmt.Fprintf(out, "(the tree holds your code for %s: links below it may point elsewhere than in the reference, and its holes' step markers are not checked)\n",
			strings.Join(yours, ", "))
	}
	if fix {
		fixed, remaining, err := lint.Fix(c.root)
		if err != nil {
			return err
		}
		for _, p := range fixed {
			fmt.Fprintf(out, "fixed %s\n", p)
		}
		return report(remaining, unmarked, out)
	}
	problems, err := lint.Check(c.root)
	if err != nil {
		return err
	}
	return report(problems, unmarked, out)
}

func report(problems []lint.Problem, unmarked []lint.MarkerProblem, out io.Writer) error {
	for _, p := range problems {
		fmt.Fprintln(out, p)
	}
	for _, p := range unmarked {
		fmt.Fprintln(out, p)
	}
	var failures []string
	if len(problems) > 0 {
		failures = append(failures, fmt.Sprintf("%d broken links (go run ./tools/learn lint --fix rewrites drifted line numbers)", len(problems)))
	}
	if len(unmarked) > 0 {
		failures = append(failures, fmt.Sprintf("%d holes without the marker of their step", len(unmarked)))
	}
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "; "))
	}
	fmt.Fprintln(out, "lint: every link resolves, every hole is marked with its step")
	return nil
}
