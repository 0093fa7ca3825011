package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"flinklab/runtime/trace"
	"flinklab/tools/graphs/diagrams"
)

// maxCheckpointSubtasks is the most subtasks -checkpoint draws one by one.
const maxCheckpointSubtasks = 64

// checkpointOptions are the flags -checkpoint reads.
type checkpointOptions struct {
	address, jobID string
	parallelism    int
	outDir, format string
}

// drawCheckpoint runs a program with checkpoints, or asks a running
// cluster (-m, -job), prints the checkpoint's steps with their times since
// the trigger, and draws it on the ExecutionGraph and as a sequence.
// Without a program it runs the ticker as diagrams/ does.
func drawCheckpoint(ctx context.Context, o checkpointOptions) error {
	if isSet("inject") || isSet("explain") {
		return fmt.Errorf("%w: -checkpoint takes no -inject or -explain", errUsage)
	}
	var run *diagrams.CheckpointRun
	var err error
	if o.address != "" || o.jobID != "" {
		if o.address == "" || o.jobID == "" || flag.NArg() > 0 || isSet("p") {
			return fmt.Errorf("%w: -checkpoint of a running job needs -m HOST:PORT and -job JOBID, and takes no program or -p", errUsage)
		}
		run, err = diagrams.DrawCheckpoint(ctx, o.address, o.jobID)
	} else {
		run, err = runCheckpoint(ctx, o.parallelism)
	}
	if err != nil {
		return err
	}
	c := run.Checkpoint
	if n := len(c.Tasks); n > maxCheckpointSubtasks {
		return fmt.Errorf("%s has %d subtasks, more than the %d -checkpoint draws one by one", c.Job.Name, n, maxCheckpointSubtasks)
	}
	fmt.Printf("%s: completed checkpoints %v; checkpoint %d, its steps since the trigger (k1):\n", c.Job.Name, run.Completed, c.ID)
	trace.Print(os.Stdout, c.Events, c.Events[0].Time)
	fmt.Println()
	return write(o.outDir, o.format, run.Files())
}

// runCheckpoint plans the program of the command line, or the ticker of
// diagrams/ when there is none, and runs it until its
// diagrams.CheckpointDrawn-th checkpoint is complete.
func runCheckpoint(ctx context.Context, parallelism int) (*diagrams.CheckpointRun, error) {
	program, args := diagrams.CheckpointProgram, diagrams.CheckpointArgs
	if flag.NArg() > 0 {
		program, args = flag.Arg(0), flag.Args()[1:]
	} else if parallelism == 0 {
		parallelism = diagrams.CheckpointParallelism
	}
	plan, err := diagrams.PlanProgram(program, args, parallelism)
	if err != nil {
		return nil, err
	}
	return plan.RunCheckpoint(ctx, diagrams.CheckpointDrawn)
}
