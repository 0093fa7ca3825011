package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/tracediff"
)

// The reference traces of a writing exercise are the steps m1…m11 that
// the tests named in its tests.about_steps take on the complete runtime,
// in canonical order (tracediff.Canonical), kept in
// solutions/ID/traces.txt. `learn solutions` writes them from a run of the
// reference; `learn check` lays a failing test's steps next to them
// without running the reference again; `learn verify` proves them in sync
// with a run of the reference.

// referenceTracesFile is where an exercise's reference traces are kept.
func referenceTracesFile(e *exercise.Exercise) string {
	return "solutions/" + e.ID + "/traces.txt"
}

// aboutSteps reports whether a failure of the named test is about the
// steps its scenario takes: tests.about_steps names it, or a test it is a
// subtest of.
func aboutSteps(e *exercise.Exercise, test string) bool {
	return slices.ContainsFunc(e.Tests.AboutSteps, func(name string) bool { return covers(name, test) })
}

// covers reports whether name is test, or a test that test is a subtest
// of.
func covers(name, test string) bool {
	return test == name || strings.HasPrefix(test, name+"/")
}

// aboutStepsPattern is the -run pattern of the tests named in
// tests.about_steps: their top-level names (a pattern with a subtest's
// name would need each level quoted).
func aboutStepsPattern(e *exercise.Exercise) string {
	var top []string
	for _, name := range e.Tests.AboutSteps {
		first, _, _ := strings.Cut(name, "/")
		if first = regexp.QuoteMeta(first); !slices.Contains(top, first) {
			top = append(top, first)
		}
	}
	return "^(" + strings.Join(top, "|") + ")$"
}

// recordTraces returns, from a run of an exercise's tests, the canonical
// trace of each test named in tests.about_steps and of each of their
// subtests, in the order the tests ran. A test whose scenario takes no
// step (a refusal before step m5, say) has an empty trace: a learner's
// version that takes one differs from it. A named test that did not run
// is an error.
func recordTraces(e *exercise.Exercise, result *gotest.Result) ([]tracediff.TestTrace, error) {
	for _, name := range e.Tests.AboutSteps {
		if result.Test(name) == nil {
			return nil, fmt.Errorf("tests.about_steps names %s, which did not run", name)
		}
	}
	var traces []tracediff.TestTrace
	for _, t := range result.Tests {
		if !aboutSteps(e, t.Name) {
			continue
		}
		events, err := tracediff.ParseTestOutput(strings.NewReader(strings.Join(t.Output, "\n")))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		traces = append(traces, tracediff.TestTrace{Test: t.Name, Events: tracediff.Canonical(events)})
	}
	return traces, nil
}

// readReferenceTraces reads an exercise's reference traces; an exercise
// without the file has none.
func (c *course) readReferenceTraces(e *exercise.Exercise) ([]tracediff.TestTrace, error) {
	data, err := c.read(referenceTracesFile(e))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	traces, err := tracediff.ReadTraces(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", referenceTracesFile(e), err)
	}
	return traces, nil
}

// verifyReferenceTraces proves an exercise's reference traces in sync
// with ref, a run of its tests on the complete runtime: the file holds
// the canonical trace of every test named in tests.about_steps, and each
// is the run's, step for step (messages are not compared: they hold what
// the run names, not what it does). An exercise that names no test has no
// file.
func (c *course) verifyReferenceTraces(e *exercise.Exercise, ref *gotest.Result) error {
	stored, err := c.readReferenceTraces(e)
	if err != nil {
		return err
	}
	file := referenceTracesFile(e)
	if len(e.Tests.AboutSteps) == 0 {
		if stored != nil {
			return fmt.Errorf("%s is left over: tests.about_steps names no test; delete it", file)
		}
		return nil
	}
	recorded, err := recordTraces(e, ref)
	if err != nil {
		return err
	}
	outOfDate := func(why string) error {
		return fmt.Errorf("%s is out of date with a run of the reference (%s): run `go run ./tools/learn solutions %s`", file, why, e.ID)
	}
	if stored == nil {
		return outOfDate("it is missing")
	}
	names := func(traces []tracediff.TestTrace) []string {
		var n []string
		for _, t := range traces {
			n = append(n, t.Test)
		}
		return n
	}
	if !slices.Equal(names(stored), names(recorded)) {
		return outOfDate(fmt.Sprintf("it has the traces of %s, the run of %s",
			strings.Join(names(stored), ", "), strings.Join(names(recorded), ", ")))
	}
	for i, run := range recorded {
		if tracediff.FirstDifference(stored[i].Events, run.Events) >= 0 {
			return fmt.Errorf("%s\n%s", outOfDate("the steps of "+run.Test+" differ"),
				tracediff.Render(stored[i].Events, run.Events, tracediff.Options{LeftTitle: "in " + file, RightTitle: "the run"}))
		}
	}
	return nil
}
