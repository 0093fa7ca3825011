package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/network"
	"flinklab/runtime/trace"
)

// Invokable is the code a Task runs: Flink's AbstractInvokable (in
// practice a StreamTask, whose operator chain calls the user's functions).
// The Task calls Restore once, then Invoke once, both on its own goroutine.
type Invokable interface {
	// Restore runs while the task is INITIALIZING: it restores the
	// operators' state and opens them (Flink's StreamTask#restore, which
	// ends in initializeStateAndOpenOperators). An error here takes the task
	// from INITIALIZING to FAILED: this is where an operator whose open()
	// throws shows up.
	Restore(ctx context.Context) error
	// Invoke runs while the task is RUNNING: it processes records until its
	// inputs end (Flink's StreamTask#invoke and its mailbox loop). When ctx
	// is cancelled (the task is cancelled or failed from outside) it must
	// return promptly, with ctx.Err().
	Invoke(ctx context.Context) error
}

// Environment is everything the Task hands its invokable (Flink's
// Environment, implemented there by RuntimeEnvironment): who the task is,
// where the job's code is, and the task's side of the data plane.
type Environment struct {
	JobID         api.JobID
	JobName       string
	TaskInfo      gateway.TaskInformation
	SubtaskIndex  int
	AttemptNumber int
	AttemptID     api.ExecutionAttemptID
	// UserJarPaths are the local paths of the job's jars, fetched through
	// the TaskExecutor's BlobCache (step m10), in the order of the
	// TaskDeploymentDescriptor's UserJarBlobKeys.
	UserJarPaths []string
	// Writers are the partitions the task produces, in the order of the
	// TaskDeploymentDescriptor's ProducedPartitions. The Task finishes them
	// after Invoke returns; the invokable only emits records.
	Writers []*network.ResultPartition
	// Inputs are the task's input gates, in the order of the
	// TaskDeploymentDescriptor's InputGates. The Task closes them when it
	// ends.
	Inputs []*network.InputGate
	// Logger is the invokable's logger.
	Logger *slog.Logger
	// TaskRestore is the state the task starts from, its share of a
	// checkpoint (Flink: the TaskStateManager's JobManagerTaskRestore);
	// nil starts it empty.
	TaskRestore *checkpoint.JobManagerTaskRestore
	// CheckpointResponder takes the task's acknowledgements and declines;
	// nil drops them.
	CheckpointResponder CheckpointResponder
	// Trace records the checkpoint steps the task takes (k3, k4, k5);
	// nil records nothing.
	Trace *trace.Recorder
	// Faults may break the checkpoint steps the task takes: a barrier
	// lost at k4, a state write that fails at k5; nil injects nothing.
	Faults *fault.Injector
}

// InvokableFactory creates the invokable of one task from its environment.
// An error fails the task with "Could not instantiate the task's invokable
// class.".
type InvokableFactory func(env *Environment) (Invokable, error)

// ErrInvokableClassNotFound is the cause of "Could not load the task's
// invokable class." when no invokable is registered under the class name
// the TaskDeploymentDescriptor names (Flink's ClassNotFoundException).
var ErrInvokableClassNotFound = errors.New("ClassNotFoundException")

// invokables is the registry of invokable classes, the stand-in for Flink's
// user-code class loader.
var invokables = struct {
	sync.RWMutex
	factories map[string]InvokableFactory
}{factories: make(map[string]InvokableFactory)}

// RegisterInvokable makes an invokable class known under className, the
// name a JobVertex carries as its invokable class (for example
// "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask"). Like
// database/sql.Register it is meant to be called from an init function, and
// it panics if the name is registered twice or the factory is nil.
func RegisterInvokable(className string, factory InvokableFactory) {
	if factory == nil {
		panic("taskmanager: RegisterInvokable factory is nil for " + className)
	}
	invokables.Lock()
	defer invokables.Unlock()
	if _, dup := invokables.factories[className]; dup {
		panic("taskmanager: RegisterInvokable called twice for " + className)
	}
	invokables.factories[className] = factory
}

// LookupInvokable returns the factory registered under className.
func LookupInvokable(className string) (InvokableFactory, bool) {
	invokables.RLock()
	defer invokables.RUnlock()
	factory, ok := invokables.factories[className]
	return factory, ok
}

// RegisteredInvokables returns the registered class names, sorted.
func RegisteredInvokables() []string {
	invokables.RLock()
	defer invokables.RUnlock()
	names := make([]string, 0, len(invokables.factories))
	for name := range invokables.factories {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// loadInvokableClass resolves the invokable class by name: the first half
// of Flink's Task#loadAndInstantiateInvokable, where the user-code class
// loader loads the class. An unknown name gives Flink's message.
func loadInvokableClass(className string) (InvokableFactory, error) {
	factory, ok := LookupInvokable(className)
	if !ok {
		return nil, &exception{
			msg:   "Could not load the task's invokable class.",
			cause: fmt.Errorf("%w: %s", ErrInvokableClassNotFound, className),
		}
	}
	return factory, nil
}

// instantiateInvokable creates the invokable from its environment: the
// second half of Flink's Task#loadAndInstantiateInvokable.
func instantiateInvokable(className string, factory InvokableFactory, env *Environment) (Invokable, error) {
	var invokable Invokable
	err := callUserCode(func() (err error) {
		invokable, err = factory(env)
		return err
	})
	if err == nil && invokable == nil {
		err = fmt.Errorf("the factory of %s returned no invokable", className)
	}
	if err != nil {
		return nil, &exception{msg: "Could not instantiate the task's invokable class.", cause: err}
	}
	return invokable, nil
}

// callUserCode runs code the job brought (an invokable's factory, Restore
// or Invoke) and turns a panic into an error, so that user code fails its
// task and not the whole TaskManager, as Flink's Task catches every
// Throwable of its invokable.
func callUserCode(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrUserCodePanicked, r)
		}
	}()
	return fn()
}

// ErrUserCodePanicked is the cause of a task failure whose invokable
// panicked.
var ErrUserCodePanicked = errors.New("the task's user code panicked")

// exception is an error with Flink's message and a cause, printed the way
// a Java exception chain reads in a log: "message Caused by: cause".
type exception struct {
	msg   string
	cause error
}

func (e *exception) Error() string {
	if e.cause == nil {
		return e.msg
	}
	return e.msg + " Caused by: " + e.cause.Error()
}

func (e *exception) Unwrap() error { return e.cause }
