package jobmanager_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeJobMasterGateway answers the runner's questions about the job. Only
// RequestJobStatus, RequestJob, Cancel and the resource requirements are
// used by the runner; the rest fail loudly.
type fakeJobMasterGateway struct {
	mu           sync.Mutex
	status       api.JobStatus
	cancels      int
	requirements jobgraph.JobResourceRequirements // what UpdateJobResourceRequirements set
}

var _ gateway.JobMasterGateway = (*fakeJobMasterGateway)(nil)

var errNotFaked = errors.New("not faked")

func (g *fakeJobMasterGateway) RegisterTaskManager(context.Context, api.JobMasterID, api.JobID, gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	return gateway.JMTMRegistrationSuccess{}, errNotFaked
}

func (g *fakeJobMasterGateway) OfferSlots(context.Context, api.JobMasterID, api.ResourceID, []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	return nil, errNotFaked
}

func (g *fakeJobMasterGateway) UpdateTaskExecutionState(context.Context, api.JobMasterID, gateway.TaskExecutionState) error {
	return errNotFaked
}

func (g *fakeJobMasterGateway) DisconnectTaskManager(context.Context, api.JobMasterID, api.ResourceID, error) error {
	return errNotFaked
}

func (g *fakeJobMasterGateway) NotifyNotEnoughResourcesAvailable(context.Context, api.JobMasterID, int) error {
	return errNotFaked
}

func (g *fakeJobMasterGateway) RequestJobStatus(context.Context) (api.JobStatus, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status, nil
}

func (g *fakeJobMasterGateway) RequestJob(context.Context) (*gateway.ArchivedExecutionGraph, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return &gateway.ArchivedExecutionGraph{State: g.status}, nil
}

func (g *fakeJobMasterGateway) Cancel(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cancels++
	g.status = api.JobCancelling
	return nil
}

func (g *fakeJobMasterGateway) RequestJobResourceRequirements(context.Context) (jobgraph.JobResourceRequirements, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requirements, nil
}

func (g *fakeJobMasterGateway) UpdateJobResourceRequirements(_ context.Context, requirements jobgraph.JobResourceRequirements) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requirements = requirements
	return nil
}

func (g *fakeJobMasterGateway) cancelled() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cancels
}

// fakeJobMaster is the JobMasterService the factory hands the runner.
type fakeJobMaster struct {
	address  string
	gateway  *fakeJobMasterGateway
	startErr error
	trace    *trace.Recorder
	jobID    api.JobID

	mu           sync.Mutex
	starts       int
	closes       int
	stepsAtStart []trace.Step // the job's trace when Start was called
}

var _ jobmanager.JobMasterService = (*fakeJobMaster)(nil)

func (m *fakeJobMaster) Start() error {
	steps := trace.Steps(m.trace.JobEvents(m.jobID))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.starts++
	m.stepsAtStart = steps
	return m.startErr
}

func (m *fakeJobMaster) Gateway() gateway.JobMasterGateway { return m.gateway }
func (m *fakeJobMaster) Address() string                   { return m.address }

func (m *fakeJobMaster) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closes++
	return nil
}

func (m *fakeJobMaster) counts() (starts, closes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.starts, m.closes
}

// fakeFactory creates the fake JobMaster, optionally only once release is
// closed (building an ExecutionGraph takes a while).
type fakeFactory struct {
	jobMaster *fakeJobMaster
	err       error
	release   chan struct{}

	mu          sync.Mutex
	jobMasterID []api.JobMasterID
	onComplete  func(*gateway.ArchivedExecutionGraph)
}

func (f *fakeFactory) create(id api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
	f.mu.Lock()
	f.jobMasterID = append(f.jobMasterID, id)
	f.onComplete = onComplete
	f.mu.Unlock()
	if f.release != nil {
		<-f.release
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.jobMaster, nil
}

func (f *fakeFactory) calls() []api.JobMasterID {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.JobMasterID(nil), f.jobMasterID...)
}

func (f *fakeFactory) complete(g *gateway.ArchivedExecutionGraph) {
	f.mu.Lock()
	onComplete := f.onComplete
	f.mu.Unlock()
	onComplete(g)
}

// leaderNotification is what a JobManagerLeaderRetriever listener heard.
type leaderNotification struct {
	address string
	session api.LeaderSessionID
}

// fakeListener stands in for a TaskExecutor looking for the job's JobMaster.
type fakeListener struct {
	mu      sync.Mutex
	leaders []leaderNotification
}

func (l *fakeListener) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leaders = append(l.leaders, leaderNotification{address, session})
}

func (l *fakeListener) notifications() []leaderNotification {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]leaderNotification(nil), l.leaders...)
}

// standby is another contender for the same job's leadership.
type standby struct {
	mu     sync.Mutex
	grants []api.LeaderSessionID
}

func (s *standby) GrantLeadership(id api.LeaderSessionID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants = append(s.grants, id)
}
func (s *standby) RevokeLeadership() {}
func (s *standby) granted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.grants)
}

const jobMasterAddress = "pekko://flink/user/rpc/jobmanager_2"

// runnerFixture is one job's runner with fakes around it.
type runnerFixture struct {
	graph    *jobgraph.JobGraph
	ha       *highavailability.EmbeddedHaServices
	trace    *trace.Recorder
	faults   *fault.Injector
	gateway  *fakeJobMasterGateway
	jm       *fakeJobMaster
	factory  *fakeFactory
	listener *fakeListener
	runner   *jobmanager.JobMasterServiceLeadershipRunner
}

// newRunnerFixture builds the runner but does not start it. Call it inside
// the synctest bubble so that the runner's goroutines belong to it.
func newRunnerFixture(t *testing.T) *runnerFixture {
	t.Helper()
	f := &runnerFixture{
		graph:    newJobGraph("WordCount"),
		ha:       highavailability.NewEmbeddedHaServices(),
		trace:    trace.NewRecorder(),
		faults:   fault.NewInjector(nil),
		gateway:  &fakeJobMasterGateway{status: api.JobRunning},
		listener: &fakeListener{},
	}
	f.jm = &fakeJobMaster{address: jobMasterAddress, gateway: f.gateway, trace: f.trace, jobID: f.graph.JobID}
	f.factory = &fakeFactory{jobMaster: f.jm}
	require.NoError(t, f.ha.JobManagerLeaderRetriever(f.graph.JobID).Start(f.listener))

	runner, err := jobmanager.NewJobMasterServiceLeadershipRunner(jobmanager.RunnerConfig{
		JobGraph:         f.graph,
		LeaderElection:   f.ha.JobManagerLeaderElection(f.graph.JobID),
		JobResultStore:   f.ha.JobResultStore(),
		JobMasterFactory: f.factory.create,
		Logger:           slog.New(slog.DiscardHandler),
		Trace:            f.trace,
		Faults:           f.faults,
	})
	require.NoError(t, err)
	f.runner = runner
	return f
}

func (f *runnerFixture) status(t *testing.T) api.JobStatus {
	t.Helper()
	s, err := f.runner.RequestJobStatus(context.Background())
	require.NoError(t, err)
	return s
}

func isDone(r jobmanager.JobManagerRunner) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

func TestRunnerStartsTheJobMasterWhenGrantedLeadership(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		f.factory.release = make(chan struct{})

		// The Dispatcher starts the runner; leadership is granted at once
		// and the JobMaster is being built.
		require.NoError(t, f.runner.Start())
		synctest.Wait()
		require.Len(t, f.factory.calls(), 1)
		assert.Equal(t, api.JobInitializing, f.status(t), "no JobMaster yet: the runner answers INITIALIZING")
		sparse, err := f.runner.RequestJob(context.Background())
		require.NoError(t, err)
		assert.Equal(t, api.JobInitializing, sparse.State)
		assert.Equal(t, "WordCount", sparse.JobName)
		assert.Equal(t, f.graph.JobID, sparse.JobID)
		require.Len(t, sparse.Vertices, 2)
		assert.Equal(t, 2, sparse.Vertices[1].Parallelism)
		assert.Equal(t, 128, sparse.Vertices[1].MaxParallelism, "Flink's default max parallelism")
		assert.Empty(t, f.listener.notifications(), "leadership is not confirmed before the JobMaster runs")
		starts, _ := f.jm.counts()
		assert.Zero(t, starts)
		assert.Empty(t, f.trace.JobEvents(f.graph.JobID))

		// Step m4: the JobMaster is built, started, and its address published.
		close(f.factory.release)
		synctest.Wait()
		starts, closes := f.jm.counts()
		assert.Equal(t, 1, starts)
		assert.Zero(t, closes)
		notes := f.listener.notifications()
		require.Len(t, notes, 1)
		assert.Equal(t, jobMasterAddress, notes[0].address)
		session := notes[0].session
		assert.False(t, session.IsZero())
		assert.Equal(t, []api.JobMasterID{api.JobMasterID(session)}, f.factory.calls(),
			"the leader session becomes the JobMaster's fencing token")
		assert.Equal(t, api.JobRunning, f.status(t), "now the JobMaster answers")
		assert.False(t, isDone(f.runner))

		// The trace shows m4 before the JobMaster started.
		assert.Equal(t, []trace.Step{trace.M4}, f.jm.stepsAtStart)
		assert.Equal(t, []trace.Step{trace.M4}, trace.Steps(f.trace.JobEvents(f.graph.JobID)))

		require.NoError(t, f.runner.Close())
	})
}

func TestRunnerFailsTheJobWhenTheJobMasterCannotStart(t *testing.T) {
	cause := errors.New("The vertex 0a44 (Source) has no invokable class.")
	tests := []struct {
		name         string
		factoryErr   error
		startErr     error
		wantJMStarts int
		wantJMCloses int
	}{
		{name: "the factory fails", factoryErr: cause},
		{name: "JobMaster.Start fails", startErr: cause, wantJMStarts: 1, wantJMCloses: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newRunnerFixture(t)
				f.factory.err = tt.factoryErr
				f.jm.startErr = tt.startErr

				require.NoError(t, f.runner.Start())
				synctest.Wait()

				require.True(t, isDone(f.runner), "the runner ends")
				result := f.runner.Result()
				require.NotNil(t, result.ExecutionGraph)
				assert.Equal(t, api.JobFailed, result.ExecutionGraph.State)
				assert.Contains(t, result.ExecutionGraph.FailureCause, "Could not start the JobMaster.")
				assert.Contains(t, result.ExecutionGraph.FailureCause, cause.Error())
				assert.ErrorIs(t, result.InitializationFailure, jobmanager.ErrJobInitialization)
				assert.ErrorIs(t, result.InitializationFailure, cause)
				assert.Equal(t, api.JobFailed, f.status(t))
				assert.Empty(t, f.listener.notifications(), "a JobMaster that never ran is never announced")
				starts, closes := f.jm.counts()
				assert.Equal(t, tt.wantJMStarts, starts)
				assert.Equal(t, tt.wantJMCloses, closes)

				require.NoError(t, f.runner.Close())
				assert.Equal(t, api.JobFailed, f.runner.Result().ExecutionGraph.State, "Close does not overwrite the result")
			})
		})
	}
}

func TestRunnerDoesNotRunAJobThatIsAlreadyDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.ha.JobResultStore().CreateDirtyResult(api.JobResult{
			JobID: f.graph.JobID, JobStatus: api.JobFinished, ApplicationStatus: api.ApplicationSucceeded,
		}))

		require.NoError(t, f.runner.Start())
		synctest.Wait()

		assert.Empty(t, f.factory.calls(), "no JobMaster is created")
		require.True(t, isDone(f.runner))
		result := f.runner.Result()
		assert.Equal(t, api.JobFailed, result.ExecutionGraph.State)
		assert.Contains(t, result.ExecutionGraph.FailureCause, "globally terminal state")
		assert.Empty(t, f.trace.JobEvents(f.graph.JobID))
		require.NoError(t, f.runner.Close())
	})
}

// A job cancelled while its JobMaster is being built reads CANCELLING, not
// CANCELED: the cancel waits for the JobMaster and goes on to it once it
// runs, and the JobMaster ends the job (Flink's
// hasCurrentLeaderBeenCancelled and jobMasterGatewayFuture).
func TestCancelWhileInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		f.factory.release = make(chan struct{})
		require.NoError(t, f.runner.Start())
		synctest.Wait() // the JobMaster is being built
		require.Equal(t, api.JobInitializing, f.status(t))

		cancelled := make(chan error, 1)
		go func() { cancelled <- f.runner.Cancel(context.Background()) }()
		synctest.Wait()
		assert.Equal(t, api.JobCancelling, f.status(t), "a cancelled job without a JobMaster reads CANCELLING")
		g, err := f.runner.RequestJob(context.Background())
		require.NoError(t, err)
		assert.Equal(t, api.JobCancelling, g.State)
		assert.False(t, isDone(f.runner), "the job is not over before its JobMaster ends it")
		select {
		case err := <-cancelled:
			t.Fatalf("the cancel returned (%v) before the JobMaster ran", err)
		default:
		}

		close(f.factory.release) // the JobMaster is built and starts
		synctest.Wait()
		require.NoError(t, <-cancelled)
		assert.Equal(t, 1, f.gateway.cancelled(), "the cancel went on to the JobMaster")
		starts, _ := f.jm.counts()
		assert.Equal(t, 1, starts, "a cancelled job's JobMaster still starts: it is what cancels the job")
		assert.Equal(t, api.JobCancelling, f.status(t), "now the JobMaster answers")
		assert.False(t, isDone(f.runner))

		f.factory.complete(&gateway.ArchivedExecutionGraph{JobID: f.graph.JobID, State: api.JobCanceled})
		require.True(t, isDone(f.runner))
		assert.Equal(t, api.JobCanceled, f.runner.Result().ExecutionGraph.State)
		require.NoError(t, f.runner.Close())
	})
}

// A cancel that waits for a JobMaster that will never run fails with
// Flink's "Cancellation failed." and the reason there is none.
func TestCancelFailsWhenThereWillBeNoJobMaster(t *testing.T) {
	tests := []struct {
		name       string
		end        func(t *testing.T, f *runnerFixture)
		wantCause  string
		wantStatus api.JobStatus // after the cancel failed
	}{
		{"the JobMaster cannot be created", func(_ *testing.T, f *runnerFixture) {
			f.factory.err = errors.New("The vertex 0a44 (Source) has no invokable class.")
			close(f.factory.release)
		}, "Could not retrieve JobMasterGateway because the JobMaster initialization failed.", api.JobFailed},
		{"the leadership is revoked", func(_ *testing.T, f *runnerFixture) {
			f.runner.RevokeLeadership()
		}, "Cannot obtain JobMasterGateway because the JobMaster lost leadership.", api.JobInitializing},
		{"the runner is closed", func(t *testing.T, f *runnerFixture) {
			go func() { close(f.factory.release) }()
			require.NoError(t, f.runner.Close())
		}, "JobMasterServiceLeadershipRunner is closed. Therefore, the corresponding JobMaster will never acquire the leadership.", api.JobSuspended},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newRunnerFixture(t)
				f.factory.release = make(chan struct{})
				require.NoError(t, f.runner.Start())
				synctest.Wait()

				cancelled := make(chan error, 1)
				go func() { cancelled <- f.runner.Cancel(context.Background()) }()
				synctest.Wait()
				tt.end(t, f)
				synctest.Wait()

				err := <-cancelled
				require.Error(t, err)
				assert.Contains(t, err.Error(), "Cancellation failed.")
				assert.Contains(t, err.Error(), tt.wantCause)
				assert.Zero(t, f.gateway.cancelled())
				assert.Equal(t, tt.wantStatus, f.status(t), "a revoked leadership forgets the cancel, as Flink's runner does")

				if tt.name == "the leadership is revoked" {
					close(f.factory.release) // the JobMaster of the lost session is built, and closed unstarted
				}
				require.NoError(t, f.runner.Close())
			})
		})
	}
}

func TestCancelOfARunningJobGoesToTheJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.runner.Start())
		synctest.Wait()

		require.NoError(t, f.runner.Cancel(context.Background()))
		assert.Equal(t, 1, f.gateway.cancelled())
		assert.False(t, isDone(f.runner), "the JobMaster reports when the job is CANCELED")
		require.NoError(t, f.runner.Close())
	})
}

func TestJobMasterCompletionCompletesTheRunner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.runner.Start())
		synctest.Wait()
		require.False(t, isDone(f.runner))

		final := &gateway.ArchivedExecutionGraph{JobID: f.graph.JobID, JobName: "WordCount", State: api.JobFinished}
		f.factory.complete(final)

		require.True(t, isDone(f.runner))
		result := f.runner.Result()
		assert.Same(t, final, result.ExecutionGraph)
		assert.NoError(t, result.InitializationFailure)
		assert.Equal(t, api.JobFinished, f.status(t), "the final status, not the JobMaster's answer")

		// A second report and Close change nothing.
		f.factory.complete(&gateway.ArchivedExecutionGraph{State: api.JobFailed})
		require.NoError(t, f.runner.Close())
		assert.Same(t, final, f.runner.Result().ExecutionGraph)
		_, closes := f.jm.counts()
		assert.Equal(t, 1, closes)
	})
}

// A runner whose job has its result (JOB_COMPLETED), or that was closed
// (STOPPED), no longer leads the job: a new grant builds no JobMaster
// (Flink's runIfStateRunning).
func TestARunnerThatIsNoLongerRunningIgnoresGrants(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, f *runnerFixture)
	}{
		{"the job has its result", func(_ *testing.T, f *runnerFixture) {
			f.factory.complete(&gateway.ArchivedExecutionGraph{JobID: f.graph.JobID, State: api.JobFinished})
		}},
		{"the runner was closed", func(t *testing.T, f *runnerFixture) { require.NoError(t, f.runner.Close()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newRunnerFixture(t)
				require.NoError(t, f.runner.Start())
				synctest.Wait()
				require.Len(t, f.factory.calls(), 1)

				tt.end(t, f)
				f.runner.RevokeLeadership()
				f.runner.GrantLeadership(api.NewLeaderSessionID())
				synctest.Wait()

				assert.Len(t, f.factory.calls(), 1, "a runner that no longer runs builds no JobMaster")
				starts, _ := f.jm.counts()
				assert.Equal(t, 1, starts)
				require.NoError(t, f.runner.Close())
			})
		})
	}
}

func TestCloseSuspendsAnUnfinishedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.runner.Start())
		synctest.Wait()
		next := &standby{}
		require.NoError(t, f.ha.JobManagerLeaderElection(f.graph.JobID).StartLeaderElection(next))
		require.Zero(t, next.granted(), "the runner leads the job")

		require.NoError(t, f.runner.Close())

		require.True(t, isDone(f.runner))
		assert.Equal(t, api.JobSuspended, f.runner.Result().ExecutionGraph.State)
		assert.NoError(t, f.runner.Result().InitializationFailure)
		starts, closes := f.jm.counts()
		assert.Equal(t, 1, starts)
		assert.Equal(t, 1, closes, "the JobMaster is closed exactly once")
		notes := f.listener.notifications()
		require.Len(t, notes, 2)
		assert.Equal(t, leaderNotification{}, notes[1], "the JobMaster's address is withdrawn")
		assert.Equal(t, 1, next.granted(), "the runner left the election")
	})
}

func TestCloseWhileInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		f.factory.release = make(chan struct{})
		require.NoError(t, f.runner.Start())
		synctest.Wait() // the JobMaster is being built

		closed := make(chan error, 1)
		go func() { closed <- f.runner.Close() }()
		synctest.Wait() // Close waits for the JobMaster's creation
		select {
		case <-closed:
			t.Fatal("Close returned before the JobMaster's creation ended")
		default:
		}

		close(f.factory.release)
		require.NoError(t, <-closed)
		starts, closes := f.jm.counts()
		assert.Zero(t, starts, "a closed runner never starts its JobMaster")
		assert.Equal(t, 1, closes)
		assert.Equal(t, api.JobSuspended, f.runner.Result().ExecutionGraph.State)
		for _, n := range f.listener.notifications() {
			assert.Empty(t, n.address, "a JobMaster that never started is never announced")
		}
	})
}

func TestRunnerRefusesAnEmptyJob(t *testing.T) {
	ha := highavailability.NewEmbeddedHaServices()
	tests := []struct {
		name  string
		graph *jobgraph.JobGraph
	}{
		{"no vertices", jobgraph.New("empty")},
		{"no graph", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runner, err := jobmanager.NewJobMasterServiceLeadershipRunner(jobmanager.RunnerConfig{
				JobGraph:         tt.graph,
				LeaderElection:   ha.JobManagerLeaderElection(api.NewJobID()),
				JobResultStore:   ha.JobResultStore(),
				JobMasterFactory: (&fakeFactory{}).create,
				Logger:           slog.New(slog.DiscardHandler),
			})
			require.Error(t, err)
			assert.Equal(t, "The given job is empty", err.Error())
			assert.Nil(t, runner)
		})
	}
}

func TestAFaultAtStepM4FailsTheJobDuringInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.faults.Inject(fault.Fault{Step: trace.M4}))
		require.NoError(t, f.runner.Start())
		synctest.Wait()

		require.True(t, isDone(f.runner))
		result := f.runner.Result()
		assert.Equal(t, api.JobFailed, result.ExecutionGraph.State)
		assert.Equal(t, "JobInitializationException: Could not start the JobMaster.: fault injected at step m4 (jobmaster-start-failure)",
			result.ExecutionGraph.FailureCause)
		starts, closes := f.jm.counts()
		assert.Equal(t, 0, starts, "the JobMaster never starts")
		assert.Equal(t, 1, closes, "and is closed")

		events := f.trace.JobEvents(f.graph.JobID)
		require.Len(t, trace.Failures(events), 1)
		d, ok := fault.Diagnose(events)
		require.True(t, ok)
		assert.Equal(t, trace.M4, d.Step)
		assert.Equal(t, "JobMaster", d.Component)
		require.NoError(t, f.runner.Close())
	})
}

// Step m4 breaks in two places: the JobMaster's creation
// (max-parallelism-exceeded, in jobmaster.New) and its start
// (jobmaster-start-failure, here). The runner fires only its own kind: a
// fault armed for the creation is not used up by the start.
func TestTheRunnerFiresOnlyItsOwnKindOfM4(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		require.NoError(t, f.faults.Inject(fault.Fault{Step: trace.M4, Kind: fault.MaxParallelismExceeded}))
		require.NoError(t, f.runner.Start())
		synctest.Wait()

		assert.False(t, isDone(f.runner), "the JobMaster runs")
		starts, _ := f.jm.counts()
		assert.Equal(t, 1, starts)
		assert.Empty(t, f.faults.Fired())
		assert.Equal(t, []fault.Fault{{Step: trace.M4, Kind: fault.MaxParallelismExceeded, Times: 1}}, f.faults.Armed(),
			"the fault of the JobMaster's creation stays armed")
		require.NoError(t, f.runner.Close())
	})
}

func (g *fakeJobMasterGateway) AcknowledgeCheckpoint(context.Context, checkpoint.AcknowledgeCheckpoint) error {
	return nil
}

func (g *fakeJobMasterGateway) DeclineCheckpoint(context.Context, checkpoint.DeclineCheckpoint) error {
	return nil
}

func (g *fakeJobMasterGateway) TriggerSavepoint(context.Context, string, bool) (string, error) {
	return "", errNotFaked
}

func (g *fakeJobMasterGateway) StopWithSavepoint(context.Context, string, bool) (string, error) {
	return "", errNotFaked
}

func (g *fakeJobMasterGateway) RequestCheckpointStats(context.Context) (*checkpoint.CheckpointStatsSnapshot, error) {
	return nil, errNotFaked
}
