package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/runtime/trace"
)

// Config configures a JobMaster.
type Config struct {
	// RPCTimeout bounds every call the JobMaster makes (Flink's
	// pekko.ask.timeout, 10 s).
	RPCTimeout   time.Duration
	Registration registration.Config
	// RestartStrategy holds the restart-strategy.* options; the zero
	// Config, with no type set, means Flink's default for a job without
	// checkpointing: no restarts. To choose a strategy, start from
	// failover.DefaultConfig() (Flink's defaults for every strategy) and
	// set Type: the zero value of a strategy's fields is not its default.
	RestartStrategy failover.Config
	// Checkpointing holds the execution.checkpointing.* and state.*
	// options; the zero value (no interval) runs the job without
	// checkpoints.
	Checkpointing checkpoint.CheckpointCoordinatorConfiguration
	// FailoverStrategy is jobmanager.execution.failover-strategy: which
	// tasks restart when one fails, "region" (the default, also when
	// empty) or "full" (see failover.LoadFailoverStrategy).
	FailoverStrategy string
	// SchedulerType is jobmanager.scheduler: adaptive.SchedulerTypeDefault
	// (also when empty) or adaptive.SchedulerTypeAdaptive. A BATCH job
	// always gets the DefaultScheduler.
	SchedulerType string
	// AdaptiveScheduler holds the AdaptiveScheduler's options; start from
	// adaptive.DefaultSettings() (the zero value means those).
	AdaptiveScheduler adaptive.Settings
	// Heartbeat holds the heartbeat.* options with which the JobMaster
	// watches its TaskExecutors and the ResourceManager. Zero fields take
	// Flink's defaults (10 s, 50 s, 2); New rejects invalid ones.
	Heartbeat heartbeat.HeartbeatServices
	// SlotRequestTimeout is Flink's slot.request.timeout: how long the
	// slot requests of one scheduling round may stay unfulfillable before
	// they fail with NoResourceAvailableException and the restart
	// strategy decides. Zero means Flink's default,
	// slotpool.DefaultSlotRequestTimeout (5 min).
	SlotRequestTimeout time.Duration
	Logger             *slog.Logger
}

// Deps are the services a JobMaster uses.
type Deps struct {
	RPC   rpc.Service
	HA    highavailability.Services
	Trace *trace.Recorder
	// Faults may break steps m4, m5, m6, m7 and m8; nil injects nothing.
	Faults *fault.Injector
}

var jobMasterCount atomic.Int64 // names the endpoints jobmanager_0, jobmanager_1, ...

// JobMaster runs one job. Its fields are touched only on its main thread.
type JobMaster struct {
	*rpc.FencedEndpoint[api.JobMasterID]
	cfg        Config
	deps       Deps
	log        *slog.Logger
	jobGraph   *jobgraph.JobGraph
	resourceID api.ResourceID
	address    string
	onComplete func(*gateway.ArchivedExecutionGraph)

	slotPool  *slotpool.SlotPool
	scheduler scheduler.SchedulerNG
	// checkpointServices are the job's completed checkpoint store and
	// checkpoint ID counter; nil without checkpointing (see checkpointing.go).
	checkpointServices *scheduler.Checkpointing
	// slotsTooLarge is set when step m7's fault slot-sharing-group-too-large
	// gave the job's slots a profile no TaskManager fits.
	slotsTooLarge bool

	rmRetriever    highavailability.LeaderRetrievalService
	rmLeader       *resourceManagerAddress // the leader, as leader retrieval last named it; nil if none
	rmRegistration *registration.RetryingRegistration[gateway.ResourceManagerGateway, gateway.JobMasterRegistrationSuccess]
	rm             *registeredResourceManager // nil until registered
	declareBackoff time.Duration

	taskManagers map[api.ResourceID]registeredTaskManager
	// completed is set when the JobMaster is done with its job: the job
	// reached a globally terminal state, or the JobMaster is stopping.
	completed bool
	// stopped is nil until the JobMaster stops (stopJobExecution), then
	// closed once its TaskExecutors and the ResourceManager have answered
	// their disconnects.
	stopped chan struct{}
	started atomic.Bool // Start was called; read by Close from any goroutine

	// The heartbeat managers: the JobMaster asks each registered
	// TaskExecutor for heartbeats, and answers the ResourceManager's.
	// No-ops until the JobMaster starts.
	taskManagerHeartbeatManager     heartbeat.HeartbeatManager[gateway.TaskExecutorToJobManagerHeartbeatPayload, gateway.AllocatedSlotReport]
	resourceManagerHeartbeatManager heartbeat.HeartbeatManager[struct{}, struct{}]
}

// resourceManagerAddress is the ResourceManager leader as leader retrieval
// announced it.
type resourceManagerAddress struct {
	address string
	id      api.ResourceManagerID
}

type registeredResourceManager struct {
	address    string
	id         api.ResourceManagerID
	resourceID api.ResourceID // from the registration answer; its heartbeat target ID
	gateway    gateway.ResourceManagerGateway
}

type registeredTaskManager struct {
	location gateway.TaskManagerLocation
	gateway  gateway.TaskExecutorGateway
}

var (
	_ gateway.JobMasterGateway          = (*JobMaster)(nil)
	_ gateway.JobMasterHeartbeatGateway = (*JobMaster)(nil)
)

// New creates the JobMaster of one leadership session and builds the job's
// ExecutionGraph and scheduler. onComplete is called once, as soon as the
// job is globally terminal; the JobMaster returns its slots only when its
// runner stops it (Close).
func New(cfg Config, deps Deps, jobGraph *jobgraph.JobGraph, jobMasterID api.JobMasterID,
	onComplete func(*gateway.ArchivedExecutionGraph)) (*JobMaster, error) {
	if cfg.RPCTimeout <= 0 {
		cfg.RPCTimeout = 10 * time.Second
	}
	if cfg.SlotRequestTimeout <= 0 {
		cfg.SlotRequestTimeout = slotpool.DefaultSlotRequestTimeout
	}
	cfg.Heartbeat = cfg.Heartbeat.WithDefaults()
	if err := cfg.Heartbeat.Validate(); err != nil {
		return nil, fmt.Errorf("Could not create the JobMaster of job '%s' (%s): %w", jobGraph.Name, jobGraph.JobID, err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	name := fmt.Sprintf("jobmanager_%d", jobMasterCount.Add(1)-1)
	jm := &JobMaster{
		FencedEndpoint: rpc.NewFencedEndpoint(name, jobMasterID),
		cfg:            cfg,
		deps:           deps,
		log:            logger.With("logger", "JobMaster"),
		jobGraph:       jobGraph,
		resourceID:     api.NewResourceID("jobmanager"),
		address:        deps.RPC.Address(name),
		onComplete:     onComplete,
		taskManagers:   make(map[api.ResourceID]registeredTaskManager),

		taskManagerHeartbeatManager:     heartbeat.NoOpHeartbeatManager[gateway.TaskExecutorToJobManagerHeartbeatPayload, gateway.AllocatedSlotReport]{},
		resourceManagerHeartbeatManager: heartbeat.NoOpHeartbeatManager[struct{}, struct{}]{},
	}
	jm.log.Info(fmt.Sprintf("Initializing job '%s' (%s).", jobGraph.Name, jobGraph.JobID))
	var err error
	if jm.cfg.SchedulerType, err = adaptive.ParseSchedulerType(cfg.SchedulerType); err != nil {
		return nil, err
	}
	adaptiveScheduler := jm.adaptiveSchedulerFor(jobGraph)

	// Step m4 (continued): the ExecutionGraph and the scheduler are built
	// now, so a job that cannot be built fails before the JobMaster starts.
	var built *jobgraph.JobGraph // a copy, when a fault of m4 or m7 fires
	built, jm.slotsTooLarge = graphToBuild(jobGraph, deps.Faults)
	graph, err := executiongraph.BuildGraph(built)
	if err != nil {
		return nil, err // BuildGraph names the job; the runner adds "Could not start the JobMaster."
	}
	// The AdaptiveScheduler builds graphs of its own, at the parallelism
	// its slots allow; this one only proves that the job can be built.
	if !adaptiveScheduler {
		jm.log.Info(fmt.Sprintf("Created execution graph %s for job %s.", graph.GraphID(), jobGraph.JobID))
	}
	jm.slotPool = slotpool.New(jobGraph.JobID, jm.address, func(fn func()) { jm.RunAsync(fn) }, logger)
	checkpointing, err := jm.checkpointing()
	if err != nil {
		return nil, err
	}
	jm.checkpointServices = checkpointing
	restartStrategy, err := failover.NewRestartBackoffTimeStrategy(cfg.RestartStrategy, checkpointing != nil, rand.Float64)
	if err != nil {
		return nil, fmt.Errorf("Could not create the restart strategy of job '%s' (%s): %w", jobGraph.Name, jobGraph.JobID, err)
	}
	jm.log.Info(fmt.Sprintf("Using restart back off time strategy %s for %s (%s).", restartStrategy, jobGraph.Name, jobGraph.JobID))
	if adaptiveScheduler {
		settings := cfg.AdaptiveScheduler
		if settings == (adaptive.Settings{}) {
			settings = adaptive.DefaultSettings()
		}
		if err := settings.Validate(); err != nil {
			return nil, err
		}
		jm.scheduler = adaptive.New(adaptive.Config{
			RPCTimeout:         cfg.RPCTimeout,
			RestartStrategy:    restartStrategy,
			SlotRequestTimeout: cfg.SlotRequestTimeout,
			Settings:           settings,
			Logger:             logger,
		}, adaptive.Deps{
			JobGraph:     built,
			MainThread:   jm.Endpoint,
			SlotPool:     jm.slotPool,
			TaskExecutor: jm.taskExecutor,
			JobMasterID:  jobMasterID,
			Trace:        deps.Trace,
			OnTerminal:   jm.jobReachedGloballyTerminalState,

			Checkpointing: checkpointing,
		})
		jm.SetLogger(logger)
		return jm, nil
	}
	jm.scheduler = scheduler.NewDefaultScheduler(scheduler.Config{
		RPCTimeout:         cfg.RPCTimeout,
		RestartStrategy:    restartStrategy,
		FailoverStrategy:   cfg.FailoverStrategy,
		SlotRequestTimeout: cfg.SlotRequestTimeout,
		Logger:             logger,
	}, scheduler.Deps{
		Graph:        graph,
		JobGraph:     built, // its slot sharing groups' resources size the slots it requests
		MainThread:   jm.Endpoint,
		SlotPool:     jm.slotPool,
		TaskExecutor: jm.taskExecutor,
		JobMasterID:  jobMasterID,
		Trace:        deps.Trace,
		OnTerminal:   jm.jobReachedGloballyTerminalState,

		Checkpointing: checkpointing,
	})
	jm.SetLogger(logger)
	return jm, nil
}

// adaptiveSchedulerFor reports whether the job runs on the
// AdaptiveScheduler (Flink: DefaultSlotPoolServiceSchedulerFactory
// #getSchedulerType). A BATCH job does not: Flink gives it its
// AdaptiveBatchScheduler, here the DefaultScheduler.
func (jm *JobMaster) adaptiveSchedulerFor(jobGraph *jobgraph.JobGraph) bool {
	if jm.cfg.SchedulerType != adaptive.SchedulerTypeAdaptive && !jm.cfg.AdaptiveScheduler.Reactive {
		return false
	}
	if jobGraph.JobType == jobgraph.Batch {
		// Flink's line says 'AdaptiveBatch', which this runtime does not have.
		jm.log.Info("Adaptive Scheduler configured, but Batch job detected. Changing scheduler type to 'Default'.")
		return false
	}
	return true
}

// Address returns the JobMaster's RPC address.
func (jm *JobMaster) Address() string { return jm.address }

// Gateway returns the JobMaster as its gateway.
func (jm *JobMaster) Gateway() gateway.JobMasterGateway { return jm }

// Start makes the JobMaster reachable and starts the job.
func (jm *JobMaster) Start() error {
	if err := jm.deps.RPC.Register(jm.address, gateway.JobMasterGateway(jm)); err != nil {
		return err
	}
	jm.started.Store(true)
	jm.Endpoint.Start(jm.startJobExecution)
	return nil
}

// startJobExecution is Flink's onStart → startJobExecution.
func (jm *JobMaster) startJobExecution() {
	jm.startHeartbeatServices()
	jm.log.Info(fmt.Sprintf("Starting execution of job '%s' (%s) under job master id %s.",
		jm.jobGraph.Name, jm.jobGraph.JobID, jm.FencingToken()))
	jm.rmRetriever = jm.deps.HA.ResourceManagerLeaderRetriever()
	if err := jm.rmRetriever.Start(resourceManagerLeaderListener{jm}); err != nil {
		jm.log.Error("Could not start the ResourceManager leader retriever.", "cause", err.Error())
	}
	jm.scheduler.StartScheduling()
}

// Close stops the JobMaster (Flink's onStop). Its runner calls it when the
// Dispatcher removes a job that has ended, and when the job is suspended:
// the runner lost its leadership, or the cluster shuts down. Either way the
// JobMaster disconnects from each TaskExecutor, which frees the job's slots
// there, and then from the ResourceManager, with the job's status: for a
// globally terminal job the ResourceManager clears the job's requirements,
// for a suspended one it keeps them for the job's next JobMaster. See
// stopJobExecution.
//
// The disconnects go out from the main thread; Close waits on its caller's
// goroutine until they have been answered (each within the RPC timeout),
// then ends the main thread. A failed disconnect is logged, not returned:
// as in Flink, nothing waits for those answers to decide anything.
func (jm *JobMaster) Close() error {
	jm.deps.RPC.Unregister(jm.address)
	if !jm.started.Load() { // created but never started: nothing to release
		jm.Endpoint.Close(nil)
		return nil
	}

	ctx, cancel := context.WithTimeout(context.Background(), jm.cfg.RPCTimeout)
	stopped, err := rpc.CallAsync(ctx, jm.Endpoint, func() (<-chan struct{}, error) {
		return jm.stopJobExecution(), nil
	})
	cancel()
	switch {
	case errors.Is(err, rpc.ErrRecipientUnreachable): // closed before: nothing left to release
		err = nil
	case err != nil:
		jm.log.Warn(fmt.Sprintf("Could not stop the JobMaster for job '%s' (%s) properly.", jm.jobGraph.Name, jm.jobGraph.JobID), "cause", err.Error())
	default:
		<-stopped // a second Close waits here for the first one's disconnects
	}
	jm.Endpoint.Close(jm.stopHeartbeatServices)
	return err
}

// stopJobExecution is Flink's onStop → stopJobExecution, on the main
// thread. It logs "Stopping the JobMaster for job 'name' (id).", stops
// looking for the ResourceManager and disconnects from every registered
// TaskExecutor and then from the ResourceManager
// (disconnectTaskManagerResourceManagerConnections), each with the cause
// "Stopping JobMaster for job 'name' (id).". It returns a channel that is
// closed once they have all answered; called again, it returns the same
// channel.
//
// A job that is not globally terminal yet is suspended: its runner reports
// it SUSPENDED, and the JobMaster gives up on it (no result will come).
func (jm *JobMaster) stopJobExecution() <-chan struct{} {
	if jm.stopped != nil {
		return jm.stopped
	}
	jm.stopped = make(chan struct{})
	jm.log.Info(fmt.Sprintf("Stopping the JobMaster for job '%s' (%s).", jm.jobGraph.Name, jm.jobGraph.JobID))
	jm.completed = true // a job that ends from now on has no one to report to (Flink stops the job status listener)
	jm.suspendCheckpointServices()
	jm.stopResourceManagerConnection()
	cause := fmt.Errorf("Stopping JobMaster for job '%s' (%s).", jm.jobGraph.Name, jm.jobGraph.JobID)
	jm.disconnectTaskManagerResourceManagerConnections(cause)

	// The last call on the lane: its answer comes after all the others.
	stopped := jm.stopped
	rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(context.Context) (struct{}, error) {
		return struct{}{}, nil
	}, func(struct{}, error) { close(stopped) })
	return stopped
}

// disconnectTaskManagerResourceManagerConnections disconnects the
// JobMaster from every registered TaskExecutor, then from the
// ResourceManager (Flink's method of the same name). Main thread only.
//
// Each TaskExecutor is disconnected as a lost one is (Flink's
// disconnectTaskManager): "Disconnect TaskExecutor <id> because: <cause>",
// its heartbeat is no longer watched, and the slot pool releases its
// slots ("Releasing slot [<id>]."), each freed at the TaskExecutor
// (FreeSlot; Flink: DefaultDeclarativeSlotPool#releaseSlots), which tells
// the ResourceManager it is free. Then the TaskExecutor is told
// (DisconnectJobManager). The scheduler is not told: the job is over, or
// suspended. Last, the ResourceManager is told
// (closeResourceManagerConnection), with the job's status.
//
// A slot freed here must never be allocated to the finished job again. It
// cannot be: the job's requirements dropped to zero when the job became
// globally terminal (jobReachedGloballyTerminalState), and the slot pool
// declared that before the job's result was even reported.
//
// Differs from Flink: Flink declares the lowered requirements long before
// the JobMaster stops, and the TaskExecutors' notices that the slots are
// free come from other actors, so nothing orders them after the
// declaration. Here the disconnects wait on resourceManagerLane, behind
// the declarations, until the ResourceManager has answered them: the
// order no longer depends on timing.
func (jm *JobMaster) disconnectTaskManagerResourceManagerConnections(cause error) {
	jobID := jm.jobGraph.JobID
	for _, id := range slices.Sorted(maps.Keys(jm.taskManagers)) {
		tm := jm.taskManagers[id]
		jm.log.Info(fmt.Sprintf("Disconnect TaskExecutor %s because: %v", id, cause))
		jm.taskManagerHeartbeatManager.UnmonitorTarget(id)
		jobMasterID := jm.FencingToken()
		for _, slot := range jm.slotPool.ReleaseTaskManager(id) {
			rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, tm.gateway.FreeSlot(ctx, slot.AllocationID, jobMasterID, cause)
			}, func(_ struct{}, err error) {
				if err != nil { // the TaskExecutor frees it all the same when it is disconnected
					jm.log.Debug(fmt.Sprintf("Releasing slot [%s] of registered TaskExecutor %s failed. Discarding slot.", slot.AllocationID, id), "cause", err.Error())
				}
			})
		}
		delete(jm.taskManagers, id) // its answer (DisconnectTaskManager) then finds nothing to do
		rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, tm.gateway.DisconnectJobManager(ctx, jobID, jobMasterID, cause)
		}, func(_ struct{}, err error) {
			if err != nil {
				jm.log.Warn(fmt.Sprintf("Could not disconnect job %s from TaskManager %s.", jobID, id), "cause", err.Error())
			}
		})
	}

	// Flink's scheduler is closed first, which suspends a job that has not
	// ended (SchedulerBase#closeAsync → ExecutionGraph#suspend), so the
	// ResourceManager learns SUSPENDED. Ours leaves the graph as it is, so
	// the JobMaster says SUSPENDED itself.
	status := jm.scheduler.RequestJobStatus()
	if !status.IsGloballyTerminalState() {
		status = api.JobSuspended
	}
	jm.closeResourceManagerConnection(status, cause, func(err error) {
		if err != nil {
			jm.log.Warn(fmt.Sprintf("Could not disconnect job %s from the ResourceManager.", jobID), "cause", err.Error())
		}
	})
}

// stopResourceManagerConnection stops looking for and registering at the
// ResourceManager. Main thread only.
func (jm *JobMaster) stopResourceManagerConnection() {
	if jm.rmRetriever != nil {
		_ = jm.rmRetriever.Stop()
		jm.rmRetriever = nil
	}
	if jm.rmRegistration != nil {
		jm.rmRegistration.Cancel()
		jm.rmRegistration = nil
	}
}

func (jm *JobMaster) taskExecutor(id api.ResourceID) (gateway.TaskExecutorGateway, bool) {
	tm, ok := jm.taskManagers[id]
	return tm.gateway, ok
}

// jobReachedGloballyTerminalState reports the job's result to the runner
// as soon as the job is globally terminal (Flink's JobMaster#jobStatusChanged
// → OnCompletionActions#jobReachedGloballyTerminalState). The runner hands
// it to the Dispatcher, which removes the job: that closes the runner, and
// the runner stops the JobMaster (Close), which only then disconnects from
// its TaskExecutors and the ResourceManager.
//
// First, the slot pool frees the slots the job's executions held and drops
// its waiting requests: the job's requirements fall to zero, and the pool
// declares that to the ResourceManager. So when the TaskExecutors free the
// slots later, the SlotManager has nothing of this job to match them to.
//
// Differs from Flink: there each execution releases its slot when it ends
// (DeclarativeSlotPoolBridge#releaseSlot: freeReservedSlot, then
// decreaseResourceRequirementsBy), so the requirements fall step by step;
// our scheduler keeps its slots until the job ends, so they are freed here
// all at once. And Flink goes on retrying a registration at the
// ResourceManager until the JobMaster stops; here a job that needs no more
// slots stops retrying at once.
func (jm *JobMaster) jobReachedGloballyTerminalState(final *gateway.ArchivedExecutionGraph) {
	if jm.completed {
		return
	}
	jm.completed = true
	jm.stopResourceManagerConnection() // a registration still retrying must not succeed now
	jm.slotPool.FreeReservedSlots()
	jm.onComplete(final)
}

// RegisterTaskManager connects a TaskExecutor to this JobMaster.
func (jm *JobMaster) RegisterTaskManager(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
	tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	// The job never changes, so this check needs no main thread; it comes
	// first, as in Flink, so an outdated TaskManager costs no connection.
	if jobID != jm.jobGraph.JobID {
		return gateway.JMTMRegistrationSuccess{}, gateway.RegistrationRejected(
			"The JobManager is not responsible for job %s. Maybe the TaskManager used outdated connection information.", jobID)
	}
	// Connecting back may dial the TaskExecutor's process, so it happens on
	// the caller's goroutine; the main thread goes on with the outcome
	// (Flink: rpcService.connect(...).handleAsync(..., mainThreadExecutor)).
	tmGateway, err := rpc.Connect[gateway.TaskExecutorGateway](ctx, jm.deps.RPC, tm.Address)
	return rpc.CallFenced(ctx, jm.FencedEndpoint, jobMasterID, func() (gateway.JMTMRegistrationSuccess, error) {
		if err != nil {
			return gateway.JMTMRegistrationSuccess{}, err
		}
		jm.taskManagers[tm.ResourceID] = registeredTaskManager{location: tm, gateway: tmGateway}
		// From now on the TaskExecutor is asked for a heartbeat every
		// heartbeat.interval; one that stops answering is disconnected.
		jm.taskManagerHeartbeatManager.MonitorTarget(tm.ResourceID,
			heartbeat.HeartbeatSender[gateway.AllocatedSlotReport](tmGateway.HeartbeatFromJobManager))
		jm.log.Debug(fmt.Sprintf("Registered TaskManager %s for job %s.", tm, jobID))
		return gateway.JMTMRegistrationSuccess{JobManagerResourceID: jm.resourceID}, nil
	})
}

// OfferSlots takes the slots a TaskExecutor allocated for this job.
func (jm *JobMaster) OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
	offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	answer, err := rpc.CallFenced(ctx, jm.FencedEndpoint, jobMasterID, func() (slotOfferAnswer, error) {
		if kind, ok := jm.injectedSlotOfferFault(taskManager); ok {
			return slotOfferAnswer{broken: kind}, nil
		}
		// Step m8: the TaskExecutor offers its slots; the slot pool accepts
		// those a waiting request needs and hands them to the scheduler,
		// which may deploy into them at once (m9), as Flink's slot futures
		// complete into deployAll. The offer is recorded at the moment it
		// arrived, so the trace shows it before the deployments it set off
		// even when a TaskExecutor records one before this line runs.
		offeredAt := jm.deps.Trace.Now()
		accepted, err := jm.offerSlots(taskManager, offers)
		if err != nil {
			return slotOfferAnswer{}, err
		}
		jm.deps.Trace.EmitAt(offeredAt, trace.M8, "TaskExecutor", "JobMaster", jm.jobGraph.JobID,
			"offerSlots from %s: %d offered, %d accepted", taskManager, len(offers), len(accepted))
		return slotOfferAnswer{accepted: accepted}, nil
	})
	if err != nil {
		return nil, err
	}
	if answer.broken != "" {
		return nil, jm.breakSlotOffer(ctx, answer.broken, taskManager, len(offers))
	}
	return answer.accepted, nil
}

// slotOfferAnswer is what the main thread decided about a slot offer: the
// accepted slots, or the fault that breaks the offer.
type slotOfferAnswer struct {
	accepted []gateway.SlotOffer
	broken   fault.Kind // empty unless step m8's fault fired
}

// injectedSlotOfferFault asks whether step m8's fault fires for an offer,
// on the main thread. It is asked only where the offer would really fail:
// after the checks Flink makes first, the fencing token (CallFenced) and
// the TaskManager's registration (offerSlots checks it too, and answers
// "Unknown TaskManager"). An offer those checks refuse is refused as
// without the fault, which stays armed.
func (jm *JobMaster) injectedSlotOfferFault(taskManager api.ResourceID) (fault.Kind, bool) {
	if _, registered := jm.taskManagers[taskManager]; !registered {
		return "", false
	}
	// Step m8 (fault): the offer is rejected, or never answered.
	return jm.deps.Faults.Fire(trace.M8, jm.jobGraph.JobID)
}

// offerSlots answers a slot offer on the main thread (Flink's
// JobMaster#offerSlots).
//
// Step m8: only a TaskManager registered at this JobMaster may offer
// slots, and the slot pool decides which of them the job takes.
func (jm *JobMaster) offerSlots(taskManager api.ResourceID, offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	tm, ok := jm.taskManagers[taskManager]
	if !ok {
		return nil, fmt.Errorf("Unknown TaskManager %s", taskManager)
	}
	return jm.slotPool.OfferSlots(tm.location, offers), nil
}

// breakSlotOffer is step m8 failing (an injected fault), on the caller's
// goroutine, not the main thread, which must not wait: the JobMaster
// rejects every offered slot, so the TaskExecutor frees them and the
// ResourceManager matches the job's requirements again; or it does not
// answer, so the TaskExecutor's offer times out and it offers again.
func (jm *JobMaster) breakSlotOffer(ctx context.Context, kind fault.Kind, taskManager api.ResourceID, offered int) error {
	jobID := jm.jobGraph.JobID
	if kind == fault.SlotOfferTimeout {
		jm.deps.Trace.EmitFailure(trace.M8, "TaskExecutor", "JobMaster", jobID,
			"offerSlots from %s: %d offered, no answer: %v", taskManager, offered, fault.Injected(trace.M8, kind))
		<-ctx.Done()
		return fmt.Errorf("%w: %w", rpc.ErrTimeout, ctx.Err())
	}
	jm.deps.Trace.EmitFailure(trace.M8, "TaskExecutor", "JobMaster", jobID,
		"offerSlots from %s: %d offered, 0 accepted: %v", taskManager, offered, fault.Injected(trace.M8, kind))
	return nil
}

// NotifyNotEnoughResourcesAvailable fails the job's waiting slot requests:
// the ResourceManager cannot meet its requirements (Flink: the JobMaster
// hands it to DeclarativeSlotPoolBridge#notifyNotEnoughResourcesAvailable).
// The scheduler then fails the tasks that waited, and the restart strategy
// decides.
func (jm *JobMaster) NotifyNotEnoughResourcesAvailable(ctx context.Context, jobMasterID api.JobMasterID, acquired int) error {
	_, err := rpc.CallFenced(ctx, jm.FencedEndpoint, jobMasterID, func() (struct{}, error) {
		if jm.slotsTooLarge {
			// Step m7 (fault): slot-sharing-group-too-large: the SlotManager
			// found no TaskManager to cut the group's slots from.
			jm.deps.Trace.EmitFailure(trace.M7, "SlotManager", "JobMaster", jm.jobGraph.JobID,
				"not enough resources: the requirements of job %s fit no TaskManager: %v",
				jm.jobGraph.JobID, fault.Injected(trace.M7, fault.SlotSharingGroupTooLarge))
		}
		jm.slotPool.NotifyNotEnoughResourcesAvailable(acquired)
		return struct{}{}, nil
	})
	return err
}

// UpdateTaskExecutionState applies a task's state report.
func (jm *JobMaster) UpdateTaskExecutionState(ctx context.Context, jobMasterID api.JobMasterID,
	state gateway.TaskExecutionState) error {
	_, err := rpc.CallFenced(ctx, jm.FencedEndpoint, jobMasterID, func() (struct{}, error) {
		return struct{}{}, jm.scheduler.UpdateTaskExecutionState(state)
	})
	return err
}

// DisconnectTaskManager forgets a TaskExecutor and releases its slots: it
// is shutting down, or it lost us (Flink: JobMaster#disconnectTaskManager).
func (jm *JobMaster) DisconnectTaskManager(ctx context.Context, jobMasterID api.JobMasterID,
	taskManager api.ResourceID, cause error) error {
	_, err := rpc.CallFenced(ctx, jm.FencedEndpoint, jobMasterID, func() (struct{}, error) {
		if _, ok := jm.taskManagers[taskManager]; !ok {
			return struct{}{}, nil
		}
		jm.disconnectTaskManagerAndTell(taskManager, cause, false) // the TaskExecutor said goodbye
		return struct{}{}, nil
	})
	return err
}

// disconnectTaskManager forgets a TaskExecutor and releases its slots; the
// tasks that ran in them fail with cause, and the failover takes over.
// When the JobMaster decided it (a heartbeat), the TaskExecutor is told too
// (DisconnectJobManager), as in Flink: if it is alive, it frees the job's
// slots there.
//
// Differs from Flink: when the TaskExecutor said goodbye itself, Flink
// echoes the disconnect anyway, and the echo finds no connection, because
// Pekko delivers it before any later message between the two. Here two
// calls are not ordered: a late echo could close the connection the
// TaskExecutor has registered anew meanwhile, and lose the slot it just
// offered. So the JobMaster does not echo a goodbye.
func (jm *JobMaster) disconnectTaskManager(taskManager api.ResourceID, cause error) {
	jm.disconnectTaskManagerAndTell(taskManager, cause, true)
}

func (jm *JobMaster) disconnectTaskManagerAndTell(taskManager api.ResourceID, cause error, tell bool) {
	jm.log.Info(fmt.Sprintf("Disconnect TaskExecutor %s because: %v", taskManager, cause))
	jm.taskManagerHeartbeatManager.UnmonitorTarget(taskManager)
	tm, ok := jm.taskManagers[taskManager]
	delete(jm.taskManagers, taskManager) // first: the failover must not ask it to cancel the tasks it lost
	released := jm.slotPool.ReleaseTaskManager(taskManager)
	jm.scheduler.ReleaseTaskManager(taskManager, released, cause)

	if !ok || !tell {
		return
	}
	jobID, jobMasterID := jm.jobGraph.JobID, jm.FencingToken()
	rpc.Ask(jm.Endpoint, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, tm.gateway.DisconnectJobManager(ctx, jobID, jobMasterID, cause)
	}, func(struct{}, error) {}) // a TaskExecutor that does not answer is gone anyway
}

// RequestJobStatus returns the job's status.
func (jm *JobMaster) RequestJobStatus(ctx context.Context) (api.JobStatus, error) {
	return rpc.CallAsync(ctx, jm.Endpoint, func() (api.JobStatus, error) {
		return jm.scheduler.RequestJobStatus(), nil
	})
}

// RequestJob returns a snapshot of the ExecutionGraph.
func (jm *JobMaster) RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error) {
	return rpc.CallAsync(ctx, jm.Endpoint, func() (*gateway.ArchivedExecutionGraph, error) {
		return jm.scheduler.RequestJob(), nil
	})
}

// Cancel cancels the job (Flink's cancel: the scheduler's cancel, and no
// line of its own; the ExecutionGraph logs the job's way to CANCELED).
func (jm *JobMaster) Cancel(ctx context.Context) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		jm.scheduler.Cancel()
		return struct{}{}, nil
	})
	return err
}

// RequestJobResourceRequirements returns the parallelism bounds of the
// job's vertices, as the scheduler has them (Flink's
// requestJobResourceRequirements). The answer is a copy: the caller reads
// it off the main thread.
func (jm *JobMaster) RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error) {
	return rpc.CallAsync(ctx, jm.Endpoint, func() (jobgraph.JobResourceRequirements, error) {
		return maps.Clone(jm.scheduler.RequestJobResourceRequirements()), nil
	})
}

// UpdateJobResourceRequirements hands new parallelism bounds to the
// scheduler on the main thread (Flink's updateJobResourceRequirements).
// The Dispatcher has validated them; the DefaultScheduler refuses them
// all with gateway.ErrUnsupportedOperation. The scheduler gets a copy, so
// the caller may reuse its map.
func (jm *JobMaster) UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error {
	requirements = maps.Clone(requirements)
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		return struct{}{}, jm.scheduler.UpdateJobResourceRequirements(requirements)
	})
	return err
}

// graphToBuild is the JobGraph the JobMaster builds its ExecutionGraph
// from and its scheduler requests slots for: g itself, unless a fault of
// the program's own making fires, one of step m4 or one of step m7. Then
// it is a copy of g with the program's mistake in it, and the runtime
// fails on it as Flink fails on such a program, with no word of a fault.
// The JobGraph the Dispatcher stored is left as it is.
func graphToBuild(g *jobgraph.JobGraph, faults *fault.Injector) (built *jobgraph.JobGraph, slotsTooLarge bool) {
	if copied, ok := pastMaxParallelism(g, faults); ok {
		return copied, false
	}
	if copied, ok := withSlotSharingGroupTooLarge(g, faults); ok {
		return copied, true
	}
	return g, false
}

// pastMaxParallelism is step m4's fault max-parallelism-exceeded: a copy
// of g in which the widest vertex (the first of them in topological
// order) has half its parallelism, at least 1, as max parallelism: the
// program set it so, and the job was submitted with a higher parallelism
// (flink run -p). BuildGraph's own check then fails with Flink's
// JobException, as it would for such a program. A job whose every vertex
// has parallelism 1 is past no max parallelism: there the fault does not
// fire and stays armed.
func pastMaxParallelism(g *jobgraph.JobGraph, faults *fault.Injector) (*jobgraph.JobGraph, bool) {
	// Step m4 (fault): max-parallelism-exceeded: a copy past its max parallelism.
	widest := widestVertex(g)
	if widest == nil || widest.Parallelism < 2 || !faults.FireKind(trace.M4, g.JobID, fault.MaxParallelismExceeded) {
		return nil, false
	}
	copied, err := copyOf(g)
	if err != nil {
		return nil, false // a graph that cannot be written down fails BuildGraph on its own
	}
	copied.Vertex(widest.ID).MaxParallelism = max(1, widest.Parallelism/2)
	return copied, true
}

// tooLargeSlotSharingGroup is the ResourceProfile step m7's fault
// slot-sharing-group-too-large gives a slot sharing group, as a program
// would with SlotSharingGroup.newBuilder(…).setCpuCores(16)
// .setTaskHeapMemoryMB(256).setManagedMemoryMB(128): more CPU cores than
// any TaskManager of the demo or a drill has (each has 2, one per slot),
// in memory amounts that would fit.
var tooLargeSlotSharingGroup = api.NewResourceProfile(16, 256<<20, 0, 128<<20, 0) // memory in bytes: 256 MiB, 128 MiB

// withSlotSharingGroupTooLarge is step m7's fault
// slot-sharing-group-too-large: a copy of g in which the slot sharing
// group of the first vertex, in topological order, has the resources
// tooLargeSlotSharingGroup, as if the program had set them (a typo in
// setCpuCores, a memory size in the wrong unit). Nothing checks them
// against the cluster before the job runs, in Flink as here: the
// scheduler requests each of the group's shared slots with that profile,
// the slot pool declares them, and the SlotManager finds no TaskManager
// to cut such a slot from; after the start-up period the job's slot
// requests fail with NoResourceAvailableException, and every restart
// fails the same way.
//
// The fault is step m7's although the JobMaster applies it: the program's
// mistake costs nothing until the SlotManager matches the job's
// requirements against the TaskManagers' resources, and that matching is
// the step that breaks, the one whose log lines show it and the component
// (the ResourceManager's SlotManager) to open. The JobMaster applies it
// because it is where the program's resources enter the runtime, as the
// m4 fault's max parallelism does; the trace records the break at m7
// when the ResourceManager tells the JobMaster that its requirements
// cannot be met (NotifyNotEnoughResourcesAvailable). A first vertex in no slot sharing group (a JobGraph built by
// hand, alone in a group of its own) has no group a program could give
// resources to: there the fault does not fire and stays armed.
func withSlotSharingGroupTooLarge(g *jobgraph.JobGraph, faults *fault.Injector) (*jobgraph.JobGraph, bool) {
	sorted, err := g.VerticesSortedTopologicallyFromSources()
	if err != nil || len(sorted) == 0 || sorted[0].SlotSharingGroup == "" {
		return nil, false // a graph that cannot be sorted fails BuildGraph on its own
	}
	// Step m7 (fault): slot-sharing-group-too-large: a copy whose slots fit
	// no TaskManager.
	group := sorted[0].SlotSharingGroup
	if !faults.FireKind(trace.M7, g.JobID, fault.SlotSharingGroupTooLarge) {
		return nil, false
	}
	copied, err := copyOf(g)
	if err != nil {
		return nil, false // a graph that cannot be written down fails BuildGraph on its own
	}
	if copied.SlotSharingGroupResources == nil { // the copy's own map otherwise
		copied.SlotSharingGroupResources = make(map[string]api.ResourceProfile)
	}
	copied.SlotSharingGroupResources[group] = tooLargeSlotSharingGroup
	return copied, true
}

// widestVertex returns the first vertex, in topological order, with the
// highest parallelism, or nil for a graph that cannot be sorted (BuildGraph
// then fails on its own).
func widestVertex(g *jobgraph.JobGraph) *jobgraph.JobVertex {
	sorted, err := g.VerticesSortedTopologicallyFromSources()
	if err != nil {
		return nil
	}
	var widest *jobgraph.JobVertex
	for _, v := range sorted {
		if widest == nil || v.Parallelism > widest.Parallelism {
			widest = v
		}
	}
	return widest
}

// copyOf is a deep copy of g, through its JSON form (the one the
// JobGraphStore writes).
func copyOf(g *jobgraph.JobGraph) (*jobgraph.JobGraph, error) {
	data, err := jobgraph.Encode(g)
	if err != nil {
		return nil, err
	}
	return jobgraph.Decode(data)
}
