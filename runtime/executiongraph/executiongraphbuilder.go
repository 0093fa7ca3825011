package executiongraph

import (
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// BuildGraph expands a JobGraph into an ExecutionGraph, as Flink's
// DefaultExecutionGraphBuilder.buildGraph and attachJobGraph do:
//
//  1. validate the JobGraph (errors wrap jobgraph.ErrInvalidJobGraph);
//  2. sort its vertices topologically, so producers come before consumers;
//  3. attach: one ExecutionJobVertex per JobVertex, with one
//     IntermediateResult per data set it produces; a parallelism above the
//     max parallelism fails here (failover.JobException, Flink's JobException);
//  4. initialize each job vertex in that order: Parallelism
//     ExecutionVertices, each with its first Execution (attempt 0, CREATED)
//     and one IntermediateResultPartition per produced result; then connect
//     it to the results it reads (see connectVertexToResult).
//
// The new graph's job status is CREATED.
func BuildGraph(jg *jobgraph.JobGraph, opts ...Option) (*ExecutionGraph, error) {
	// Step m4: the JobMaster builds the ExecutionGraph of the submitted job.
	if jg == nil {
		return nil, fmt.Errorf("%w: cannot build an ExecutionGraph without a JobGraph", jobgraph.ErrInvalidJobGraph)
	}
	if err := jg.Validate(); err != nil {
		return nil, fmt.Errorf("cannot build the ExecutionGraph of job %s (%s): %w", jg.Name, jg.JobID, err)
	}
	sorted, err := jg.VerticesSortedTopologicallyFromSources()
	if err != nil {
		return nil, fmt.Errorf("cannot build the ExecutionGraph of job %s (%s): %w", jg.Name, jg.JobID, err)
	}

	numTaskVertices := 0
	for _, jv := range sorted {
		numTaskVertices += jv.Parallelism
	}
	g := &ExecutionGraph{
		jobID:               jg.JobID,
		jobName:             jg.Name,
		graphID:             api.NewExecutionGraphID(),
		clock:               time.Now,
		state:               api.JobCreated,
		statusTimestamps:    make(map[api.JobStatus]time.Time),
		tasks:               make(map[api.JobVertexID]*ExecutionJobVertex, len(sorted)),
		intermediateResults: make(map[api.IntermediateDataSetID]*IntermediateResult),
		currentExecutions:   make(map[api.ExecutionAttemptID]*Execution, numTaskVertices),
		numTaskVertices:     numTaskVertices,
	}
	for _, opt := range opts {
		opt(g)
	}
	g.statusTimestamps[api.JobCreated] = g.clock()

	if err := g.attachJobGraph(sorted); err != nil {
		return nil, fmt.Errorf("cannot build the ExecutionGraph of job %s (%s): %w", jg.Name, jg.JobID, err)
	}
	return g, nil
}

// attachJobGraph mirrors DefaultExecutionGraph.attachJobGraph: first every
// job vertex and the results it will produce, then, in topological order,
// the subtasks of each vertex and their connections to what it reads. A
// vertex whose parallelism is higher than its max parallelism stops it
// before any subtask exists (failover.JobException).
func (g *ExecutionGraph) attachJobGraph(sorted []*jobgraph.JobVertex) error {
	for _, jv := range sorted {
		ejv, err := newExecutionJobVertex(g, jv)
		if err != nil {
			return err
		}
		g.tasks[jv.ID] = ejv
		g.verticesInCreationOrder = append(g.verticesInCreationOrder, ejv)
		for _, result := range ejv.producedDataSets {
			g.intermediateResults[result.id] = result
		}
	}
	for _, ejv := range g.verticesInCreationOrder {
		ejv.initialize()
		if err := ejv.connectToPredecessors(g.intermediateResults); err != nil {
			return err
		}
	}
	return nil
}
