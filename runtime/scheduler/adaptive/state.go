package adaptive

import (
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler"
)

// state is one state of the AdaptiveScheduler (Flink's State). Its String
// is Flink's class name, which the transition lines print.
type state interface {
	String() string
	// jobStatus is what GET /jobs/{jobid} shows while the job is here.
	jobStatus() api.JobStatus
	// onEnter starts the state's work; it must not move to another state
	// itself, only schedule what may (runIfState).
	onEnter()
	onLeave()
	cancel()
	// onNewResourcesAvailable: the slot pool got slots (Flink's
	// ResourceListener); onNewResourceRequirements: the parallelism
	// bounds changed (PUT /jobs/{jobid}/resource-requirements).
	onNewResourcesAvailable()
	onNewResourceRequirements()
	// graph is the ExecutionGraph the state runs, nil if none.
	graph() *graphRun
	// onTaskFailure and onGloballyTerminalState come from the graph.
	onTaskFailure(e *executiongraph.Execution, cause error)
	onGloballyTerminalState(a *gateway.ArchivedExecutionGraph)
}

// graphRun is one ExecutionGraph of the job and the DefaultScheduler
// machinery that deploys, cancels and fails it. The AdaptiveScheduler
// makes a new one for every parallelism it runs the job at (Flink's
// StateWithExecutionGraph holds the graph and its handlers).
type graphRun struct {
	graph     *executiongraph.ExecutionGraph
	jobGraph  *jobgraph.JobGraph // at the graph's parallelism
	scheduler *scheduler.DefaultScheduler
}

// noGraph is the part of the states without an ExecutionGraph (Flink's
// StateWithoutExecutionGraph).
type noGraph struct{}

func (noGraph) graph() *graphRun                                        { return nil }
func (noGraph) onTaskFailure(*executiongraph.Execution, error)          {}
func (noGraph) onGloballyTerminalState(*gateway.ArchivedExecutionGraph) {}
func (noGraph) onLeave()                                                {}
func (noGraph) onNewResourceRequirements()                              {}
func (noGraph) onNewResourcesAvailable()                                {}
