package adaptive

import (
	"fmt"
	"log/slog"
	"maps"
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
	"flinklab/runtime/scheduler"
	"flinklab/runtime/trace"
)

// Config configures an AdaptiveScheduler.
type Config struct {
	// RPCTimeout bounds each submitTask and cancelTask call.
	RPCTimeout time.Duration
	// RestartStrategy decides whether, and after how long, the job
	// restarts after a failure; nil means NoRestartBackoffTimeStrategy.
	RestartStrategy failover.RestartBackoffTimeStrategy
	// SlotRequestTimeout is slot.request.timeout of each graph's
	// deployment; zero means Flink's default.
	SlotRequestTimeout time.Duration
	Settings           Settings
	// Logger receives the scheduler's lines; nil means slog.Default().
	Logger *slog.Logger
}

// Deps are what an AdaptiveScheduler works with: the job, the JobMaster's
// main thread and slot pool, and the TaskExecutors. It is created and used
// on the JobMaster's main thread.
type Deps struct {
	JobGraph     *jobgraph.JobGraph
	MainThread   *rpc.Endpoint
	SlotPool     *slotpool.SlotPool
	TaskExecutor func(api.ResourceID) (gateway.TaskExecutorGateway, bool)
	JobMasterID  api.JobMasterID
	Trace        *trace.Recorder
	// OnTerminal is called once, when the job reaches a globally terminal
	// state, with its final ExecutionGraph.
	OnTerminal func(*gateway.ArchivedExecutionGraph)
	// Checkpointing checkpoints the job; nil runs it without checkpoints.
	// Each ExecutionGraph's coordinator uses its store, so a rescaled
	// graph restores the latest checkpoint of the one before.
	Checkpointing *scheduler.Checkpointing
}

// Transition is one move of the scheduler from one state to the next, as
// the DEBUG line "Transition from state <from> to <to>." says it.
type Transition struct {
	From, To string
	At       time.Time
}

// AdaptiveScheduler is Flink's AdaptiveScheduler: a state machine that
// declares the slots the job wants, waits for enough of them, decides the
// parallelism from the slots it got, and builds a new ExecutionGraph
// whenever that changes. See the package documentation.
type AdaptiveScheduler struct {
	cfg  Config
	deps Deps
	log  *slog.Logger
	// lastCoordinator is the CheckpointCoordinator of the newest
	// ExecutionGraph, nil without checkpointing; it shuts the job's
	// checkpoint services down when the job ends.
	lastCoordinator *checkpoint.CheckpointCoordinator

	failureHandler *failover.ExecutionFailureHandler
	// bounds are the parallelism bounds of each vertex (Flink's
	// JobResourceRequirements); maxParallelism is fixed for the job's life.
	bounds         map[api.JobVertexID]jobgraph.Parallelism
	maxParallelism map[api.JobVertexID]int

	state         state
	transitioning bool
	transitions   []Transition
	// statusTimestamps says when the job entered each JobStatus, across
	// all its ExecutionGraphs.
	statusTimestamps map[api.JobStatus]time.Time
	exceptionHistory scheduler.ExceptionHistory
	// attemptNumbers is each subtask's next attempt number, carried from
	// one ExecutionGraph to the next (Flink's VertexAttemptNumberStore).
	attemptNumbers map[api.ExecutionVertexID]int
	// finished: OnTerminal was called.
	finished bool
}

var _ scheduler.SchedulerNG = (*AdaptiveScheduler)(nil)

// New returns a scheduler in state Created for the job.
func New(cfg Config, deps Deps) *AdaptiveScheduler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RestartStrategy == nil {
		cfg.RestartStrategy = failover.NoRestartBackoffTimeStrategy{}
	}
	s := &AdaptiveScheduler{
		cfg:              cfg,
		deps:             deps,
		log:              cfg.Logger.With("logger", "AdaptiveScheduler"),
		bounds:           make(map[api.JobVertexID]jobgraph.Parallelism),
		maxParallelism:   make(map[api.JobVertexID]int),
		statusTimestamps: map[api.JobStatus]time.Time{},
		attemptNumbers:   make(map[api.ExecutionVertexID]int),
		// Every failure restarts the whole job with a new graph: no
		// failover strategy, only the restart strategy's say.
		failureHandler: failover.NewExecutionFailureHandler(nil, failover.NewRestartAllFailoverStrategy(nil), cfg.RestartStrategy),
	}
	for _, v := range deps.JobGraph.Vertices() {
		maxParallelism := v.MaxParallelism
		if maxParallelism <= 0 {
			// Fixed from the submitted parallelism, so that key groups do
			// not change with the parallelism the slots allow.
			maxParallelism = jobgraph.DefaultMaxParallelism(v.Parallelism)
		}
		s.maxParallelism[v.ID] = maxParallelism
		upper := v.Parallelism
		if cfg.Settings.Reactive {
			upper = maxParallelism // Flink: reactive mode runs every vertex at its max parallelism
		}
		s.bounds[v.ID] = jobgraph.Parallelism{LowerBound: 1, UpperBound: upper}
	}
	s.state = &created{s: s}
	s.statusTimestamps[api.JobInitializing] = time.Now()
	deps.SlotPool.OnNewSlots(s.onNewResourcesAvailable)
	return s
}

// StartScheduling declares the desired slots and waits for them (Flink:
// Created#startScheduling → WaitingForResources).
func (s *AdaptiveScheduler) StartScheduling() {
	s.log.Info(fmt.Sprintf("Starting scheduling of job %s (%s) with the AdaptiveScheduler: it wants %d slots, needs at least %d.",
		s.deps.JobGraph.Name, s.deps.JobGraph.JobID, CalculateRequiredSlots(s.vertexInformation()), MinimumRequiredSlots(s.vertexInformation())))
	s.declareDesiredResources()
	s.goToWaitingForResources()
}

// vertexInformation is what the slot allocator needs of the job.
func (s *AdaptiveScheduler) vertexInformation() []VertexInformation {
	vertices := s.deps.JobGraph.Vertices()
	info := make([]VertexInformation, 0, len(vertices))
	for _, v := range vertices {
		b := s.bounds[v.ID]
		info = append(info, VertexInformation{JobVertexID: v.ID, SlotSharingGroup: scheduler.SlotSharingGroupName(v),
			LowerBound: b.LowerBound, UpperBound: b.UpperBound})
	}
	return info
}

// declareDesiredResources tells the slot pool how many slots the job
// wants: all its vertices at their upper bounds (Flink:
// AdaptiveScheduler#declareDesiredResources).
func (s *AdaptiveScheduler) declareDesiredResources() {
	s.deps.SlotPool.DeclareRequiredSlots(CalculateRequiredSlots(s.vertexInformation()))
}

// hasDesiredResources: the pool holds every slot the job wants.
func (s *AdaptiveScheduler) hasDesiredResources() bool {
	return s.deps.SlotPool.NumberOfSlots() >= CalculateRequiredSlots(s.vertexInformation())
}

// hasSufficientResources: the slots are enough for every vertex's lower
// bound.
func (s *AdaptiveScheduler) hasSufficientResources() bool {
	_, ok := DetermineParallelism(s.vertexInformation(), s.deps.SlotPool.NumberOfSlots())
	return ok
}

// onNewResourcesAvailable is the slot pool's news of slots (Flink:
// ResourceListener#onNewResourcesAvailable), passed to the state.
func (s *AdaptiveScheduler) onNewResourcesAvailable() { s.state.onNewResourcesAvailable() }

// transitionToState leaves the current state for next (Flink:
// AdaptiveScheduler#transitionToState), logging it at DEBUG as Flink
// does. A state may not start another transition while one is going on:
// what a state does on entering that could lead elsewhere, it schedules.
func (s *AdaptiveScheduler) transitionToState(next state) {
	if s.transitioning {
		panic("State transitions must not be triggered while another state transition is in progress.")
	}
	if fmt.Sprint(next) == fmt.Sprint(s.state) {
		panic("Attempted to transition into the very state the scheduler is already in.")
	}
	s.transitioning = true
	defer func() { s.transitioning = false }()
	now := time.Now()
	s.log.Debug(fmt.Sprintf("Transition from state %s to %s.", s.state, next))
	s.transitions = append(s.transitions, Transition{From: fmt.Sprint(s.state), To: fmt.Sprint(next), At: now})
	s.state.onLeave()
	previous := s.state.jobStatus()
	s.state = next
	if status := next.jobStatus(); status != previous {
		s.statusTimestamps[status] = now
	}
	next.onEnter()
}

// runIfState runs action after delay on the main thread, if the scheduler
// is still in state st then (Flink: runIfState).
func (s *AdaptiveScheduler) runIfState(st state, action func(), delay time.Duration) {
	s.deps.MainThread.ScheduleRunAsync(func() {
		if s.state == st {
			action()
		}
	}, delay)
}

// Transitions returns the states the job went through so far.
func (s *AdaptiveScheduler) Transitions() []Transition { return slices.Clone(s.transitions) }

// State returns the name of the scheduler's state, e.g. "Executing".
func (s *AdaptiveScheduler) State() string { return fmt.Sprint(s.state) }

// UpdateTaskExecutionState hands a task's report to the current
// ExecutionGraph.
func (s *AdaptiveScheduler) UpdateTaskExecutionState(state gateway.TaskExecutionState) error {
	g := s.state.graph()
	if g == nil {
		return fmt.Errorf("The execution attempt %s was not found.", state.AttemptID)
	}
	return g.scheduler.UpdateTaskExecutionState(state)
}

// Cancel cancels the job, in whatever state it is.
func (s *AdaptiveScheduler) Cancel() { s.state.cancel() }

// ReleaseTaskManager fails the tasks of the current ExecutionGraph that
// ran on a TaskExecutor that is gone; the slot pool has dropped its slots
// already.
func (s *AdaptiveScheduler) ReleaseTaskManager(taskManager api.ResourceID, slots []slotpool.PhysicalSlot, cause error) {
	if g := s.state.graph(); g != nil {
		g.scheduler.ReleaseTaskManager(taskManager, slots, cause)
	}
}

// RequestJobStatus returns the job's status: the current state's.
func (s *AdaptiveScheduler) RequestJobStatus() api.JobStatus { return s.state.jobStatus() }

// RequestJob returns a snapshot of the current ExecutionGraph, or, in a
// state without one, of the JobGraph's vertices with no subtasks (Flink:
// createSparseArchivedExecutionGraphWithJobVertices), under the state's
// status.
func (s *AdaptiveScheduler) RequestJob() *gateway.ArchivedExecutionGraph {
	if f, ok := s.state.(*finished); ok {
		return f.archived
	}
	var a *gateway.ArchivedExecutionGraph
	if g := s.state.graph(); g != nil {
		a = g.scheduler.RequestJob()
	} else {
		a = s.sparseJobVertices()
	}
	a.State = s.state.jobStatus()
	a.StatusTimestamps = maps.Clone(s.statusTimestamps)
	a.ExceptionHistory = slices.Clone(s.exceptionHistory)
	return a
}

// sparseJobVertices is the job's vertices at the parallelism of the
// JobGraph, no subtasks (Flink:
// createSparseArchivedExecutionGraphWithJobVertices).
func (s *AdaptiveScheduler) sparseJobVertices() *gateway.ArchivedExecutionGraph {
	a := &gateway.ArchivedExecutionGraph{
		JobID:            s.deps.JobGraph.JobID,
		JobName:          s.deps.JobGraph.Name,
		StatusTimestamps: maps.Clone(s.statusTimestamps),
		ExceptionHistory: slices.Clone(s.exceptionHistory),
	}
	for _, v := range s.deps.JobGraph.Vertices() {
		a.Vertices = append(a.Vertices, gateway.ArchivedExecutionJobVertex{
			ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: s.maxParallelism[v.ID],
			SlotSharingGroup: v.SlotSharingGroup, State: api.ExecutionCreated,
		})
	}
	return a
}

// createExecutionGraph builds the graph of the job at the given
// parallelism, with the attempt numbers carried over, and the scheduler
// that runs it (Flink: createExecutionGraphWithAvailableResourcesAsync).
func (s *AdaptiveScheduler) createExecutionGraph(parallelism map[api.JobVertexID]int) (*graphRun, error) {
	data, err := jobgraph.Encode(s.deps.JobGraph)
	if err != nil {
		return nil, err
	}
	jg, err := jobgraph.Decode(data)
	if err != nil {
		return nil, err
	}
	for _, v := range jg.Vertices() {
		v.Parallelism = parallelism[v.ID]
		v.MaxParallelism = s.maxParallelism[v.ID]
	}
	graph, err := executiongraph.BuildGraph(jg, executiongraph.WithAttemptNumbers(func(id api.ExecutionVertexID) int {
		return s.attemptNumbers[id]
	}))
	if err != nil {
		return nil, err
	}
	s.cfg.Logger.With("logger", "JobMaster").Info(fmt.Sprintf("Created execution graph %s for job %s.", graph.GraphID(), jg.JobID))
	run := &graphRun{graph: graph, jobGraph: jg}
	run.scheduler = scheduler.NewDefaultScheduler(scheduler.Config{
		RPCTimeout:         s.cfg.RPCTimeout,
		SlotRequestTimeout: s.cfg.SlotRequestTimeout,
		Logger:             s.cfg.Logger,
	}, scheduler.Deps{
		Graph:        graph,
		JobGraph:     jg,
		MainThread:   s.deps.MainThread,
		SlotPool:     s.deps.SlotPool,
		TaskExecutor: s.deps.TaskExecutor,
		JobMasterID:  s.deps.JobMasterID,
		Trace:        s.deps.Trace,
		OnTerminal: func(a *gateway.ArchivedExecutionGraph) {
			// Flink: the graph's termination future, completed on the
			// main thread, tells the state that owns the graph then.
			owner := s.state
			s.runIfState(owner, func() { owner.onGloballyTerminalState(a) }, 0)
		},
		OnTaskFailure: func(e *executiongraph.Execution, cause error) { s.state.onTaskFailure(e, cause) },
		Checkpointing: s.deps.Checkpointing,
	})
	if c := run.scheduler.CheckpointCoordinator(); c != nil {
		s.lastCoordinator = c
	}
	return run, nil
}

// AcknowledgeCheckpoint hands a task's acknowledgement to the current
// ExecutionGraph's CheckpointCoordinator.
func (s *AdaptiveScheduler) AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint) error {
	g := s.state.graph()
	if g == nil {
		return fmt.Errorf("received AcknowledgeCheckpoint message for job %s in state %s", ack.JobID, s.state)
	}
	return g.scheduler.AcknowledgeCheckpoint(ack)
}

// DeclineCheckpoint hands a task's decline to the current
// ExecutionGraph's CheckpointCoordinator.
func (s *AdaptiveScheduler) DeclineCheckpoint(decline checkpoint.DeclineCheckpoint) error {
	g := s.state.graph()
	if g == nil {
		return fmt.Errorf("received DeclineCheckpoint message for job %s in state %s", decline.JobID, s.state)
	}
	return g.scheduler.DeclineCheckpoint(decline)
}

// keepAttemptNumbers carries the attempt numbers of a graph that ends
// over to the next one: each subtask's next attempt counts on.
func (s *AdaptiveScheduler) keepAttemptNumbers(g *graphRun) {
	for ev := range g.graph.AllExecutionVertices() {
		s.attemptNumbers[ev.ID()] = ev.CurrentExecution().AttemptNumber() + 1
	}
}

// currentParallelism is the parallelism of each vertex in a graph.
func currentParallelism(g *graphRun) map[api.JobVertexID]int {
	p := make(map[api.JobVertexID]int)
	for _, ejv := range g.graph.VerticesTopologically() {
		p[ejv.ID()] = ejv.Parallelism()
	}
	return p
}

// shouldRescale is Flink's AdaptiveScheduler#shouldRescale: the slots the
// pool holds give another parallelism, and the change is worth a restart
// (EnforceMinimalIncreaseRescalingController: any vertex shrinks, or one
// grows by min-parallelism-increase; forced: any change at all).
func (s *AdaptiveScheduler) shouldRescale(g *graphRun, force bool) bool {
	next, ok := DetermineParallelism(s.vertexInformation(), s.deps.SlotPool.NumberOfSlots())
	if !ok {
		return false
	}
	minIncrease := s.cfg.Settings.MinParallelismIncrease
	if force {
		minIncrease = 1
	}
	for vertex, current := range currentParallelism(g) {
		change := next[vertex] - current
		if change < 0 || (change > 0 && change >= minIncrease) {
			return true
		}
	}
	return false
}

// handleFailure asks the restart strategy what a failure means (Flink:
// AdaptiveScheduler#howToHandleFailure) and records it in the exception
// history.
func (s *AdaptiveScheduler) handleFailure(e *executiongraph.Execution, cause error) failover.FailureHandlingResult {
	vertex := e.Vertex().ID()
	result := s.failureHandler.HandleFailure(&vertex, cause, time.Now())
	if result.IsRootCause {
		s.exceptionHistory.Record(e, result.Error, result.Timestamp)
	} else {
		s.exceptionHistory.AddConcurrent(e, cause, result.Timestamp)
	}
	return result
}

// finish ends the job with its final graph.
func (s *AdaptiveScheduler) finish(a *gateway.ArchivedExecutionGraph) {
	if s.finished {
		return
	}
	s.finished = true
	s.deps.SlotPool.DeclareRequiredSlots(0)
	s.shutDownCheckpointServices(a.State)
	s.deps.OnTerminal(a)
}

// shutDownCheckpointServices shuts down the job's store of completed
// checkpoints and its ID counter when the job ends (Flink:
// SchedulerBase#shutDownCheckpointServices): each ExecutionGraph's
// coordinator left them to the next graph. The last graph's coordinator,
// if there was one, deletes what the job's status says to delete.
func (s *AdaptiveScheduler) shutDownCheckpointServices(status api.JobStatus) {
	if s.deps.Checkpointing == nil || s.lastCoordinator == nil {
		return
	}
	s.lastCoordinator.ShutdownCheckpointServices(status)
}
