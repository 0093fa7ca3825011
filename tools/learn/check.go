package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/tracediff"
)

// check runs an exercise's tests on the tree as it is and tells the learner,
// in plain words, how far they are: the first failing expectation with its
// expected and actual values, the steps that happened next to the steps of
// the reference in the same scenario when the failure is about the steps
// (see compareTraces), and the first hint. A check that takes a while says
// what it is doing meanwhile (see status.go).
func (c *course) check(ctx context.Context, e *exercise.Exercise, out io.Writer) (passed bool, err error) {
	switch e.Kind {
	case exercise.Read:
		return c.checkReading(ctx, e, out)
	case exercise.Predict:
		if e.Prediction.ByTest() {
			return c.checkPredictionByTest(ctx, e, out)
		}
		return c.checkPrediction(ctx, e, out)
	case exercise.Diagnose:
		return c.checkDrill(e, out)
	}
	// Before start, the reference is in the holes and the tests pass:
	// that says nothing about the learner, and must not mark it done. (A
	// file that does not parse is the learner's: the compiler says why.)
	if c.state(e) == notStarted {
		if differs, err := c.differsFromReference(e); err == nil && !differs {
			fmt.Fprintf(out, "%s is not started: its functions are the reference's, so its tests say nothing yet.\n"+
				"Start it with: go run ./tools/learn start %s\n", e.ID, e.ID)
			return false, nil
		}
	}
	result, err := c.runCheck(ctx, e, out)
	if err != nil {
		return false, err
	}
	if result.Passed {
		fmt.Fprintf(out, "✓ %s passes: %d tests green (%.1f s).\n", e.ID, countTop(result), result.Elapsed.Seconds())
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: not yet (%.1f s).\n\n", e.ID, result.Elapsed.Seconds())
	fmt.Fprint(out, indent(describeFailure(result), "  "))

	if failed := result.FirstFailure(); failed != nil {
		if err := c.compareTraces(e, failed, out); err != nil {
			fmt.Fprintf(out, "\n  (no reference trace: %v)\n", err)
		}
	}
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nThe task: %s/README.md · more hints: go run ./tools/learn hint %s\n", e.Dir, e.ID)
	return false, nil
}

func (c *course) markDone(e *exercise.Exercise) error {
	if c.progress.get(e.ID).state == "done" {
		return nil
	}
	if err := c.progress.update(e.ID, func(r *record) { r.state = "done" }); err != nil {
		return err
	}
	c.syncGitView(os.Stderr) // done: git may show the learner's files again
	return nil
}

// runCheck runs an exercise's tests on the tree as it is, as a check
// does, with a status line on the learner's terminal while the build
// takes long.
func (c *course) runCheck(ctx context.Context, e *exercise.Exercise, out io.Writer) (*gotest.Result, error) {
	run := c.testRun(e, nil)
	w, live, ok := statusOut(out)
	if !ok {
		return gotest.Execute(ctx, run)
	}
	status := startStatus(w, live, e.ID, func(ctx context.Context) (int, error) {
		return stalePackages(ctx, c.root, run.Package)
	})
	run.Started = status.testsRunning
	result, err := gotest.Execute(ctx, run)
	status.stop()
	return result, err
}

// compareTraces lays the steps the failing test's scenario took next to
// the reference's steps in the same test, when the failure is about the
// steps (the exercise's tests.about_steps names the test) and the test
// logged them. The reference's steps come from solutions/ID/traces.txt,
// written from a run of the reference (see tracesync.go): nothing runs
// again. A test that crashed may still have logged its steps before.
func (c *course) compareTraces(e *exercise.Exercise, failed *gotest.Test, out io.Writer) error {
	if !aboutSteps(e, failed.Name) {
		return nil
	}
	happened, err := tracediff.ParseTestOutput(strings.NewReader(strings.Join(failed.Output, "\n")))
	if err != nil || len(happened) == 0 {
		return nil // no trace to show: the test ended before it logged one
	}
	traces, err := c.readReferenceTraces(e)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(traces, func(t tracediff.TestTrace) bool { return t.Test == failed.Name })
	if i < 0 {
		return fmt.Errorf("%s has none for %s", referenceTracesFile(e), failed.Name)
	}
	fmt.Fprint(out, "\n"+indent(renderTraces(happened, traces[i].Events), "  "))
	return nil
}

// renderTraces lays the steps that happened next to the reference's, both
// in canonical order (tracediff.Canonical), so that the same code gives
// the same table and the same first difference every run, however the
// cluster's goroutines interleaved. When they agree, a sentence says so
// instead: what failed is not the steps.
func renderTraces(happened, reference []tracediff.Event) string {
	happened, reference = tracediff.Canonical(happened), tracediff.Canonical(reference)
	if tracediff.FirstDifference(happened, reference) < 0 {
		return fmt.Sprintf("The %d steps that happened are the reference's: what fails is not which steps the job takes.\n", len(happened))
	}
	return "The steps that happened, next to the reference's in the same test. They are sorted by\n" +
		"step; each task attempt's own steps, and a step's repeats, keep the order they happened in:\n\n" +
		tracediff.Render(happened, reference, tracediff.Options{
			LeftTitle:  tracediff.TitleHappened,
			RightTitle: tracediff.TitleReference,
		})
}

// describeFailure says what went wrong first: the compiler's errors, or
// the first failing test's own words (its assertion, with expected and
// actual values), and the crash if the test binary died.
func describeFailure(r *gotest.Result) string {
	var b strings.Builder
	if r.BuildFailed {
		b.WriteString("The code does not compile:\n")
		for _, line := range r.Output {
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" || strings.HasPrefix(line, "FAIL") {
				continue
			}
			b.WriteString("  " + line + "\n")
		}
		return b.String()
	}
	t := r.FirstFailure()
	said := []string(nil)
	if t != nil {
		said = testOwnWords(t.Output)
	}
	if t != nil && !(r.Crashed && !asserted(said)) {
		fmt.Fprintf(&b, "%s fails:\n", t.Name)
		for _, line := range said {
			if r.Crashed && gotest.IsCrash(line) {
				break
			}
			b.WriteString("  " + line + "\n")
		}
	}
	if r.Crashed {
		if b.Len() > 0 {
			b.WriteString("\nand then the test binary crashed:\n")
		} else {
			b.WriteString("The test binary crashed:\n")
		}
		for _, line := range crashLines(r.Output) {
			b.WriteString("  " + line + "\n")
		}
	}
	if r.NoTests {
		b.WriteString("No test passed: none matched the exercise's tests.run pattern, or each was skipped.\n")
	}
	if b.Len() == 0 {
		b.WriteString(strings.Join(r.Output, "\n") + "\n")
	}
	return b.String()
}

// asserted reports whether a test's output holds a failed assertion.
func asserted(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "Error Trace:") || strings.Contains(l, "Error:") {
			return true
		}
	}
	return false
}

// testOwnWords drops the bookkeeping from a test's output (run and result
// lines, trace lines, log lines of the cluster) and keeps what the test
// said.
func testOwnWords(output []string) []string {
	var kept []string
	for _, line := range output {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "",
			strings.HasPrefix(trimmed, "=== "),
			strings.HasPrefix(trimmed, "--- "),
			strings.Contains(line, "learn-trace: "):
			continue
		}
		kept = append(kept, strings.TrimPrefix(line, "    "))
	}
	// Assertion messages end with blank-looking lines; keep one block.
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	return kept
}

// crashLines keeps the panic's own words, not its goroutine dump, and
// explains synctest's deadlock report and go test's timeout.
func crashLines(output []string) []string {
	for i, line := range output {
		if !gotest.IsCrash(line) {
			continue
		}
		lines := []string{line}
		for _, more := range output[i+1:] {
			if strings.TrimSpace(more) == "" || strings.HasPrefix(more, "goroutine ") {
				break
			}
			lines = append(lines, more)
		}
		switch {
		case strings.Contains(line, "deadlock: main bubble goroutine has exited but blocked goroutines remain"):
			lines = append(lines, "(when the test ended, goroutines of the cluster were still waiting for something",
				" that never came: a component was left running, or waits for an answer nobody sends)")
		case strings.HasPrefix(line, "panic: test timed out after"):
			lines = append(lines, "(the test never ended: something waits forever, such as a receive from a channel",
				" nobody sends on or a lock never released, or a loop never stops; the test named above",
				" is the one that hung)")
		}
		return lines
	}
	return output[max(0, len(output)-12):]
}

func countTop(r *gotest.Result) int {
	n := 0
	for _, t := range r.Tests {
		if !strings.Contains(t.Name, "/") {
			n++
		}
	}
	return n
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
