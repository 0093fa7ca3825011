package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"flinklab/tools/graphs/diagrams"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/explain"
)

// maxDrawnSubtasks is the most subtasks -regions draws one by one; a
// larger job is printed with -explain.
const maxDrawnSubtasks = 64

// regionsOptions are the flags -regions reads.
type regionsOptions struct {
	address, jobID string
	parallelism    int
	explain        bool
	inject         string
	outDir, format string
	failed         string
}

// drawRegions draws, or with -explain prints, the pipelined regions of a
// program, jar or JobGraph file and, with -fail, what region failover
// restarts; the restart set is printed also when it is drawn.
func drawRegions(o regionsOptions) error {
	switch {
	case o.format == "mermaid":
		return errors.New("-regions draws DOT and SVG only: use -format svg or dot")
	case o.inject != "":
		return fmt.Errorf("%w: -regions runs nothing, so there is nothing to -inject into", errUsage)
	case o.address != "" || o.jobID != "":
		return fmt.Errorf("%w: -regions plans a program, a jar or a JobGraph file; it does not ask a cluster (-m, -job)", errUsage)
	case flag.NArg() == 0:
		return fmt.Errorf("%w: -regions needs a PROGRAM, JAR or JOBGRAPH.json", errUsage)
	}
	name, job, err := diagrams.PlanRegions(flag.Arg(0), flag.Args()[1:], o.parallelism, o.failed)
	if err != nil {
		return err
	}
	if o.explain {
		explain.WriteRegions(os.Stdout, job)
		return nil
	}
	if n := job.NumberOfSubtasks(); n > maxDrawnSubtasks {
		return fmt.Errorf("%s has %d subtasks, more than the %d -regions draws one by one: -regions -explain prints its regions", job.Name, n, maxDrawnSubtasks)
	}
	if job.Failed != nil {
		explain.WriteRegions(os.Stdout, job)
		fmt.Println()
	}
	return write(o.outDir, o.format, map[string][]byte{diagrams.RegionsFile(name): dot.Regions(job)})
}
