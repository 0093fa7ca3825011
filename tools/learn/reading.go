package main

import (
	"fmt"
	"io"
	"strings"

	"flinklab/tools/learn/callgraph"
	"flinklab/tools/learn/exercise"
)

// checkReading checks a reading exercise's answer: each hop of the chain
// must be a call in the program's static call graph, from where the
// exercise starts to where it ends.
func (c *course) checkReading(e *exercise.Exercise, out io.Writer) (bool, error) {
	answer := answerFile(e)
	data, err := c.readAnswer(e)
	if err != nil {
		return false, err
	}
	chain := callgraph.ParseAnswer(data)
	g, err := c.callGraph()
	if err != nil {
		return false, fmt.Errorf("building the call graph: %w", err)
	}
	result := g.Check(chain, e.Reading.From, e.Reading.To)
	for _, hop := range result.Hops {
		mark := "✓"
		if !hop.OK {
			mark = "✗"
		}
		via := ""
		if len(hop.Via) > 0 {
			via = "  (through " + strings.Join(hop.Via, ", ") + ")"
		}
		fmt.Fprintf(out, "  %s %s → %s%s\n", mark, hop.From, hop.To, via)
	}
	if result.OK {
		fmt.Fprintf(out, "✓ %s: every call of your chain is in the program, from %s to %s.\n", e.ID, e.Reading.From, e.Reading.To)
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: %s\n", e.ID, result.Problem)
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nYour answer: %s · more hints: go run ./tools/learn hint %s\n", answer, e.ID)
	return false, nil
}

// verifyReading proves a reading exercise honest: the reference chain
// passes, and fails with any one step left out and when reversed; the
// answer template, which holds just the first and the last name, does not
// pass.
func (c *course) verifyReading(e *exercise.Exercise) (string, error) {
	reference, err := c.read("solutions/" + e.ID + "/reference.txt")
	if err != nil {
		return "", err
	}
	g, err := c.callGraph()
	if err != nil {
		return "", err
	}
	chain := callgraph.ParseAnswer(reference)
	if err := g.VerifyReference(chain, e.Reading.From, e.Reading.To); err != nil {
		return "", err
	}
	if g.Check([]string{e.Reading.From, e.Reading.To}, e.Reading.From, e.Reading.To).OK {
		return "", fmt.Errorf("the answer template, %s then %s, passes: the chain has nothing to find", e.Reading.From, e.Reading.To)
	}
	return fmt.Sprintf("the reference's %d calls are in the call graph; any one left out, the chain reversed, or the template fails", len(chain)-1), nil
}
