package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"flinklab/tools/graphs/diagrams"
)

// drawAdaptive runs a job on the AdaptiveScheduler (diagrams.RunAdaptive),
// prints the moves its scheduler made, and draws its states with them.
func drawAdaptive(ctx context.Context, outDir, format string) error {
	if flag.NArg() > 0 || isSet("p") || isSet("m") || isSet("job") || isSet("inject") || isSet("explain") {
		return fmt.Errorf("%w: -adaptive runs a job of its own: no PROGRAM, -p, -m, -job, -inject or -explain", errUsage)
	}
	run, err := diagrams.RunAdaptive(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%s, moves of the AdaptiveScheduler:\n", run.JobName)
	for i, t := range run.Transitions {
		fmt.Printf("  %d. %s → %s  (+%s)\n", i+1, t.From, t.To, t.At.Sub(run.Transitions[0].At).Round(time.Millisecond))
	}
	fmt.Println()
	return write(outDir, format, run.Files())
}
