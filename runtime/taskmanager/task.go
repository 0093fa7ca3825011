package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/network"
	"flinklab/runtime/trace"
)

// TaskManagerActions is how a Task tells its TaskExecutor what happens to
// it (Flink's TaskManagerActions).
type TaskManagerActions interface {
	// UpdateTaskExecutionState reports that the task reached a state. The
	// Task calls it on its own goroutine, or on the goroutine that called
	// Cancel or FailExternally, so it must not block: the TaskExecutor
	// hands the report to its main thread.
	UpdateTaskExecutionState(state gateway.TaskExecutionState)
}

// PermanentBlobService gives a task the local path of one of its job's
// BLOBs, downloading it first if needed (Flink's PermanentBlobService).
// *blob.PermanentBlobCache implements it.
type PermanentBlobService interface {
	GetFile(ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (string, error)
}

var _ PermanentBlobService = (*blob.PermanentBlobCache)(nil)

// Deps are the TaskExecutor's services a Task uses.
type Deps struct {
	// BlobService fetches the job's jars (step m10). It may be nil only if
	// the task has no jars.
	BlobService PermanentBlobService
	// Shuffle creates the task's partitions and input gates. It may be nil
	// only if the task has neither.
	Shuffle *network.ShuffleEnvironment
	// Actions receives the task's state changes. It must be set.
	Actions TaskManagerActions
	// Trace records steps m10 and m11; nil records nothing.
	Trace *trace.Recorder
	// Faults may break step m11 (an operator's open() throws); nil
	// injects nothing.
	Faults *fault.Injector
	// Logger is the TaskManager's logger; nil means slog.Default().
	Logger *slog.Logger
	// CheckpointResponder takes the task's answers to checkpoints; nil
	// drops them (a task that is never checkpointed).
	CheckpointResponder CheckpointResponder
}

// ErrCancelTaskException is Flink's CancelTaskException
// (org.apache.flink.runtime.execution.CancelTaskException): an error that
// ends a task as cancelled, not failed. A task's own code may return it
// (wrapped or not) from Restore or Invoke to stop without a failure: the
// task goes from DEPLOYING, INITIALIZING or RUNNING straight to CANCELED,
// logging "… switched from RUNNING to CANCELED due to
// CancelTaskException.", and the JobMaster hears CANCELED, not FAILED
// (Flink's Task#doRun: its catch block looks for a CancelTaskException in
// the cause chain).
var ErrCancelTaskException = errors.New("CancelTaskException")

// errCancelTask is what the Task returns itself when it notices that it
// was cancelled or failed from outside meanwhile: Flink's Task#doRun
// throws a new CancelTaskException at those points.
var errCancelTask = ErrCancelTaskException

// isCancelTaskException reports whether err ends the task as cancelled
// rather than failed: err is or wraps ErrCancelTaskException (the task's
// code returned it, or the task noticed it was cancelled), or a partition
// the task reads was released, which happens when its producer was
// cancelled (Flink's LocalInputChannel throws a CancelTaskException then).
// A failed producer gives network.ErrProducerFailed instead, which fails
// the consumer too.
func isCancelTaskException(err error) bool {
	return errors.Is(err, ErrCancelTaskException) || errors.Is(err, network.ErrPartitionReleased)
}

// Task is one attempt of one subtask running in a TaskExecutor's slot
// (Flink's org.apache.flink.runtime.taskmanager.Task). It owns a goroutine,
// Flink's task thread, which deploys the task (fetches the job's jars,
// creates its partitions and gates, resolves its invokable) and then runs
// the invokable: Restore while INITIALIZING, Invoke while RUNNING.
//
// A Task never touches its TaskExecutor's fields: it reports every state
// change through TaskManagerActions. Cancel and FailExternally may be called
// from any goroutine; the getters too.
type Task struct {
	tdd                 gateway.TaskDeploymentDescriptor
	taskNameWithSubtask string // "Map (2/4)#0"
	blobService         PermanentBlobService
	shuffle             *network.ShuffleEnvironment
	actions             TaskManagerActions
	trace               *trace.Recorder
	faults              *fault.Injector
	logger              *slog.Logger
	baseLogger          *slog.Logger

	// ctx is what Restore, Invoke, the jar download and the partitions
	// wait on; cancelInvokable ends it when the task is cancelled or failed
	// from outside.
	ctx             context.Context
	cancelInvokable context.CancelFunc

	startOnce sync.Once
	doneOnce  sync.Once
	done      chan struct{}

	// transitionMu makes each transition and its report one step, so the
	// reports leave in the order of the transitions even when Cancel races
	// the task's goroutine.
	transitionMu sync.Mutex
	state        atomic.Int32 // an api.ExecutionState; written under transitionMu
	failureCause error        // guarded by transitionMu

	checkpointResponder CheckpointResponder
	// invokable is set once it is made; checkpoint requests reach it
	// from other goroutines.
	invokableMu sync.Mutex
	invokable   Invokable

	// Owned by the task's goroutine.
	partitions []*network.ResultPartition
	gates      []*network.InputGate
}

// NewTask creates the task of one TaskDeploymentDescriptor in state
// CREATED. Start runs it. It panics if deps.Actions is nil.
func NewTask(tdd gateway.TaskDeploymentDescriptor, deps Deps) *Task {
	if deps.Actions == nil {
		panic("taskmanager: NewTask needs TaskManagerActions")
	}
	base := deps.Logger
	if base == nil {
		base = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Task{
		tdd:                 tdd,
		taskNameWithSubtask: TaskNameWithSubtasks(tdd),
		blobService:         deps.BlobService,
		shuffle:             deps.Shuffle,
		actions:             deps.Actions,
		trace:               deps.Trace,
		faults:              deps.Faults,
		checkpointResponder: deps.CheckpointResponder,
		logger:              base.With("logger", "Task"),
		baseLogger:          base,
		ctx:                 ctx,
		cancelInvokable:     cancel,
		done:                make(chan struct{}),
	}
	t.state.Store(int32(api.ExecutionCreated))
	return t
}

// TaskNameWithSubtasks returns the name Flink's logs give a task attempt:
// the task name, the subtask (1-based) of the parallelism, and the attempt
// number, e.g. "Map (2/4)#0" (Flink's TaskInfo#getTaskNameWithSubtasks).
func TaskNameWithSubtasks(tdd gateway.TaskDeploymentDescriptor) string {
	return fmt.Sprintf("%s (%d/%d)#%d", tdd.TaskInfo.TaskName, tdd.SubtaskIndex()+1,
		tdd.TaskInfo.NumberOfSubtasks, tdd.AttemptNumber())
}

// ExecutionID returns the attempt this task runs.
func (t *Task) ExecutionID() api.ExecutionAttemptID { return t.tdd.ExecutionAttemptID }

// AllocationID returns the slot allocation the task runs in.
func (t *Task) AllocationID() api.AllocationID { return t.tdd.AllocationID }

// JobID returns the task's job.
func (t *Task) JobID() api.JobID { return t.tdd.JobID }

// TaskInfo returns the description of the task's JobVertex.
func (t *Task) TaskInfo() gateway.TaskInformation { return t.tdd.TaskInfo }

// ProducedPartitions returns the descriptors of the partitions the task
// writes, as its deployment descriptor lists them. The caller must not
// change them.
func (t *Task) ProducedPartitions() []gateway.ResultPartitionDeploymentDescriptor {
	return t.tdd.ProducedPartitions
}

// TaskNameWithSubtaskAndAttempt returns the task's log name, e.g.
// "Map (2/4)#0".
func (t *Task) TaskNameWithSubtaskAndAttempt() string { return t.taskNameWithSubtask }

// State returns the task's current state. It is safe to call from any
// goroutine.
func (t *Task) State() api.ExecutionState { return api.ExecutionState(t.state.Load()) }

// FailureCause returns why the task failed, or nil.
func (t *Task) FailureCause() error {
	t.transitionMu.Lock()
	defer t.transitionMu.Unlock()
	return t.failureCause
}

// Done is closed when the task has ended: its final state is reported and
// its goroutine (if it was started) is about to return.
func (t *Task) Done() <-chan struct{} { return t.done }

func (t *Task) String() string {
	return fmt.Sprintf("%s (%s) [%s]", t.taskNameWithSubtask, t.ExecutionID(), t.State())
}

// Start launches the task's goroutine (Flink's Task#startTaskThread).
// Starting twice does nothing.
func (t *Task) Start() {
	t.startOnce.Do(func() { go t.run() })
}

// Cancel cancels the task (Flink's Task#cancelExecution). A task that has
// not started goes through CANCELING to CANCELED at once; a deploying or
// running one goes to CANCELING, its invokable's ctx is cancelled, and it
// reaches CANCELED when its goroutine has stopped. Cancel does not wait;
// see Done.
func (t *Task) Cancel() {
	t.logger.Info(fmt.Sprintf("Attempting to cancel task %s (%s).", t.taskNameWithSubtask, t.ExecutionID()))
	t.cancelOrFailAndCancelInvokable(api.ExecutionCanceling, nil)
}

// FailExternally fails the task from outside with the given cause (Flink's
// Task#failExternally), for example when its slot is freed or its
// JobManager is gone. The task goes to FAILED at once and its invokable's
// ctx is cancelled; the final state is reported when the goroutine has
// stopped.
func (t *Task) FailExternally(cause error) {
	t.logger.Info(fmt.Sprintf("Attempting to fail task externally %s (%s).", t.taskNameWithSubtask, t.ExecutionID()))
	if cause == nil {
		cause = errors.New("the task was failed externally without a cause")
	}
	t.cancelOrFailAndCancelInvokable(api.ExecutionFailed, cause)
}

func (t *Task) cancelOrFailAndCancelInvokable(target api.ExecutionState, cause error) {
	for {
		current := t.State()
		switch current {
		case api.ExecutionCreated:
			// The goroutine never ran (or has not yet begun): nothing to
			// stop, so the task ends right here. Differs from Flink: its
			// task goes CANCELING → CANCELED only when its thread starts
			// (Task#doRun); ours may never start, so this caller makes
			// both moves.
			if t.transitionState(current, target, cause) {
				if target == api.ExecutionCanceling {
					t.transitionState(api.ExecutionCanceling, api.ExecutionCanceled, nil)
				}
				t.cancelInvokable()
				t.finish()
				return
			}
		case api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning:
			if t.transitionState(current, target, cause) {
				if current != api.ExecutionDeploying {
					t.logger.Info(fmt.Sprintf("Triggering cancellation of task code %s (%s).",
						t.taskNameWithSubtask, t.ExecutionID()))
				}
				t.cancelInvokable()
				return
			}
		default: // CANCELING or terminal: somebody got here first
			t.logger.Info(fmt.Sprintf("Task %s is already in state %s", t.taskNameWithSubtask, current))
			return
		}
		// The state changed under us: look again.
	}
}

// run is the task's goroutine (Flink's Task#run → doRun). Like Flink's
// doRun, which catches every Throwable, it turns a panic of the task's own
// code into the task's failure: a bug in one task fails that task, not the
// TaskManager.
func (t *Task) run() {
	if !t.transitionState(api.ExecutionCreated, api.ExecutionDeploying, nil) {
		return // cancelled or failed before it began; that caller finished the task
	}
	defer t.finish()

	if err := catchPanic(t.doRun); err != nil {
		handled := catchPanic(func() error {
			t.transitionToFinalStateAfter(err)
			return nil
		})
		if handled != nil {
			t.failAfterFatalError(err, handled)
		}
	}
	t.cancelInvokable()
	t.releaseResources()
}

// doRun deploys and runs the task, in the order of Flink's Task#doRun. It
// returns nil only when the task reached FINISHED.
func (t *Task) doRun() error {
	// Fetch the job's jars: Flink builds the user-code class loader here.
	t.logger.Info(fmt.Sprintf("Loading JAR files for task %s.", t.taskNameWithSubtask))
	userJarPaths, err := t.loadUserJars()
	if err != nil {
		return err
	}
	if t.isCanceledOrFailed() {
		return errCancelTask
	}

	className := t.tdd.TaskInfo.InvokableClassName
	factory, err := loadInvokableClass(className)
	if err != nil {
		return err
	}

	if err := t.setupPartitionsAndGates(); err != nil {
		return err
	}

	env := &Environment{
		JobID:               t.tdd.JobID,
		JobName:             t.tdd.JobName,
		TaskInfo:            t.tdd.TaskInfo,
		SubtaskIndex:        t.tdd.SubtaskIndex(),
		AttemptNumber:       t.tdd.AttemptNumber(),
		AttemptID:           t.tdd.ExecutionAttemptID,
		UserJarPaths:        userJarPaths,
		Writers:             t.partitions,
		Inputs:              t.gates,
		Logger:              t.baseLogger.With("logger", simpleClassName(className), "task", t.taskNameWithSubtask),
		TaskRestore:         t.tdd.TaskRestore,
		CheckpointResponder: t.checkpointResponder,
		Trace:               t.trace,
		Faults:              t.faults,
	}
	invokable, err := instantiateInvokable(className, factory, env)
	if err != nil {
		return err
	}
	t.invokableMu.Lock()
	t.invokable = invokable
	t.invokableMu.Unlock()
	return t.restoreAndInvoke(invokable)
}

// restoreAndInvoke runs the invokable of a deployed task (Flink's
// Task#restoreAndInvoke).
//
// Step m11: the task restores state and opens the operators while
// INITIALIZING, then switches to RUNNING (traceRunning records the step)
// and processes records, then finishes the produced partitions and
// switches to FINISHED. A transition that does not happen means the task
// was cancelled or failed meanwhile.
func (t *Task) restoreAndInvoke(invokable Invokable) error {
	if !t.transitionState(api.ExecutionDeploying, api.ExecutionInitializing, nil) {
		return errCancelTask
	}
	if err := t.restore(invokable); err != nil {
		return err
	}
	if !t.transitionState(api.ExecutionInitializing, api.ExecutionRunning, nil) {
		return errCancelTask
	}
	t.traceRunning()

	if err := t.invoke(invokable); err != nil {
		return err
	}
	if t.isCanceledOrFailed() {
		return errCancelTask
	}
	if err := t.finishPartitions(); err != nil {
		return err
	}
	if !t.transitionState(api.ExecutionRunning, api.ExecutionFinished, nil) {
		return errCancelTask
	}
	return nil
}

// restore runs the invokable's Restore: state is restored and the
// operators open. Step m11's fault fires here.
func (t *Task) restore(invokable Invokable) error {
	if kind, ok := t.faults.Fire(trace.M11, t.tdd.JobID); ok {
		// Step m11 (fault): an operator's open() throws while the task
		// initializes, before any record flows.
		return fmt.Errorf("RuntimeException: open() of an operator of %s threw: %w", t.taskNameWithSubtask, fault.Injected(trace.M11, kind))
	}
	return callUserCode(func() error { return invokable.Restore(t.ctx) })
}

// invoke runs the invokable's Invoke: it processes records until the
// inputs end, or until the task's ctx is cancelled.
func (t *Task) invoke(invokable Invokable) error {
	return callUserCode(func() error { return invokable.Invoke(t.ctx) })
}

// finishPartitions finishes the produced partitions at the end of input,
// so that consumers read EndOfPartition. A partition that cannot be
// finished fails the task.
func (t *Task) finishPartitions() error {
	for _, partition := range t.partitions {
		if err := partition.Finish(t.ctx); err != nil {
			return err
		}
	}
	return nil
}

// traceRunning records step m11: the operators are open and the task
// reported RUNNING; the TaskExecutor forwards the report to the JobMaster.
func (t *Task) traceRunning() {
	// Step m11: the task switched from INITIALIZING to RUNNING.
	t.trace.Emit(trace.M11, "Task", "JobMaster", t.tdd.JobID, "%s (%s) switched from %s to %s.",
		t.taskNameWithSubtask, t.ExecutionID(), api.ExecutionInitializing, api.ExecutionRunning)
}

// catchPanic runs fn and turns a panic into an error whose message says
// where it happened: the panic's value and the stack's first frames of
// interest, as the stack trace of Flink's Throwable would.
func catchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the task panicked: %v\n%s", r, panicSite(debug.Stack()))
		}
	}()
	return fn()
}

// panicSite returns the frames of a stack below the runtime's own panic
// machinery, at most six lines: the function that panicked and its file and
// line first.
func panicSite(stack []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stack)), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "panic(") && i+1 < len(lines) {
			rest := lines[i+2:] // skip panic(…) and its file:line
			return strings.Join(rest[:min(6, len(rest))], "\n")
		}
	}
	return ""
}

// failAfterFatalError ends a task whose failure could not be handled: the
// handling itself panicked with fatal. The task goes to FAILED with its
// own failure err as the cause, so that its final state is still
// reported.
//
// Differs from Flink: Flink logs the same line and then terminates the
// TaskManager (notifyFatalError).
func (t *Task) failAfterFatalError(err, fatal error) {
	t.logger.Error(fmt.Sprintf("FATAL - exception in exception handler of task %s (%s).", t.taskNameWithSubtask, t.ExecutionID()),
		"cause", fatal.Error())
	for current := t.State(); !current.IsTerminal(); current = t.State() {
		if t.transitionState(current, api.ExecutionFailed, err) {
			return
		}
	}
}

// loadUserJars fetches every jar of the job through the BlobCache and
// returns their local paths.
func (t *Task) loadUserJars() ([]string, error) {
	keys := t.tdd.UserJarBlobKeys
	if len(keys) == 0 {
		return nil, nil
	}
	if t.blobService == nil {
		return nil, fmt.Errorf("cannot load the JAR files of task %s: the TaskExecutor has no BlobCache",
			t.taskNameWithSubtask)
	}
	paths := make([]string, 0, len(keys))
	for _, key := range keys {
		path, err := t.blobService.GetFile(t.ctx, t.tdd.JobID, key)
		if err != nil {
			if t.ctx.Err() == nil {
				t.trace.EmitFailure(trace.M10, "TaskExecutor", "BlobServer", t.tdd.JobID, "Failed to fetch BLOB %s of job %s for task %s: %v",
					key, t.tdd.JobID, t.taskNameWithSubtask, err)
			}
			return nil, err
		}
		paths = append(paths, path)
	}
	// Step m10: the jars are on local disk, verified against their keys.
	names := make([]string, len(keys))
	for i, key := range keys {
		names[i] = key.String()
	}
	t.trace.Emit(trace.M10, "TaskExecutor", "BlobServer", t.tdd.JobID, "Fetched %s of job %s for task %s (%s) through the BlobCache.",
		strings.Join(names, ", "), t.tdd.JobID, t.taskNameWithSubtask, t.ExecutionID())
	return paths, nil
}

// setupPartitionsAndGates creates the partitions the task writes, each of
// its descriptor's type (PIPELINED_BOUNDED or BLOCKING), and the gates it
// reads, in the order of the deployment descriptor (Flink's
// Task#setupPartitionsAndGates). Creating a partition registers it, so its
// consumers can find it.
func (t *Task) setupPartitionsAndGates() error {
	if t.shuffle == nil && (len(t.tdd.ProducedPartitions) > 0 || len(t.tdd.InputGates) > 0) {
		return fmt.Errorf("cannot set up the partitions and gates of task %s: the TaskExecutor has no ShuffleEnvironment",
			t.taskNameWithSubtask)
	}
	for _, pdd := range t.tdd.ProducedPartitions {
		partition, err := t.shuffle.CreateResultPartitionWriter(pdd)
		if err != nil {
			return err
		}
		t.partitions = append(t.partitions, partition)
	}
	for _, gdd := range t.tdd.InputGates {
		// The gate keeps the descriptor's shuffle descriptors, shared with
		// every other consumer of the same partitions, instead of a copy.
		t.gates = append(t.gates, t.shuffle.CreateInputGate(gdd))
	}
	return nil
}

// transitionToFinalStateAfter moves the task to its final state after doRun
// returned err: FAILED with err as the cause, or CANCELED if the task was
// being cancelled or err says it should cancel itself (see
// isCancelTaskException: it goes straight to CANCELED, as Flink's does). A
// task failed from outside is FAILED already.
//
// Step m11, the other way: a task that fails on its own is recorded as a
// broken step m11 (traceFailure), with the cause the JobMaster receives.
func (t *Task) transitionToFinalStateAfter(err error) {
	for {
		switch current := t.State(); current {
		case api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning:
			if isCancelTaskException(err) {
				if t.transitionState(current, api.ExecutionCanceled, err) {
					return
				}
				continue
			}
			if t.transitionState(current, api.ExecutionFailed, err) {
				t.traceFailure(current, err)
				return
			}
		case api.ExecutionCanceling:
			if t.transitionState(current, api.ExecutionCanceled, nil) {
				return
			}
		case api.ExecutionFailed:
			return // failed from outside; the cause is recorded
		default:
			panic(fmt.Sprintf("taskmanager: unexpected state %s of task %s (%s) during an exception: %v",
				current, t.taskNameWithSubtask, t.ExecutionID(), err))
		}
	}
}

// traceFailure records the task's own failure, from state from, as a
// broken step m11: the task never reaches step m11 (or falls out of it),
// and the trace shows where, with the report the JobMaster receives. A
// task failed from outside (its TaskExecutor lost the JobMaster, or is
// shutting down) is not a broken step of its own and is not recorded.
func (t *Task) traceFailure(from api.ExecutionState, err error) {
	t.trace.EmitFailure(trace.M11, "Task", "JobMaster", t.tdd.JobID, "%s (%s) switched from %s to %s with failure cause: %v",
		t.taskNameWithSubtask, t.ExecutionID(), from, api.ExecutionFailed, err)
}

// releaseResources frees the task's data plane (Flink's
// Task#releaseResources). The partitions of a task that did not finish are
// failed (or, when cancelled, released), so their consumers stop, and a
// blocking one's files are deleted. A finished task's partitions stay
// registered: a pipelined one until its consumers have read it, a
// blocking one until the TaskExecutor releases it
// (ShuffleEnvironment.ReleasePartitionsLocally), which it does when the
// JobMaster says no consumer needs it any more, or when it lets go of the
// job.
func (t *Task) releaseResources() {
	t.logger.Info(fmt.Sprintf("Freeing task resources for %s (%s).", t.taskNameWithSubtask, t.ExecutionID()))
	switch t.State() {
	case api.ExecutionFinished:
	case api.ExecutionFailed:
		cause := t.FailureCause()
		for _, partition := range t.partitions {
			partition.Fail(cause)
		}
	default: // CANCELED
		for _, partition := range t.partitions {
			partition.Release()
		}
	}
	for _, gate := range t.gates {
		gate.Close()
	}
}

// finish reports the final state and closes Done, once (Flink's
// Task#notifyFinalState).
func (t *Task) finish() {
	t.doneOnce.Do(func() {
		t.transitionMu.Lock()
		final := gateway.TaskExecutionState{AttemptID: t.ExecutionID(), State: t.State(), FailureCause: t.failureCause}
		t.actions.UpdateTaskExecutionState(final)
		t.transitionMu.Unlock()
		close(t.done)
	})
}

func (t *Task) isCanceledOrFailed() bool {
	switch t.State() {
	case api.ExecutionCanceling, api.ExecutionCanceled, api.ExecutionFailed:
		return true
	}
	return false
}

// transitionState moves the task from one state to another if it is still
// in the first (a compare-and-swap, as in Flink's Task#transitionState),
// logs the switch as Flink does and reports it. A final state is reported
// by finish, once the task's resources are released. It returns false if
// the task was no longer in state from.
func (t *Task) transitionState(from, to api.ExecutionState, cause error) bool {
	t.transitionMu.Lock()
	defer t.transitionMu.Unlock()
	if t.State() != from {
		return false
	}
	if err := api.CheckTaskTransition(from, to); err != nil {
		panic(fmt.Sprintf("taskmanager: %s (%s): %v", t.taskNameWithSubtask, t.ExecutionID(), err))
	}
	t.state.Store(int32(to))

	switch {
	case cause == nil:
		t.logger.Info(fmt.Sprintf("%s (%s) switched from %s to %s.", t.taskNameWithSubtask, t.ExecutionID(), from, to))
	case isCancelTaskException(cause):
		t.logger.Info(fmt.Sprintf("%s (%s) switched from %s to %s due to CancelTaskException.",
			t.taskNameWithSubtask, t.ExecutionID(), from, to))
	default:
		t.failureCause = cause
		t.logger.Warn(fmt.Sprintf("%s (%s) switched from %s to %s with failure cause: %v",
			t.taskNameWithSubtask, t.ExecutionID(), from, to, cause))
	}

	if !to.IsTerminal() {
		t.actions.UpdateTaskExecutionState(gateway.TaskExecutionState{AttemptID: t.ExecutionID(), State: to})
	}
	return true
}

// simpleClassName returns the last part of a dotted class name.
func simpleClassName(className string) string {
	if i := strings.LastIndexByte(className, '.'); i >= 0 {
		return className[i+1:]
	}
	return className
}
