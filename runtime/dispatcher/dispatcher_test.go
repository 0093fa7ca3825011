package dispatcher

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRunner is a JobManagerRunner the test finishes by hand.
type fakeRunner struct {
	jobID     api.JobID
	mu        sync.Mutex
	started   bool
	cancelled bool
	closed    bool
	result    jobmanager.JobManagerRunnerResult
	done      chan struct{}

	// graph, if set, is what RequestJob answers; requirements are what
	// the runner's JobMaster has, updated by UpdateJobResourceRequirements
	// unless updateRequirements answers for it.
	graph              *gateway.ArchivedExecutionGraph
	requirements       jobgraph.JobResourceRequirements
	updateRequirements func(ctx context.Context, r jobgraph.JobResourceRequirements) error
	// jobMaster, if set, is the runner's JobMaster; without it the runner
	// has none yet, as while its job initializes.
	jobMaster gateway.JobMasterGateway
}

func newFakeRunner(jobID api.JobID) *fakeRunner {
	return &fakeRunner{jobID: jobID, done: make(chan struct{})}
}

func (r *fakeRunner) Start() error     { r.mu.Lock(); r.started = true; r.mu.Unlock(); return nil }
func (r *fakeRunner) JobID() api.JobID { return r.jobID }
func (r *fakeRunner) RequestJobStatus(context.Context) (api.JobStatus, error) {
	return api.JobRunning, nil
}
func (r *fakeRunner) RequestJob(context.Context) (*gateway.ArchivedExecutionGraph, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.graph != nil {
		return r.graph, nil
	}
	return &gateway.ArchivedExecutionGraph{JobID: r.jobID, State: api.JobRunning}, nil
}
func (r *fakeRunner) RequestJobResourceRequirements(context.Context) (jobgraph.JobResourceRequirements, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requirements, nil
}
func (r *fakeRunner) UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error {
	r.mu.Lock()
	update := r.updateRequirements
	r.mu.Unlock()
	if update != nil {
		return update(ctx, requirements)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requirements = requirements
	return nil
}
func (r *fakeRunner) Cancel(context.Context) error {
	r.mu.Lock()
	r.cancelled = true
	r.mu.Unlock()
	r.finish(api.JobCanceled)
	return nil
}
func (r *fakeRunner) JobMasterGateway() (gateway.JobMasterGateway, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.jobMaster == nil {
		return nil, gateway.ErrUnavailableDispatcherOperation
	}
	return r.jobMaster, nil
}
func (r *fakeRunner) Done() <-chan struct{} { return r.done }
func (r *fakeRunner) Result() jobmanager.JobManagerRunnerResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result
}

// Close ends a job that has no result yet SUSPENDED, as the real runner does.
func (r *fakeRunner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.finish(api.JobSuspended)
	return nil
}

func (r *fakeRunner) finish(state api.JobStatus) {
	r.finishWith(&gateway.ArchivedExecutionGraph{JobID: r.jobID, State: state})
}

// finishWith ends the job with g as its final graph.
func (r *fakeRunner) finishWith(g *gateway.ArchivedExecutionGraph) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.done:
		return
	default:
	}
	r.result = jobmanager.JobManagerRunnerResult{ExecutionGraph: g}
	close(r.done)
}

var _ jobmanager.JobManagerRunner = (*fakeRunner)(nil)

type harness struct {
	d       *Dispatcher
	store   *jobmanager.InMemoryJobGraphStore
	results *highavailability.EmbeddedJobResultStore
	trace   *trace.Recorder
	faults  *fault.Injector
	logs    *bytes.Buffer
	mu      sync.Mutex
	runners map[api.JobID]*fakeRunner
	created int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWithJobStore(t, JobStoreConfig{})
}

// newHarnessWithJobStore is newHarness with a Dispatcher whose job store
// jobStore describes.
func newHarnessWithJobStore(t *testing.T, jobStore JobStoreConfig) *harness {
	t.Helper()
	h := &harness{
		store:   jobmanager.NewInMemoryJobGraphStore(),
		results: highavailability.NewEmbeddedJobResultStore(),
		trace:   trace.NewRecorder(),
		faults:  fault.NewInjector(nil),
		logs:    &bytes.Buffer{},
		runners: map[api.JobID]*fakeRunner{},
	}
	d, err := New(Config{Logger: slog.New(slog.NewTextHandler(h.logs, nil)), JobStore: jobStore}, Deps{
		RPC:            rpc.NewLocalService(),
		JobGraphStore:  h.store,
		JobResultStore: h.results,
		Trace:          h.trace,
		Faults:         h.faults,
		CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.created++
			r := newFakeRunner(g.JobID)
			h.runners[g.JobID] = r
			return r, nil
		},
	})
	require.NoError(t, err)
	require.NoError(t, d.Start())
	t.Cleanup(func() { _ = d.Close() })
	h.d = d
	return h
}

func (h *harness) runner(id api.JobID) *fakeRunner {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runners[id]
}

func (h *harness) storedJobs(t *testing.T) []api.JobID {
	ids, err := h.store.JobIDs()
	require.NoError(t, err)
	return ids
}

func validJob() *jobgraph.JobGraph {
	g := jobgraph.New("numbers")
	source := jobgraph.NewJobVertex("Source", "test.Source", 2)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	return g
}

func TestSubmitJobPersistsAndStartsARunner(t *testing.T) {
	h := newHarness(t)
	g := validJob()

	require.NoError(t, h.d.SubmitJob(context.Background(), g))

	assert.Equal(t, []api.JobID{g.JobID}, h.storedJobs(t), "the JobGraph is persisted")
	assert.True(t, h.runner(g.JobID).started, "the runner is started")
	events := h.trace.JobEvents(g.JobID)
	assert.Equal(t, []trace.Step{trace.M3}, trace.Steps(events))
	assert.Equal(t, "Client", events[0].From)

	viaREST := validJob()
	require.NoError(t, h.d.SubmitJob(trace.WithCaller(context.Background(), "REST"), viaREST))
	assert.Equal(t, "REST", h.trace.JobEvents(viaREST.JobID)[0].From, "the REST endpoint names itself")
	assert.Contains(t, h.logs.String(), "Received JobGraph submission 'numbers' ("+g.JobID.String()+").")
	assert.Contains(t, h.logs.String(), "Submitting job 'numbers' ("+g.JobID.String()+").")
}

func TestDuplicateSubmissionOfARunningJob(t *testing.T) {
	h := newHarness(t)
	g := validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), g))

	err := h.d.SubmitJob(context.Background(), g)

	var dup *DuplicateJobSubmissionError
	require.ErrorAs(t, err, &dup)
	assert.False(t, dup.GloballyTerminated)
	assert.EqualError(t, err, "DuplicateJobSubmissionException: Job has already been submitted.")
	assert.Equal(t, 1, h.created, "no second runner")
}

func TestSubmissionOfAGloballyTerminatedJobIsRejected(t *testing.T) {
	h := newHarness(t)
	g := validJob()
	require.NoError(t, h.results.CreateDirtyResult(api.JobResult{JobID: g.JobID, JobStatus: api.JobFinished}))

	err := h.d.SubmitJob(context.Background(), g)

	var dup *DuplicateJobSubmissionError
	require.ErrorAs(t, err, &dup)
	assert.True(t, dup.GloballyTerminated)
	assert.Empty(t, h.storedJobs(t), "nothing persisted")
	assert.Equal(t, 0, h.created)
	assert.Contains(t, h.logs.String(), "because the job already reached a globally-terminal state (i.e. FAILED, CANCELED, FINISHED) in a previous execution.")
}

func TestInvalidJobGraphsAreRejectedBeforeAnythingIsPersisted(t *testing.T) {
	noInvokable := validJob()
	noInvokable.Vertices()[0].InvokableClassName = ""
	zeroParallelism := validJob()
	zeroParallelism.Vertices()[1].Parallelism = 0
	partialResources := validJob()
	partialResources.Vertices()[0].MinResources = api.ResourceProfile{CPUCores: 1}

	tests := []struct {
		name  string
		graph *jobgraph.JobGraph
		want  string
	}{
		{"empty", jobgraph.New("empty"), "The given job is empty"},
		{"no invokable", noInvokable, "has no invokable class."},
		{"parallelism 0", zeroParallelism, "parallelism"},
		{"partial resources", partialResources, "Currently jobs is not supported if parts of the vertices have resources configured."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			err := h.d.SubmitJob(context.Background(), tt.graph)

			var submission *JobSubmissionError
			require.ErrorAs(t, err, &submission)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, h.storedJobs(t), "nothing persisted")
			assert.Equal(t, 0, h.created, "no runner")
			events := h.trace.Events()
			require.Len(t, events, 1, "step m3 broke, and nothing else happened")
			assert.True(t, events[0].Failed)
			assert.Equal(t, trace.M3, events[0].Step)
			assert.Contains(t, events[0].Message, tt.want)
		})
	}
}

func TestJobReachingATerminalStateIsRememberedAndCleanedUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		g := validJob()
		require.NoError(t, h.d.SubmitJob(context.Background(), g))
		runner := h.runner(g.JobID)

		status, err := h.d.RequestJobStatus(context.Background(), g.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobRunning, status, "asked of the runner while it runs")

		runner.finish(api.JobFinished)
		result, err := h.d.RequestJobResult(context.Background(), g.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFinished, result.JobStatus)
		assert.Equal(t, api.ApplicationSucceeded, result.ApplicationStatus)

		synctest.Wait() // the cleanup runs in the background
		assert.True(t, h.results.HasJobResultEntry(g.JobID), "the result is in the JobResultStore")
		assert.Empty(t, h.storedJobs(t), "the JobGraph is removed")
		assert.True(t, runner.closed, "the runner is closed")
		assert.Contains(t, h.logs.String(), "Job "+g.JobID.String()+" reached terminal state FINISHED.")

		status, err = h.d.RequestJobStatus(context.Background(), g.JobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFinished, status, "answered from the archive")

		err = h.d.SubmitJob(context.Background(), g)
		var dup *DuplicateJobSubmissionError
		require.ErrorAs(t, err, &dup)
		assert.True(t, dup.GloballyTerminated)

		err = h.d.CancelJob(context.Background(), g.JobID)
		var terminated *gateway.JobTerminatedWithoutCancellationException
		require.ErrorAs(t, err, &terminated)
		assert.Equal(t, api.JobFinished, terminated.JobStatus)
		assert.EqualError(t, err, "Flink job ("+g.JobID.String()+") was not canceled, but instead FINISHED.")
	})
}

func TestCancelJobIsRoutedToItsRunner(t *testing.T) {
	h := newHarness(t)
	g := validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), g))

	require.NoError(t, h.d.CancelJob(context.Background(), g.JobID))
	result, err := h.d.RequestJobResult(context.Background(), g.JobID)
	require.NoError(t, err)
	assert.True(t, h.runner(g.JobID).cancelled)
	assert.Equal(t, api.JobCanceled, result.JobStatus)

	// Cancelling it again is acknowledged from the archive, as Flink's
	// Dispatcher does for a job that is CANCELED already.
	assert.NoError(t, h.d.CancelJob(context.Background(), g.JobID))
}

// Closing the Dispatcher suspends the jobs still running and says so, as
// Flink's does; a suspended job keeps its JobGraph, for the JobManager
// that takes it over, and gets no result.
func TestCloseSuspendsTheRunningJobs(t *testing.T) {
	h := newHarness(t)
	g := validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), g))

	require.NoError(t, h.d.Close())
	assert.True(t, h.runner(g.JobID).closed)
	assert.Contains(t, h.logs.String(), "Job "+g.JobID.String()+" reached terminal state SUSPENDED.")
	assert.Len(t, h.storedJobs(t), 1, "the JobGraph stays")
	assert.False(t, h.results.HasJobResultEntry(g.JobID), "a suspended job has no result")
}

// Whoever learns a job's end from the Dispatcher finds it logged and
// archived: a request that comes before the runner's watcher handles the
// result handles it itself.
func TestTheEndOfAJobIsLoggedBeforeTheDispatcherAnswersIt(t *testing.T) {
	for range 20 { // the watcher and the request race; either way the answer comes after the line
		h := newHarness(t)
		g := validJob()
		require.NoError(t, h.d.SubmitJob(context.Background(), g))

		h.runner(g.JobID).finish(api.JobFailed)
		status, err := h.d.RequestJobStatus(context.Background(), g.JobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFailed, status)
		require.Contains(t, h.logs.String(), "Job "+g.JobID.String()+" reached terminal state FAILED.")
		require.NoError(t, h.d.Close())
		assert.Equal(t, 1, strings.Count(h.logs.String(), "reached terminal state"), "the end is handled once")
	}
}

func TestUnknownJobs(t *testing.T) {
	h := newHarness(t)
	unknown := api.NewJobID()
	ctx := context.Background()

	_, err := h.d.RequestJobStatus(ctx, unknown)
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
	assert.EqualError(t, err, "FlinkJobNotFoundException: Could not find Flink job ("+unknown.String()+")")
	assert.ErrorIs(t, h.d.CancelJob(ctx, unknown), gateway.ErrJobNotFound)
	_, err = h.d.RequestJob(ctx, unknown)
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
	_, err = h.d.RequestJobResult(ctx, unknown)
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
}

func TestListJobs(t *testing.T) {
	h := newHarness(t)
	a, b := validJob(), validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), a))
	require.NoError(t, h.d.SubmitJob(context.Background(), b))
	ids, err := h.d.ListJobs(context.Background())
	require.NoError(t, err)
	assert.ElementsMatch(t, []api.JobID{a.JobID, b.JobID}, ids)
}

func TestFailingStoreRejectsTheSubmission(t *testing.T) {
	h := newHarness(t)
	h.d.deps.JobGraphStore = failingStore{h.store}
	err := h.d.SubmitJob(context.Background(), validJob())
	var submission *JobSubmissionError
	require.ErrorAs(t, err, &submission)
	assert.Equal(t, "Failed to submit job.", submission.Message)
	assert.Equal(t, 0, h.created, "no runner for a job that was not persisted")
}

type failingStore struct{ jobmanager.JobGraphStore }

func (failingStore) PutJobGraph(*jobgraph.JobGraph) error { return errors.New("disk full") }

func TestAFaultAtStepM3RefusesTheSubmissionLikeTheRealCheck(t *testing.T) {
	tests := []struct {
		kind    fault.Kind
		wantErr string
	}{
		{fault.InvalidJobGraph, "JobSubmissionException: The JobGraph is invalid.: fault injected at step m3 (invalid-jobgraph)"},
		{fault.DuplicateJobID, "DuplicateJobSubmissionException: Job has already been submitted."},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			h := newHarness(t)
			require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M3, Kind: tt.kind}))
			g := validJob()
			err := h.d.SubmitJob(context.Background(), g)

			assert.EqualError(t, err, tt.wantErr)
			assert.Empty(t, h.storedJobs(t), "nothing persisted")
			assert.Equal(t, 0, h.created, "no runner")
			failures := trace.Failures(h.trace.JobEvents(g.JobID))
			require.Len(t, failures, 1)
			assert.Equal(t, trace.M3, failures[0].Step)
			d, ok := fault.Diagnose(h.trace.JobEvents(g.JobID))
			require.True(t, ok)
			assert.Equal(t, "Dispatcher", d.Component)

			// The fault fired once: the same job is accepted now.
			require.NoError(t, h.d.SubmitJob(context.Background(), g))
			assert.Equal(t, 1, h.created)
		})
	}
}
