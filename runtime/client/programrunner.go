package client

import (
	"fmt"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// StreamingProgramRunner turns a job jar into a JobGraph by planning the
// streaming program the jar names (Flink's
// PackagedProgramUtils.createJobGraph: run the program's main in a plan
// environment, catch the StreamGraph its execute() would have submitted,
// translate it). The REST endpoint's jar-run handler and the command line
// client use it.
type StreamingProgramRunner struct{}

// JobGraph plans the program named by entryClass, or by the jar's
// Program-Class when entryClass is empty, with the given arguments and
// default parallelism (ParallelismDefault: the program's own choice).
//
// Differs from Flink: an entryClass other than the jar's Program-Class is
// refused. A Flink jar may hold many classes with a main method; a job jar
// here names one program, and the TaskExecutors resolve the program the
// jar's manifest names, so any other would fail on them.
func (StreamingProgramRunner) JobGraph(program *PackagedProgram, entryClass string, args []string, parallelism int) (*jobgraph.JobGraph, error) {
	name := program.ProgramClass()
	if entryClass != "" && entryClass != name {
		return nil, fmt.Errorf("%w: %s (the jar's Program-Class is %s)", streaming.ErrClassNotFound, entryClass, name)
	}
	if parallelism == ParallelismDefault {
		parallelism = 0
	}
	graph, err := streaming.PlanProgram(name, args, parallelism)
	if err != nil {
		return nil, err
	}
	return graph.JobGraph()
}
