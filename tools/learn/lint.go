package main

import (
	"fmt"
	"io"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/lint"
)

// lint checks every code link of the lessons, exercise READMEs and
// walkthroughs; with fix it first rewrites the line numbers that drifted.
//
// Links are checked against the tree. While a learner's code is in the
// holes, the lines below it have moved: lint says so, and --fix, which
// would move the lessons' links to the learner's lines, refuses.
func (c *course) lint(fix bool, out io.Writer) error {
	var yours []string
	for _, e := range c.exercises {
		if e.Kind == exercise.Write && c.state(e) != notStarted {
			yours = append(yours, e.ID)
		}
	}
	if len(yours) > 0 {
		if fix {
			return fmt.Errorf("the tree holds your code for %s: --fix would move the links of the lessons to its lines; "+
				"reset those exercises first", strings.Join(yours, ", "))
		}
		fmt.Fprintf(out, "(the tree holds your code for %s: links below it may point elsewhere than in the reference)\n",
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
		return report(remaining, out)
	}
	problems, err := lint.Check(c.root)
	if err != nil {
		return err
	}
	return report(problems, out)
}

func report(problems []lint.Problem, out io.Writer) error {
	for _, p := range problems {
		fmt.Fprintln(out, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d broken links (go run ./tools/learn lint --fix rewrites drifted line numbers)", len(problems))
	}
	fmt.Fprintln(out, "lint: every link resolves")
	return nil
}
