package jobmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// JobManagerRunner is what the Dispatcher holds for each job it runs
// (Flink's JobManagerRunner interface).
type JobManagerRunner interface {
	// Start begins the runner's work: leader election, then the JobMaster.
	Start() error
	JobID() api.JobID
	// RequestJobStatus returns INITIALIZING (CANCELLING once cancelled)
	// until a JobMaster runs the job, then the JobMaster's answer, then
	// the final status.
	RequestJobStatus(ctx context.Context) (api.JobStatus, error)
	// RequestJob returns a snapshot of the job's ExecutionGraph.
	RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error)
	// Cancel cancels the job through its JobMaster; a cancel that comes
	// while the job is still initializing waits for the JobMaster, and the
	// job reads CANCELLING meanwhile.
	Cancel(ctx context.Context) error
	// RequestJobResourceRequirements asks the JobMaster for the job's
	// parallelism bounds. Without a running JobMaster there is no one to
	// ask: see JobMasterServiceLeadershipRunner.
	RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error)
	// UpdateJobResourceRequirements hands the JobMaster new parallelism
	// bounds, under the same condition.
	UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error
	// JobMasterGateway returns the gateway of the JobMaster that runs the
	// job now, for the requests only a running JobMaster answers
	// (savepoints, checkpoint statistics), under the same condition
	// (Flink's getJobMasterGateway, as the Dispatcher's
	// performOperationOnJobMasterGateway uses it).
	JobMasterGateway() (gateway.JobMasterGateway, error)
	// Done is closed once the result is known.
	Done() <-chan struct{}
	// Result returns the result once Done is closed.
	Result() JobManagerRunnerResult
	// Close stops the JobMaster (if any) and leaves the election.
	Close() error
}

// JobManagerRunnerResult is how a runner ended (Flink's
// JobManagerRunnerResult): the final ExecutionGraph, and the error if the
// JobMaster could not even be started.
type JobManagerRunnerResult struct {
	ExecutionGraph        *gateway.ArchivedExecutionGraph
	InitializationFailure error
}

// JobMasterService is a JobMaster as its runner sees it (Flink's
// JobMasterService).
type JobMasterService interface {
	// Start starts the JobMaster: it registers at the ResourceManager and
	// starts scheduling.
	Start() error
	Gateway() gateway.JobMasterGateway
	Address() string
	// Close stops the JobMaster. A job that is not yet globally terminal is
	// suspended.
	Close() error
}

// JobMasterServiceFactory creates (but does not start) the JobMaster of one
// leadership session. onComplete must be called once, when the job has
// reached a globally terminal state, with its final ExecutionGraph.
// Creating the JobMaster builds the ExecutionGraph, so a broken job fails
// here.
type JobMasterServiceFactory func(jobMasterID api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (JobMasterService, error)

// ErrJobInitialization is wrapped by the error of a job whose JobMaster
// could not be started (Flink's JobInitializationException).
var ErrJobInitialization = errors.New("JobInitializationException")

// RunnerConfig configures a JobMasterServiceLeadershipRunner.
type RunnerConfig struct {
	JobGraph         *jobgraph.JobGraph
	LeaderElection   highavailability.LeaderElection
	JobResultStore   highavailability.JobResultStore
	JobMasterFactory JobMasterServiceFactory
	Logger           *slog.Logger
	Trace            *trace.Recorder
	// Faults may break step m4 (the JobMaster's start); nil injects nothing.
	Faults *fault.Injector
}

// JobMasterServiceLeadershipRunner is the JobManagerRunner: it starts a
// JobMaster whenever it is granted leadership over its job (Flink's
// JobMasterServiceLeadershipRunner).
//
// Its lifecycle (runnerState, changed only by transitionToLocked):
//
//	RUNNING ──the result is known──► JOB_COMPLETED ──Close──► STOPPED
//	   │                                                         ▲
//	   └──────────────────────────Close──────────────────────────┘
//
// The result is known when the JobMaster reports the job's end, when the
// JobMaster cannot be started, or when the job was already done. Close
// records SUSPENDED if no result came first.
type JobMasterServiceLeadershipRunner struct {
	cfg     RunnerConfig
	log     *slog.Logger
	created time.Time

	wg sync.WaitGroup // the goroutines that create JobMasters

	mu               sync.Mutex
	state            runnerState             // RUNNING → JOB_COMPLETED → STOPPED; see runnerState
	session          api.LeaderSessionID     // current leadership; zero when none
	jobMasterGateway *jobMasterGatewayFuture // the current leadership's JobMaster, once it runs
	cancelled        bool                    // the job was cancelled under the current leadership (Flink's hasCurrentLeaderBeenCancelled)
	result           *JobManagerRunnerResult // nil until known; set once
	done             chan struct{}           // closed when result is set
}

var _ JobManagerRunner = (*JobMasterServiceLeadershipRunner)(nil)
var _ highavailability.LeaderContender = (*JobMasterServiceLeadershipRunner)(nil)

// NewJobMasterServiceLeadershipRunner returns a runner that is not started.
func NewJobMasterServiceLeadershipRunner(cfg RunnerConfig) (*JobMasterServiceLeadershipRunner, error) {
	if cfg.JobGraph == nil || cfg.JobGraph.IsEmpty() {
		return nil, errors.New("The given job is empty")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &JobMasterServiceLeadershipRunner{
		cfg:     cfg,
		log:     logger.With("logger", "JobMasterServiceLeadershipRunner"),
		created: time.Now(),
		done:    make(chan struct{}),

		jobMasterGateway: newJobMasterGatewayFuture(),
	}, nil
}

// JobID returns the job's ID.
func (r *JobMasterServiceLeadershipRunner) JobID() api.JobID { return r.cfg.JobGraph.JobID }

// Start enters the job's leader election.
func (r *JobMasterServiceLeadershipRunner) Start() error {
	r.log.Debug(fmt.Sprintf("Start leadership runner for job %s.", r.JobID()))
	return r.cfg.LeaderElection.StartLeaderElection(r)
}

// GrantLeadership is called by the leader election; the JobMaster is
// created on a goroutine of its own, so the election is never blocked. A
// runner that is no longer RUNNING ignores the grant (Flink's
// runIfStateRunning).
func (r *JobMasterServiceLeadershipRunner) GrantLeadership(session api.LeaderSessionID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != runnerRunning {
		return
	}
	r.session = session
	rpc.Go(&r.wg, func() { defer r.handleAsyncOperationError(); r.startJobMasterServiceProcess(session) })
}

// RevokeLeadership stops the JobMaster of the lost session. A cancel
// waiting for that JobMaster fails, and the next leader starts without one
// (Flink's stopJobMasterServiceProcess).
func (r *JobMasterServiceLeadershipRunner) RevokeLeadership() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != runnerRunning || r.session.IsZero() {
		return
	}
	r.log.Info(fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s was revoked leadership with leader id %s. Stopping current JobMasterServiceProcess.",
		r.JobID(), r.session))
	jm := r.jobMasterGateway.runningJobMaster()
	r.jobMasterGateway.fail(errJobMasterLostLeadership)
	r.jobMasterGateway = newJobMasterGatewayFuture()
	r.session, r.cancelled = api.LeaderSessionID{}, false
	if jm != nil {
		// Closing waits for the JobMaster's main thread; a contender must not
		// block the election, so it happens on a goroutine of its own.
		r.wg.Go(func() { _ = jm.Close() })
	}
}

// startJobMasterServiceProcess creates and starts the JobMaster of one
// leadership session (Flink's startJobMasterServiceProcessAsync and
// createNewJobMasterServiceProcess).
func (r *JobMasterServiceLeadershipRunner) startJobMasterServiceProcess(session api.LeaderSessionID) {
	jobID := r.JobID()
	if r.cfg.JobResultStore.HasJobResultEntry(jobID) {
		r.log.Info(fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s was granted leadership with leader id %s, but job was already done.", jobID, session))
		r.complete(JobManagerRunnerResult{ExecutionGraph: r.sparseGraph(api.JobFailed,
			"The job has already reached a globally terminal state in a previous execution.")})
		return
	}
	r.log.Info(fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s was granted leadership with leader id %s. Creating new JobMasterServiceProcess.", jobID, session))

	// Step m4: leadership granted → JobMaster created (its ExecutionGraph
	// and scheduler built) → JobMaster started.
	jobMaster, err := r.cfg.JobMasterFactory(api.JobMasterID(session), func(g *gateway.ArchivedExecutionGraph) {
		// Flink's runIfValidLeader: the end of a job is the job's end only
		// if its JobMaster still leads. A JobManager that lost the
		// leadership without knowing it yet (paused, cut off) may see its
		// tasks fail as the TaskManagers leave it for the new leader; that
		// is not the job failing, and must not reach the JobResultStore.
		if !r.cfg.LeaderElection.HasLeadership(session) {
			r.log.Debug(fmt.Sprintf("Ignore leader action 'result future forwarding' because the leadership runner is no longer the valid leader for %s.", session))
			return
		}
		r.complete(JobManagerRunnerResult{ExecutionGraph: r.withInitializationTimestamp(g)})
	})
	if err != nil {
		r.failInitialization(err)
		return
	}
	if r.isStale(session) { // closed, completed or deposed while the JobMaster was being built
		_ = jobMaster.Close()
		return
	}
	if startErr := r.startJobMaster(session, jobMaster); startErr != nil {
		_ = jobMaster.Close()
		r.failInitialization(startErr)
		return
	}
	// Only a started JobMaster is published: every request the runner
	// forwards to it then finds it running, and a cancel that waited for
	// it goes on to it now.
	r.mu.Lock()
	stale := r.isStaleLocked(session)
	if !stale {
		r.jobMasterGateway.complete(jobMaster)
	}
	r.mu.Unlock()
	if stale {
		_ = jobMaster.Close()
		return
	}
	r.cfg.LeaderElection.ConfirmLeadership(session, jobMaster.Address())
}

// startJobMaster records step m4 and starts the created JobMaster (in
// Flink, DefaultJobMasterServiceFactory starts the JobMaster right after
// creating it). An injected jobmaster-start-failure keeps it from starting.
func (r *JobMasterServiceLeadershipRunner) startJobMaster(session api.LeaderSessionID, jobMaster JobMasterService) error {
	jobID := r.JobID()
	r.cfg.Trace.Emit(trace.M4, "JobManagerRunner", "JobMaster", jobID,
		"leadership granted (leader id %s); JobMaster created for job '%s', ExecutionGraph built", session, r.cfg.JobGraph.Name)
	if r.cfg.Faults.FireKind(trace.M4, jobID, fault.JobMasterStartFailure) {
		// Step m4 (fault): the JobMaster does not start; the job fails
		// during initialization.
		return fault.Injected(trace.M4, fault.JobMasterStartFailure)
	}
	return jobMaster.Start()
}

// handleAsyncOperationError, deferred on the goroutine that creates and
// starts the JobMaster, turns a panic there into the job's initialization
// failure, as an exception thrown while Flink creates and starts a
// JobMaster becomes "Could not start the JobMaster." (Flink:
// DefaultJobMasterServiceFactory runs the creation with supplyAsync, and
// JobMasterServiceLeadershipRunner#handleAsyncOperationError catches what
// the runner's own asynchronous start throws).
//
// Differs from Flink: an exception in the runner's own start completes
// Flink's runner exceptionally ("Could not start the job manager."), and
// the Dispatcher takes that as a fatal error ("JobMaster for job … failed.")
// that restarts the JobManager process. Here only the job fails.
func (r *JobMasterServiceLeadershipRunner) handleAsyncOperationError() {
	if p := recover(); p != nil {
		r.failInitialization(fmt.Errorf("panic: %v", p))
	}
}

// isStale reports whether the given session is over: the runner is no
// longer RUNNING (it was closed, or the job's result is known) or it lost
// the session. It is the opposite of Flink's isValidLeader.
func (r *JobMasterServiceLeadershipRunner) isStale(session api.LeaderSessionID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.isStaleLocked(session)
}

// isStaleLocked is isStale with r.mu held.
func (r *JobMasterServiceLeadershipRunner) isStaleLocked(session api.LeaderSessionID) bool {
	return r.state != runnerRunning || r.session != session
}

// failInitialization ends the job FAILED with a JobInitializationException
// "Could not start the JobMaster." (Flink's DefaultJobMasterServiceProcess).
// Flink logs it at DEBUG only: what a JobManager log shows at INFO is the
// Dispatcher's "Job … reached terminal state FAILED." with the exception
// under it. A cancel waiting for the JobMaster fails.
func (r *JobMasterServiceLeadershipRunner) failInitialization(cause error) {
	err := fmt.Errorf("%w: Could not start the JobMaster.: %w", ErrJobInitialization, cause)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Debug(fmt.Sprintf("Initialization of the JobMasterService for job %s under leader id %s failed.", r.JobID(), r.session),
		"cause", err.Error())
	r.cfg.Trace.EmitFailure(trace.M4, "JobManagerRunner", "JobMaster", r.JobID(), "Could not start the JobMaster.: %v", cause)
	r.jobMasterGateway.fail(fmt.Errorf("%w: %w", errJobMasterInitialization, err))
	r.completeLocked(JobManagerRunnerResult{
		ExecutionGraph:        r.sparseGraph(api.JobFailed, err.Error()),
		InitializationFailure: err,
	})
}

// complete records the result once; later results are ignored.
func (r *JobMasterServiceLeadershipRunner) complete(result JobManagerRunnerResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.completeLocked(result)
}

// completeLocked is complete with r.mu held. The first result takes a
// RUNNING runner to JOB_COMPLETED; a STOPPED one stays STOPPED (Close
// records SUSPENDED unless a result came first).
func (r *JobMasterServiceLeadershipRunner) completeLocked(result JobManagerRunnerResult) {
	if r.result != nil {
		return
	}
	r.result = &result
	close(r.done)
	if r.state == runnerRunning {
		r.transitionToLocked(runnerJobCompleted)
	}
}

// Done is closed once the result is known.
func (r *JobMasterServiceLeadershipRunner) Done() <-chan struct{} { return r.done }

// Result returns the result; call it after Done is closed.
func (r *JobMasterServiceLeadershipRunner) Result() JobManagerRunnerResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.result == nil {
		return JobManagerRunnerResult{}
	}
	return *r.result
}

// snapshot returns, under the lock, the result if known, else the JobMaster
// if it runs, else the status of a job without one: INITIALIZING, or
// CANCELLING once it was cancelled (Flink's requestJob).
func (r *JobMasterServiceLeadershipRunner) snapshot() (*JobManagerRunnerResult, JobMasterService, api.JobStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	status := api.JobInitializing
	if r.cancelled {
		status = api.JobCancelling
	}
	var jm JobMasterService
	if r.state == runnerRunning {
		jm = r.jobMasterGateway.runningJobMaster()
	}
	return r.result, jm, status
}

// RequestJobStatus answers INITIALIZING until the JobMaster runs, or
// CANCELLING if the job was cancelled meanwhile.
func (r *JobMasterServiceLeadershipRunner) RequestJobStatus(ctx context.Context) (api.JobStatus, error) {
	result, jm, initial := r.snapshot()
	switch {
	case result != nil:
		return result.ExecutionGraph.State, nil
	case jm != nil:
		return jm.Gateway().RequestJobStatus(ctx)
	default:
		return initial, nil
	}
}

// RequestJob returns a snapshot of the job's ExecutionGraph; a sparse one,
// INITIALIZING or CANCELLING, while the JobMaster does not run yet.
func (r *JobMasterServiceLeadershipRunner) RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error) {
	result, jm, initial := r.snapshot()
	switch {
	case result != nil:
		return result.ExecutionGraph, nil
	case jm != nil:
		g, err := jm.Gateway().RequestJob(ctx)
		if err != nil {
			return nil, err
		}
		return r.withInitializationTimestamp(g), nil
	default:
		return r.sparseGraph(initial, ""), nil
	}
}

// Cancel cancels the job through its JobMaster (Flink's cancel). The runner
// remembers the cancel: while the JobMaster is still being built the job
// reads CANCELLING, and the cancel waits for the JobMaster and goes on to
// it as soon as it runs, which takes the job from CREATED or RUNNING to
// CANCELLING and CANCELED. The cancel fails ("Cancellation failed.") if
// there will be no JobMaster: it could not start, the leadership was
// revoked, or the runner was closed.
func (r *JobMasterServiceLeadershipRunner) Cancel(ctx context.Context) error {
	r.mu.Lock()
	if r.result != nil {
		r.mu.Unlock()
		return nil // the job is over; its JobMaster answers no more
	}
	r.cancelled = true
	future := r.jobMasterGateway
	r.mu.Unlock()

	jm, err := future.get(ctx)
	if err == nil {
		err = jm.Gateway().Cancel(ctx)
	}
	if err != nil {
		return fmt.Errorf("Cancellation failed.: %w", err)
	}
	return nil
}

// Close stops the runner (→ STOPPED), leaves the election and stops the
// JobMaster. A job that has no result yet ends SUSPENDED: it is not done,
// only no longer run here.
func (r *JobMasterServiceLeadershipRunner) Close() error {
	r.mu.Lock()
	var jm JobMasterService
	if r.state != runnerStopped { // the first Close; a later one finds the runner STOPPED
		r.transitionToLocked(runnerStopped)
		jm = r.jobMasterGateway.runningJobMaster()
		r.jobMasterGateway.fail(errRunnerClosed)
	}
	r.mu.Unlock()

	r.wg.Wait()
	var errs []error
	if jm != nil {
		errs = append(errs, jm.Close())
	}
	errs = append(errs, r.cfg.LeaderElection.Close())
	r.complete(JobManagerRunnerResult{ExecutionGraph: r.sparseGraph(api.JobSuspended, "")})
	return errors.Join(errs...)
}

// withInitializationTimestamp adds when the job began INITIALIZING: the
// runner knows it, the JobMaster's ExecutionGraph starts at CREATED.
func (r *JobMasterServiceLeadershipRunner) withInitializationTimestamp(g *gateway.ArchivedExecutionGraph) *gateway.ArchivedExecutionGraph {
	if g.StatusTimestamps == nil {
		g.StatusTimestamps = map[api.JobStatus]time.Time{}
	}
	if _, ok := g.StatusTimestamps[api.JobInitializing]; !ok {
		g.StatusTimestamps[api.JobInitializing] = r.created
	}
	return g
}

// sparseGraph describes the job without an ExecutionGraph (Flink's
// ArchivedExecutionGraph.createSparseArchivedExecutionGraph).
func (r *JobMasterServiceLeadershipRunner) sparseGraph(state api.JobStatus, failureCause string) *gateway.ArchivedExecutionGraph {
	g := &gateway.ArchivedExecutionGraph{
		JobID:   r.JobID(),
		JobName: r.cfg.JobGraph.Name,
		State:   state,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: r.created,
		},
		FailureCause: failureCause,
	}
	if state != api.JobInitializing {
		g.StatusTimestamps[state] = time.Now()
	}
	for _, v := range r.cfg.JobGraph.Vertices() {
		maxParallelism := v.MaxParallelism
		if maxParallelism <= 0 {
			maxParallelism = jobgraph.DefaultMaxParallelism(v.Parallelism)
		}
		g.Vertices = append(g.Vertices, gateway.ArchivedExecutionJobVertex{
			ID:               v.ID,
			Name:             v.Name,
			Parallelism:      v.Parallelism,
			MaxParallelism:   maxParallelism,
			SlotSharingGroup: v.SlotSharingGroup,
			State:            api.ExecutionCreated,
		})
	}
	return g
}
