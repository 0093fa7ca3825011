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

// renderTraces lays the trace of a failing test next to the reference
// run's trace of the same test, the first difference marked. Tests that
// record no trace give nothing.
func renderTraces(got, want []string) string {
	happened, err1 := tracediff.ParseTestOutput(strings.NewReader(strings.Join(got, "\n")))
	reference, err2 := tracediff.ParseTestOutput(strings.NewReader(strings.Join(want, "\n")))
	if err1 != nil || err2 != nil || (len(happened) == 0 && len(reference) == 0) {
		return ""
	}
	return "The steps that happened, next to the reference's in the same test:\n\n" +
		tracediff.Render(happened, reference, tracediff.Options{
			LeftTitle:  tracediff.TitleHappened,
			RightTitle: tracediff.TitleReference,
		})
}

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

// checkPrediction compares the learner's prediction with a real run.
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
	happened, err := tracediff.ParseTestOutput(strings.NewReader(strings.Join(result.Output, "\n")))
	if err != nil {
		return false, err
	}
	table := tracediff.Render(predicted, happened, tracediff.Options{
		LeftTitle:  tracediff.TitlePredicted,
		RightTitle: tracediff.TitleHappened,
	})
	if tracediff.FirstDifference(predicted, happened) < 0 {
		fmt.Fprintf(out, "✓ %s: your prediction is what happened, message for message.\n\n%s", e.ID, table)
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: the run went differently.\n\n%s", e.ID, table)
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	return false, nil
}

// verifyPrediction proves a predict exercise honest: its reference is what
// the scenario really does, and a wrong order is told apart from it.
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
	return "the reference matches a real run, and a swapped pair of steps does not", nil
}
