package states

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/scheduler/adaptive"
)

// State is one state of a scheduler: its name as the transition lines
// print it (Flink's class name), and what GET /jobs/{jobid} shows while a
// job is in it.
type State struct {
	Name string
	// JobStatus is the job's status in this state; Final marks the state
	// whose status is the job's final one, whichever that is.
	JobStatus api.JobStatus
	Final     bool
	// About says in a few words what happens in the state.
	About string
}

// Status is the JobStatus a diagram prints for the state.
func (s State) Status() string {
	if s.Final {
		return "FINISHED, CANCELED or FAILED"
	}
	return s.JobStatus.String()
}

// Transition is one move a scheduler can make, and when it makes it.
type Transition struct {
	From, To string
	// When is what causes the move, in Flink's words; a line break
	// separates the ways it can happen.
	When string
}

// Machine is a scheduler's states, in the order a job meets them, and its
// transitions.
type Machine struct {
	Name        string
	States      []State
	Transitions []Transition
}

// AdaptiveScheduler is the state machine of runtime/scheduler/adaptive
// (Flink 1.19's AdaptiveScheduler), as its package documentation draws it.
var AdaptiveScheduler = Machine{
	Name: "AdaptiveScheduler",
	States: []State{
		{Name: "Created", JobStatus: api.JobInitializing, About: "nothing asked for yet"},
		{Name: "WaitingForResources", JobStatus: api.JobCreated, About: "the slots are declared; wait for them"},
		{Name: "CreatingExecutionGraph", JobStatus: api.JobCreated, About: "decide the parallelism, build the graph"},
		{Name: "Executing", JobStatus: api.JobRunning, About: "the graph is deployed and runs"},
		{Name: "Restarting", JobStatus: api.JobRestarting, About: "cancel the graph, then wait again"},
		{Name: "StopWithSavepoint", JobStatus: api.JobRunning, About: "take a savepoint, then stop the tasks"},
		{Name: "Canceling", JobStatus: api.JobCancelling, About: "cancel the graph"},
		{Name: "Failing", JobStatus: api.JobFailing, About: "fail the graph"},
		{Name: "Finished", Final: true, About: "the job's final status"},
	},
	Transitions: []Transition{
		{"Created", "WaitingForResources", "startScheduling"},
		{"Created", "Finished", "cancel"},
		{"WaitingForResources", "CreatingExecutionGraph", "the desired slots are there,\nor sufficient ones for resource-stabilization-timeout,\nor resource-wait-timeout passed"},
		{"WaitingForResources", "Finished", "cancel"},
		{"CreatingExecutionGraph", "Executing", "the graph is built at the\nparallelism the slots allow"},
		{"CreatingExecutionGraph", "Finished", "fewer slots than the minimum (FAILED),\nor cancel"},
		{"Executing", "Restarting", "a task failed and the restart strategy allows it,\nor the parallelism can change"},
		{"Executing", "Canceling", "cancel"},
		{"Executing", "Failing", "a task failed and the\nrestart strategy says no"},
		{"Executing", "Finished", "every task FINISHED"},
		{"Restarting", "WaitingForResources", "every task stopped and\nthe restart backoff passed"},
		{"Restarting", "Canceling", "cancel"},
		{"StopWithSavepoint", "Finished", "the savepoint completed\nand every task stopped"},
		{"StopWithSavepoint", "Canceling", "cancel"},
		{"StopWithSavepoint", "Failing", "a task failed and the\nrestart strategy says no"},
		{"StopWithSavepoint", "Restarting", "a task failed after the savepoint"},
		{"Failing", "Canceling", "cancel"},
		{"Failing", "Finished", "every task stopped"},
		{"Canceling", "Finished", "every task stopped"},
	},
}

// Has reports whether m has a transition from one state to another.
func (m Machine) Has(from, to string) bool {
	for _, t := range m.Transitions {
		if t.From == from && t.To == to {
			return true
		}
	}
	return false
}

// Check returns an error naming the first move of path that m does not
// have, or a path that does not start in m's first state.
func (m Machine) Check(path []adaptive.Transition) error {
	for i, t := range path {
		if i == 0 && t.From != m.States[0].Name {
			return fmt.Errorf("%s: the path starts in %s, not in %s", m.Name, t.From, m.States[0].Name)
		}
		if i > 0 && t.From != path[i-1].To {
			return fmt.Errorf("%s: move %d starts in %s, but move %d ended in %s", m.Name, i+1, t.From, i, path[i-1].To)
		}
		if !m.Has(t.From, t.To) {
			return fmt.Errorf("%s: move %d, %s → %s, is not a transition of the table (tools/graphs/states)", m.Name, i+1, t.From, t.To)
		}
	}
	return nil
}
