package streaming

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ProgramMain is the main function of a streaming program: it builds the
// dataflow on env and calls env.Execute, as a Flink program's
// `public static void main(String[] args)` does with
// StreamExecutionEnvironment.getExecutionEnvironment().
type ProgramMain func(env *StreamExecutionEnvironment, args []string) error

// ErrClassNotFound is wrapped by LookupProgram and PlanProgram when no
// program is registered under a name; the message reads like Java's
// "ClassNotFoundException: <name>", which Flink reports for an unknown
// entry class.
var ErrClassNotFound = errors.New("ClassNotFoundException")

// ErrProgramAbort is what Execute returns while a program is planned
// (PlanProgram): the StreamGraph is recorded and nothing runs. It mirrors
// Flink's ProgramAbortException, which the plan environment throws to stop
// the user's main. A main that returns it (wrapped or not) has done
// everything right.
var ErrProgramAbort = errors.New("ProgramAbortException: the program is being planned, not executed")

// ErrMissingJob is returned by PlanProgram when main returned without ever
// calling Execute (Flink's message).
var ErrMissingJob = errors.New("The program didn't contain a Flink job. Perhaps you forgot to call execute() on the execution environment.")

// programs is the registry of streaming programs: the stand-in for the
// classes of a job jar.
var programs = struct {
	sync.RWMutex
	mains map[string]ProgramMain
}{mains: make(map[string]ProgramMain)}

// RegisterProgram makes a program known under name, the name a job jar's
// manifest gives as its Program-Class. Like database/sql.Register it is
// meant for init functions, and panics if the name is taken, empty, or main
// is nil.
func RegisterProgram(name string, main ProgramMain) {
	if name == "" || main == nil {
		panic("streaming: RegisterProgram needs a name and a main function")
	}
	programs.Lock()
	defer programs.Unlock()
	if _, dup := programs.mains[name]; dup {
		panic("streaming: RegisterProgram called twice for " + name)
	}
	programs.mains[name] = main
}

// LookupProgram returns the main function registered under name, or an
// error wrapping ErrClassNotFound ("ClassNotFoundException: <name>").
func LookupProgram(name string) (ProgramMain, error) {
	programs.RLock()
	defer programs.RUnlock()
	main, ok := programs.mains[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrClassNotFound, name)
	}
	return main, nil
}

// RegisteredPrograms returns the names of the registered programs, sorted.
func RegisteredPrograms() []string {
	programs.RLock()
	defer programs.RUnlock()
	names := make([]string, 0, len(programs.mains))
	for name := range programs.mains {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// PlanProgram runs a registered program's main without executing it and
// returns the StreamGraph its Execute would have run. It mirrors Flink's
// StreamPlanEnvironment (used by PackagedProgramUtils.getPipelineFromProgram):
// Execute records the graph and stops the program with ErrProgramAbort.
//
// The environment gets parallelism as its default parallelism (when > 0)
// and remembers name, args and parallelism (SetProgram), so the graph and
// every JobVertex made from it say how to plan the program again.
//
// It is used twice for every job: by the client (or the REST jar-run
// handler) to build the JobGraph, and by each TaskExecutor to find the
// functions of its task by node ID. Both get the same node IDs, because IDs
// follow the order in which the program creates its transformations, and
// a program's main must therefore build the same dataflow on every run
// (no randomness or clock reads in what it builds).
//
// Errors: an unknown name (ErrClassNotFound), a main that fails or panics
// before Execute ("The main method caused an error: …", which includes the
// program's own mistakes such as a parallelism of 0), and a main that never
// calls Execute (ErrMissingJob).
//
// The program starts in the STREAMING runtime mode; its main may choose
// another (SetRuntimeMode). PlanProgramInRuntimeMode starts it in the
// runner's mode.
func PlanProgram(name string, args []string, parallelism int) (*StreamGraph, error) {
	return PlanProgramInRuntimeMode(name, args, parallelism, Streaming)
}

// PlanProgramInRuntimeMode is PlanProgram for a runner that sets
// execution.runtime-mode: the environment starts in mode, as Flink's plan
// environment starts with the runner's configuration, and the program's
// main may still choose another mode with SetRuntimeMode, which wins.
//
// The mode is remembered with the program (SetProgram), so every
// JobVertex carries it (StreamConfig.ProgramRuntimeMode) and each
// TaskExecutor plans the program again in the same mode. Without it a task
// would rebuild a STREAMING graph, whose keyed reduce emits running
// results, for a job whose edges were made BLOCKING.
func PlanProgramInRuntimeMode(name string, args []string, parallelism int, mode RuntimeExecutionMode) (*StreamGraph, error) {
	main, err := LookupProgram(name)
	if err != nil {
		return nil, err
	}
	env := NewStreamExecutionEnvironment()
	if parallelism > 0 {
		env.SetParallelism(parallelism)
	}
	env.SetRuntimeMode(mode)
	env.SetProgram(name, args)
	plan := &planExecutor{}
	env.SetExecutor(plan)

	err = callMain(main, env, slices.Clone(args))
	switch {
	case err != nil && !errors.Is(err, ErrProgramAbort):
		return nil, fmt.Errorf("The main method caused an error: %w", err)
	case plan.streamGraph == nil:
		return nil, ErrMissingJob
	default:
		return plan.streamGraph, nil
	}
}

// callMain runs the user's main, turning a panic into an error: user code
// must not take down the JobManager or TaskExecutor that plans it.
func callMain(main ProgramMain, env *StreamExecutionEnvironment, args []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return main(env, args)
}

// planExecutor is the PipelineExecutor of a planned program: it keeps the
// first StreamGraph and aborts the program.
type planExecutor struct {
	streamGraph *StreamGraph
}

func (p *planExecutor) Execute(_ context.Context, streamGraph *StreamGraph) (JobClient, error) {
	if p.streamGraph == nil {
		p.streamGraph = streamGraph
	}
	return nil, ErrProgramAbort
}
