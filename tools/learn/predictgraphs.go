package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
)

// A prediction of graphs (prediction.of: graphs, exercise g05) is
// compared by the exercise's own test, which plans the programs, reads
// the answers from the file envPrediction names and fails with what is
// wrong, never with what is right. Without the variable it skips.
const envPrediction = "FLINKLAB_PREDICTION"

// runGraphPrediction runs the exercise's test on the complete runtime
// (referenceOverlay) against the answers in the file at answer.
func (c *course) runGraphPrediction(ctx context.Context, e *exercise.Exercise, complete map[string][]byte, answer string) (*gotest.Result, error) {
	run := c.testRun(e, complete)
	run.Pattern = "^" + regexp.QuoteMeta(e.Prediction.Test) + "$"
	run.Env = []string{envPrediction + "=" + answer}
	result, err := gotest.Execute(ctx, run)
	if err != nil {
		return nil, err
	}
	if result.BuildFailed {
		return nil, fmt.Errorf("the test of %s does not build:\n%s", e.ID, describeFailure(result))
	}
	return result, nil
}

// checkGraphPrediction compares the learner's answers with the graphs.
func (c *course) checkGraphPrediction(ctx context.Context, e *exercise.Exercise, out io.Writer) (bool, error) {
	if err := c.ensureAnswer(e); err != nil {
		return false, err
	}
	complete, err := c.referenceOverlay()
	if err != nil {
		return false, err
	}
	result, err := c.runGraphPrediction(ctx, e, complete, c.path(answerFile(e)))
	if err != nil {
		return false, err
	}
	if result.Passed {
		fmt.Fprintf(out, "✓ %s: your prediction is what the graphs are.\n", e.ID)
		fmt.Fprintf(out, "\nWhy each count and each chain is what it is: go run ./tools/learn solution %s\n", e.ID)
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: not what the graphs are.\n\n", e.ID)
	fmt.Fprint(out, indent(describeFailure(result), "  "))
	fmt.Fprintf(out, "\nCorrect these lines in %s and check again.\n", answerFile(e))
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nThe task: %s/README.md · more hints: go run ./tools/learn hint %s\n", e.Dir, e.ID)
	return false, nil
}

// verifyGraphPrediction proves a prediction of graphs honest: the
// reference passes the test, and the template and every wrong answer
// people write (exercise.WrongFile) fail it.
func (c *course) verifyGraphPrediction(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (string, error) {
	reference, err := c.read("solutions/" + e.ID + "/reference.txt")
	if err != nil {
		return "", err
	}
	wrong, err := exercise.LoadWrong(c.root, e.ID)
	if err != nil {
		return "", err
	}
	if len(wrong) == 0 {
		return "", fmt.Errorf("%s lists no wrong answers: name the mistakes the test must refuse", exercise.WrongFile(e.ID))
	}
	template, err := c.read(templateFile(e))
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "learn-"+e.ID+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	run := func(name string, answer []byte) (bool, error) {
		path := filepath.Join(dir, name+".txt")
		if err := os.WriteFile(path, answer, 0o644); err != nil {
			return false, err
		}
		result, err := c.runGraphPrediction(ctx, e, complete, path)
		if err != nil {
			return false, err
		}
		if !result.Passed && result.Crashed {
			return false, fmt.Errorf("the test crashed on %s:\n%s", name, describeFailure(result))
		}
		return result.Passed, nil
	}
	if passed, err := run("reference", reference); err != nil || !passed {
		return "", fmt.Errorf("the reference solutions/%s/reference.txt does not pass %s (%v)", e.ID, e.Prediction.Test, err)
	}
	if passed, err := run("template", template); err != nil || passed {
		return "", fmt.Errorf("the template %s passes %s, or crashes it (%v)", templateFile(e), e.Prediction.Test, err)
	}
	for i, w := range wrong {
		answer, err := applyEdits(string(reference), w.Edits)
		if err != nil {
			return "", fmt.Errorf("wrong answer %q (%s): %w", w.Name, exercise.WrongFile(e.ID), err)
		}
		passed, err := run(fmt.Sprintf("wrong-%d", i), []byte(answer))
		if err != nil {
			return "", fmt.Errorf("wrong answer %q: %w", w.Name, err)
		}
		if passed {
			return "", fmt.Errorf("wrong answer %q passes %s", w.Name, e.Prediction.Test)
		}
	}
	return fmt.Sprintf("the reference passes; the template and %d wrong answers are refused", len(wrong)), nil
}

// applyEdits applies edits to text in order; each Replace must occur
// exactly once.
func applyEdits(text string, edits []exercise.Edit) (string, error) {
	for _, edit := range edits {
		if n := strings.Count(text, edit.Replace); n != 1 {
			return "", fmt.Errorf("%q occurs %d times, want once", edit.Replace, n)
		}
		text = strings.Replace(text, edit.Replace, edit.With, 1)
	}
	return text, nil
}
