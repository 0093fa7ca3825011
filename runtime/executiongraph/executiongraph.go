package executiongraph

import (
	"errors"
	"fmt"
	"iter"
	"time"

	"flinklab/runtime/api"
)

// Sentinel errors. Errors from illegal lifecycle moves wrap
// api.ErrIllegalTransition instead; these cover the other ways a call can
// come at the wrong moment.
var (
	// ErrUnexpectedState is wrapped when an object is not in the state the
	// call requires: the job is not in the status the caller expected, a
	// slot is offered to an attempt that is not SCHEDULED, or a vertex is
	// reset while its attempt still runs.
	ErrUnexpectedState = errors.New("unexpected state")
	// ErrSlotAlreadyAssigned is wrapped when an attempt that already has a
	// slot is given another one.
	ErrSlotAlreadyAssigned = errors.New("slot already assigned")
)

// ExecutionGraph is the JobMaster's view of a running job: every subtask,
// every attempt to run it, and how their data flows. It mirrors Flink's
// org.apache.flink.runtime.executiongraph.DefaultExecutionGraph.
//
// BuildGraph creates it from a JobGraph. Its job status starts at CREATED;
// the scheduler drives it from there with TransitionState. The graph is
// not safe for concurrent use: like Flink's, it belongs to the JobMaster's
// main thread.
type ExecutionGraph struct {
	jobID   api.JobID
	jobName string
	graphID api.ExecutionGraphID
	clock   func() time.Time

	state            api.JobStatus
	statusTimestamps map[api.JobStatus]time.Time
	failureCause     error

	verticesInCreationOrder []*ExecutionJobVertex // topological order
	tasks                   map[api.JobVertexID]*ExecutionJobVertex
	intermediateResults     map[api.IntermediateDataSetID]*IntermediateResult
	currentExecutions       map[api.ExecutionAttemptID]*Execution
	numTaskVertices         int
	// attemptNumberOf gives each subtask's first attempt number.
	attemptNumberOf func(api.ExecutionVertexID) int
}

// Option configures BuildGraph.
type Option func(*ExecutionGraph)

// WithClock makes the graph read time from clock instead of time.Now. It
// is read when the job status or an execution state changes, to stamp the
// change. Tests pass a fake clock.
func WithClock(clock func() time.Time) Option {
	return func(g *ExecutionGraph) { g.clock = clock }
}

// WithAttemptNumbers gives each subtask's first attempt the number
// attemptNumber returns for it instead of 0 (Flink's
// VertexAttemptNumberStore). The AdaptiveScheduler builds a new graph for
// every restart and carries the attempt counts over, so that attempt
// numbers keep counting up as they do under the DefaultScheduler.
func WithAttemptNumbers(attemptNumber func(api.ExecutionVertexID) int) Option {
	return func(g *ExecutionGraph) { g.attemptNumberOf = attemptNumber }
}

// JobID returns the ID of the job the graph runs.
func (g *ExecutionGraph) JobID() api.JobID { return g.jobID }

// JobName returns the name of the job the graph runs.
func (g *ExecutionGraph) JobName() string { return g.jobName }

// GraphID returns the ID of this graph. A job gets a new ExecutionGraph
// (and graph ID) each time a JobMaster takes it over, so the graph ID in an
// ExecutionAttemptID tells attempts of different JobMasters apart.
func (g *ExecutionGraph) GraphID() api.ExecutionGraphID { return g.graphID }

// State returns the job status. It starts at CREATED.
func (g *ExecutionGraph) State() api.JobStatus { return g.state }

// TransitionState moves the job from status from to status to and stamps
// the time of the move. It fails with an error wrapping ErrUnexpectedState
// when the job is not in status from (someone else moved it first), and
// with one wrapping api.ErrIllegalTransition when the move is not allowed.
// It mirrors DefaultExecutionGraph.transitionState, which logs
// "Job <name> (<id>) switched from state <from> to <to>."; logging is left
// to the caller.
func (g *ExecutionGraph) TransitionState(from, to api.JobStatus) error {
	if g.state != from {
		return fmt.Errorf("%w: job %s (%s) is in state %s, not %s, so it cannot switch to %s",
			ErrUnexpectedState, g.jobName, g.jobID, g.state, from, to)
	}
	if err := api.CheckJobTransition(from, to); err != nil {
		return fmt.Errorf("job %s (%s): %w", g.jobName, g.jobID, err)
	}
	g.state = to
	g.statusTimestamps[to] = g.clock()
	return nil
}

// StatusTimestamp returns when the job last entered status s, or the zero
// time if it never did.
func (g *ExecutionGraph) StatusTimestamp(s api.JobStatus) time.Time { return g.statusTimestamps[s] }

// FailureCause returns why the job failed, or nil.
func (g *ExecutionGraph) FailureCause() error { return g.failureCause }

// SetFailureCause records why the job failed; the scheduler calls it when
// it fails the job (FAILING) or restarts it.
func (g *ExecutionGraph) SetFailureCause(err error) { g.failureCause = err }

// VerticesTopologically returns the job vertices with every vertex after
// the vertices it reads from: the order of
// JobGraph.VerticesSortedTopologicallyFromSources. The slice belongs to the
// graph; do not modify it.
func (g *ExecutionGraph) VerticesTopologically() []*ExecutionJobVertex {
	return g.verticesInCreationOrder
}

// JobVertex returns the ExecutionJobVertex of the given JobVertex, or nil.
func (g *ExecutionGraph) JobVertex(id api.JobVertexID) *ExecutionJobVertex { return g.tasks[id] }

// ExecutionVertex returns the subtask with the given ID, or nil.
func (g *ExecutionGraph) ExecutionVertex(id api.ExecutionVertexID) *ExecutionVertex {
	ejv := g.tasks[id.JobVertexID]
	if ejv == nil || id.SubtaskIndex < 0 || id.SubtaskIndex >= len(ejv.taskVertices) {
		return nil
	}
	return ejv.taskVertices[id.SubtaskIndex]
}

// AllExecutionVertices yields every subtask: job vertices in topological
// order, and within each job vertex by subtask index.
func (g *ExecutionGraph) AllExecutionVertices() iter.Seq[*ExecutionVertex] {
	return func(yield func(*ExecutionVertex) bool) {
		for _, ejv := range g.verticesInCreationOrder {
			for _, ev := range ejv.taskVertices {
				if !yield(ev) {
					return
				}
			}
		}
	}
}

// Execution returns the current attempt with the given ID. Only current
// attempts are found: once ResetForNewExecution replaced an attempt, its ID
// is unknown, so late messages about it can be recognised and dropped.
func (g *ExecutionGraph) Execution(id api.ExecutionAttemptID) (*Execution, bool) {
	e, ok := g.currentExecutions[id]
	return e, ok
}

// IntermediateResult returns the result of the given data set, or nil.
func (g *ExecutionGraph) IntermediateResult(id api.IntermediateDataSetID) *IntermediateResult {
	return g.intermediateResults[id]
}

// ResultPartition returns the partition with the given ID, or nil. It
// turns the IDs held by a ConsumedPartitionGroup back into partitions.
func (g *ExecutionGraph) ResultPartition(id api.IntermediateResultPartitionID) *IntermediateResultPartition {
	result := g.intermediateResults[id.IntermediateDataSetID]
	if result == nil || id.PartitionNum < 0 || id.PartitionNum >= len(result.partitions) {
		return nil
	}
	return result.partitions[id.PartitionNum]
}

// NumberOfVertices returns the number of job vertices.
func (g *ExecutionGraph) NumberOfVertices() int { return len(g.verticesInCreationOrder) }

// TotalNumberOfVertices returns the number of subtasks: the sum of all
// parallelisms (Flink's getTotalNumberOfVertices).
func (g *ExecutionGraph) TotalNumberOfVertices() int { return g.numTaskVertices }

// registerExecution makes an attempt findable by its ID.
func (g *ExecutionGraph) registerExecution(e *Execution) {
	g.currentExecutions[e.attemptID] = e
}

// deregisterExecution forgets an attempt that is no longer current.
func (g *ExecutionGraph) deregisterExecution(e *Execution) {
	delete(g.currentExecutions, e.attemptID)
}
