package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
)

// A prediction of graphs (prediction.of: graphs, exercises g05 and c05),
// of logs (prediction.of: logs, exercise h05) or of what a run did
// (prediction.of: run, exercise k05) is compared by the
// exercise's own test, which plans the programs or runs the scenario,
// reads the answers from the file envPrediction names and fails with what
// is wrong, never with what is right. Without the variable it skips.
const envPrediction = "FLINKLAB_PREDICTION"

// logsTimeout bounds a test that predicts logs: it builds the flink
// command (most of a minute on an empty build cache), starts a cluster of
// processes and lets a failover happen (seconds), so testTimeout, made
// for tests that run in a second, is too short for it.
const logsTimeout = 5 * time.Minute

// runPredictionTest runs the exercise's test on the complete runtime
// (referenceOverlay) against the answers in the file at answer.
func (c *course) runPredictionTest(ctx context.Context, e *exercise.Exercise, complete map[string][]byte, answer string) (*gotest.Result, error) {
	run := c.testRun(e, complete)
	run.Pattern = "^" + regexp.QuoteMeta(e.Prediction.Test) + "$"
	run.Env = []string{envPrediction + "=" + answer}
	if e.Prediction.Of == exercise.PredictLogs {
		run.Timeout = logsTimeout
	}
	result, err := gotest.Execute(ctx, run)
	if err != nil {
		return nil, err
	}
	if result.BuildFailed {
		return nil, fmt.Errorf("the test of %s does not build:\n%s", e.ID, describeFailure(result))
	}
	return result, nil
}

// comparedWith is what check says a prediction is compared with, and
// what the walkthrough explains.
func comparedWith(p *exercise.Prediction) (what, why string) {
	if p.Of == exercise.PredictLogs {
		return "where the lines are in the logs", "Why each line is where it is, or nowhere"
	}
	if p.Of == exercise.PredictRun {
		return "what the run did", "Why the run did what it did"
	}
	return "what the graphs are", "Why each count and each chain is what it is"
}

// checkPredictionByTest compares the learner's answers with the graphs or
// the logs, by the exercise's test.
func (c *course) checkPredictionByTest(ctx context.Context, e *exercise.Exercise, out io.Writer) (bool, error) {
	if err := c.ensureAnswer(e); err != nil {
		return false, err
	}
	complete, err := c.referenceOverlay()
	if err != nil {
		return false, err
	}
	result, err := c.runPredictionTest(ctx, e, complete, c.path(answerFile(e)))
	if err != nil {
		return false, err
	}
	what, why := comparedWith(e.Prediction)
	if result.Passed {
		fmt.Fprintf(out, "✓ %s: your prediction is %s.\n", e.ID, what)
		fmt.Fprintf(out, "\n%s: go run ./tools/learn solution %s\n", why, e.ID)
		return true, c.markDone(e)
	}
	if result.NoTests { // skipped: the scenario cannot run here
		fmt.Fprintf(out, "✗ %s: the check could not run:\n%s", e.ID, indent(strings.Join(skipReasons(result), "\n"), "  "))
		return false, nil
	}
	fmt.Fprintf(out, "✗ %s: not %s.\n\n", e.ID, what)
	fmt.Fprint(out, indent(describeFailure(result), "  "))
	fmt.Fprintf(out, "\nCorrect these lines in %s and check again.\n", answerFile(e))
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nThe task: %s/README.md · more hints: go run ./tools/learn hint %s\n", e.Dir, e.ID)
	return false, nil
}

// skipReasons returns what the skipped tests of a run said, the reason
// of each skip.
func skipReasons(r *gotest.Result) []string {
	var said []string
	for _, t := range r.Tests {
		if t.Action == "skip" {
			said = append(said, testOwnWords(t.Output)...)
		}
	}
	return said
}

// verifyPredictionByTest proves a prediction its test compares honest:
// the reference passes the test, and the template and every wrong answer
// people write (exercise.WrongFile) fail it, each, if it names one, with
// the message of its mistake. Where the test skips (a scenario that needs
// a ZooKeeper server where none is installed) there is nothing to prove,
// and verify says so.
func (c *course) verifyPredictionByTest(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (string, error) {
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
	run := func(name string, answer []byte) (*gotest.Result, error) {
		path := filepath.Join(dir, name+".txt")
		if err := os.WriteFile(path, answer, 0o644); err != nil {
			return nil, err
		}
		result, err := c.runPredictionTest(ctx, e, complete, path)
		if err != nil {
			return nil, err
		}
		if !result.Passed && result.Crashed {
			return nil, fmt.Errorf("the test crashed on %s:\n%s", name, describeFailure(result))
		}
		return result, nil
	}
	result, err := run("reference", reference)
	switch {
	case err == nil && result.NoTests:
		return fmt.Sprintf("not proved here: %s skips: %s", e.Prediction.Test, strings.Join(skipReasons(result), " ")), nil
	case err != nil || !result.Passed:
		return "", fmt.Errorf("the reference solutions/%s/reference.txt does not pass %s (%v)", e.ID, e.Prediction.Test, err)
	}
	if result, err := run("template", template); err != nil || result.Passed {
		return "", fmt.Errorf("the template %s passes %s, or crashes it (%v)", templateFile(e), e.Prediction.Test, err)
	}
	for i, w := range wrong {
		answer, err := applyEdits(string(reference), w.Edits)
		if err != nil {
			return "", fmt.Errorf("wrong answer %q (%s): %w", w.Name, exercise.WrongFile(e.ID), err)
		}
		result, err := run(fmt.Sprintf("wrong-%d", i), []byte(answer))
		switch {
		case err != nil:
			return "", fmt.Errorf("wrong answer %q: %w", w.Name, err)
		case result.Passed:
			return "", fmt.Errorf("wrong answer %q passes %s", w.Name, e.Prediction.Test)
		case !strings.Contains(strings.Join(result.Output, "\n"), w.Message):
			return "", fmt.Errorf("wrong answer %q is refused, but not with %q:\n%s", w.Name, w.Message, describeFailure(result))
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
