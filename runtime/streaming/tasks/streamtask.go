package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks/typeutils"
	"flinklab/runtime/taskmanager"
)

// Importing this package makes the streaming invokables loadable, the way
// a jar on the class path makes classes loadable: a TaskExecutor deploying
// a JobVertex made by streaming.CreateJobGraph finds its invokable class.
func init() {
	taskmanager.RegisterInvokable(streaming.SourceStreamTaskClass, NewSourceStreamTask)
	taskmanager.RegisterInvokable(streaming.OneInputStreamTaskClass, NewOneInputStreamTask)
}

// StreamTask is what SourceStreamTask and OneInputStreamTask share: the
// task's environment and its operator chain. It mirrors the base class of
// Flink's org.apache.flink.streaming.runtime.tasks.StreamTask; Restore is
// the same for both but for the input, Invoke differs.
//
// Restore and Invoke run on the task's goroutine, one after the other,
// and everything here belongs to that goroutine.
type StreamTask struct {
	env    *taskmanager.Environment
	logger *slog.Logger
	config *streaming.StreamConfig
	chain  *operatorChain
	// bufferTimeout is how often a task that writes to the network flushes
	// its outputs: DefaultBufferTimeout, or disabledBufferTimeout in BATCH.
	bufferTimeout time.Duration
	// operatorIDs are the OperatorIDs of the chain's operators, in the
	// order of chain.operators: their state's names in checkpoints.
	operatorIDs []api.OperatorID
	// asyncCheckpoints are the goroutines writing snapshots (the
	// asynchronous parts of checkpoints); the task waits for them before
	// it ends.
	asyncCheckpoints sync.WaitGroup
}

// SourceStreamTask runs a chain whose head is a source: Invoke runs the
// source, which pushes its records through the chain, until the source is
// exhausted or the task is cancelled. It mirrors Flink's SourceStreamTask
// (and SourceOperatorStreamTask, which FLIP-27 sources run in).
type SourceStreamTask struct {
	StreamTask
}

// OneInputStreamTask runs a chain whose head reads one input: Invoke takes
// records from the task's input gate, deserializes them and hands each to
// the head, until every producer has finished (io.EOF) or the task is
// cancelled. It mirrors Flink's OneInputStreamTask, whose
// StreamOneInputProcessor reads a StreamTaskNetworkInput. A head that reads
// a union has one gate per stream of the union, read as one
// (network.UnionInputGate), as in Flink.
type OneInputStreamTask struct {
	StreamTask
	input           recordInput
	inputSerializer typeutils.TypeSerializer
}

// recordInput is where a OneInputStreamTask's records come from: an
// InputGate, or the UnionInputGate of several.
type recordInput interface {
	Next(ctx context.Context) ([]byte, error)
}

// NewSourceStreamTask creates the invokable of a source chain; it is the
// factory registered under streaming.SourceStreamTaskClass. Nothing is
// read until Restore.
func NewSourceStreamTask(env *taskmanager.Environment) (taskmanager.Invokable, error) {
	return &SourceStreamTask{StreamTask: newStreamTask(env)}, nil
}

// NewOneInputStreamTask creates the invokable of a chain that reads one
// input; it is the factory registered under
// streaming.OneInputStreamTaskClass. Nothing is read until Restore.
func NewOneInputStreamTask(env *taskmanager.Environment) (taskmanager.Invokable, error) {
	return &OneInputStreamTask{StreamTask: newStreamTask(env)}, nil
}

func newStreamTask(env *taskmanager.Environment) StreamTask {
	logger := env.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return StreamTask{env: env, logger: logger, bufferTimeout: DefaultBufferTimeout}
}

// Restore builds the source chain and opens its operators (INITIALIZING).
func (t *SourceStreamTask) Restore(ctx context.Context) error {
	defer t.closeOperatorsOnPanic()
	if _, err := t.buildChain(ctx, true); err != nil {
		return err
	}
	return t.openOperators(ctx)
}

// Invoke runs the source until it is exhausted, then ends the input:
// flushes the outputs and closes the operators, head first (RUNNING).
// Every bufferTimeout the outputs are flushed, between two records the
// source emits, so that records do not wait long in partly filled buffers.
func (t *SourceStreamTask) Invoke(ctx context.Context) error {
	defer t.closeOperatorsOnPanic()
	t.chain.setContext(ctx)
	if t.needsOutputFlusher() {
		flusher := startOutputFlusher(ctx, t.bufferTimeout, &t.chain.flushRequested)
		defer flusher.stopAndWait()
	}
	if err := t.chain.source.run(ctx); err != nil {
		return t.cleanUpOnFailure(ctx, err)
	}
	return t.endOfInput(ctx)
}

// Restore builds the chain, checks its input and opens its operators
// (INITIALIZING).
func (t *OneInputStreamTask) Restore(ctx context.Context) error {
	defer t.closeOperatorsOnPanic()
	head, err := t.buildChain(ctx, false)
	if err != nil {
		return err
	}
	switch {
	case len(head.InEdges) == 0 || len(head.InEdges) != len(t.env.Inputs):
		return fmt.Errorf("%v has %d inputs, its task %d input gates", head, len(head.InEdges), len(t.env.Inputs))
	case len(t.env.Inputs) == 1:
		t.input = t.env.Inputs[0]
	default: // the streams of a union
		t.input = network.NewUnionInputGate(t.env.Inputs...)
	}
	// Barriers arrive with the records; one handler aligns them over all
	// of the task's gates.
	handler := newCheckpointBarrierHandler(&t.StreamTask, t.env.Inputs)
	for i, gate := range t.env.Inputs {
		gate.SetCheckpointBarrierHandler(i, handler)
	}
	// The records arrive as bytes; the producer serialized them with the
	// serializer of the same type (a union's streams are of one type).
	t.inputSerializer, err = typeutils.CreateSerializer(head.InEdges[0].Source.OutputType)
	if err != nil {
		return fmt.Errorf("the records of %v cannot reach the task: %w", head.InEdges[0], err)
	}
	return t.openOperators(ctx)
}

// Invoke reads the input until every producer has finished, handing each
// record to the chain's head, then ends the input: flushes the outputs and
// closes the operators, head first (RUNNING). Every bufferTimeout the
// outputs are flushed, busy or idle, so that records do not wait long in
// partly filled buffers (see outputFlusher).
func (t *OneInputStreamTask) Invoke(ctx context.Context) error {
	defer t.closeOperatorsOnPanic()
	t.chain.setContext(ctx)
	var flusher *outputFlusher
	if t.needsOutputFlusher() {
		flusher = startOutputFlusher(ctx, t.bufferTimeout, &t.chain.flushRequested)
		defer flusher.stopAndWait()
	}
	// Waits for input end at the flusher's tick, or when a mail arrives.
	newWaitContext := func() context.Context {
		if flusher != nil {
			return t.chain.mailbox.waitContext(flusher.waitContext())
		}
		return t.chain.mailbox.waitContext(ctx)
	}
	waitCtx := newWaitContext()

	for {
		data, err := t.input.Next(waitCtx)
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return t.endOfInput(ctx)
		case ctx.Err() != nil:
			return t.cleanUpOnFailure(ctx, ctx.Err())
		case flusherEndedWait(ctx, err):
			// Idle: the flusher or a mail ended the wait. Run the mails,
			// flush (unless a busy stretch did already), and wait again.
			if err := t.chain.mailbox.runMails(); err != nil {
				return t.cleanUpOnFailure(ctx, err)
			}
			if err := t.chain.flushOutputsIfRequested(); err != nil {
				return t.cleanUpOnFailure(ctx, err)
			}
			waitCtx = newWaitContext()
			continue
		default:
			return t.cleanUpOnFailure(ctx, err)
		}

		record, err := t.inputSerializer.Deserialize(data)
		if err != nil {
			return t.cleanUpOnFailure(ctx, err)
		}
		if err := t.chain.head.processElement(record); err != nil {
			return t.cleanUpOnFailure(ctx, err)
		}
		// Busy: Next returns records without looking at waitCtx, so look
		// at the flusher's flag and the mailbox instead.
		if err := t.chain.flushOutputsIfRequested(); err != nil {
			return t.cleanUpOnFailure(ctx, err)
		}
		if t.chain.mailbox.hasMail.Load() {
			if err := t.chain.mailbox.runMails(); err != nil {
				return t.cleanUpOnFailure(ctx, err)
			}
		}
	}
}

// flusherEndedWait reports whether err, returned by a wait for input, is
// only the outputFlusher's tick: the wait context was cancelled while the
// task's ctx is still alive. Any other error (a failed producer, a closed
// gate) is the input's, and fails the task, even when it arrives after the
// flusher cancelled the wait.
func flusherEndedWait(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && ctx.Err() == nil
}

// buildChain is the first half of Flink's StreamTask#restore: it reads the
// StreamConfig, finds the program in the job jar and plans it again (the
// stand-in for loading the user's classes), and builds the operator chain
// from the nodes the config names. It returns the chain's head node.
func (t *StreamTask) buildChain(ctx context.Context, isSourceTask bool) (*streaming.StreamNode, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	config, err := streaming.ReadStreamConfig(t.env.TaskInfo.TaskConfiguration)
	if err != nil {
		return nil, err
	}
	t.config = config

	// Find the user's functions: open the jar the TaskExecutor fetched
	// through its BlobCache in step m10, run the program's main again in a
	// plan environment, and look the chain's nodes up by ID.
	graph, jar, err := loadUserProgram(t.env.UserJarPaths, config)
	if err != nil {
		return nil, err
	}
	head := graph.StreamNode(config.HeadNodeID())
	if head == nil {
		return nil, fmt.Errorf("program %s has no node %d", config.ProgramName, config.HeadNodeID())
	}
	if head.Operator.Kind.IsSource() != isSourceTask {
		return nil, fmt.Errorf("%v (a %v) cannot head the chain of a %s", head, head.Operator.Kind, taskClassName(isSourceTask))
	}

	share := subtaskShare{subtaskIndex: t.env.SubtaskIndex, parallelism: t.env.TaskInfo.NumberOfSubtasks}
	chain, err := newOperatorChain(graph, config, share, jar, t.env.Writers)
	if err != nil {
		return nil, fmt.Errorf("the StreamGraph of program %s does not match the task: %w", config.ProgramName, err)
	}
	t.chain = chain

	// In BATCH nobody reads a result before it is complete, so flushing
	// partly filled buffers early buys nothing: Flink disables the buffer
	// timeout (execution.buffer-timeout.enabled: false), and so do we.
	if graph.RuntimeMode == streaming.Batch {
		t.bufferTimeout = disabledBufferTimeout
	}
	return head, nil
}

// needsOutputFlusher reports whether the task flushes its outputs every
// buffer timeout: when it writes to the network and the timeout is on.
func (t *StreamTask) needsOutputFlusher() bool {
	return len(t.chain.writers) > 0 && t.bufferTimeout != disabledBufferTimeout
}

// openOperators is the second half of Flink's StreamTask#restore
// (initializeStateAndOpenOperators): it opens the operators, tail first.
// It runs while the task is INITIALIZING, so an operator whose open fails
// takes the task from INITIALIZING to FAILED.
func (t *StreamTask) openOperators(ctx context.Context) error {
	// The operators get their state first, if the task restores a
	// checkpoint.
	if err := t.initializeState(); err != nil {
		return t.cleanUpOnFailure(ctx, err)
	}
	// Step m11: the operators open; only when all are open does the Task
	// switch to RUNNING and tell the JobMaster.
	if err := t.chain.openOperators(); err != nil {
		return t.cleanUpOnFailure(ctx, err)
	}
	t.logger.Debug(fmt.Sprintf("Opened %d operators of program %s, nodes %v.",
		len(t.chain.operators), t.config.ProgramName, t.config.ChainedNodeIDs))
	return nil
}

func taskClassName(isSourceTask bool) string {
	if isSourceTask {
		return "SourceStreamTask"
	}
	return "OneInputStreamTask"
}

// endOfInput is what follows the last record (Flink's StreamTask#afterInvoke):
// the operators learn that their input has ended, head first (a BATCH
// reduce emits its results now), the outputs are flushed, so that the
// consumers get every record, and the operators are closed, head first.
// The Task then finishes the partitions, which sends EndOfPartition
// downstream.
func (t *StreamTask) endOfInput(ctx context.Context) error {
	t.stopCheckpointing()
	if err := t.chain.endInput(); err != nil {
		return t.cleanUpOnFailure(ctx, err)
	}
	if err := t.chain.flushOutputs(ctx); err != nil {
		return t.cleanUpOnFailure(ctx, err)
	}
	return t.chain.closeOperators()
}

// cleanUpOnFailure closes the operators after err stopped the task and
// returns err; an error while closing is logged, not returned, as Flink
// adds it to the failure as a suppressed exception.
func (t *StreamTask) cleanUpOnFailure(ctx context.Context, err error) error {
	if t.chain == nil {
		return err
	}
	t.stopCheckpointing()
	if closeErr := t.chain.closeOperators(); closeErr != nil {
		t.logger.WarnContext(ctx, fmt.Sprintf("Error while closing the operators after a failure: %v", closeErr))
	}
	return err
}

// closeOperatorsOnPanic closes the operators when user code panics, and
// panics on: the Task turns the panic into the task's failure. Restore
// and Invoke both defer it, so a panic in an operator's open closes the
// operators opened before it.
func (t *StreamTask) closeOperatorsOnPanic() {
	if r := recover(); r != nil {
		_ = t.cleanUpOnFailure(context.Background(), fmt.Errorf("panic: %v", r))
		panic(r)
	}
}
