package adaptive

import (
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
)

// TriggerSavepoint takes a savepoint of the current ExecutionGraph, in any
// state that runs one (Flink: StateWithExecutionGraph#triggerSavepoint);
// with cancelJob the job is cancelled once it completed, if the scheduler
// is still in the state that took it. Without a graph it fails with
// gateway.ErrJobNotExecuting.
func (s *AdaptiveScheduler) TriggerSavepoint(targetDirectory string, cancelJob bool, done func(path string, err error)) {
	g := s.state.graph()
	if g == nil {
		done("", gateway.ErrJobNotExecuting)
		return
	}
	st := s.state
	g.scheduler.TriggerSavepoint(targetDirectory, cancelJob, func(path string, err error) {
		if err == nil && cancelJob && s.state == st {
			st.cancel() // the graph cancels itself; the job goes through Canceling
		}
		done(path, err)
	})
}

// StopWithSavepoint stops the job with a savepoint: only Executing can
// (Flink: Executing#stopWithSavepoint), after the savepoint's
// preconditions hold; it moves to StopWithSavepoint. In any other state it
// fails with gateway.ErrJobNotExecuting.
func (s *AdaptiveScheduler) StopWithSavepoint(targetDirectory string, terminate bool, done func(path string, err error)) {
	e, ok := s.state.(*executing)
	if !ok {
		done("", gateway.ErrJobNotExecuting)
		return
	}
	if err := e.run.scheduler.CheckSavepointActionPreconditions(targetDirectory); err != nil {
		done("", err)
		return
	}
	s.transitionToState(&stopWithSavepoint{withGraph: e.withGraph, targetDirectory: targetDirectory, terminate: terminate, done: done})
}

// RequestCheckpointStats returns the statistics of the current
// ExecutionGraph's checkpoints, or of the final one's; nil in a state
// without a graph, or for a job that is not checkpointed.
func (s *AdaptiveScheduler) RequestCheckpointStats() *checkpoint.CheckpointStatsSnapshot {
	if f, ok := s.state.(*finished); ok {
		return f.archived.CheckpointStatsSnapshot
	}
	if g := s.state.graph(); g != nil {
		return g.scheduler.RequestCheckpointStats()
	}
	return nil
}

// stopWithSavepoint stops the job with a savepoint (Flink's
// StopWithSavepoint): its graph takes the savepoint and ends its tasks.
// The job stays RUNNING meanwhile, and rescales no more. When the graph
// has FINISHED, the stop is told the savepoint's path and the job is
// Finished. If the savepoint fails, the job goes back to Executing with
// the same graph, which runs on; a task that fails is handled as in
// Executing. Leaving the state any other way fails the stop, in Flink's
// words: "Stop with savepoint operation could not be completed."
type stopWithSavepoint struct {
	withGraph
	targetDirectory string
	terminate       bool
	done            func(path string, err error)
	savepointPath   string // set once the savepoint completed
	failureCause    error  // why the stop failed, if it did
	completed       bool   // done was called
}

func (*stopWithSavepoint) String() string           { return "StopWithSavepoint" }
func (*stopWithSavepoint) jobStatus() api.JobStatus { return api.JobRunning }

func (w *stopWithSavepoint) onEnter() {
	w.run.scheduler.StopWithSavepoint(w.targetDirectory, w.terminate, func(path string, err error) {
		if err != nil {
			// The graph runs on, with its periodic checkpoints: back to
			// Executing, if the job is still here (Flink:
			// StopWithSavepoint#onSavepointFailure).
			w.failureCause = err
			w.s.runIfState(w, func() { w.s.resumeExecuting(w.run) }, 0)
			return
		}
		w.savepointPath = path // the graph is FINISHED: onGloballyTerminalState comes next
	})
}

// onLeave fails the stop, unless it completed (Flink: StopWithSavepoint#onLeave).
func (w *stopWithSavepoint) onLeave() {
	err := errors.New("Stop with savepoint operation could not be completed.")
	if w.failureCause != nil {
		err = fmt.Errorf("Stop with savepoint operation could not be completed. Caused by: %w", w.failureCause)
	}
	w.complete("", err)
}

func (w *stopWithSavepoint) cancel() { w.s.goToCanceling(w.run) }

// onTaskFailure is Executing's: restart or fail. The restart cancels the
// graph, which aborts the savepoint, and the stop fails.
func (w *stopWithSavepoint) onTaskFailure(failed *executiongraph.Execution, cause error) {
	w.failureCause = cause
	result := w.s.handleFailure(failed, cause)
	if result.CanRestart {
		w.s.log.Info("Restarting job.", "cause", cause.Error())
		w.s.goToRestarting(w.run, result.RestartDelay)
		return
	}
	w.s.log.Info("Failing job.", "cause", result.Error.Error())
	w.s.goToFailing(w.run, result.Error)
}

func (w *stopWithSavepoint) onGloballyTerminalState(a *gateway.ArchivedExecutionGraph) {
	if a.State == api.JobFinished && w.savepointPath != "" {
		w.complete(w.savepointPath, nil)
	}
	w.s.goToFinished(a)
}

// complete tells the stop its outcome, once.
func (w *stopWithSavepoint) complete(path string, err error) {
	if w.completed {
		return
	}
	w.completed = true
	w.done(path, err)
}
