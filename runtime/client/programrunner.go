package client

import (
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
func (StreamingProgramRunner) JobGraph(program *PackagedProgram, entryClass string, args []string, parallelism int) (*jobgraph.JobGraph, error) {
	name := entryClass
	if name == "" {
		name = program.ProgramClass()
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
