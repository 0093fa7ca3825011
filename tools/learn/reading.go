package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"flinklab/tools/learn/callgraph"
	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/runpath"
)

// checkReading checks a reading exercise's answer: each hop of the chain
// must be a call in the program's static call graph, and the program,
// running the exercise's scenario, must really have gone that way.
func (c *course) checkReading(ctx context.Context, e *exercise.Exercise, out io.Writer) (bool, error) {
	data, err := c.readAnswer(e)
	if err != nil {
		return false, err
	}
	g, run, err := c.readingEvidence(ctx, e)
	if err != nil {
		return false, err
	}
	if judgeChain(g, run, e, callgraph.ParseAnswer(data), out) {
		return true, c.markDone(e)
	}
	return false, nil
}

// judgeChain prints the verdict on a chain, hop by hop, and the first
// hint when it fails, and reports whether it passes. Everything `learn
// check` says about a chain comes from here, and so does everything
// verify's blind reader reads.
func judgeChain(g *callgraph.Graph, run *callgraph.Run, e *exercise.Exercise, chain []string, out io.Writer) bool {
	result := g.Check(chain, e.Reading.From, e.Reading.To, run)
	for _, hop := range result.Hops {
		mark := "✓"
		switch {
		case !hop.Judged:
			mark = "·"
		case !hop.OK:
			mark = "✗"
		}
		via := ""
		if len(hop.Via) > 0 {
			via = "  (through " + strings.Join(hop.Via, ", ") + ")"
		}
		fmt.Fprintf(out, "  %s %s → %s%s\n", mark, hop.From, hop.To, via)
	}
	if result.OK {
		fmt.Fprintf(out, "✓ %s: your chain is the way the program went, from %s to %s.\n", e.ID, e.Reading.From, e.Reading.To)
		return true
	}
	fmt.Fprintf(out, "✗ %s: %s\n", e.ID, result.Problem)
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nYour answer: %s · more hints: go run ./tools/learn hint %s\n", answerFile(e), e.ID)
	return false
}

// readingEvidence loads the call graph of the complete runtime and runs
// the exercise's scenario on it, at the same time: the graph names the
// functions and knows the calls in the code, the scenario's recording
// says which of them the program really made.
func (c *course) readingEvidence(ctx context.Context, e *exercise.Exercise) (*callgraph.Graph, *callgraph.Run, error) {
	var paths []runpath.Path
	var runErr error
	var wg sync.WaitGroup
	wg.Go(func() { paths, runErr = c.recordedPaths(ctx, e) })
	g, err := c.callGraph()
	wg.Wait()
	if err != nil {
		return nil, nil, fmt.Errorf("building the call graph: %w", err)
	}
	if runErr != nil {
		return nil, nil, runErr
	}
	return g, g.NewRun(paths), nil
}

// recordedPaths runs the scenario of a reading exercise on the complete
// runtime (see referenceOverlay) and reads the ways it took from the
// exercise's first function to its last. go test keeps the outcome of a
// passing run, so the scenario runs once per change of the runtime.
func (c *course) recordedPaths(ctx context.Context, e *exercise.Exercise) ([]runpath.Path, error) {
	complete, err := c.referenceOverlay()
	if err != nil {
		return nil, err
	}
	run := c.testRun(e, complete)
	run.Pattern = "^" + regexp.QuoteMeta(e.Reading.Scenario) + "$"
	result, err := gotest.Execute(ctx, run)
	if err != nil {
		return nil, err
	}
	if !result.Passed {
		return nil, fmt.Errorf("the scenario of %s, %s, does not run to the end:\n%s", e.ID, e.Reading.Scenario, describeFailure(result))
	}
	paths, err := runpath.ParseTestOutput(strings.NewReader(strings.Join(result.Output, "\n")))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("the scenario of %s, %s, recorded no way from %s to %s", e.ID, e.Reading.Scenario, e.Reading.From, e.Reading.To)
	}
	return paths, nil
}

// verifyReading proves a reading exercise honest: the reference chain
// passes, and fails with any one step left out and when reversed; the
// answer template, which holds just the first and the last name, does not
// pass; every other way from the first name to the last that the call
// graph has fails, since the run did not take it; the wrong answers of
// solutions/ID/wrong.txt fail; and a reader who follows only the
// checker's words, never the code, does not reach green.
func (c *course) verifyReading(ctx context.Context, e *exercise.Exercise) (string, error) {
	reference, err := c.read("solutions/" + e.ID + "/reference.txt")
	if err != nil {
		return "", err
	}
	g, run, err := c.readingEvidence(ctx, e)
	if err != nil {
		return "", err
	}
	from, to := e.Reading.From, e.Reading.To
	chain := callgraph.ParseAnswer(reference)
	if err := g.VerifyReference(chain, from, to, run); err != nil {
		return "", err
	}
	if g.Check([]string{from, to}, from, to, run).OK {
		return "", fmt.Errorf("the answer template, %s then %s, passes: the chain has nothing to find", from, to)
	}
	details, err := c.details(e)
	if err != nil {
		return "", err
	}
	ways, err := g.VerifyOnlyTakenWays(chain, details, from, to, run)
	if err != nil {
		return "", err
	}
	wrong, err := c.wrongAnswers(e)
	if err != nil {
		return "", err
	}
	for _, w := range wrong {
		if r := g.Check(w.chain, from, to, run); r.OK {
			return "", fmt.Errorf("the wrong answer %q passes", w.name)
		}
	}
	if err := c.verifyNoAnswerGivenAway(g, run, e, chain); err != nil {
		return "", err
	}
	return fmt.Sprintf("the reference is the way the run took: %s; any one call left out, the chain reversed, "+
		"the template and %d wrong answers fail; a reader of the checker's words alone is stuck", ways, len(wrong)), nil
}

// verifyNoAnswerGivenAway proves that the checker's words give no answer
// away. A reader who does only what the words say, never opening the
// code, does not reach green: not from the template, not from any part of
// the reference, not from the reference with one name missing. And the
// words about those chains, and about the reference with one name
// misspelled, name no function the chain does not hold (but for the
// spellings of a misspelled name).
func (c *course) verifyNoAnswerGivenAway(g *callgraph.Graph, run *callgraph.Run, e *exercise.Exercise, reference []string) error {
	from, to := e.Reading.From, e.Reading.To
	var givenAway error // the first time the words name what the chain lacks
	judge := func(chain []string) (bool, string) {
		var words strings.Builder
		ok := judgeChain(g, run, e, chain, &words)
		if given := g.NamesGivenAway(words.String(), chain, from, to); len(given) > 0 && givenAway == nil {
			givenAway = fmt.Errorf("the checker's words about %q name %s, which the chain lacks:\n%s",
				chain, strings.Join(given, ", "), words.String())
		}
		return ok, words.String()
	}
	starts := [][]string{{from, to}}
	for k := 1; k < len(reference)-2; k++ {
		starts = append(starts, append(slices.Clone(reference[:k]), to))
	}
	for i := 1; i < len(reference)-1; i++ {
		starts = append(starts, slices.Delete(slices.Clone(reference), i, i+1))
	}
	for _, start := range starts {
		if checks, green := callgraph.FollowTheWords(judge, g.Known, start, 100); green {
			return fmt.Errorf("a reader who follows only the checker's words, never the code, reaches green from %q in %d checks", start, checks)
		}
	}
	for i := 1; i < len(reference)-1; i++ {
		misspelled := slices.Clone(reference)
		misspelled[i] = misspelled[i][:len(misspelled[i])-1]
		judge(misspelled)
	}
	return givenAway
}

// namedChain is a chain kept next to a reading exercise's solution, under
// a name: a wrong answer a learner really writes (wrong.txt), or a detail
// a right answer may name (details.txt).
type namedChain struct {
	name  string
	chain []string
}

// details reads solutions/ID/details.txt, if there is one: stretches of
// the run's way that a right answer may name or leave out, each under a
// line "## after NAME".
func (c *course) details(e *exercise.Exercise) ([]callgraph.Detail, error) {
	named, err := c.namedChains(e, "details.txt")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var details []callgraph.Detail
	for _, n := range named {
		after, ok := strings.CutPrefix(n.name, "after ")
		if !ok {
			return nil, fmt.Errorf("solutions/%s/details.txt: %q: write \"## after NAME\" above each detail", e.ID, n.name)
		}
		details = append(details, callgraph.Detail{After: strings.TrimSpace(after), Names: n.chain})
	}
	return details, nil
}

// wrongAnswers reads solutions/ID/wrong.txt: chains a learner really
// writes, each under a "## name" line, that must fail.
func (c *course) wrongAnswers(e *exercise.Exercise) ([]namedChain, error) {
	return c.namedChains(e, "wrong.txt")
}

// namedChains reads a file of named chains from the exercise's solution
// folder: each chain under a line "## its name", one function per line.
func (c *course) namedChains(e *exercise.Exercise, file string) ([]namedChain, error) {
	path := "solutions/" + e.ID + "/" + file
	data, err := c.read(path)
	if err != nil {
		return nil, err
	}
	var all []namedChain
	var body []string
	flush := func() {
		if len(all) > 0 {
			all[len(all)-1].chain = callgraph.ParseAnswer([]byte(strings.Join(body, "\n")))
		}
		body = nil
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			all = append(all, namedChain{name: strings.TrimSpace(name)})
			continue
		}
		body = append(body, line)
	}
	flush()
	for _, w := range all {
		if len(w.chain) == 0 {
			return nil, fmt.Errorf("%s: %q has no chain under it", path, w.name)
		}
	}
	if len(all) == 0 {
		return nil, errors.New(path + " holds no chain")
	}
	return all, nil
}
