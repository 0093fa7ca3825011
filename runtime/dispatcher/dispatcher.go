package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// Config configures a Dispatcher.
type Config struct {
	Logger *slog.Logger
	// JobStore says where the Dispatcher keeps the graphs of the jobs
	// that ended (jobstore.*). The zero value keeps every one in memory,
	// as Flink's MiniCluster does; a session cluster gives
	// DefaultJobStoreConfig, the File store.
	JobStore JobStoreConfig
}

// Deps are the services a Dispatcher uses.
type Deps struct {
	RPC            rpc.Service
	JobGraphStore  jobmanager.JobGraphStore
	JobResultStore highavailability.JobResultStore
	// CreateJobManagerRunner makes the runner of a submitted job (Flink's
	// JobManagerRunnerFactory).
	CreateJobManagerRunner func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error)
	Trace                  *trace.Recorder
	// Faults may break step m3; nil injects nothing.
	Faults *fault.Injector
	// BlobServer is where the jobs' jars are; the global cleanup of a job
	// removes them (from the BlobStore too, under HA). Nil removes
	// nothing.
	BlobServer BlobServer
	// RecoveredJobs are the jobs a Dispatcher that gained leadership found
	// in the JobGraphStore (DispatcherRunner): Start runs them, as they
	// are persisted already.
	RecoveredJobs []*jobgraph.JobGraph
}

// BlobServer is what the Dispatcher asks of the BlobServer: to remove a
// job's BLOBs once the job is globally terminal (Flink's
// BlobServer#globalCleanupAsync).
type BlobServer interface {
	CleanupJob(jobID api.JobID) error
}

// Dispatcher accepts jobs and routes requests to their runners. Its fields
// are touched only on its main thread.
type Dispatcher struct {
	*rpc.Endpoint
	deps    Deps
	log     *slog.Logger
	address string

	// dispatcherID is the leader session this Dispatcher runs under
	// (Runner); zero for a Dispatcher without an election.
	dispatcherID api.DispatcherID

	runners map[api.JobID]jobmanager.JobManagerRunner // Flink's JobManagerRunnerRegistry
	// cleanups are the jobs whose result is handled and whose global
	// cleanup is under way: their runner stays in runners until it is
	// closed, but the Dispatcher answers for them from the store.
	cleanups map[api.JobID]bool
	// executionGraphInfoStore holds the final graph of every job that
	// ended, until it expires or is evicted (Flink's
	// ExecutionGraphInfoStore).
	executionGraphInfoStore ExecutionGraphInfoStore
	jobStoreExpirationTime  time.Duration
	// requirementsUpdates are the updates of resource requirements in
	// progress, at most one per job (Flink's
	// pendingJobResourceRequirementsUpdates).
	requirementsUpdates map[api.JobID]*requirementsUpdate

	background sync.WaitGroup // runner watchers and cleanups; Close waits for them
	closeOnce  sync.Once
	closeErr   error
}

var _ gateway.DispatcherGateway = (*Dispatcher)(nil)

// New returns a Dispatcher that is not started.
func New(cfg Config, deps Deps) (*Dispatcher, error) {
	if deps.RPC == nil || deps.JobGraphStore == nil || deps.JobResultStore == nil || deps.CreateJobManagerRunner == nil {
		return nil, fmt.Errorf("dispatcher: RPC, JobGraphStore, JobResultStore and CreateJobManagerRunner are required")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	store, err := NewExecutionGraphInfoStore(cfg.JobStore, logger)
	if err != nil {
		return nil, fmt.Errorf("dispatcher: %w", err)
	}
	endpoint := rpc.NewEndpoint("dispatcher_0")
	endpoint.SetLogger(logger)
	return &Dispatcher{
		Endpoint: endpoint,
		deps:     deps,
		log:      logger.With("logger", "StandaloneDispatcher"),
		address:  deps.RPC.Address("dispatcher_0"),
		runners:  make(map[api.JobID]jobmanager.JobManagerRunner),
		cleanups: make(map[api.JobID]bool),

		executionGraphInfoStore: store,
		jobStoreExpirationTime:  cfg.JobStore.ExpirationTime,

		requirementsUpdates: make(map[api.JobID]*requirementsUpdate),
	}, nil
}

// Address returns the Dispatcher's RPC address.
func (d *Dispatcher) Address() string { return d.address }

// DispatcherID is the leader session this Dispatcher runs under, its
// fencing token; zero for a Dispatcher started without an election.
func (d *Dispatcher) DispatcherID() api.DispatcherID { return d.dispatcherID }

// Start makes the Dispatcher reachable and starts its main thread.
func (d *Dispatcher) Start() error {
	if err := d.deps.RPC.Register(d.address, gateway.DispatcherGateway(d)); err != nil {
		// It never ran: nothing of it may stay, its job store's
		// directory included.
		return errors.Join(err, d.executionGraphInfoStore.Close())
	}
	d.Endpoint.Start(nil)
	d.scheduleJobStoreCleanup()
	if len(d.deps.RecoveredJobs) > 0 {
		_, err := rpc.CallAsync(context.Background(), d.Endpoint, func() (struct{}, error) {
			for _, g := range d.deps.RecoveredJobs {
				if err := d.runJob(g); err != nil {
					d.log.Error(fmt.Sprintf("Failed to recover job %s.", g.JobID), "cause", err.Error())
				}
			}
			return struct{}{}, nil
		})
		return err
	}
	return nil
}

// Close closes every runner (jobs still running are suspended), waits for
// cleanups in progress and stops the Dispatcher. Closing twice is fine.
func (d *Dispatcher) Close() error {
	d.closeOnce.Do(func() {
		d.deps.RPC.Unregister(d.address)
		runners, err := rpc.CallAsync(context.Background(), d.Endpoint, func() ([]jobmanager.JobManagerRunner, error) {
			out := make([]jobmanager.JobManagerRunner, 0, len(d.runners))
			for _, r := range d.runners {
				out = append(out, r)
			}
			return out, nil
		})
		for _, r := range runners {
			_ = r.Close()
			// A job that had not ended is SUSPENDED now; its result is
			// handled like any other, on the main thread, before it stops.
			_, _ = rpc.CallAsync(context.Background(), d.Endpoint, func() (struct{}, error) {
				d.jobManagerRunnerFinished(r)
				return struct{}{}, nil
			})
		}
		d.Endpoint.Close(nil)
		d.background.Wait()
		// The main thread has ended: nobody uses the store any more.
		d.closeErr = errors.Join(err, d.executionGraphInfoStore.Close())
	})
	return d.closeErr
}

// scheduleJobStoreCleanup makes the store forget its expired jobs every
// jobstore.expiration-time, on the main thread, so that their graphs and
// files go even if nobody asks for them (Flink schedules the caches'
// cleanUp with this delay). Without an expiration time nothing expires.
func (d *Dispatcher) scheduleJobStoreCleanup() {
	if d.jobStoreExpirationTime <= 0 {
		return
	}
	d.ScheduleRunAsync(func() {
		d.executionGraphInfoStore.CleanUp()
		d.scheduleJobStoreCleanup()
	}, d.jobStoreExpirationTime)
}

// SubmitJob submits a job (step m3); see the package doc for the checks.
func (d *Dispatcher) SubmitJob(ctx context.Context, g *jobgraph.JobGraph) error {
	if g == nil {
		return &JobSubmissionError{Message: "The JobGraph must not be null."}
	}
	caller := trace.Caller(ctx, "Client")
	_, err := rpc.CallAsync(ctx, d.Endpoint, func() (struct{}, error) {
		return struct{}{}, d.submitJob(g, caller)
	})
	return err
}

// submitJob runs on the main thread. A rejected submission ends at step
// m3, and the trace shows it there.
func (d *Dispatcher) submitJob(g *jobgraph.JobGraph, caller string) error {
	d.log.Info(fmt.Sprintf("Received JobGraph submission '%s' (%s).", g.Name, g.JobID))
	err := d.checkAndSubmitJob(g, caller)
	if err != nil {
		d.deps.Trace.EmitFailure(trace.M3, caller, "Dispatcher", g.JobID, "submitJob '%s' rejected: %v", g.Name, err)
	}
	return err
}

// checkAndSubmitJob makes the Dispatcher's checks in Flink's order, each
// refusing the job before anything is persisted, then submits it.
//
// Step m3: the Dispatcher decides here whether it takes the job; the first
// check that fails gives the job its error.
func (d *Dispatcher) checkAndSubmitJob(g *jobgraph.JobGraph, caller string) error {
	jobID := g.JobID
	if d.isInGloballyTerminalState(jobID) {
		d.log.Warn(fmt.Sprintf("Ignoring JobGraph submission '%s' (%s) because the job already reached a globally-terminal state (i.e. FAILED, CANCELED, FINISHED) in a previous execution.", g.Name, jobID))
		return &DuplicateJobSubmissionError{JobID: jobID, GloballyTerminated: true}
	}
	if _, running := d.runners[jobID]; running {
		return &DuplicateJobSubmissionError{JobID: jobID}
	}
	if err := g.Validate(); err != nil {
		return &JobSubmissionError{JobID: jobID, Message: "The JobGraph is invalid.", Cause: err}
	}
	if isPartialResourceConfigured(g) {
		return &JobSubmissionError{JobID: jobID, Message: "Currently jobs is not supported if parts of the vertices have resources configured. The limitation will be removed in future versions."}
	}
	return d.internalSubmitJob(g, caller)
}

// injectedRefusal is step m3's fault: a job that passed the real checks
// is refused as if its JobID were taken or its JobGraph broken, with the
// error that check gives; nothing is persisted.
func (d *Dispatcher) injectedRefusal(jobID api.JobID) error {
	// Step m3 (fault): armed for this job, the fault fires once.
	injected, fired := d.deps.Faults.Fire(trace.M3, jobID)
	switch {
	case !fired:
		return nil
	case injected == fault.DuplicateJobID:
		return &DuplicateJobSubmissionError{JobID: jobID}
	case injected == fault.InvalidJobGraph:
		return &JobSubmissionError{JobID: jobID, Message: "The JobGraph is invalid.", Cause: fault.Injected(trace.M3, injected)}
	}
	panic(fmt.Sprintf("fault %s is not one of step m3's", injected))
}

func (d *Dispatcher) isInGloballyTerminalState(jobID api.JobID) bool {
	return d.deps.JobResultStore.HasJobResultEntry(jobID)
}

// isPartialResourceConfigured reports whether some vertices, but not all,
// ask for specific resources.
func isPartialResourceConfigured(g *jobgraph.JobGraph) bool {
	configured := 0
	for _, v := range g.Vertices() {
		if !v.MinResources.IsUnknown() {
			configured++
		}
	}
	return configured > 0 && configured < g.NumberOfVertices()
}

func (d *Dispatcher) internalSubmitJob(g *jobgraph.JobGraph, caller string) error {
	jobID := g.JobID
	if err := d.injectedRefusal(jobID); err != nil {
		return err
	}
	d.log.Info(fmt.Sprintf("Submitting job '%s' (%s).", g.Name, jobID))

	// Step m3: persist the JobGraph. Then create, start and register the
	// job's JobManagerRunner, which goes on to step m4 on its own. The
	// acknowledgement returns after this, before the JobMaster runs.
	if err := d.deps.JobGraphStore.PutJobGraph(g); err != nil {
		d.log.Error(fmt.Sprintf("Failed to submit job %s.", jobID), "cause", err.Error())
		return &JobSubmissionError{JobID: jobID, Message: "Failed to submit job.", Cause: err}
	}
	d.deps.Trace.Emit(trace.M3, caller, "Dispatcher", jobID,
		"submitJob '%s': JobGraph validated and persisted in the JobGraphStore", g.Name)
	if err := d.runJob(g); err != nil {
		d.log.Error(fmt.Sprintf("Failed to submit job %s.", jobID), "cause", err.Error())
		if cleanupErr := d.deps.JobGraphStore.RemoveJobGraph(jobID); cleanupErr != nil {
			d.log.Warn(fmt.Sprintf("Cleanup didn't succeed after job submission failed for job %s.", jobID), "cause", cleanupErr.Error())
		}
		return &JobSubmissionError{JobID: jobID, Message: "Failed to submit job.", Cause: err}
	}
	return nil
}

// runJob creates, starts and registers the JobManagerRunner of a job
// whose JobGraph is persisted: one just submitted, or one recovered by a
// new leader (Flink's Dispatcher#runJob).
func (d *Dispatcher) runJob(g *jobgraph.JobGraph) error {
	jobID := g.JobID
	runner, err := d.deps.CreateJobManagerRunner(g)
	if err == nil {
		err = runner.Start()
	}
	if err != nil {
		if runner != nil {
			_ = runner.Close()
		}
		return err
	}
	d.runners[jobID] = runner

	d.background.Go(func() {
		select {
		case <-runner.Done():
			d.RunAsync(func() { d.jobManagerRunnerFinished(runner) })
		case <-d.Context().Done(): // the Dispatcher stopped first
		}
	})
	return nil
}

// jobManagerRunnerFinished handles a runner's result on the main thread
// (Flink's handleJobManagerRunnerResult and jobReachedTerminalState). It
// runs once per runner: whichever comes first, the runner's watcher or a
// request that finds the result known already (lookup).
func (d *Dispatcher) jobManagerRunnerFinished(runner jobmanager.JobManagerRunner) {
	jobID := runner.JobID()
	if d.runners[jobID] != runner {
		return // handled already, or replaced
	}
	if d.cleanups[jobID] {
		return // handled already: its cleanup is under way
	}
	result := runner.Result()
	g := result.ExecutionGraph
	if g.FailureCause != "" {
		d.log.Info(fmt.Sprintf("Job %s reached terminal state %s.\n%s", jobID, g.State, g.FailureCause))
	} else {
		d.log.Info(fmt.Sprintf("Job %s reached terminal state %s.", jobID, g.State))
	}
	if !g.State.IsGloballyTerminalState() {
		// SUSPENDED: the job is not done, it is only not run here any
		// more. Another JobManager may take it over, so its JobGraph and
		// no result stay behind (Flink's local cleanup): only this
		// process's hold on the JobGraph goes.
		delete(d.runners, jobID)
		if store, ok := d.deps.JobGraphStore.(interface{ ReleaseJobGraph(api.JobID) error }); ok {
			if err := store.ReleaseJobGraph(jobID); err != nil {
				d.log.Warn(fmt.Sprintf("Could not release the JobGraph of job %s.", jobID), "cause", err.Error())
			}
		}
		return
	}
	d.cleanups[jobID] = true
	if err := d.executionGraphInfoStore.Put(g); err != nil {
		d.log.Info(fmt.Sprintf("Could not store completed job %s(%s).", g.JobName, jobID), "cause", err.Error())
	}
	if err := d.deps.JobResultStore.CreateDirtyResult(jobResultOf(g)); err != nil {
		d.log.Warn(fmt.Sprintf("Could not store the result of job %s.", jobID), "cause", err.Error())
	}

	// Global cleanup runs off the main thread: closing the runner waits for
	// its JobMaster to stop.
	d.background.Go(func() {
		closeErr := runner.Close()
		removeErr := errors.Join(d.deps.JobGraphStore.RemoveJobGraph(jobID), cleanupBlobs(d.deps.BlobServer, jobID))
		d.RunAsync(func() {
			delete(d.runners, jobID)
			delete(d.cleanups, jobID)
			if closeErr != nil || removeErr != nil {
				d.log.Warn(fmt.Sprintf("Cleanup of job %s did not succeed.", jobID), "close", fmt.Sprint(closeErr), "remove", fmt.Sprint(removeErr))
				return
			}
			_ = d.deps.JobResultStore.MarkResultAsClean(jobID)
		})
	})
}

func jobResultOf(g *gateway.ArchivedExecutionGraph) api.JobResult {
	var runtime = g.StatusTimestamps[g.State].Sub(g.StatusTimestamps[api.JobInitializing])
	return api.JobResult{
		JobID:             g.JobID,
		JobName:           g.JobName,
		JobStatus:         g.State,
		ApplicationStatus: api.ApplicationStatusOf(g.State),
		NetRuntime:        max(runtime, 0),
		FailureCause:      g.FailureCause,
	}
}

// lookup finds a job on the main thread: its runner while it runs, its
// final ExecutionGraph from the store once it ended.
type lookup struct {
	runner   jobmanager.JobManagerRunner
	archived *gateway.ArchivedExecutionGraph
}

func (d *Dispatcher) lookup(ctx context.Context, jobID api.JobID) (lookup, error) {
	return rpc.CallAsync(ctx, d.Endpoint, func() (lookup, error) { return d.findJob(jobID) })
}

// findJob is lookup on the main thread. A job that ended is only what the
// store holds of it: once it has expired or been evicted, the job is
// unknown, as one that never ran (FlinkJobNotFoundException).
func (d *Dispatcher) findJob(jobID api.JobID) (lookup, error) {
	if r, ok := d.runners[jobID]; ok && !d.cleanups[jobID] {
		if isDone(r) {
			// The result is known, and its watcher is on its way with
			// it: handle it now, so that whoever learns the job's end
			// from the Dispatcher finds it logged and stored.
			d.jobManagerRunnerFinished(r)
		}
		if !d.cleanups[jobID] {
			return lookup{runner: r}, nil // running, or suspended
		}
	}
	g, err := d.executionGraphInfoStore.Get(jobID)
	if err != nil {
		return lookup{}, err
	}
	return lookup{archived: g}, nil
}

// CancelJob cancels a job through its runner (Flink's cancelJob). A job
// that has ended is answered from the store: one that is CANCELED
// already is acknowledged, any other refused with
// JobTerminatedWithoutCancellationException.
func (d *Dispatcher) CancelJob(ctx context.Context, jobID api.JobID) error {
	found, err := d.lookup(ctx, jobID)
	if err != nil {
		return err
	}
	if found.archived != nil {
		if found.archived.State == api.JobCanceled {
			return nil
		}
		return &gateway.JobTerminatedWithoutCancellationException{JobID: jobID, JobStatus: found.archived.State}
	}
	return found.runner.Cancel(ctx)
}

// RequestJobStatus returns the job's status.
func (d *Dispatcher) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	found, err := d.lookup(ctx, jobID)
	if err != nil {
		return 0, err
	}
	if found.archived != nil {
		return found.archived.State, nil
	}
	return found.runner.RequestJobStatus(ctx)
}

// RequestJob returns a snapshot of the job's ExecutionGraph.
func (d *Dispatcher) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	found, err := d.lookup(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if found.archived != nil {
		return found.archived, nil
	}
	return found.runner.RequestJob(ctx)
}

// RequestJobResult waits until the job is globally terminal.
func (d *Dispatcher) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	found, err := d.lookup(ctx, jobID)
	if err != nil {
		return api.JobResult{}, err
	}
	if found.archived != nil {
		return jobResultOf(found.archived), nil
	}
	select {
	case <-found.runner.Done():
	case <-ctx.Done():
		return api.JobResult{}, ctx.Err()
	}
	// Look again: the Dispatcher handles the result (logs and stores it)
	// before it answers with it. A suspended job is not stored, and one
	// the store has already forgotten is answered from its runner.
	if again, err := d.lookup(ctx, jobID); err == nil && again.archived != nil {
		return jobResultOf(again.archived), nil
	}
	g := found.runner.Result().ExecutionGraph
	if !g.State.IsGloballyTerminalState() {
		return api.JobResult{}, fmt.Errorf("job %s was suspended (%s) before it reached a globally terminal state", jobID, g.State)
	}
	return jobResultOf(g), nil
}

// ListJobs returns the IDs of every job, sorted: those that run and those
// that ended and are still in the store, whose JobDetails it keeps in
// memory (Flink's requestMultipleJobDetails asks the store the same way).
func (d *Dispatcher) ListJobs(ctx context.Context) ([]api.JobID, error) {
	return rpc.CallAsync(ctx, d.Endpoint, func() ([]api.JobID, error) {
		ended := d.executionGraphInfoStore.AvailableJobDetails()
		ids := make([]api.JobID, 0, len(d.runners)+len(ended))
		for id := range d.runners {
			if !d.cleanups[id] {
				ids = append(ids, id)
			}
		}
		for _, job := range ended {
			ids = append(ids, job.JobID)
		}
		slices.SortFunc(ids, func(a, b api.JobID) int { return strings.Compare(a.String(), b.String()) })
		return slices.Compact(ids), nil
	})
}

// RequestMultipleJobDetails summarizes every job for the jobs overview
// (Flink's requestMultipleJobDetails): each running job as its runner's
// graph has it, each ended one as the job store keeps it in memory, so
// that listing ended jobs never reads a graph back from disk. A job that
// ends between the two is listed once, as it ended.
func (d *Dispatcher) RequestMultipleJobDetails(ctx context.Context) ([]gateway.JobDetails, error) {
	type jobs struct {
		running []jobmanager.JobManagerRunner
		ended   []gateway.JobDetails
	}
	known, err := rpc.CallAsync(ctx, d.Endpoint, func() (jobs, error) {
		var j jobs
		for id, r := range d.runners {
			if !d.cleanups[id] {
				j.running = append(j.running, r)
			}
		}
		j.ended = d.executionGraphInfoStore.AvailableJobDetails()
		return j, nil
	})
	if err != nil {
		return nil, err
	}
	// The runners answer off the main thread: each asks its JobMaster.
	details := known.ended
	ended := make(map[api.JobID]bool, len(known.ended))
	for _, job := range known.ended {
		ended[job.JobID] = true
	}
	for _, r := range known.running {
		g, err := r.RequestJob(ctx)
		if errors.Is(err, gateway.ErrJobNotFound) {
			continue // its JobMaster is gone: the job has just ended
		}
		if err != nil {
			return nil, err
		}
		if !ended[g.JobID] {
			details = append(details, gateway.JobDetailsOf(g))
		}
	}
	slices.SortFunc(details, func(a, b gateway.JobDetails) int { return strings.Compare(a.JobID.String(), b.JobID.String()) })
	return details, nil
}

// isDone reports whether the runner's result is known.
func isDone(r jobmanager.JobManagerRunner) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

// ExpectedFencingToken makes the Dispatcher an rpc.FencedGateway: a call
// from another process must carry its DispatcherID, the leader session it
// runs under, which is fixed for its lifetime.
func (d *Dispatcher) ExpectedFencingToken() string { return d.dispatcherID.String() }

// cleanupBlobs removes the jars of a job that is globally terminal.
func cleanupBlobs(blobServer BlobServer, jobID api.JobID) error {
	if blobServer == nil {
		return nil
	}
	return blobServer.CleanupJob(jobID)
}
