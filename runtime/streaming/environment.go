package streaming

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// DefaultParallelism is the parallelism of operators when neither the
// program nor the runner sets one (Flink's parallelism.default).
const DefaultParallelism = 1

// DefaultJobName is the job's name when Execute is given none and the job
// runs in STREAMING mode (Flink's StreamGraphGenerator.DEFAULT_STREAMING_JOB_NAME).
const DefaultJobName = "Flink Streaming Job"

// DefaultBatchJobName is the job's name when Execute is given none and the
// job runs in BATCH mode (Flink's StreamGraphGenerator.DEFAULT_BATCH_JOB_NAME).
const DefaultBatchJobName = "Flink Batch Job"

// DefaultSlotSharingGroup is the slot sharing group of every operator that
// sets none and has no input to inherit one from.
const DefaultSlotSharingGroup = "default"

// ErrNoExecutor is returned by Execute on an environment nobody gave a
// PipelineExecutor (Flink: "No ExecutorFactory found to execute the
// application.").
var ErrNoExecutor = errors.New("No ExecutorFactory found to execute the application.")

// StreamExecutionEnvironment is where a streaming program starts: it
// creates sources, collects the transformations the program builds on
// them, and on Execute turns them into a StreamGraph and hands it to a
// PipelineExecutor. It mirrors Flink's
// org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.
//
// A program uses one environment from one goroutine: it is a builder, not
// safe for concurrent use. Mistakes in the program (a parallelism of 0, a
// nil function, an empty collection) do not panic: the first one is kept
// and returned by GetStreamGraph and Execute, with the operator it
// concerns, so a bad program fails where Flink's would, at submission.
type StreamExecutionEnvironment struct {
	parallelism       int // 0: not set, DefaultParallelism applies
	maxParallelism    int // 0: not set, jobgraph.DefaultMaxParallelism applies
	chainingEnabled   bool
	runtimeMode       RuntimeExecutionMode        // execution.runtime-mode, STREAMING unless set
	slotSharingGroups map[string]SlotSharingGroup // registered, with resources

	// transformations are all the program created, in the order of their IDs.
	transformations []*transformation
	// lastTransformationID is the ID the last transformation got. IDs are
	// never reused, even after Execute clears the transformations.
	lastTransformationID int

	// err is the first mistake the program made while building the graph.
	err error

	program  programInvocation
	executor PipelineExecutor
}

// programInvocation is how the program runner started the program: what a
// TaskExecutor needs to run it again and rebuild the same StreamGraph.
type programInvocation struct {
	name        string
	args        []string
	parallelism int                  // the runner's default parallelism, 0 if none
	runtimeMode RuntimeExecutionMode // the runner's execution.runtime-mode, STREAMING if none
}

// NewStreamExecutionEnvironment returns an environment with Flink's
// defaults: parallelism 1, max parallelism derived from the parallelism
// (128 for up to 85 subtasks), operator chaining enabled, the STREAMING
// runtime mode, and no executor.
// Program runners give it an executor with SetExecutor, or use
// PlanProgram.
func NewStreamExecutionEnvironment() *StreamExecutionEnvironment {
	return &StreamExecutionEnvironment{chainingEnabled: true}
}

// SetParallelism sets the parallelism of every operator that sets none.
// It must be at least 1.
func (env *StreamExecutionEnvironment) SetParallelism(parallelism int) *StreamExecutionEnvironment {
	if parallelism < 1 {
		env.fail(fmt.Errorf("Parallelism must be at least one, found %d.", parallelism))
		return env
	}
	env.parallelism = parallelism
	return env
}

// GetParallelism returns the default parallelism of the operators.
func (env *StreamExecutionEnvironment) GetParallelism() int {
	if env.parallelism == 0 {
		return DefaultParallelism
	}
	return env.parallelism
}

// SetMaxParallelism sets the max parallelism of every operator: the number
// of key groups keyed state is split into, and so the upper bound for
// rescaling. It must be between 1 and 32768. When it is not set, each
// operator gets jobgraph.DefaultMaxParallelism(its parallelism), which is
// 128 for every parallelism up to 85.
func (env *StreamExecutionEnvironment) SetMaxParallelism(maxParallelism int) *StreamExecutionEnvironment {
	if maxParallelism < 1 || maxParallelism > jobgraph.UpperBoundMaxParallelism {
		env.fail(fmt.Errorf("maxParallelism is out of bounds 0 < maxParallelism <= %d. Found: %d",
			jobgraph.UpperBoundMaxParallelism, maxParallelism))
		return env
	}
	env.maxParallelism = maxParallelism
	return env
}

// GetMaxParallelism returns the max parallelism set with
// SetMaxParallelism, or 0 when each operator derives its own.
func (env *StreamExecutionEnvironment) GetMaxParallelism() int { return env.maxParallelism }

// DisableOperatorChaining turns chaining off for the whole job: every
// operator becomes a task of its own. Useful to see each operator in the
// plan, costly in production.
func (env *StreamExecutionEnvironment) DisableOperatorChaining() *StreamExecutionEnvironment {
	env.chainingEnabled = false
	return env
}

// IsChainingEnabled reports whether operator chaining is on.
func (env *StreamExecutionEnvironment) IsChainingEnabled() bool { return env.chainingEnabled }

// SetRuntimeMode sets execution.runtime-mode for the job: Streaming (the
// default), Batch or Automatic. It mirrors Flink's
// StreamExecutionEnvironment#setRuntimeMode. The mode is resolved when the
// StreamGraph is built: Automatic becomes Batch when every source is
// bounded, and Batch with a source that never ends fails with
// ErrUnboundedSourceInBatch. See the package doc's "Runtime modes".
func (env *StreamExecutionEnvironment) SetRuntimeMode(mode RuntimeExecutionMode) *StreamExecutionEnvironment {
	if !mode.isKnown() {
		env.fail(fmt.Errorf("Unknown runtime execution mode %v: want STREAMING, BATCH or AUTOMATIC", mode))
		return env
	}
	env.runtimeMode = mode
	return env
}

// SetProgram records which registered program this environment runs and
// with which arguments, together with the environment's parallelism and
// runtime mode at this moment (the runner's choices: 0 if it chose no
// parallelism, STREAMING if it chose no mode). The StreamGraph carries
// them into every JobVertex's configuration, so that a TaskExecutor can run
// the same program again, in the same mode (see PlanProgramInRuntimeMode).
// Runners call it after SetParallelism and SetRuntimeMode and before the
// program's main.
func (env *StreamExecutionEnvironment) SetProgram(name string, args []string) {
	env.program = programInvocation{
		name:        name,
		args:        slices.Clone(args),
		parallelism: env.parallelism,
		runtimeMode: env.runtimeMode,
	}
}

// SetExecutor sets what Execute hands the StreamGraph to (Flink picks a
// PipelineExecutor from the execution.target option).
func (env *StreamExecutionEnvironment) SetExecutor(executor PipelineExecutor) {
	env.executor = executor
}

// PipelineExecutor runs a StreamGraph somewhere: in a MiniCluster, on a
// remote cluster, or nowhere at all while a program is only being planned.
// It mirrors Flink's org.apache.flink.core.execution.PipelineExecutor.
type PipelineExecutor interface {
	Execute(ctx context.Context, streamGraph *StreamGraph) (JobClient, error)
}

// JobClient follows one submitted job. It mirrors Flink's
// org.apache.flink.core.execution.JobClient.
type JobClient interface {
	// JobID returns the ID of the submitted job.
	JobID() api.JobID
	// GetJobExecutionResult waits until the job reached a terminal state
	// (or ctx is done) and returns its result.
	GetJobExecutionResult(ctx context.Context) (*api.JobResult, error)
}

// Execute builds the StreamGraph of everything the program defined, runs
// it with the environment's executor and waits until the job ends. It
// returns an error when the program is invalid, the submission fails, or
// the job does not reach FINISHED. Under PlanProgram it returns
// ErrProgramAbort right after recording the graph.
func (env *StreamExecutionEnvironment) Execute(jobName string) error {
	client, err := env.ExecuteAsync(jobName)
	if err != nil {
		return err
	}
	result, err := client.GetJobExecutionResult(context.Background())
	if err != nil {
		return err
	}
	if result.JobStatus != api.JobFinished {
		return fmt.Errorf("Job execution failed: job %s ended %s: %s", result.JobID, result.JobStatus, result.FailureCause)
	}
	return nil
}

// ExecuteAsync builds the StreamGraph and submits it, without waiting for
// the job to end. As in Flink, the transformations are cleared afterwards,
// so a second Execute runs only what the program defines after this one.
func (env *StreamExecutionEnvironment) ExecuteAsync(jobName string) (JobClient, error) {
	streamGraph, err := env.GetStreamGraph(jobName)
	if err != nil {
		return nil, err
	}
	if env.executor == nil {
		return nil, ErrNoExecutor
	}
	env.transformations = nil
	return env.executor.Execute(context.Background(), streamGraph)
}

// GetStreamGraph builds the StreamGraph of everything the program defined
// so far. It changes nothing, so it may be called more than once and
// yields equal graphs (Flink's getStreamGraph(false)). An empty jobName
// means DefaultJobName.
func (env *StreamExecutionEnvironment) GetStreamGraph(jobName string) (*StreamGraph, error) {
	if env.err != nil {
		return nil, env.err
	}
	return generateStreamGraph(env, jobName)
}

// addTransformation gives t the next ID and records it.
func (env *StreamExecutionEnvironment) addTransformation(t *transformation) *transformation {
	env.lastTransformationID++
	t.id = env.lastTransformationID
	env.transformations = append(env.transformations, t)
	return t
}

// fail records the program's first mistake; later ones are dropped, as the
// first usually causes the rest.
func (env *StreamExecutionEnvironment) fail(err error) {
	if env.err == nil {
		env.err = err
	}
}
