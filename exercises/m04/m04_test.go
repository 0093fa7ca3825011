// Exercise m04: leadership granted, the JobMaster is created and started.
//
// The first tests submit jobs to a real MiniCluster and look at what a
// client and an operator see: the submission is acknowledged at once, and
// the job then runs, or ends FAILED during initialization with "Could not
// start the JobMaster.".
//
// The other tests drive one job's JobManagerRunner on its own, with a fake
// JobMaster factory, so that they can stop time where it matters: while
// the JobMaster is being built, while it starts, and after. They look at
// the job's status, the runner's result, the fake JobMaster (was it
// started? closed?) and what a TaskExecutor looking for the job's
// JobMaster hears from leader retrieval.
package m04_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/trace"
)

// ---- A job in a MiniCluster ----

// numbersJob returns an unbounded job of three vertices at parallelism 1
// whose jar is on the BlobServer.
func numbersJob(t *testing.T, cluster *minicluster.MiniCluster) *jobgraph.JobGraph {
	t.Helper()
	collector := numbers.NewCollector()
	t.Cleanup(collector.Close)
	g := numbers.JobGraph(numbers.Config{Count: 3, Parallelism: 1, Unbounded: true, Collector: collector})
	require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
	return g
}

// statusOf returns the name of the job's status ("RUNNING") and, once
// the job has ended, why it failed.
func statusOf(t *testing.T, cluster *minicluster.MiniCluster, jobID api.JobID) (string, string) {
	t.Helper()
	ctx := context.Background()
	status, err := cluster.RequestJobStatus(ctx, jobID)
	require.NoError(t, err)
	if !status.IsGloballyTerminalState() {
		return status.String(), ""
	}
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	return status.String(), result.FailureCause
}

func TestASubmittedJobGetsAJobMasterAndRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 2})
		job := numbersJob(t, cluster)

		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err)
		synctest.Wait()

		status, cause := statusOf(t, cluster, job.JobID)
		require.Equal(t, api.JobRunning.String(), status,
			"a job whose JobMaster was created and started must run (failure cause: %q)", cause)
		assert.Contains(t, logs.String(), fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s was granted leadership with leader id", job.JobID))
		assert.Contains(t, logs.String(), "Creating new JobMasterServiceProcess.")
		assert.Contains(t, logs.String(), fmt.Sprintf("Starting execution of job '%s' (%s) under job master id", job.Name, job.JobID))
		assert.Contains(t, trace.Steps(cluster.Trace().JobEvents(job.JobID)), trace.M4)
	})
}

// A JobMaster that cannot be created (here: its restart strategy is
// misconfigured) fails the job, long after the submission was
// acknowledged: the client learns it from the job's status and result.
func TestAJobMasterThatCannotBeCreatedFailsTheJobDuringInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := scenario.Cluster(t, minicluster.Config{
			NumTaskManagers: 1, NumSlotsPerTaskManager: 2,
			RestartStrategy: failover.Config{Type: "sometimes"},
		})
		job := numbersJob(t, cluster)

		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err, "the submission is acknowledged before the JobMaster is created")
		synctest.Wait()

		status, cause := statusOf(t, cluster, job.JobID)
		require.Equal(t, api.JobFailed.String(), status, "a job whose JobMaster cannot be created must fail during initialization")
		assert.Contains(t, cause, "Could not start the JobMaster.")
		assert.Contains(t, cause, "sometimes is an unknown value of RestartStrategyType.", "the failure cause must say what went wrong")
		assert.Contains(t, logs.String(), fmt.Sprintf("Job %s reached terminal state FAILED.", job.JobID))
		assert.Contains(t, logs.String(), "JobInitializationException: Could not start the JobMaster.",
			"the Dispatcher's line carries the failure cause: Flink logs the JobMaster's failure itself at DEBUG only")
	})
}

// The fault of step m4 (`make run INJECT=m4`) keeps the created JobMaster
// from starting.
func TestAJobMasterThatDoesNotStartFailsTheJobDuringInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 2})
		job := numbersJob(t, cluster)
		require.NoError(t, cluster.Faults().Inject(fault.Fault{Step: trace.M4, Kind: fault.JobMasterStartFailure, JobID: job.JobID}))

		_, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err, "the submission is acknowledged before the JobMaster is created")
		synctest.Wait()

		status, cause := statusOf(t, cluster, job.JobID)
		require.Equal(t, api.JobFailed.String(), status, "a job whose JobMaster does not start must fail during initialization")
		assert.Contains(t, cause, "Could not start the JobMaster.")
		assert.Contains(t, cause, "fault injected at step m4")
	})
}

// ---- One job's JobManagerRunner, with a fake JobMaster ----

func TestTheJobIsInitializingUntilItsJobMasterRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunner(t)
		r.factory.release = make(chan struct{}) // building the JobMaster takes a while

		require.NoError(t, r.runner.Start()) // the Dispatcher starts the runner: leadership is granted at once
		synctest.Wait()
		require.Len(t, r.factory.calls(), 1, "leadership was granted: the runner must create the JobMaster")
		assert.Equal(t, api.JobInitializing.String(), r.status(t), "until its JobMaster runs, the job is INITIALIZING")
		assert.Empty(t, r.taskExecutors.heard(), "TaskExecutors must not learn of a JobMaster that does not run yet")

		close(r.factory.release) // the JobMaster is built
		synctest.Wait()
		starts, closes := r.jobMaster.counts()
		assert.Equal(t, 1, starts, "the created JobMaster must be started")
		assert.Zero(t, closes, "a running JobMaster must not be closed")
		heard := r.taskExecutors.heard()
		require.Len(t, heard, 1, "once the JobMaster runs, the runner must confirm its leadership with the JobMaster's address")
		assert.Equal(t, r.jobMaster.address, heard[0].address)
		assert.Equal(t, []api.JobMasterID{api.JobMasterID(heard[0].session)}, r.factory.calls(),
			"the leader session ID must become the JobMaster's fencing token, its JobMasterID")
		assert.Zero(t, r.jobMaster.heardAtStart(), "the JobMaster's address must be published only after it has started")
		assert.Equal(t, api.JobRunning.String(), r.status(t), "now the JobMaster answers for the job")
		assert.False(t, r.done(), "the job runs")
		assert.Contains(t, r.logs.String(), fmt.Sprintf(
			"JobMasterServiceLeadershipRunner for job %s was granted leadership with leader id %s. Creating new JobMasterServiceProcess.",
			r.graph.JobID, heard[0].session))
	})
}

func TestAJobMasterThatCannotRunFailsTheJob(t *testing.T) {
	cause := errors.New("The vertex 0a44 (Source) has no invokable class.")
	tests := []struct {
		name         string
		createErr    error // the factory fails: no JobMaster
		startErr     error // the JobMaster is created but fails to start
		wantStarts   int
		wantCloses   int
		closesReason string
	}{
		{name: "its creation fails", createErr: cause,
			closesReason: "there is no JobMaster to close"},
		{name: "its start fails", startErr: cause, wantStarts: 1, wantCloses: 1,
			closesReason: "a JobMaster that failed to start must be closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRunner(t)
				r.factory.err = tt.createErr
				r.jobMaster.startErr = tt.startErr

				require.NoError(t, r.runner.Start())
				synctest.Wait()

				require.True(t, r.done(), "a JobMaster that cannot run must end the job")
				result := r.runner.Result()
				require.NotNil(t, result.ExecutionGraph)
				assert.Equal(t, api.JobFailed.String(), result.ExecutionGraph.State.String(), "the job fails during initialization")
				assert.Contains(t, result.ExecutionGraph.FailureCause, "Could not start the JobMaster.")
				assert.Contains(t, result.ExecutionGraph.FailureCause, cause.Error(), "the failure cause must say what went wrong")
				assert.ErrorIs(t, result.InitializationFailure, jobmanager.ErrJobInitialization)
				assert.Equal(t, api.JobFailed.String(), r.status(t))
				starts, closes := r.jobMaster.counts()
				assert.Equal(t, tt.wantStarts, starts)
				assert.Equal(t, tt.wantCloses, closes, tt.closesReason)
				assert.Empty(t, r.taskExecutors.heard(), "a JobMaster that never ran must never be announced")
			})
		})
	}
}

// When the job ends, its JobMaster hands the runner the job's final
// ExecutionGraph, and that is the job's result (what GET /jobs/:jobid
// shows from then on). The JobMaster did not exist while the job was
// INITIALIZING, so the runner adds when that began: the job's start time.
func TestTheJobMastersFinalGraphIsTheResultSinceInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		submitted := time.Now()
		r := newRunner(t)
		require.NoError(t, r.runner.Start())
		synctest.Wait()
		require.Equal(t, api.JobRunning.String(), r.status(t))

		time.Sleep(time.Minute) // fake time: the job runs for a minute
		r.factory.complete(&gateway.ArchivedExecutionGraph{
			JobID: r.graph.JobID, JobName: r.graph.Name, State: api.JobFinished,
			StatusTimestamps: map[api.JobStatus]time.Time{api.JobCreated: submitted.Add(time.Second), api.JobRunning: submitted.Add(time.Second), api.JobFinished: time.Now()},
		})

		require.True(t, r.done(), "the JobMaster's final graph must complete the runner")
		result := r.runner.Result().ExecutionGraph
		require.NotNil(t, result)
		assert.Equal(t, api.JobFinished.String(), result.State.String(), "the result is the JobMaster's final graph")
		assert.Equal(t, submitted, result.StatusTimestamps[api.JobInitializing],
			"the result must say when the job began INITIALIZING, before its JobMaster existed")
		assert.Equal(t, time.Now(), result.StatusTimestamps[api.JobFinished], "the JobMaster's own timestamps are kept")
	})
}

// After a JobManager failover, the new leader may be granted the
// leadership of a job that the old leader already finished, but had not
// cleaned up yet (its JobGraph is still in the JobGraphStore). The
// JobResultStore knows better: the job is not run twice.
func TestAJobThatIsAlreadyDoneIsNotRunAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunner(t)
		require.NoError(t, r.ha.JobResultStore().CreateDirtyResult(api.JobResult{
			JobID: r.graph.JobID, JobStatus: api.JobFinished, ApplicationStatus: api.ApplicationSucceeded,
		}))

		require.NoError(t, r.runner.Start())
		synctest.Wait()

		assert.Empty(t, r.factory.calls(), "a job whose result is in the JobResultStore must not get a JobMaster again")
		require.True(t, r.done(), "the runner must end at once")
		assert.Equal(t, api.JobFailed.String(), r.runner.Result().ExecutionGraph.State.String())
		assert.Contains(t, r.logs.String(), fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s was granted leadership with leader id", r.graph.JobID))
		assert.Contains(t, r.logs.String(), "but job was already done.")
	})
}

// A JobMaster belongs to one leadership session. If the session ends while
// the JobMaster is being built or started (the leadership is revoked, the
// runner is closed), the JobMaster must not run, nor be announced, or two
// JobMasters could run the same job.
func TestAJobMasterOfALeadershipThatEndedNeverRuns(t *testing.T) {
	tests := []struct {
		name       string
		whileBuilt func(t *testing.T, r *runnerUnderTest) // happens while the factory builds the JobMaster
		whileStart func(r *runnerUnderTest)               // happens while the JobMaster starts
		wantStarts int
		wantStatus api.JobStatus // the runner's answer afterwards
	}{
		{
			name:       "leadership revoked while the JobMaster is built",
			whileBuilt: func(_ *testing.T, r *runnerUnderTest) { r.runner.RevokeLeadership() },
			wantStatus: api.JobInitializing, // not done: another JobManager may lead the job
		},
		{
			name: "runner closed while the JobMaster is built",
			whileBuilt: func(t *testing.T, r *runnerUnderTest) {
				// Close waits for the JobMaster being built.
				go func() { assert.NoError(t, r.runner.Close()) }()
				synctest.Wait()
			},
			wantStatus: api.JobSuspended, // not done: only no longer run here
		},
		{
			name:       "leadership revoked while the JobMaster starts",
			whileStart: func(r *runnerUnderTest) { r.runner.RevokeLeadership() },
			wantStarts: 1,
			wantStatus: api.JobInitializing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRunner(t)
				r.factory.release = make(chan struct{})
				if tt.whileStart != nil {
					r.jobMaster.onStart = func() { tt.whileStart(r) }
				}
				require.NoError(t, r.runner.Start())
				synctest.Wait()
				require.Len(t, r.factory.calls(), 1, "leadership was granted: the runner must create the JobMaster")

				if tt.whileBuilt != nil {
					tt.whileBuilt(t, r)
				}
				close(r.factory.release)
				synctest.Wait()

				starts, closes := r.jobMaster.counts()
				if tt.wantStarts == 0 {
					assert.Zero(t, starts, "a JobMaster built for a leadership that ended must not be started")
				}
				assert.Equal(t, 1, closes, "a JobMaster of a leadership that ended must be closed")
				assert.Empty(t, r.taskExecutors.heard(), "a JobMaster of a leadership that ended must not be announced")
				assert.Equal(t, tt.wantStatus.String(), r.status(t))
			})
		})
	}
}

// ---- Fakes ----

// runnerUnderTest is one job's JobManagerRunner with a fake JobMaster
// factory, embedded leader election and a real JobResultStore.
type runnerUnderTest struct {
	graph     *jobgraph.JobGraph
	ha        *highavailability.EmbeddedHaServices
	jobMaster *fakeJobMaster
	factory   *fakeFactory
	// taskExecutors hears what a TaskExecutor looking for the job's
	// JobMaster hears: the address and leader session the runner confirms.
	taskExecutors *leaderListener
	logs          *scenario.Logs
	runner        *jobmanager.JobMasterServiceLeadershipRunner
}

// newRunner builds the runner but does not start it. Call it inside the
// synctest bubble. The runner is closed when the test ends.
func newRunner(t *testing.T) *runnerUnderTest {
	t.Helper()
	g := jobgraph.New("WordCount")
	source := jobgraph.NewJobVertex("Source: Socket Stream", "org.apache.flink.streaming.runtime.tasks.SourceStreamTask", 1)
	sink := jobgraph.NewJobVertex("Flat Map -> Sink: Print to Std. Out", "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask", 2)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)

	r := &runnerUnderTest{
		graph:         g,
		ha:            highavailability.NewEmbeddedHaServices(),
		taskExecutors: &leaderListener{},
		logs:          &scenario.Logs{},
	}
	r.jobMaster = &fakeJobMaster{address: "pekko://flink/user/rpc/jobmanager_7", heard: r.taskExecutors.count}
	r.factory = &fakeFactory{jobMaster: r.jobMaster}
	require.NoError(t, r.ha.JobManagerLeaderRetriever(g.JobID).Start(r.taskExecutors))

	runner, err := jobmanager.NewJobMasterServiceLeadershipRunner(jobmanager.RunnerConfig{
		JobGraph:         g,
		LeaderElection:   r.ha.JobManagerLeaderElection(g.JobID),
		JobResultStore:   r.ha.JobResultStore(),
		JobMasterFactory: r.factory.create,
		Logger:           slog.New(slog.NewTextHandler(r.logs, nil)),
		Trace:            trace.NewRecorder(),
	})
	require.NoError(t, err)
	r.runner = runner
	t.Cleanup(func() { _ = runner.Close() })
	return r
}

// status returns the name of the job's status, as the runner answers it.
func (r *runnerUnderTest) status(t *testing.T) string {
	t.Helper()
	s, err := r.runner.RequestJobStatus(context.Background())
	require.NoError(t, err)
	return s.String()
}

// done reports whether the runner has its result.
func (r *runnerUnderTest) done() bool {
	select {
	case <-r.runner.Done():
		return true
	default:
		return false
	}
}

// fakeJobMaster is the JobMasterService the fake factory creates. Its
// gateway answers RUNNING.
type fakeJobMaster struct {
	address  string
	startErr error
	heard    func() int // how many leader announcements the TaskExecutors heard
	onStart  func()     // runs inside Start, if set

	mu          sync.Mutex
	starts      int
	closes      int
	heardBefore int
}

var _ jobmanager.JobMasterService = (*fakeJobMaster)(nil)

func (m *fakeJobMaster) Start() error {
	heard := m.heard()
	if m.onStart != nil {
		m.onStart()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.starts++
	m.heardBefore = heard
	return m.startErr
}

func (m *fakeJobMaster) Gateway() gateway.JobMasterGateway { return &gatewaytest.JobMasterGateway{} }
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

// heardAtStart returns how many leader announcements the TaskExecutors had
// heard when the JobMaster was started.
func (m *fakeJobMaster) heardAtStart() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.heardBefore
}

// fakeFactory creates the fake JobMaster, or fails with err. With release
// set, the creation waits until release is closed.
type fakeFactory struct {
	jobMaster *fakeJobMaster
	err       error
	release   chan struct{}

	mu         sync.Mutex
	ids        []api.JobMasterID
	onComplete func(*gateway.ArchivedExecutionGraph)
}

func (f *fakeFactory) create(id api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
	f.mu.Lock()
	f.ids = append(f.ids, id)
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

// complete is the created JobMaster reaching a globally terminal state:
// it hands its final graph to the runner, as a real JobMaster's
// onComplete does.
func (f *fakeFactory) complete(g *gateway.ArchivedExecutionGraph) {
	f.mu.Lock()
	onComplete := f.onComplete
	f.mu.Unlock()
	onComplete(g)
}

// calls returns the JobMasterID of every JobMaster the factory was asked for.
func (f *fakeFactory) calls() []api.JobMasterID {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.JobMasterID(nil), f.ids...)
}

// leaderListener records the leaders a leader retrieval announces; an
// empty address (the leader left) is not recorded.
type leaderListener struct {
	mu      sync.Mutex
	leaders []announcement
}

type announcement struct {
	address string
	session api.LeaderSessionID
}

func (l *leaderListener) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	if address == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leaders = append(l.leaders, announcement{address, session})
}

func (l *leaderListener) heard() []announcement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]announcement(nil), l.leaders...)
}

func (l *leaderListener) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.leaders)
}
