package taskmanager_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/network"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recordingActions is the TaskExecutor's side of a Task in these tests: it
// records every state the task reports.
type recordingActions struct {
	mu     sync.Mutex
	states []gateway.TaskExecutionState
}

func (a *recordingActions) UpdateTaskExecutionState(state gateway.TaskExecutionState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.states = append(a.states, state)
}

// reported returns the reported states, in order.
func (a *recordingActions) reported() []api.ExecutionState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]api.ExecutionState, len(a.states))
	for i, s := range a.states {
		out[i] = s.State
	}
	return out
}

// final returns the last report.
func (a *recordingActions) final() gateway.TaskExecutionState {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.states[len(a.states)-1]
}

// fakeInvokable runs the given functions; nil ones succeed at once.
type fakeInvokable struct {
	restore func(ctx context.Context) error
	invoke  func(ctx context.Context) error
}

func (f *fakeInvokable) Restore(ctx context.Context) error {
	if f.restore == nil {
		return nil
	}
	return f.restore(ctx)
}

func (f *fakeInvokable) Invoke(ctx context.Context) error {
	if f.invoke == nil {
		return nil
	}
	return f.invoke(ctx)
}

var invokableClasses atomic.Int64

// registerInvokable registers factory under a class name of this test's own
// (unique also when tests run more than once).
func registerInvokable(t *testing.T, factory taskmanager.InvokableFactory) string {
	className := fmt.Sprintf("org.flinklab.test.%s$%d", t.Name(), invokableClasses.Add(1))
	taskmanager.RegisterInvokable(className, factory)
	return className
}

// fixture is one TaskManager's services: a BlobCache over a real BlobServer
// holding the job's jar, a ShuffleEnvironment, and a recorder of reports.
type fixture struct {
	server  *blob.BlobServer
	shuffle *network.ShuffleEnvironment
	actions *recordingActions
	trace   *trace.Recorder
	faults  *fault.Injector
	logs    *logbuf.Buffer
	jobID   api.JobID
	jar     []byte
	jarKey  blob.PermanentBlobKey
	source  blob.Source // what the cache downloads from; the server unless a test says otherwise
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: discardLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	shuffle, err := network.NewShuffleEnvironment(network.Config{})
	require.NoError(t, err)
	f := &fixture{
		server:  server,
		shuffle: shuffle,
		actions: &recordingActions{},
		trace:   trace.NewRecorder(),
		faults:  fault.NewInjector(nil),
		logs:    &logbuf.Buffer{},
		jobID:   api.NewJobID(),
		jar:     []byte("PK\x03\x04 wordcount.jar"),
		source:  server,
	}
	f.jarKey, err = server.PutPermanentBytes(f.jobID, f.jar)
	require.NoError(t, err)
	return f
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// tdd describes subtask 2 of 4 of a "Map" vertex that writes one partition
// with one subpartition.
func (f *fixture) tdd(className string) gateway.TaskDeploymentDescriptor {
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: 1},
	}
	return gateway.TaskDeploymentDescriptor{
		JobID:              f.jobID,
		JobName:            "WordCount",
		ExecutionAttemptID: attempt,
		AllocationID:       api.NewAllocationID(),
		TaskInfo: gateway.TaskInformation{
			JobVertexID:        attempt.ExecutionVertexID.JobVertexID,
			TaskName:           "Map",
			NumberOfSubtasks:   4,
			InvokableClassName: className,
		},
		UserJarBlobKeys: []blob.PermanentBlobKey{f.jarKey},
		ProducedPartitions: []gateway.ResultPartitionDeploymentDescriptor{{
			PartitionID: api.ResultPartitionID{
				PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID(), PartitionNum: 1},
				ProducerID:  attempt,
			},
			NumberOfSubpartitions: 1,
		}},
	}
}

// newTask creates a task whose BlobCache downloads from f.source.
func (f *fixture) newTask(t *testing.T, tdd gateway.TaskDeploymentDescriptor) *taskmanager.Task {
	t.Helper()
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir: t.TempDir(), Source: f.source, FetchRetries: -1, Logger: discardLogger(), Faults: f.faults,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cache.Close() })
	return taskmanager.NewTask(tdd, taskmanager.Deps{
		BlobService: cache,
		Shuffle:     f.shuffle,
		Actions:     f.actions,
		Trace:       f.trace,
		Faults:      f.faults,
		Logger:      slog.New(slog.NewTextHandler(f.logs, nil)),
	})
}

// attachConsumer returns an input gate attached to subpartition 0 of a
// registered partition, as a downstream task's would be.
func (f *fixture) attachConsumer(t *testing.T, id api.ResultPartitionID) *network.InputGate {
	gate := f.shuffle.CreateInputGate(gateway.InputGateDeploymentDescriptor{
		ShuffleDescriptors: []gateway.ShuffleDescriptor{{ResultPartitionID: id}},
	})
	t.Cleanup(gate.Close)
	require.NoError(t, gate.RequestPartitions(context.Background()))
	return gate
}

// readAll reads a gate to its end.
func readAll(gate *network.InputGate) ([]string, error) {
	var records []string
	for {
		record, err := gate.Next(context.Background())
		if err != nil {
			return records, err
		}
		records = append(records, string(record))
	}
}

func TestTaskRunsThroughEveryState(t *testing.T) {
	f := newFixture(t)
	var env *taskmanager.Environment
	className := registerInvokable(t, func(e *taskmanager.Environment) (taskmanager.Invokable, error) {
		env = e
		return &fakeInvokable{invoke: func(ctx context.Context) error {
			return e.Writers[0].EmitRecord(ctx, []byte("hello"), 0)
		}}, nil
	})
	tdd := f.tdd(className)
	task := f.newTask(t, tdd)
	assert.Equal(t, "Map (2/4)#0", task.TaskNameWithSubtaskAndAttempt())
	assert.Equal(t, api.ExecutionCreated, task.State())

	task.Start()
	<-task.Done()

	assert.Equal(t, api.ExecutionFinished, task.State())
	assert.Equal(t, []api.ExecutionState{
		api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished,
	}, f.actions.reported())
	assert.NoError(t, f.actions.final().FailureCause)

	// The invokable saw its environment: who it is, and the jar on local disk.
	require.NotNil(t, env)
	assert.Equal(t, tdd.ExecutionAttemptID, env.AttemptID)
	assert.Equal(t, 1, env.SubtaskIndex)
	assert.Equal(t, "WordCount", env.JobName)
	require.Len(t, env.UserJarPaths, 1)
	jar, err := os.ReadFile(env.UserJarPaths[0])
	require.NoError(t, err)
	assert.Equal(t, f.jar, jar)

	// The finished partition stays until its consumer has read it.
	records, err := readAll(f.attachConsumer(t, tdd.ProducedPartitions[0].PartitionID))
	assert.ErrorIs(t, err, io.EOF)
	assert.Equal(t, []string{"hello"}, records)

	// The jar was fetched (m10) before the operators opened (m11).
	assert.Equal(t, []trace.Step{trace.M10, trace.M11}, trace.Steps(f.trace.JobEvents(f.jobID)))
	events := f.trace.Events()
	assert.Equal(t, "BlobServer", events[0].To)
	assert.Equal(t, "Task", events[1].From)
	assert.Equal(t, "JobMaster", events[1].To)

	logs := f.logs.String()
	for _, line := range []string{
		"Loading JAR files for task Map (2/4)#0.",
		"Map (2/4)#0 (" + tdd.ExecutionAttemptID.String() + ") switched from CREATED to DEPLOYING.",
		"Map (2/4)#0 (" + tdd.ExecutionAttemptID.String() + ") switched from DEPLOYING to INITIALIZING.",
		"Map (2/4)#0 (" + tdd.ExecutionAttemptID.String() + ") switched from INITIALIZING to RUNNING.",
		"Map (2/4)#0 (" + tdd.ExecutionAttemptID.String() + ") switched from RUNNING to FINISHED.",
	} {
		assert.Contains(t, logs, line)
	}
}

func TestTaskFailures(t *testing.T) {
	openFailed := errors.New("open() of Map threw")
	processFailed := errors.New("processElement of Map threw")
	tests := []struct {
		name        string
		restoreErr  error
		invokeErr   error
		wantStates  []api.ExecutionState
		wantCause   error
		wantLogLine string
	}{
		{
			name:        "operator open fails while INITIALIZING",
			restoreErr:  openFailed,
			wantStates:  []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionFailed},
			wantCause:   openFailed,
			wantLogLine: "switched from INITIALIZING to FAILED with failure cause: open() of Map threw",
		},
		{
			name:        "user code fails while RUNNING",
			invokeErr:   processFailed,
			wantStates:  []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFailed},
			wantCause:   processFailed,
			wantLogLine: "switched from RUNNING to FAILED with failure cause: processElement of Map threw",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var consumer *network.InputGate
			className := registerInvokable(t, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
				return &fakeInvokable{
					restore: func(ctx context.Context) error {
						consumer = f.attachConsumer(t, env.Writers[0].ID())
						return tt.restoreErr
					},
					invoke: func(context.Context) error { return tt.invokeErr },
				}, nil
			})
			task := f.newTask(t, f.tdd(className))
			task.Start()
			<-task.Done()

			assert.Equal(t, tt.wantStates, f.actions.reported())
			assert.ErrorIs(t, f.actions.final().FailureCause, tt.wantCause)
			assert.ErrorIs(t, task.FailureCause(), tt.wantCause)
			assert.Contains(t, f.logs.String(), tt.wantLogLine)
			assert.Contains(t, f.logs.String(), "level=WARN")
			failures := trace.Failures(f.trace.JobEvents(f.jobID))
			if assert.Len(t, failures, 1, "the trace shows where the task broke") {
				assert.Equal(t, trace.M11, failures[0].Step)
				assert.Contains(t, failures[0].Message, tt.wantLogLine)
			}

			// The partition was failed, so its consumer stops with the cause.
			_, err := consumer.Next(context.Background())
			assert.ErrorIs(t, err, network.ErrProducerFailed)
			assert.ErrorIs(t, err, tt.wantCause)
		})
	}
}

func TestPanickingUserCodeFailsOnlyItsTask(t *testing.T) {
	f := newFixture(t)
	className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{invoke: func(context.Context) error { panic("index out of range [3] with length 3") }}, nil
	})
	task := f.newTask(t, f.tdd(className))
	task.Start()
	<-task.Done()

	assert.Equal(t, api.ExecutionFailed, task.State())
	assert.ErrorIs(t, task.FailureCause(), taskmanager.ErrUserCodePanicked)
	assert.ErrorContains(t, task.FailureCause(), "index out of range [3] with length 3")
}

func TestTaskFailsToDeploy(t *testing.T) {
	t.Run("unknown invokable class", func(t *testing.T) {
		f := newFixture(t)
		task := f.newTask(t, f.tdd("org.example.NoSuchTask"))
		task.Start()
		<-task.Done()

		assert.Equal(t, []api.ExecutionState{api.ExecutionDeploying, api.ExecutionFailed}, f.actions.reported())
		cause := f.actions.final().FailureCause
		assert.ErrorContains(t, cause, "Could not load the task's invokable class.")
		assert.ErrorContains(t, cause, "org.example.NoSuchTask")
		assert.ErrorIs(t, cause, taskmanager.ErrInvokableClassNotFound)
	})

	t.Run("the invokable cannot be instantiated", func(t *testing.T) {
		f := newFixture(t)
		className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
			return nil, errors.New("bad configuration")
		})
		task := f.newTask(t, f.tdd(className))
		task.Start()
		<-task.Done()

		assert.Equal(t, []api.ExecutionState{api.ExecutionDeploying, api.ExecutionFailed}, f.actions.reported())
		assert.ErrorContains(t, f.actions.final().FailureCause, "Could not instantiate the task's invokable class.")
	})

	t.Run("corrupted jar", func(t *testing.T) {
		f := newFixture(t)
		f.source = blob.SourceFunc(func(ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader([]byte("PK\x03\x04 tampered.jar"))), nil
		})
		className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
			t.Error("the invokable of a task whose jar is corrupted was created")
			return &fakeInvokable{}, nil
		})
		task := f.newTask(t, f.tdd(className))
		task.Start()
		<-task.Done()

		assert.Equal(t, []api.ExecutionState{api.ExecutionDeploying, api.ExecutionFailed}, f.actions.reported())
		cause := f.actions.final().FailureCause
		assert.ErrorIs(t, cause, blob.ErrChecksumMismatch)
		assert.ErrorContains(t, cause, "No retries left.")
		events := f.trace.JobEvents(f.jobID)
		require.Equal(t, []trace.Step{trace.M10, trace.M11}, trace.Steps(events), "m10 broke: the jar never arrived")
		assert.True(t, events[0].Failed && events[1].Failed)
		assert.Contains(t, events[0].Message, "Failed to fetch BLOB")
		assert.Contains(t, events[1].Message, "switched from DEPLOYING to FAILED")
	})
}

func TestCancelRunningTask(t *testing.T) {
	f := newFixture(t)
	running := make(chan struct{})
	var consumer *network.InputGate
	className := registerInvokable(t, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{invoke: func(ctx context.Context) error {
			consumer = f.attachConsumer(t, env.Writers[0].ID())
			close(running)
			<-ctx.Done()
			return ctx.Err()
		}}, nil
	})
	tdd := f.tdd(className)
	task := f.newTask(t, tdd)
	task.Start()
	<-running

	task.Cancel()
	<-task.Done()

	assert.Equal(t, api.ExecutionCanceled, task.State())
	assert.Equal(t, []api.ExecutionState{
		api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning,
		api.ExecutionCanceling, api.ExecutionCanceled,
	}, f.actions.reported())
	assert.NoError(t, f.actions.final().FailureCause)
	_, err := consumer.Next(context.Background())
	assert.ErrorIs(t, err, network.ErrPartitionReleased, "a cancelled task releases its partitions")

	task.Cancel() // a second cancel changes nothing
	assert.Len(t, f.actions.reported(), 5)
}

func TestTaskWhoseInputWasReleasedCancelsItself(t *testing.T) {
	f := newFixture(t)
	upstream := api.ResultPartitionID{
		PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID()},
		ProducerID:  api.ExecutionAttemptID{ExecutionGraphID: api.NewExecutionGraphID()},
	}
	producer, err := f.shuffle.CreateResultPartition(upstream, 2)
	require.NoError(t, err)
	reading := make(chan struct{})
	className := registerInvokable(t, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{invoke: func(ctx context.Context) error {
			if err := env.Inputs[0].RequestPartitions(ctx); err != nil {
				return err
			}
			close(reading)
			_, err := env.Inputs[0].Next(ctx)
			return err
		}}, nil
	})
	tdd := f.tdd(className)
	tdd.InputGates = []gateway.InputGateDeploymentDescriptor{{
		ConsumedResultID:          upstream.PartitionID.IntermediateDataSetID,
		ConsumedSubpartitionIndex: 1,
		ShuffleDescriptors:        []gateway.ShuffleDescriptor{{ResultPartitionID: upstream}},
	}}
	task := f.newTask(t, tdd)
	task.Start()
	<-reading

	producer.Release() // the upstream task was cancelled
	<-task.Done()

	assert.Equal(t, []api.ExecutionState{
		api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionCanceled,
	}, f.actions.reported())
	assert.NoError(t, task.FailureCause())
	assert.Contains(t, f.logs.String(), "switched from RUNNING to CANCELED due to CancelTaskException.")
}

// A task whose own code returns ErrCancelTaskException (Flink's
// CancelTaskException), wrapped or not, is reported CANCELED, not FAILED:
// straight from the state it was in, with no failure cause, logged at INFO
// "… due to CancelTaskException." (Flink's Task#doRun and
// Task#transitionState).
func TestATaskThatThrowsCancelTaskExceptionEndsCanceledNotFailed(t *testing.T) {
	tests := []struct {
		name       string
		restoreErr error
		invokeErr  error
		wantStates []api.ExecutionState
		wantLine   string
	}{
		{
			name:       "while RUNNING",
			invokeErr:  taskmanager.ErrCancelTaskException,
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionCanceled},
			wantLine:   "switched from RUNNING to CANCELED due to CancelTaskException.",
		},
		{
			name:       "while INITIALIZING",
			restoreErr: taskmanager.ErrCancelTaskException,
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionCanceled},
			wantLine:   "switched from INITIALIZING to CANCELED due to CancelTaskException.",
		},
		{
			name:       "wrapped in another error",
			invokeErr:  fmt.Errorf("the mailbox loop stopped: %w", taskmanager.ErrCancelTaskException),
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionCanceled},
			wantLine:   "switched from RUNNING to CANCELED due to CancelTaskException.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
				return &fakeInvokable{
					restore: func(context.Context) error { return tt.restoreErr },
					invoke:  func(context.Context) error { return tt.invokeErr },
				}, nil
			})
			task := f.newTask(t, f.tdd(className))
			task.Start()
			<-task.Done()

			assert.Equal(t, api.ExecutionCanceled, task.State())
			assert.Equal(t, tt.wantStates, f.actions.reported())
			assert.Equal(t, api.ExecutionCanceled, f.actions.final().State, "the TaskExecutor reports CANCELED, not FAILED")
			assert.NoError(t, f.actions.final().FailureCause)
			assert.NoError(t, task.FailureCause())
			logs := f.logs.String()
			assert.Contains(t, logs, tt.wantLine)
			assert.NotContains(t, logs, "level=WARN")
			assert.NotContains(t, logs, "CANCELING")
			assert.Empty(t, trace.Failures(f.trace.JobEvents(f.jobID)), "a cancellation is no broken step")
		})
	}
}

func TestCancelBeforeStart(t *testing.T) {
	f := newFixture(t)
	task := f.newTask(t, f.tdd("org.example.NeverLoaded"))
	task.Cancel()
	<-task.Done()
	task.Start() // too late: the task is over

	assert.Equal(t, api.ExecutionCanceled, task.State())
	// Flink's Task goes CREATED → CANCELING in cancelExecution and
	// CANCELING → CANCELED when its thread starts; ours makes both moves at
	// once.
	assert.Equal(t, []api.ExecutionState{api.ExecutionCanceling, api.ExecutionCanceled}, f.actions.reported())
}

func TestFailExternallyWhileRunning(t *testing.T) {
	f := newFixture(t)
	running := make(chan struct{})
	className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{invoke: func(ctx context.Context) error {
			close(running)
			<-ctx.Done()
			return ctx.Err()
		}}, nil
	})
	task := f.newTask(t, f.tdd(className))
	task.Start()
	<-running

	gone := errors.New("Disconnect from JobManager responsible for the job.")
	task.FailExternally(gone)
	<-task.Done()

	assert.Equal(t, []api.ExecutionState{
		api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFailed,
	}, f.actions.reported())
	assert.ErrorIs(t, f.actions.final().FailureCause, gone)
}

func TestRegisterInvokablePanicsOnDuplicateOrNil(t *testing.T) {
	className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{}, nil
	})
	_, ok := taskmanager.LookupInvokable(className)
	assert.True(t, ok)
	assert.Contains(t, taskmanager.RegisteredInvokables(), className)

	assert.Panics(t, func() {
		taskmanager.RegisterInvokable(className, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
			return nil, nil
		})
	})
	assert.Panics(t, func() { taskmanager.RegisterInvokable("org.example.Nil", nil) })
}

func TestFaultsAtStepsM10AndM11FailTheTaskWhereFlinkWould(t *testing.T) {
	tests := []struct {
		fault      fault.Fault
		wantStates []api.ExecutionState
		wantCause  string
		wantSteps  []trace.Step // the trace of the task: what happened, then what broke
		wantDiag   string
	}{
		{
			fault:      fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted},
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionFailed},
			wantCause:  "No retries left.",
			wantSteps:  []trace.Step{trace.M10, trace.M11},
			wantDiag:   "BlobServer/BlobCache",
		},
		{
			fault:      fault.Fault{Step: trace.M10, Kind: fault.BlobUnavailable},
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionFailed},
			wantCause:  "No retries left.",
			wantSteps:  []trace.Step{trace.M10, trace.M11},
			wantDiag:   "BlobServer/BlobCache",
		},
		{
			fault:      fault.Fault{Step: trace.M11},
			wantStates: []api.ExecutionState{api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionFailed},
			wantCause:  "RuntimeException: open() of an operator of Map (2/4)#0 threw: fault injected at step m11 (operator-open-throws)",
			wantSteps:  []trace.Step{trace.M10, trace.M11},
			wantDiag:   "Task",
		},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			f := newFixture(t)
			require.NoError(t, f.faults.Inject(tt.fault))
			opened := false
			className := registerInvokable(t, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
				return &fakeInvokable{restore: func(context.Context) error { opened = true; return nil }}, nil
			})
			task := f.newTask(t, f.tdd(className))
			task.Start()
			<-task.Done()

			assert.Equal(t, tt.wantStates, f.actions.reported())
			assert.ErrorContains(t, task.FailureCause(), tt.wantCause)
			assert.False(t, opened, "the operators were never opened")
			events := f.trace.JobEvents(f.jobID)
			assert.Equal(t, tt.wantSteps, trace.Steps(events))
			d, ok := fault.Diagnose(events)
			require.True(t, ok)
			assert.Equal(t, tt.wantDiag, d.Component)
		})
	}
}
