package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/tracediff"
)

// runScenario runs a predict exercise's scenario test on the complete
// runtime (see referenceOverlay), so that a writing exercise in progress
// does not change what the learner's prediction is compared with.
func (c *course) runScenario(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (*gotest.Result, error) {
	run := c.testRun(e, complete)
	run.Pattern = "^" + regexp.QuoteMeta(e.Prediction.Test) + "$"
	result, err := gotest.Execute(ctx, run)
	if err != nil {
		return nil, err
	}
	if !result.Passed {
		return nil, fmt.Errorf("the scenario %s does not run to the end:\n%s", e.Prediction.Test, describeFailure(result))
	}
	return result, nil
}

// checkPrediction compares the learner's prediction with a real run,
// counted (tracediff.Count): each message with how many times it
// happened, in the order in which the messages first happened. The
// order in which repeats of concurrent messages interleave is not asked.
//
// A prediction that is right says so, with the table. One that is wrong
// shows the table up to its first wrong row and what really happened
// there, says in a sentence what differs, and hides the rest of the run:
// the first check counts, and each check after it teaches one row, not
// the whole answer (that is in the walkthrough, `learn solution`).
func (c *course) checkPrediction(ctx context.Context, e *exercise.Exercise, out io.Writer) (bool, error) {
	answer := answerFile(e)
	data, err := c.readAnswer(e)
	if err != nil {
		return false, err
	}
	predicted, err := tracediff.ParsePrediction(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(out, "✗ %s: %v\n", answer, err)
		return false, nil
	}
	if len(predicted) == 0 {
		fmt.Fprintf(out, "✗ %s: no prediction yet. Write the messages you expect into %s, one per line, then check again.\n", e.ID, answer)
		return false, nil
	}
	complete, err := c.referenceOverlay()
	if err != nil {
		return false, err
	}
	result, err := c.runScenario(ctx, e, complete)
	if err != nil {
		return false, err
	}
	events, err := tracediff.ParseTestOutput(strings.NewReader(strings.Join(result.Output, "\n")))
	if err != nil {
		return false, err
	}
	want, happened := tracediff.Count(predicted), tracediff.Count(events)
	table := tracediff.RenderCounts(want, happened, tracediff.Options{
		LeftTitle:           tracediff.TitlePredicted,
		RightTitle:          tracediff.TitleHappened,
		HideAfterDifference: true,
	})
	if tracediff.FirstCountDifference(want, happened) < 0 {
		fmt.Fprintf(out, "✓ %s: your prediction is what happened, each message as many times, in the same order.\n\n%s", e.ID, table)
		fmt.Fprintf(out, "\nWhy each message comes, repeats or never comes: go run ./tools/learn solution %s\n", e.ID)
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: the run went differently.\n\n%s", e.ID, table)
	fmt.Fprintf(out, "\nCorrect that row in %s and check again; the rows below it are not compared yet.\n", answer)
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nThe task: %s/README.md · more hints: go run ./tools/learn hint %s\n", e.Dir, e.ID)
	return false, nil
}

// verifyPrediction proves a predict exercise honest: its reference is what
// the scenario really does, and the table of a clean submission, a wrong
// order and a wrong count are told apart from it.
func (c *course) verifyPrediction(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (string, error) {
	result, err := c.runScenario(ctx, e, complete)
	if err != nil {
		return "", err
	}
	reference, err := c.read("solutions/" + e.ID + "/reference.txt")
	if err != nil {
		return "", err
	}
	if err := tracediff.VerifyPrediction(strings.NewReader(strings.Join(result.Output, "\n")), bytes.NewReader(reference)); err != nil {
		return "", err
	}
	return "the reference matches a real run; the clean m1–m11 table, a swapped pair of messages and a wrong count do not", nil
}
