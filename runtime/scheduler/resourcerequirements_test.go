package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// The DefaultScheduler answers each vertex's parallelism as both bounds,
// and refuses new ones with Flink's UnsupportedOperationException, leaving
// its answer as it was.
func TestDefaultSchedulerHasFixedResourceRequirements(t *testing.T) {
	h := newHarness(t, 3, 2)
	source, sink := h.graph.VerticesTopologically()[0].ID(), h.graph.VerticesTopologically()[1].ID()
	fixed := jobgraph.JobResourceRequirements{
		source: {Parallelism: jobgraph.Parallelism{LowerBound: 3, UpperBound: 3}},
		sink:   {Parallelism: jobgraph.Parallelism{LowerBound: 2, UpperBound: 2}},
	}

	var got jobgraph.JobResourceRequirements
	h.onMain(func() { got = h.scheduler.RequestJobResourceRequirements() })
	assert.Equal(t, fixed, got)

	var err error
	h.onMain(func() {
		err = h.scheduler.UpdateJobResourceRequirements(jobgraph.JobResourceRequirements{
			source: {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 4}},
			sink:   {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 4}},
		})
	})
	assert.ErrorIs(t, err, gateway.ErrUnsupportedOperation)
	assert.EqualError(t, err, "UnsupportedOperationException: The DefaultScheduler does not support changing the parallelism without a job restart. "+
		"This feature is currently only expected to work with the AdaptiveScheduler.")

	h.onMain(func() { got = h.scheduler.RequestJobResourceRequirements() })
	assert.Equal(t, fixed, got, "nothing changed")
}
