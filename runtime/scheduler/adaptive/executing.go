package adaptive

import (
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
)

// withGraph is the part of the states that run an ExecutionGraph (Flink's
// StateWithExecutionGraph).
type withGraph struct {
	s   *AdaptiveScheduler
	run *graphRun
}

func (w withGraph) graph() *graphRun         { return w.run }
func (withGraph) onLeave()                   {}
func (withGraph) onNewResourcesAvailable()   {}
func (withGraph) onNewResourceRequirements() {}

// onTaskFailure: a failure while the graph is being cancelled or failed
// changes nothing but the history, where it joins the failure being
// handled (Flink: the states' failureCollection).
func (w withGraph) onTaskFailure(e *executiongraph.Execution, cause error) {
	w.s.exceptionHistory.AddConcurrent(e, cause, time.Now())
}

// finishIfTerminal ends the job if its graph reached a terminal state
// before st took it over: the graph's news went to the state before.
func (w withGraph) finishIfTerminal(st state) {
	if w.run.graph.State().IsTerminalState() {
		w.s.runIfState(st, func() { w.s.goToFinished(w.run.scheduler.RequestJob()) }, 0)
	}
}

func (s *AdaptiveScheduler) goToExecuting(run *graphRun) {
	s.transitionToState(&executing{withGraph: withGraph{s: s, run: run}})
}

// resumeExecuting goes back to Executing with a graph that runs already:
// a stop-with-savepoint whose savepoint failed (Flink: StopWithSavepoint
// goes to Executing with its ExecutionGraph).
func (s *AdaptiveScheduler) resumeExecuting(run *graphRun) {
	s.transitionToState(&executing{withGraph: withGraph{s: s, run: run}, resumed: true})
}

// executing runs the job (Flink's Executing, Flink 1.19): its graph is
// deployed, and the state watches for two things. A task that fails
// restarts the job, or fails it, as the restart strategy says; and new
// slots, or new bounds, may make another parallelism worth a restart:
// once scaling-interval.min has passed since the job started running, the
// job restarts if a vertex would grow by min-parallelism-increase, or
// shrink.
type executing struct {
	withGraph
	lastRescale      time.Time
	rescaleScheduled bool
	resumed          bool // the graph was started before: by a stop-with-savepoint that failed
}

func (*executing) String() string           { return "Executing" }
func (*executing) jobStatus() api.JobStatus { return api.JobRunning }

func (e *executing) onEnter() {
	// Executing is made anew for each graph: the graph's start counts as a
	// rescale.
	e.lastRescale = time.Now()
	if !e.resumed {
		e.run.scheduler.StartScheduling()
	}
	// Slots may have come while the graph was being made.
	e.s.runIfState(e, e.rescaleWhenCooldownPeriodIsOver, 0)
}

func (e *executing) cancel() { e.s.goToCanceling(e.run) }

func (e *executing) onNewResourcesAvailable()   { e.rescaleWhenCooldownPeriodIsOver() }
func (e *executing) onNewResourceRequirements() { e.rescaleWhenCooldownPeriodIsOver() }

// onTaskFailure is Flink's FailureResultUtil#restartOrFail.
func (e *executing) onTaskFailure(failed *executiongraph.Execution, cause error) {
	result := e.s.handleFailure(failed, cause)
	if result.CanRestart {
		e.s.log.Info("Restarting job.", "cause", cause.Error())
		e.s.goToRestarting(e.run, result.RestartDelay)
		return
	}
	e.s.log.Info("Failing job.", "cause", result.Error.Error())
	e.s.goToFailing(e.run, result.Error)
}

func (e *executing) onGloballyTerminalState(a *gateway.ArchivedExecutionGraph) { e.s.goToFinished(a) }

func (e *executing) rescaleWhenCooldownPeriodIsOver() {
	if time.Since(e.lastRescale) > e.s.cfg.Settings.ScalingIntervalMin {
		e.maybeRescale()
	} else if !e.rescaleScheduled {
		e.rescaleScheduled = true
		e.s.runIfState(e, e.maybeRescale, e.s.cfg.Settings.ScalingIntervalMin)
	}
}

func (e *executing) maybeRescale() {
	e.rescaleScheduled = false
	if e.s.shouldRescale(e.run, false) {
		e.s.log.Info("Can change the parallelism of the job. Restarting the job.")
		e.s.goToRestarting(e.run, 0)
		return
	}
	max := e.s.cfg.Settings.ScalingIntervalMax
	if max <= 0 {
		return
	}
	e.s.log.Info(fmt.Sprintf("The longer the pipeline runs, the more the (small) resource gain is worth the restarting time. "+
		"Last resource added does not meet %s, force a rescale after %s time(%s) if the resource is still there.",
		KeyMinParallelismIncrease, KeyScalingIntervalMax, max))
	if time.Since(e.lastRescale) > max {
		e.forceRescale()
	} else {
		e.s.runIfState(e, e.forceRescale, max)
	}
}

func (e *executing) forceRescale() {
	if e.s.shouldRescale(e.run, true) {
		e.s.log.Info(fmt.Sprintf("Added resources are still there after %s time(%s), force a rescale.",
			KeyScalingIntervalMax, e.s.cfg.Settings.ScalingIntervalMax))
		e.s.goToRestarting(e.run, 0)
	}
}

func (s *AdaptiveScheduler) goToRestarting(run *graphRun, backoff time.Duration) {
	s.transitionToState(&restarting{withGraph: withGraph{s: s, run: run}, backoff: backoff})
}

// restarting cancels the graph, and once every task has stopped and the
// backoff has passed, waits for resources again, to build a new graph at
// the parallelism the slots then allow (Flink's Restarting, 1.19).
type restarting struct {
	withGraph
	backoff time.Duration
}

func (*restarting) String() string           { return "Restarting" }
func (*restarting) jobStatus() api.JobStatus { return api.JobRestarting }
func (r *restarting) onEnter()               { r.run.scheduler.Cancel() }
func (r *restarting) cancel()                { r.s.goToCanceling(r.run) }

func (r *restarting) onGloballyTerminalState(*gateway.ArchivedExecutionGraph) {
	r.s.keepAttemptNumbers(r.run)
	r.s.runIfState(r, r.s.goToWaitingForResources, r.backoff)
}

func (s *AdaptiveScheduler) goToCanceling(run *graphRun) {
	s.transitionToState(&canceling{withGraph: withGraph{s: s, run: run}})
}

// canceling cancels the graph and ends the job CANCELED (Flink's
// Canceling).
type canceling struct{ withGraph }

func (*canceling) String() string           { return "Canceling" }
func (*canceling) jobStatus() api.JobStatus { return api.JobCancelling }
func (c *canceling) onEnter() {
	c.run.scheduler.Cancel()
	c.finishIfTerminal(c)
}
func (*canceling) cancel() {}

func (c *canceling) onGloballyTerminalState(a *gateway.ArchivedExecutionGraph) { c.s.goToFinished(a) }

func (s *AdaptiveScheduler) goToFailing(run *graphRun, cause error) {
	s.transitionToState(&failing{withGraph: withGraph{s: s, run: run}, cause: cause})
}

// failing fails the graph and ends the job FAILED (Flink's Failing).
type failing struct {
	withGraph
	cause error
}

func (*failing) String() string           { return "Failing" }
func (*failing) jobStatus() api.JobStatus { return api.JobFailing }
func (f *failing) onEnter() {
	f.run.scheduler.FailJob(f.cause)
	f.finishIfTerminal(f)
}
func (f *failing) cancel() { f.s.goToCanceling(f.run) }

func (f *failing) onGloballyTerminalState(a *gateway.ArchivedExecutionGraph) { f.s.goToFinished(a) }
