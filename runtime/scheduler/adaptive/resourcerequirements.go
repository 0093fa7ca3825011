package adaptive

import (
	"fmt"
	"strconv"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// RequestJobResourceRequirements returns the parallelism bounds the
// scheduler works with (Flink: AdaptiveScheduler#requestJobResourceRequirements).
func (s *AdaptiveScheduler) RequestJobResourceRequirements() jobgraph.JobResourceRequirements {
	requirements := make(jobgraph.JobResourceRequirements, len(s.bounds))
	for id, bounds := range s.bounds {
		requirements[id] = jobgraph.JobVertexResourceRequirements{Parallelism: bounds}
	}
	return requirements
}

// UpdateJobResourceRequirements takes new bounds, validated by the
// Dispatcher (-1 stands for a default): the desired slots are declared
// anew, and the state decides what that means: a job that waits for
// resources checks again, a running one may rescale (Flink:
// AdaptiveScheduler#updateJobResourceRequirements).
func (s *AdaptiveScheduler) UpdateJobResourceRequirements(requirements jobgraph.JobResourceRequirements) error {
	if s.cfg.Settings.Reactive {
		return fmt.Errorf("%w: Cannot change the parallelism of a job running in reactive mode.", gateway.ErrUnsupportedOperation)
	}
	if s.finished {
		return nil // the job is over: nothing to declare any more
	}
	for id, r := range requirements {
		if _, known := s.bounds[id]; !known {
			continue // the Dispatcher refused unknown vertices already
		}
		s.bounds[id] = withDefaults(r.Parallelism, s.maxParallelism[id])
	}
	s.log.Info("Updating the job's resource requirements.", "requirements", formatBounds(s.deps.JobGraph, s.bounds))
	s.declareDesiredResources()
	s.state.onNewResourceRequirements()
	return nil
}

// withDefaults replaces -1: 1 as the lower bound, the max parallelism as
// the upper bound.
func withDefaults(p jobgraph.Parallelism, maxParallelism int) jobgraph.Parallelism {
	if p.LowerBound == -1 {
		p.LowerBound = 1
	}
	if p.UpperBound == -1 {
		p.UpperBound = maxParallelism
	}
	return p
}

// formatBounds prints the bounds by vertex name, in the JobGraph's order:
// "Source [1, 2], Count [1, 2]".
func formatBounds(g *jobgraph.JobGraph, bounds map[api.JobVertexID]jobgraph.Parallelism) string {
	out := ""
	for i, v := range g.Vertices() {
		if i > 0 {
			out += ", "
		}
		b := bounds[v.ID]
		out += v.Name + " [" + strconv.Itoa(b.LowerBound) + ", " + strconv.Itoa(b.UpperBound) + "]"
	}
	return out
}
