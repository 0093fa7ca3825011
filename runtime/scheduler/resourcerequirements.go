package scheduler

import (
	"fmt"

	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// errParallelismChangeNotSupported is the DefaultScheduler's answer to new
// resource requirements, in the words of Flink's SchedulerNG default
// method, which names the scheduler's class.
var errParallelismChangeNotSupported = fmt.Errorf("%w: The DefaultScheduler does not support changing the parallelism without a job restart. "+
	"This feature is currently only expected to work with the AdaptiveScheduler.", gateway.ErrUnsupportedOperation)

// RequestJobResourceRequirements answers, for every vertex of the
// ExecutionGraph, its parallelism as both bounds: the DefaultScheduler
// runs each vertex with exactly the subtasks its JobGraph asked for, no
// fewer and no more, and waits for a slot for every one of them.
//
// Differs from Flink: Flink's DefaultScheduler (and SchedulerBase) keep
// SchedulerNG's default method, which refuses a read as it refuses an
// update, with an UnsupportedOperationException, so that GET
// /jobs/{jobid}/resource-requirements answers 500 there. Here the
// question has no error to answer with, and the fixed bounds say what the
// scheduler does.
func (s *DefaultScheduler) RequestJobResourceRequirements() jobgraph.JobResourceRequirements {
	vertices := s.deps.Graph.VerticesTopologically()
	requirements := make(jobgraph.JobResourceRequirements, len(vertices))
	for _, v := range vertices {
		parallelism := v.Parallelism()
		requirements[v.ID()] = jobgraph.JobVertexResourceRequirements{
			Parallelism: jobgraph.Parallelism{LowerBound: parallelism, UpperBound: parallelism},
		}
	}
	return requirements
}

// UpdateJobResourceRequirements refuses: the DefaultScheduler cannot
// change the parallelism of a running job (Flink: SchedulerNG's default
// method throws UnsupportedOperationException). To run a job at another
// parallelism, cancel it and submit it again, or use the
// AdaptiveScheduler.
func (s *DefaultScheduler) UpdateJobResourceRequirements(jobgraph.JobResourceRequirements) error {
	return errParallelismChangeNotSupported
}
