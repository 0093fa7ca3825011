// Exercise m11: a Task's way from DEPLOYING through INITIALIZING to
// RUNNING, and where a failure or a cancellation takes it.
//
// Most tests run one real Task, as a TaskExecutor runs it, with a scripted
// invokable: its Restore (the operators open) and Invoke (records flow) do
// what the test says. One timeline records, in order, every state the Task
// reports to its TaskExecutor and every call into the invokable, so a test
// reads the task's life in one line. The last test runs the task in a real
// TaskExecutor and looks at what its JobMaster hears.
package m11_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/network"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// scriptedTask is the invokable class of these tests: it does what the
// script of its job says.
const scriptedTask = "org.flinklab.exercises.m11.ScriptedTask"

func init() {
	taskmanager.RegisterInvokable(scriptedTask, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		s, ok := scripts.Load(env.JobID)
		if !ok {
			return nil, fmt.Errorf("no script for job %s", env.JobID)
		}
		s.(*script).writers = env.Writers
		return s.(*script), nil
	})
}

// scripts holds, per job, what its invokable does.
var scripts sync.Map // api.JobID → *script

// script is one invokable: Restore and Invoke run the given functions (nil
// ones return at once) and note themselves on the timeline.
type script struct {
	restore  func(ctx context.Context) error
	invoke   func(ctx context.Context) error
	timeline *timeline
	writers  []*network.ResultPartition // the partitions the task produces, set when it is created
}

func (s *script) Restore(ctx context.Context) error {
	s.timeline.add("Restore()")
	if s.restore == nil {
		return nil
	}
	return s.restore(ctx)
}

func (s *script) Invoke(ctx context.Context) error {
	s.timeline.add("Invoke()")
	if s.invoke == nil {
		return nil
	}
	return s.invoke(ctx)
}

// timeline is the TaskExecutor's side of the task (its
// TaskManagerActions) and the invokable's diary in one: what happened, in
// order.
type timeline struct {
	mu      sync.Mutex
	events  []string
	reports []gateway.TaskExecutionState
}

func (tl *timeline) UpdateTaskExecutionState(state gateway.TaskExecutionState) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.events = append(tl.events, state.State.String())
	tl.reports = append(tl.reports, state)
}

func (tl *timeline) add(event string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.events = append(tl.events, event)
}

// Events returns what happened so far.
func (tl *timeline) Events() []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]string(nil), tl.events...)
}

// Final returns the last state reported.
func (tl *timeline) Final() gateway.TaskExecutionState {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.reports) == 0 {
		return gateway.TaskExecutionState{}
	}
	return tl.reports[len(tl.reports)-1]
}

// run is one task of a job of its own, subtask 1 of 1 of "Source".
type run struct {
	task     *taskmanager.Task
	timeline *timeline
	trace    *trace.Recorder
	faults   *fault.Injector
	logs     *scenario.Logs
	jobID    api.JobID
	// shuffle and produced are set for a task that produces a partition.
	shuffle  *network.ShuffleEnvironment
	produced api.ResultPartitionID
}

// newRun creates the task of className; the job's invokable follows s.
func newRun(t *testing.T, className string, s *script) *run {
	t.Helper()
	return newRunProducing(t, className, s, nil)
}

// newRunProducing is newRun for a task that, with shuffle not nil,
// produces one partition of one subpartition there.
func newRunProducing(t *testing.T, className string, s *script, shuffle *network.ShuffleEnvironment) *run {
	t.Helper()
	r := &run{
		timeline: &timeline{},
		trace:    trace.NewRecorder(),
		faults:   fault.NewInjector(nil),
		logs:     &scenario.Logs{},
		jobID:    api.NewJobID(),
	}
	if s != nil {
		s.timeline = r.timeline
		scripts.Store(r.jobID, s)
		t.Cleanup(func() { scripts.Delete(r.jobID) })
	}
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID()},
	}
	tdd := gateway.TaskDeploymentDescriptor{
		JobID:              r.jobID,
		JobName:            "m11",
		ExecutionAttemptID: attempt,
		AllocationID:       api.NewAllocationID(),
		TaskInfo: gateway.TaskInformation{
			JobVertexID: attempt.ExecutionVertexID.JobVertexID, TaskName: "Source", NumberOfSubtasks: 1,
			InvokableClassName: className,
		},
	}
	if shuffle != nil {
		r.shuffle = shuffle
		r.produced = api.ResultPartitionID{
			PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID()},
			ProducerID:  attempt,
		}
		tdd.ProducedPartitions = []gateway.ResultPartitionDeploymentDescriptor{{PartitionID: r.produced, NumberOfSubpartitions: 1}}
	}
	r.task = taskmanager.NewTask(tdd, taskmanager.Deps{
		Actions: r.timeline,
		Shuffle: shuffle,
		Trace:   r.trace,
		Faults:  r.faults,
		Logger:  slog.New(slog.NewTextHandler(r.logs, nil)),
	})
	t.Cleanup(func() {
		// A test that failed half-way leaves no task behind.
		r.task.Cancel()
		<-r.task.Done()
	})
	t.Cleanup(func() { scenario.LogTrace(t, r.trace.Events()) })
	return r
}

// switched is the line the Task logs when it switches states.
func (r *run) switched(from, to api.ExecutionState) string {
	return fmt.Sprintf("Source (1/1)#0 (%s) switched from %s to %s", r.task.ExecutionID(), from, to)
}

// awaitEnd waits until the task has ended and reported its final state.
func (r *run) awaitEnd(t *testing.T) {
	t.Helper()
	synctest.Wait()
	select {
	case <-r.task.Done():
	default:
		require.Fail(t, "the task must end", "it is still %s; so far: %v", r.task.State(), r.timeline.Events())
	}
}

// consumer reads the partition a task produces, as the task downstream
// would, in a goroutine of its own.
type consumer struct {
	mu   sync.Mutex
	seen []string // each record, then "end of data" or "failed: <error>"
}

// consume starts reading the partition r's task produces.
func (r *run) consume(t *testing.T) *consumer {
	t.Helper()
	gate := r.shuffle.CreateInputGate(gateway.InputGateDeploymentDescriptor{
		ConsumedResultID:   r.produced.PartitionID.IntermediateDataSetID,
		ShuffleDescriptors: []gateway.ShuffleDescriptor{{ResultPartitionID: r.produced}},
	})
	t.Cleanup(gate.Close) // a consumer that still waits stops with the test
	c := &consumer{}
	go func() {
		for {
			record, err := gate.Next(context.Background())
			c.mu.Lock()
			switch {
			case err == nil:
				c.seen = append(c.seen, string(record))
			case errors.Is(err, io.EOF):
				c.seen = append(c.seen, "end of data")
			case !errors.Is(err, network.ErrInputGateClosed):
				c.seen = append(c.seen, "failed: "+err.Error())
			}
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

// Seen returns what the consumer has read, once it has read all it can.
func (c *consumer) Seen() []string {
	synctest.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// blockUntilCancelled is user code that runs until the task's ctx ends.
func blockUntilCancelled(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestATaskOpensItsOperatorsWhileInitializingAndRunsWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{})
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "FINISHED"}, r.timeline.Events(),
			"a task must switch to INITIALIZING, open its operators, switch to RUNNING, process its input, and finish")
		assert.NoError(t, r.timeline.Final().FailureCause)
		for _, line := range []string{
			r.switched(api.ExecutionDeploying, api.ExecutionInitializing) + ".",
			r.switched(api.ExecutionInitializing, api.ExecutionRunning) + ".",
			r.switched(api.ExecutionRunning, api.ExecutionFinished) + ".",
		} {
			assert.Contains(t, r.logs.String(), line, "each switch is logged as Flink logs it")
		}
		events := r.trace.Events()
		if assert.Len(t, events, 1, "the trace shows step m11 once: the task reported RUNNING") {
			assert.Equal(t, trace.M11, events[0].Step)
			assert.False(t, events[0].Failed)
			assert.Equal(t, r.switched(api.ExecutionInitializing, api.ExecutionRunning)+".", events[0].Message)
		}
	})
}

// A task's consumers learn from the task's partitions that its data is
// complete: a task that ends FINISHED finishes them first, and they read
// its records, then the end of its data. Without that end they would wait
// for more, for ever.
func TestAFinishedTasksConsumerReadsItsRecordsToTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shuffle, err := network.NewShuffleEnvironment(network.Config{})
		require.NoError(t, err)
		t.Cleanup(shuffle.Close)
		s := &script{}
		s.invoke = func(ctx context.Context) error { return s.writers[0].EmitRecord(ctx, []byte("to be or not to be"), 0) }
		r := newRunProducing(t, scriptedTask, s, shuffle)
		downstream := r.consume(t)

		r.task.Start()
		r.awaitEnd(t)
		require.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "FINISHED"}, r.timeline.Events())
		assert.Equal(t, []string{"to be or not to be", "end of data"}, downstream.Seen(),
			"the consumer must read the record and then the end of the data: a task that FINISHED has finished the partitions it produced")
	})
}

// Since Flink 1.13 operators open while the task is INITIALIZING, so an
// operator whose open() throws fails the task from INITIALIZING: it never
// reports RUNNING.
func TestAnOperatorThatFailsToOpenFailsTheTaskFromInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		openFailed := errors.New("RuntimeException: open() of the tokenizer threw")
		r := newRun(t, scriptedTask, &script{restore: func(context.Context) error { return openFailed }})
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "FAILED"}, r.timeline.Events(),
			"a task whose operators fail to open must go from INITIALIZING to FAILED, without running")
		assert.ErrorIs(t, r.timeline.Final().FailureCause, openFailed, "the JobMaster must get the operator's exception as the cause")
		assert.Contains(t, r.logs.String(), r.switched(api.ExecutionInitializing, api.ExecutionFailed)+" with failure cause: "+openFailed.Error())
		failures := trace.Failures(r.trace.Events())
		if assert.Len(t, failures, 1, "the trace shows a broken step m11") {
			assert.Equal(t, trace.M11, failures[0].Step)
			assert.Equal(t, r.switched(api.ExecutionInitializing, api.ExecutionFailed)+" with failure cause: "+openFailed.Error(), failures[0].Message)
		}
	})
}

func TestUserCodeThatFailsOnARecordFailsTheTaskFromRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failed := errors.New("NumberFormatException: For input string: \"x\"")
		r := newRun(t, scriptedTask, &script{invoke: func(context.Context) error { return failed }})
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "FAILED"}, r.timeline.Events(),
			"user code that fails while processing records fails the task from RUNNING")
		assert.ErrorIs(t, r.timeline.Final().FailureCause, failed)
		assert.Contains(t, r.logs.String(), r.switched(api.ExecutionRunning, api.ExecutionFailed)+" with failure cause: ")
	})
}

func TestATaskWhoseInvokableCannotBeLoadedFailsFromDeploying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, "org.example.NoSuchTask", nil)
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "FAILED"}, r.timeline.Events(), "a task that cannot be deployed fails while DEPLOYING")
		assert.ErrorIs(t, r.timeline.Final().FailureCause, taskmanager.ErrInvokableClassNotFound)
		assert.ErrorContains(t, r.timeline.Final().FailureCause, "Could not load the task's invokable class.")
	})
}

func TestACancelledTaskEndsCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{invoke: blockUntilCancelled})
		r.task.Start()
		synctest.Wait()
		require.Equal(t, api.ExecutionRunning, r.task.State(), "the task runs until it is cancelled")

		r.task.Cancel() // the JobMaster cancels the job, say
		r.awaitEnd(t)
		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "CANCELING", "CANCELED"}, r.timeline.Events(),
			"a cancelled task ends CANCELED, not FAILED")
		assert.NoError(t, r.timeline.Final().FailureCause, "a cancellation is not a failure")
		assert.Empty(t, trace.Failures(r.trace.Events()), "a cancelled task is not a broken step")
	})
}

// A task cancelled while its operators open must never run, even if the
// operators finish opening in spite of the cancellation.
func TestATaskCancelledWhileInitializingNeverRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{restore: func(ctx context.Context) error {
			<-ctx.Done()
			return nil // this operator finishes opening all the same
		}})
		r.task.Start()
		synctest.Wait()
		require.Equal(t, api.ExecutionInitializing, r.task.State())

		r.task.Cancel()
		r.awaitEnd(t)
		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "CANCELING", "CANCELED"}, r.timeline.Events(),
			"a task cancelled while INITIALIZING must not switch to RUNNING nor process records")
	})
}

// A task whose input partition was released (its producer was cancelled)
// cancels itself, as Flink's task does on a CancelTaskException.
func TestATaskWhoseInputWasReleasedCancelsItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{invoke: func(context.Context) error {
			return fmt.Errorf("read the input: %w", network.ErrPartitionReleased)
		}})
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "CANCELED"}, r.timeline.Events(),
			"a released input cancels the task; it does not fail it")
		assert.Contains(t, r.logs.String(), r.switched(api.ExecutionRunning, api.ExecutionCanceled)+" due to CancelTaskException.")
	})
}

// A task failed from outside (its slot was freed, its JobManager is gone)
// keeps the cause it was failed with; what its code returns when it stops
// changes nothing.
func TestATaskFailedFromOutsideKeepsItsCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{invoke: blockUntilCancelled})
		r.task.Start()
		synctest.Wait()

		slotFreed := errors.New("The slot was freed.")
		r.task.FailExternally(slotFreed)
		r.awaitEnd(t)
		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "Restore()", "RUNNING", "Invoke()", "FAILED"}, r.timeline.Events())
		assert.ErrorIs(t, r.timeline.Final().FailureCause, slotFreed, "the final report carries the cause the task was failed with")
		assert.Empty(t, trace.Failures(r.trace.Events()), "a task failed from outside is not a broken step of its own")
	})
}

// `make run INJECT=m11`: the fault makes an operator's open() throw. The
// task must fail exactly as with a real open() failure.
func TestAnInjectedOpenFailureFailsTheTaskFromInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRun(t, scriptedTask, &script{})
		require.NoError(t, r.faults.Inject(fault.Fault{Step: trace.M11}))
		r.task.Start()
		r.awaitEnd(t)

		assert.Equal(t, []string{"DEPLOYING", "INITIALIZING", "FAILED"}, r.timeline.Events(),
			"the injected open() failure fails the task from INITIALIZING, before its operators run")
		var injected *fault.InjectedError
		assert.ErrorAs(t, r.timeline.Final().FailureCause, &injected)
	})
}

// On a real TaskExecutor, the JobMaster hears INITIALIZING and then FAILED
// with the operator's exception: what its log shows as "switched from
// INITIALIZING to FAILED on tm-1".
func TestTheJobMasterHearsAnOpenFailureAfterInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := scenario.StartTaskExecutor(t, taskexecutor.Config{})
		jm, allocationID := tm.JobWithActiveSlot(0)
		openFailed := errors.New("RuntimeException: open() of the tokenizer threw")
		tl := &timeline{}
		scripts.Store(jm.JobID, &script{timeline: tl, restore: func(context.Context) error { return openFailed }})
		t.Cleanup(func() { scripts.Delete(jm.JobID) })

		tdd := tm.TDD(jm.JobID, allocationID, scriptedTask)
		require.NoError(t, tm.TaskExecutor.SubmitTask(context.Background(), tdd, jm.JobMasterID))
		synctest.Wait()

		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionFailed}, jm.States(),
			"the JobMaster hears the task initialize, then fail")
		if reports := jm.Reports(); assert.NotEmpty(t, reports) {
			assert.ErrorIs(t, reports[len(reports)-1].FailureCause, openFailed)
		}
		assert.Empty(t, tm.Tasks(), "the failed task is unregistered from its slot")
	})
}
