package adaptive

import (
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobmaster/slotpool"
)

// created is where the scheduler starts (Flink's Created): nothing asked
// for yet.
type created struct {
	noGraph
	s *AdaptiveScheduler
}

func (*created) String() string           { return "Created" }
func (*created) jobStatus() api.JobStatus { return api.JobInitializing }
func (*created) onEnter()                 {}
func (c *created) cancel()                { c.s.goToFinished(c.s.sparseArchive(api.JobCanceled, nil)) }

func (s *AdaptiveScheduler) goToWaitingForResources() {
	s.transitionToState(&waitingForResources{s: s})
}

// waitingForResources waits for the slots the job wants (Flink's
// WaitingForResources, Flink 1.19):
//
//   - with the desired slots (every vertex at its upper bound) it goes on
//     to create the ExecutionGraph at once;
//   - with sufficient slots (every vertex at least at its lower bound) it
//     waits until they have stayed sufficient for
//     resource-stabilization-timeout, in case more come;
//   - with fewer, it waits; after resource-wait-timeout it tries anyway,
//     and a job that still has less than its minimum fails there.
//
// This is where a job "hangs" when its slots do not come: its status is
// CREATED, and nothing happens at INFO level until the timeout.
type waitingForResources struct {
	noGraph
	s *AdaptiveScheduler
	// stabilizationDeadline is set while the resources are sufficient.
	stabilizationDeadline time.Time
}

func (*waitingForResources) String() string           { return "WaitingForResources" }
func (*waitingForResources) jobStatus() api.JobStatus { return api.JobCreated }

func (w *waitingForResources) onEnter() {
	settings := w.s.cfg.Settings
	if settings.ResourceWaitTimeout >= 0 {
		w.s.runIfState(w, w.resourceTimeout, settings.ResourceWaitTimeout)
	}
	w.s.runIfState(w, w.checkDesiredOrSufficientResourcesAvailable, 0)
}

func (w *waitingForResources) cancel() {
	w.s.goToFinished(w.s.sparseArchive(api.JobCanceled, nil))
}

func (w *waitingForResources) onNewResourcesAvailable() {
	w.checkDesiredOrSufficientResourcesAvailable()
}
func (w *waitingForResources) onNewResourceRequirements() {
	w.checkDesiredOrSufficientResourcesAvailable()
}

// checkDesiredOrSufficientResourcesAvailable is Flink's method of the same
// name.
func (w *waitingForResources) checkDesiredOrSufficientResourcesAvailable() {
	if w.s.hasDesiredResources() {
		w.s.goToCreatingExecutionGraph()
		return
	}
	if !w.s.hasSufficientResources() {
		w.stabilizationDeadline = time.Time{} // insufficient: the clock starts again
		return
	}
	if w.stabilizationDeadline.IsZero() {
		w.stabilizationDeadline = time.Now().Add(w.s.cfg.Settings.ResourceStabilizationTimeout)
	}
	if left := time.Until(w.stabilizationDeadline); left > 0 {
		w.s.runIfState(w, w.checkDesiredOrSufficientResourcesAvailable, left)
		return
	}
	w.s.goToCreatingExecutionGraph()
}

func (w *waitingForResources) resourceTimeout() {
	w.s.log.Debug("Initial resource allocation timeout triggered: Creating ExecutionGraph with available resources.")
	w.s.goToCreatingExecutionGraph()
}

func (s *AdaptiveScheduler) goToCreatingExecutionGraph() {
	s.transitionToState(&creatingExecutionGraph{s: s})
}

// ErrNotEnoughResources is why a job fails that has fewer slots than its
// minimum when it must start (Flink's NoResourceAvailableException from
// AdaptiveScheduler#determineParallelism).
var ErrNotEnoughResources = fmt.Errorf("%w: Not enough resources available for scheduling.", slotpool.ErrNoResourceAvailable)

// creatingExecutionGraph decides the parallelism from the slots the pool
// holds and builds the ExecutionGraph (Flink's CreatingExecutionGraph,
// which builds it asynchronously; here it is built on the next mailbox
// turn). A job whose slots are below its minimum fails here.
type creatingExecutionGraph struct {
	noGraph
	s *AdaptiveScheduler
}

func (*creatingExecutionGraph) String() string           { return "CreatingExecutionGraph" }
func (*creatingExecutionGraph) jobStatus() api.JobStatus { return api.JobCreated }
func (c *creatingExecutionGraph) onEnter()               { c.s.runIfState(c, c.create, 0) }
func (c *creatingExecutionGraph) cancel() {
	c.s.goToFinished(c.s.sparseArchive(api.JobCanceled, nil))
}

func (c *creatingExecutionGraph) create() {
	s := c.s
	parallelism, ok := DetermineParallelism(s.vertexInformation(), s.deps.SlotPool.NumberOfSlots())
	var err error
	var run *graphRun
	if !ok {
		err = ErrNotEnoughResources
	} else {
		run, err = s.createExecutionGraph(parallelism)
	}
	if err != nil {
		s.log.Info("Failed to go from CreatingExecutionGraph to Executing because the ExecutionGraph creation failed.",
			"cause", err.Error())
		s.goToFinished(s.sparseArchive(api.JobFailed, err))
		return
	}
	s.log.Debug("Successfully reserved and assigned the required slots for the ExecutionGraph.")
	s.goToExecuting(run)
}

// finished is the end (Flink's Finished): the job's final graph is handed
// to the JobMaster.
type finished struct {
	noGraph
	s        *AdaptiveScheduler
	archived *gateway.ArchivedExecutionGraph
}

func (*finished) String() string             { return "Finished" }
func (f *finished) jobStatus() api.JobStatus { return f.archived.State }
func (*finished) cancel()                    {}

func (f *finished) onEnter() {
	f.archived.StatusTimestamps = f.s.statusTimestamps
	f.archived.ExceptionHistory = f.s.exceptionHistory
	f.s.finish(f.archived)
}

// goToFinished ends the job with the given final graph.
func (s *AdaptiveScheduler) goToFinished(a *gateway.ArchivedExecutionGraph) {
	s.transitionToState(&finished{s: s, archived: a})
}

// sparseArchive is the job without an ExecutionGraph, in the given
// status: its vertices at the parallelism of the JobGraph, no subtasks.
func (s *AdaptiveScheduler) sparseArchive(status api.JobStatus, cause error) *gateway.ArchivedExecutionGraph {
	a := s.sparseJobVertices()
	a.State = status
	if cause != nil {
		a.FailureCause = cause.Error()
	}
	return a
}
