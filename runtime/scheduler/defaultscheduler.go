package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// Config configures a DefaultScheduler: the options its decisions follow.
type Config struct {
	// RPCTimeout bounds each submitTask and cancelTask call (Flink's
	// pekko.ask.timeout).
	RPCTimeout time.Duration
	// RestartStrategy decides whether, and after how long, a failed job
	// restarts (Flink: RestartBackoffTimeStrategy); nil means
	// NoRestartBackoffTimeStrategy.
	RestartStrategy failover.RestartBackoffTimeStrategy
	// FailoverStrategy is jobmanager.execution.failover-strategy: "region"
	// (the default, also when empty) or "full"; see
	// failover.LoadFailoverStrategy.
	FailoverStrategy string
	// SlotRequestTimeout is how long the slot requests of one scheduling
	// round may stay unfulfillable before they fail (Flink's
	// slot.request.timeout); zero means slotpool.DefaultSlotRequestTimeout.
	SlotRequestTimeout time.Duration
	// Logger receives the scheduler's lines and the ExecutionGraph's state
	// changes; nil means slog.Default().
	Logger *slog.Logger
}

// Deps are what a DefaultScheduler works with: the job it schedules, the
// JobMaster's main thread and slot pool, and the TaskExecutors it deploys
// to. It is created and used on the JobMaster's main thread.
type Deps struct {
	Graph      *executiongraph.ExecutionGraph
	JobGraph   *jobgraph.JobGraph
	MainThread *rpc.Endpoint
	SlotPool   *slotpool.SlotPool
	// TaskExecutor returns the gateway of a TaskExecutor registered at the
	// JobMaster.
	TaskExecutor func(api.ResourceID) (gateway.TaskExecutorGateway, bool)
	// JobMasterID fences the calls to the TaskExecutors.
	JobMasterID api.JobMasterID
	// Trace records a deployment (step m9) that failed on the way; nil
	// records nothing.
	Trace *trace.Recorder
	// OnTerminal is called once, when the job reaches a globally terminal
	// state, with its final ExecutionGraph.
	OnTerminal func(*gateway.ArchivedExecutionGraph)
	// OnTaskFailure, if not nil, takes every task failure of the RUNNING
	// job instead of the scheduler's own failover: the AdaptiveScheduler
	// runs each ExecutionGraph this way and decides itself, cancelling
	// the graph to restart with a new one (Cancel) or failing it
	// (FailJob).
	OnTaskFailure func(e *executiongraph.Execution, cause error)
	// Checkpointing checkpoints the job; nil (or an interval of none)
	// runs it without checkpoints.
	Checkpointing *Checkpointing
}

// DefaultScheduler is Flink's DefaultScheduler, reduced to what a job needs
// to go from CREATED to FINISHED, FAILED or CANCELED.
type DefaultScheduler struct {
	cfg      Config
	deps     Deps
	log      *slog.Logger // DefaultScheduler's own lines
	graphLog *slog.Logger // state changes, logged as Flink's ExecutionGraph logs them
	tdds     *tddFactory

	// failureHandler decides, for each failure, whether to restart and
	// which tasks (Flink: ExecutionFailureHandler).
	failureHandler *failover.ExecutionFailureHandler
	// bulkChecker fails the slot requests of a round that cannot be
	// fulfilled within SlotRequestTimeout.
	bulkChecker *slotpool.PhysicalSlotRequestBulkChecker
	// exceptionHistory holds the failures the job went through, newest
	// first (Flink: SchedulerBase's exceptionHistory).
	exceptionHistory ExceptionHistory
	// restarts are the restarts waiting for their backoff and for their
	// tasks to stop; waitingForRestart holds their subtasks (Flink:
	// verticesWaitingForRestart): the job is RESTARTING while it is not
	// empty.
	restarts          []*pendingRestart
	waitingForRestart map[api.ExecutionVertexID]bool
	// versions counts, per subtask, the restarts that took it (Flink's
	// ExecutionVertexVersioner): a restart leaves out the subtasks a later
	// one took over.
	versions map[api.ExecutionVertexID]int
	// submitting holds the executions whose submitTask has not been
	// answered yet.
	submitting map[*executiongraph.Execution]bool

	// schedulingStrategy decides when each pipelined region is deployed;
	// failoverStrategyName is how the failover strategy was configured.
	schedulingStrategy *pipelinedRegionSchedulingStrategy
	// partitions are the BLOCKING partitions finished producers hold.
	partitions *partitionTracker

	// slotSharing knows the shared slot of every execution vertex;
	// sharedSlots are the shared slots requested or held now, and
	// logicalSlots the shared slot of each execution placed in one.
	slotSharing   *slotSharingStrategy
	sharedSlots   map[*executionSlotSharingGroup]*sharedSlot
	logicalSlots  map[*executiongraph.Execution]*sharedSlot
	nextRequestID slotpool.SlotRequestID
	// topologicalIndex numbers the subtasks in the order of the graph.
	topologicalIndex map[*executiongraph.ExecutionVertex]int
	finished         bool // OnTerminal was called

	// checkpointCoordinator checkpoints the job; nil when it is not
	// checkpointed. taskRestores holds, per subtask, the state its next
	// deployment restores.
	checkpointCoordinator *checkpoint.CheckpointCoordinator
	taskRestores          map[api.ExecutionVertexID]*checkpoint.JobManagerTaskRestore
	// stopWithSavepoint is the stop-with-savepoint whose savepoint
	// completed and whose tasks are ending; nil when none (savepoints.go).
	stopWithSavepoint *stopWithSavepointTermination
}

// pendingRestart is a restart waiting for its backoff to pass and for its
// tasks to stop (Flink: the delayed restartTasks of restartTasksWithDelay).
type pendingRestart struct {
	// versions are the subtasks to restart, with their version when the
	// restart was decided.
	versions     map[api.ExecutionVertexID]int
	vertices     []api.ExecutionVertexID // the same subtasks, in order
	delayElapsed bool
}

var _ SchedulerNG = (*DefaultScheduler)(nil)

// NewDefaultScheduler returns a scheduler for a graph in state CREATED.
func NewDefaultScheduler(cfg Config, deps Deps) *DefaultScheduler {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.RestartStrategy == nil {
		cfg.RestartStrategy = failover.NoRestartBackoffTimeStrategy{}
	}
	if cfg.SlotRequestTimeout <= 0 {
		cfg.SlotRequestTimeout = slotpool.DefaultSlotRequestTimeout
	}
	s := &DefaultScheduler{
		cfg:               cfg,
		deps:              deps,
		log:               logger.With("logger", "DefaultScheduler"),
		graphLog:          logger.With("logger", "ExecutionGraph"),
		tdds:              newTDDFactory(deps.Graph, deps.JobGraph),
		waitingForRestart: make(map[api.ExecutionVertexID]bool),
		versions:          make(map[api.ExecutionVertexID]int),
		submitting:        make(map[*executiongraph.Execution]bool),
		// Flink's SlotSharingExecutionSlotAllocatorFactory builds the
		// shared slots of the whole graph when the scheduler is created.
		slotSharing:  newSlotSharingStrategy(deps.Graph),
		sharedSlots:  make(map[*executionSlotSharingGroup]*sharedSlot),
		logicalSlots: make(map[*executiongraph.Execution]*sharedSlot),
		taskRestores: make(map[api.ExecutionVertexID]*checkpoint.JobManagerTaskRestore),
	}
	if err := s.createCheckpointCoordinator(logger); err != nil {
		s.log.Error("Could not create the checkpoint storage; the job runs without checkpoints.", "cause", err.Error())
	}
	// Flink's DefaultSchedulerComponents: the bulk checker reads the
	// job's slot pool and runs its checks on the main thread.
	s.bulkChecker = slotpool.NewPhysicalSlotRequestBulkChecker(deps.SlotPool.AllSlotInfos,
		func(fn func(), delay time.Duration) { deps.MainThread.ScheduleRunAsync(fn, delay) })
	s.partitions = newPartitionTracker(deps.Graph, s.releasePartitions)
	// The pipelined regions are computed once, for the scheduling strategy
	// and the failover strategy (Flink's DefaultExecutionTopology).
	regions := deps.Graph.PipelinedRegions()
	s.schedulingStrategy = newPipelinedRegionSchedulingStrategy(deps.Graph, regions, s.allocateSlotsAndDeploy)
	var vertices []api.ExecutionVertexID
	s.topologicalIndex = make(map[*executiongraph.ExecutionVertex]int, deps.Graph.TotalNumberOfVertices())
	for ev := range deps.Graph.AllExecutionVertices() {
		s.topologicalIndex[ev] = len(vertices)
		vertices = append(vertices, ev.ID())
	}
	var strategy failover.FailoverStrategy = failover.NewRestartPipelinedRegionFailoverStrategy(
		deps.Graph, regions, s.partitions.isAvailable, logger)
	if name, _ := failover.LoadFailoverStrategy(cfg.FailoverStrategy); name == failover.FailoverStrategyFull {
		strategy = failover.NewRestartAllFailoverStrategy(vertices)
	}
	s.failureHandler = failover.NewExecutionFailureHandler(vertices, strategy, cfg.RestartStrategy)
	if deps.OnTaskFailure == nil {
		s.log.Info(fmt.Sprintf("Using failover strategy %s for %s (%s).", strategy, deps.Graph.JobName(), deps.Graph.JobID()))
	}
	return s
}

// StartScheduling moves the job to RUNNING and schedules its source
// regions: all of a streaming job, the first stage of a batch job.
func (s *DefaultScheduler) StartScheduling() {
	if s.deps.OnTaskFailure == nil {
		s.log.Info("Starting scheduling with scheduling strategy [org.apache.flink.runtime.scheduler.strategy.PipelinedRegionSchedulingStrategy]")
	}
	// A job recovered after a JobManager failover, or the next graph of
	// the AdaptiveScheduler, starts from the latest completed checkpoint;
	// a new job from the savepoint it names, if any (savepoints.go).
	if err := s.restoreInitialState(); err != nil {
		s.failJob(err)
		return
	}
	if !s.transitionJob(api.JobCreated, api.JobRunning, nil) {
		return
	}
	s.schedulingStrategy.startScheduling()
}

// deploy is Flink's Execution#deploy: SCHEDULED → DEPLOYING, then
// submitTask (step m9) on the slot's TaskExecutor.
func (s *DefaultScheduler) deploy(e *executiongraph.Execution, slot slotpool.PhysicalSlot) {
	ev := e.Vertex()
	if e.State() != api.ExecutionScheduled {
		return // an earlier deployment of the region failed, and the failover cancelled it
	}
	tm, ok := s.deps.TaskExecutor(slot.TaskManager.ResourceID)
	if !ok {
		s.markFailed(e, errors.New("JobException: Target slot (TaskManager) for deployment is no longer alive."))
		return
	}
	s.transitionExecution(e, api.ExecutionDeploying, nil)
	s.graphLog.Info(fmt.Sprintf("Deploying %s (attempt #%d) with attempt id %s and vertex id %s to %s with allocation id %s",
		ev.TaskNameWithSubtaskIndex(), e.AttemptNumber(), e.AttemptID(), ev.ID(), slot.TaskManager, slot.AllocationID))
	tdd := s.tdds.create(ev)
	tdd.TaskRestore = s.taskRestores[ev.ID()]

	// Step m9: submitTask. The answer comes back on the main thread.
	s.submitting[e] = true
	rpc.Ask(s.deps.MainThread, s.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, tm.SubmitTask(ctx, tdd, s.deps.JobMasterID)
	}, func(_ struct{}, err error) {
		delete(s.submitting, e)
		timedOut := errors.Is(err, rpc.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
		if e.State() == api.ExecutionCanceling {
			// Cancelled while the submission was on its way. A refused
			// submission left nothing to cancel; otherwise the TaskExecutor
			// has the task, or may get it late: cancel it there.
			if err != nil && !timedOut {
				s.transitionExecution(e, api.ExecutionCanceled, nil)
				s.executionTerminated()
				return
			}
			s.cancelOnTaskExecutor(e)
			return
		}
		if err == nil || ev.CurrentExecution() != e {
			return
		}
		if timedOut {
			err = fmt.Errorf("Cannot deploy task %s (%s) - TaskManager (%s) not responding after a rpcTimeout of %s: %w",
				ev.TaskNameWithSubtaskIndex(), e.AttemptID(), slot.TaskManager, s.cfg.RPCTimeout, err)
			// The TaskExecutor could not say so itself.
			s.deps.Trace.EmitFailure(trace.M9, "JobMaster", "TaskExecutor", s.deps.Graph.JobID(), "%v", err)
		}
		s.markFailed(e, err)
		if timedOut {
			// The TaskExecutor may still receive the task late: make sure
			// it does not run (Flink: Execution#processFail sends a cancel
			// call).
			s.sendCancelRPCCall(e, cancelCallTries, nil)
		}
	})
}

// UpdateTaskExecutionState applies a TaskExecutor's report.
func (s *DefaultScheduler) UpdateTaskExecutionState(state gateway.TaskExecutionState) error {
	e, ok := s.deps.Graph.Execution(state.AttemptID)
	if !ok {
		return fmt.Errorf("The execution attempt %s was not found.", state.AttemptID)
	}
	if e.State() == state.State || e.State().IsTerminal() {
		return nil // a late or repeated report
	}
	if e.State() == api.ExecutionCanceling {
		// The JobMaster asked the task to cancel while this report was on
		// its way. INITIALIZING and RUNNING are overtaken by the cancel; a
		// task that finished anyway counts as canceled (Flink's Execution
		// does the same when a report crosses a cancel call).
		switch state.State {
		case api.ExecutionInitializing, api.ExecutionRunning:
			return nil
		case api.ExecutionFinished:
			state.State = api.ExecutionCanceled
			// It did finish: what it wrote is on its TaskExecutor, and
			// nobody will read it (Flink: Execution#handlePartitionCleanup).
			s.releaseProducedPartitions(e)
		case api.ExecutionFailed:
			// Flink's Execution#processFail: a task that fails while being
			// cancelled completes its cancellation.
			state.State, state.FailureCause = api.ExecutionCanceled, nil
		}
	}
	if state.State == api.ExecutionFailed {
		s.markFailed(e, state.FailureCause)
		return nil
	}
	if err := api.CheckExecutionTransition(e.State(), state.State); err != nil {
		return fmt.Errorf("The TaskExecutor reported an impossible state for %s: %w", e, err)
	}
	s.transitionExecution(e, state.State, nil)
	switch state.State {
	case api.ExecutionFinished:
		// Its BLOCKING results can be read now: the regions that wait for
		// them may start.
		s.partitions.startTrackingPartitionsOf(e)
		s.schedulingStrategy.onExecutionFinished(e.Vertex())
		s.releaseConsumedPartitions(e.Vertex())
		s.checkJobFinished()
	case api.ExecutionCanceled:
		s.executionTerminated()
	}
	return nil
}

// transitionExecution moves an execution and logs it as Flink's
// Execution#transitionState does: the subtask's name without the attempt
// number, the attempt ID, and with a cause the attempt's location
// ("[unassigned resource]" without a slot):
//
//	Map (2/4) (<attempt id>) switched from RUNNING to FINISHED.
//	Map (2/4) (<attempt id>) switched from SCHEDULED to FAILED on [unassigned resource].
//
// An illegal move is a bug in the scheduler and panics.
func (s *DefaultScheduler) transitionExecution(e *executiongraph.Execution, to api.ExecutionState, cause error) {
	from := e.State()
	var err error
	if to == api.ExecutionFailed {
		err = e.MarkFailed(cause)
	} else {
		err = e.TransitionState(to)
	}
	if err != nil {
		panic(fmt.Sprintf("scheduler: %v", err))
	}
	if to.IsTerminal() {
		s.releaseLogicalSlot(e)
	}
	name := e.Vertex().TaskNameWithSubtaskIndex()
	if cause != nil {
		s.graphLog.Info(fmt.Sprintf("%s (%s) switched from %s to %s on %s.", name, e.AttemptID(), from, to, e.LocationInformation()),
			"cause", cause.Error())
	} else {
		s.graphLog.Info(fmt.Sprintf("%s (%s) switched from %s to %s.", name, e.AttemptID(), from, to))
	}
}

// markFailed fails one execution and hands the failure to the failover
// (Flink: Execution#markFailed → DefaultScheduler#handleTaskFailure).
func (s *DefaultScheduler) markFailed(e *executiongraph.Execution, cause error) {
	if cause == nil {
		cause = errors.New("unknown failure")
	}
	switch {
	case e.State().IsTerminal():
		return
	case e.State() == api.ExecutionCanceling:
		// Flink's Execution#processFail: a task that fails while being
		// cancelled completes its cancellation.
		s.transitionExecution(e, api.ExecutionCanceled, nil)
		s.executionTerminated()
		return
	}
	s.transitionExecution(e, api.ExecutionFailed, cause)
	s.handleTaskFailure(e, cause)
}

// FailJob fails the job with cause: the AdaptiveScheduler's Failing
// state calls it (Flink: ExecutionGraph#failJob).
func (s *DefaultScheduler) FailJob(cause error) { s.failJob(cause) }

// failJob moves the job to FAILING, cancels every task still alive and
// finishes FAILED once all have stopped.
func (s *DefaultScheduler) failJob(cause error) {
	state := s.deps.Graph.State()
	if state.IsTerminalState() || state == api.JobFailing {
		return
	}
	if s.deps.Graph.FailureCause() == nil {
		s.deps.Graph.SetFailureCause(cause)
	}
	if !s.transitionJob(state, api.JobFailing, cause) {
		return
	}
	s.cancelAllExecutions()
	s.checkJobTerminated()
}

// ReleaseTaskManager fails the executions that ran in slots the JobMaster
// lost, because their TaskExecutor is gone (Flink: the slot pool releases
// the TaskManager's slots, and each payload fails with the cause), and
// forgets the partitions the TaskExecutor held (Flink: the JobMaster's
// partition tracker stops tracking them), so that the failover produces
// them again where they are needed.
func (s *DefaultScheduler) ReleaseTaskManager(taskManager api.ResourceID, slots []slotpool.PhysicalSlot, cause error) {
	s.partitions.stopTrackingPartitionsFor(taskManager)
	lost := make(map[api.AllocationID]bool, len(slots))
	for _, slot := range slots {
		lost[slot.AllocationID] = true
	}
	// A lost slot that was not handed to its executions yet fails them
	// (Flink: the released slot fails the executions' slot futures).
	var unassigned []*executiongraph.Execution
	var rounds []*deploymentRound
	for _, shared := range s.sharedSlots {
		if shared.physical == nil || !lost[shared.physical.AllocationID] {
			continue
		}
		for _, e := range shared.logical {
			if e.State() == api.ExecutionScheduled {
				unassigned = append(unassigned, e)
			}
		}
		rounds = append(rounds, s.releaseSharedSlot(shared)...)
	}
	// In the order of the graph: the first failure names the failover.
	slices.SortFunc(unassigned, func(a, b *executiongraph.Execution) int {
		return cmp.Compare(s.topologicalIndex[a.Vertex()], s.topologicalIndex[b.Vertex()])
	})
	for _, e := range unassigned {
		s.markFailed(e, cause)
	}
	for _, round := range rounds {
		s.maybeDeploy(round)
	}
	for ev := range s.deps.Graph.AllExecutionVertices() {
		e := ev.CurrentExecution()
		slot, ok := e.AssignedSlot()
		if !ok || !lost[slot.AllocationID] || e.State().IsTerminal() {
			continue
		}
		if e.State() == api.ExecutionCanceling {
			// It was being cancelled anyway; its TaskExecutor will not answer.
			s.transitionExecution(e, api.ExecutionCanceled, nil)
			s.executionTerminated()
			continue
		}
		s.markFailed(e, cause)
	}
}

// Cancel moves the job to CANCELLING, cancels every task and finishes
// CANCELED once all have stopped (Flink: DefaultExecutionGraph#cancel).
//
// A FAILING job is cancelled too: failJob is cancelling its tasks already,
// so the job only moves to CANCELLING, and it ends CANCELED, not FAILED,
// when the last task stops (Flink: failJob's completion finds the job
// CANCELLING and moves it to CANCELED). In any other state (terminal, or
// CANCELLING already) a cancel changes nothing.
//
// Flink's cancel also knows CANCELLING → FAILED, "Could not cancel job
// <name> because not all execution job vertices could be cancelled.",
// when the future of the vertices' cancellation fails; that future is the
// vertices' slot release, which cannot fail here. A cancelTask call that
// gives up after its tries does not fail the cancellation: Flink marks
// that attempt CANCELED (see cancelOnTaskExecutor), and so do we.
func (s *DefaultScheduler) Cancel() {
	switch state := s.deps.Graph.State(); state {
	case api.JobCreated, api.JobRunning, api.JobRestarting:
		if !s.transitionJob(state, api.JobCancelling, nil) {
			return
		}
		s.cancelAllExecutions()
	case api.JobFailing:
		if !s.transitionJob(state, api.JobCancelling, nil) {
			return
		}
	default:
		return
	}
	s.checkJobTerminated()
}

// cancelAllExecutions stops every execution that is not terminal: those
// not yet deployed go through CANCELING to CANCELED at once, deployed ones
// are asked to cancel on their TaskExecutor and report CANCELED later.
func (s *DefaultScheduler) cancelAllExecutions() {
	s.cancelExecutions(s.deps.Graph.AllExecutionVertices())
}

// cancelExecutions stops the executions of the given vertices that are not
// terminal, as cancelAllExecutions does.
func (s *DefaultScheduler) cancelExecutions(vertices iter.Seq[*executiongraph.ExecutionVertex]) {
	for ev := range vertices {
		e := ev.CurrentExecution()
		switch e.State() {
		case api.ExecutionCreated, api.ExecutionScheduled:
			// Nothing was deployed: Flink's Execution#cancelAtomically
			// starts the cancellation and completes it at once, two moves.
			s.transitionExecution(e, api.ExecutionCanceling, nil)
			s.transitionExecution(e, api.ExecutionCanceled, nil)
		case api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning:
			s.transitionExecution(e, api.ExecutionCanceling, nil)
			s.cancelOnTaskExecutor(e)
		}
	}
}

// cancelOnTaskExecutor asks the TaskExecutor to cancel a CANCELING
// execution; the task reports CANCELED when it has stopped. A submission
// still on its way is waited for first (the deploy callback calls back
// here): Pekko would deliver the cancel after the submission, while two
// concurrent calls here could overtake each other and leave the task
// running unseen.
func (s *DefaultScheduler) cancelOnTaskExecutor(e *executiongraph.Execution) {
	if s.submitting[e] {
		return
	}
	if _, ok := s.deps.TaskExecutor(assignedResourceID(e)); !ok {
		s.transitionExecution(e, api.ExecutionCanceled, nil)
		s.executionTerminated()
		return
	}
	s.sendCancelRPCCall(e, cancelCallTries, func() {
		if e.State() == api.ExecutionCanceling {
			// The TaskExecutor did not answer any try: count the task as
			// canceled. Flink's Execution#sendCancelRpcCall fails the
			// attempt with "Task could not be canceled.", and
			// processFail completes the cancellation of a CANCELING
			// attempt: it ends CANCELED, and the job's cancel goes on.
			s.transitionExecution(e, api.ExecutionCanceled, nil)
			s.executionTerminated()
		}
	})
}

// cancelCallTries is how often a cancel call is tried before it is given
// up (Flink's Execution.NUM_CANCEL_CALL_TRIES).
const cancelCallTries = 3

// sendCancelRPCCall sends cancelTask for e's attempt to its TaskExecutor,
// trying again on an error, tries times in all (Flink:
// Execution#sendCancelRpcCall); gaveUp, if not nil, runs on the main
// thread when the last try failed.
func (s *DefaultScheduler) sendCancelRPCCall(e *executiongraph.Execution, tries int, gaveUp func()) {
	tm, ok := s.deps.TaskExecutor(assignedResourceID(e))
	if !ok {
		if gaveUp != nil {
			gaveUp()
		}
		return
	}
	attemptID := e.AttemptID()
	rpc.Ask(s.deps.MainThread, s.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, tm.CancelTask(ctx, attemptID)
	}, func(_ struct{}, err error) {
		switch {
		case err == nil:
		case tries > 1:
			s.sendCancelRPCCall(e, tries-1, gaveUp)
		case gaveUp != nil:
			gaveUp()
		}
	})
}

// checkJobFinished finishes the job once every task has FINISHED.
func (s *DefaultScheduler) checkJobFinished() {
	if s.deps.Graph.State() != api.JobRunning {
		s.checkJobTerminated()
		return
	}
	for ev := range s.deps.Graph.AllExecutionVertices() {
		if ev.ExecutionState() != api.ExecutionFinished {
			return
		}
	}
	if s.transitionJob(api.JobRunning, api.JobFinished, nil) {
		s.terminated()
	}
}

// checkJobTerminated ends a FAILING or CANCELLING job once no task is
// alive any more.
func (s *DefaultScheduler) checkJobTerminated() {
	state := s.deps.Graph.State()
	if state != api.JobFailing && state != api.JobCancelling {
		return
	}
	for ev := range s.deps.Graph.AllExecutionVertices() {
		if !ev.ExecutionState().IsTerminal() {
			return
		}
	}
	final := api.JobFailed
	if state == api.JobCancelling {
		final = api.JobCanceled
	}
	if s.transitionJob(state, final, nil) {
		s.terminated()
	}
}

func (s *DefaultScheduler) terminated() {
	if s.finished {
		return
	}
	s.finished = true
	if s.checkpointCoordinator != nil {
		if s.deps.OnTaskFailure != nil {
			// A graph of the AdaptiveScheduler: its end is not the job's,
			// and the next graph restores from the same store, which the
			// AdaptiveScheduler shuts down when the job ends.
			s.checkpointCoordinator.ShutdownKeepingCheckpointServices()
		} else {
			s.checkpointCoordinator.Shutdown(s.deps.Graph.State())
		}
	}
	s.partitions.stopTrackingAndReleaseAllPartitions()
	s.deps.OnTerminal(s.archivedGraph())
}

// transitionJob moves the job and logs it as Flink's ExecutionGraph does.
// It returns false when the job is not in status from any more (another
// event moved it first); an illegal move is a bug and panics.
func (s *DefaultScheduler) transitionJob(from, to api.JobStatus, cause error) bool {
	if err := s.deps.Graph.TransitionState(from, to); err != nil {
		if errors.Is(err, executiongraph.ErrUnexpectedState) {
			return false
		}
		panic(fmt.Sprintf("scheduler: %v", err))
	}
	msg := fmt.Sprintf("Job %s (%s) switched from state %s to %s.", s.deps.Graph.JobName(), s.deps.Graph.JobID(), from, to)
	if cause != nil {
		s.graphLog.Info(msg, "cause", cause.Error())
	} else {
		s.graphLog.Info(msg)
	}
	s.checkpointCoordinatorDeActivator(from, to)
	return true
}

// RequestJobStatus returns the job's status.
func (s *DefaultScheduler) RequestJobStatus() api.JobStatus { return s.deps.Graph.State() }

// RequestJob returns a snapshot of the ExecutionGraph.
func (s *DefaultScheduler) RequestJob() *gateway.ArchivedExecutionGraph {
	return s.archivedGraph()
}

// assignedResourceID is the TaskExecutor an execution's slot is on.
func assignedResourceID(e *executiongraph.Execution) api.ResourceID {
	slot, _ := e.AssignedSlot()
	return slot.TaskManagerLocation.ResourceID
}
