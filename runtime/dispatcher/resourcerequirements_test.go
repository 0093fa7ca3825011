package dispatcher

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// submitWithGraph submits validJob and makes its runner answer RequestJob
// with the job's vertices: Source with max parallelism 128, Sink with 4.
func submitWithGraph(t *testing.T, h *harness) (g *jobgraph.JobGraph, runner *fakeRunner) {
	t.Helper()
	g = validJob()
	require.NoError(t, h.d.SubmitJob(context.Background(), g))
	runner = h.runner(g.JobID)
	source, sink := g.Vertices()[0], g.Vertices()[1]
	runner.mu.Lock()
	runner.graph = &gateway.ArchivedExecutionGraph{JobID: g.JobID, State: api.JobRunning, Vertices: []gateway.ArchivedExecutionJobVertex{
		{ID: source.ID, Name: source.Name, Parallelism: 2, MaxParallelism: 128},
		{ID: sink.ID, Name: sink.Name, Parallelism: 2, MaxParallelism: 4},
	}}
	runner.mu.Unlock()
	return g, runner
}

// bounds makes requirements of the source's and the sink's bounds.
func bounds(g *jobgraph.JobGraph, sourceLower, sourceUpper, sinkLower, sinkUpper int) jobgraph.JobResourceRequirements {
	return jobgraph.JobResourceRequirements{
		g.Vertices()[0].ID: {Parallelism: jobgraph.Parallelism{LowerBound: sourceLower, UpperBound: sourceUpper}},
		g.Vertices()[1].ID: {Parallelism: jobgraph.Parallelism{LowerBound: sinkLower, UpperBound: sinkUpper}},
	}
}

// Requirements that fit the job reach its JobMaster; requirements that do
// not are refused with Flink's messages, checked against the max
// parallelism of the job's ExecutionGraph, and never reach it.
func TestUpdateJobResourceRequirementsValidatesAgainstTheExecutionGraph(t *testing.T) {
	h := newHarness(t)
	g, runner := submitWithGraph(t, h)
	ctx := context.Background()

	fits := bounds(g, 1, 128, -1, -1)
	require.NoError(t, h.d.UpdateJobResourceRequirements(ctx, g.JobID, fits))
	got, err := h.d.RequestJobResourceRequirements(ctx, g.JobID)
	require.NoError(t, err)
	assert.Equal(t, fits, got, "the JobMaster has them")

	err = h.d.UpdateJobResourceRequirements(ctx, g.JobID, bounds(g, 1, 2, 1, 5))
	var invalid *gateway.InvalidJobResourceRequirementsError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, g.JobID, invalid.JobID)
	assert.Equal(t, []string{fmt.Sprintf(
		"The newly requested parallelism 5 for the job vertex %s exceeds its maximum parallelism 4.", g.Vertices()[1].ID)}, invalid.Errors)
	got, err = h.d.RequestJobResourceRequirements(ctx, g.JobID)
	require.NoError(t, err)
	assert.Equal(t, fits, got, "refused requirements do not reach the JobMaster")

	// The scheduler's refusal comes back as it is.
	refusal := fmt.Errorf("%w: The DefaultScheduler does not support changing the parallelism without a job restart.", gateway.ErrUnsupportedOperation)
	runner.mu.Lock()
	runner.updateRequirements = func(context.Context, jobgraph.JobResourceRequirements) error { return refusal }
	runner.mu.Unlock()
	err = h.d.UpdateJobResourceRequirements(ctx, g.JobID, fits)
	assert.ErrorIs(t, err, gateway.ErrUnsupportedOperation)
}

// While one update of a job's requirements runs, a second one is refused
// with Flink's CONFLICT text; another job's update is not held up; and once
// the first update has answered, the next one may start.
func TestASecondUpdateOfTheSameJobIsRefusedWhileTheFirstRuns(t *testing.T) {
	h := newHarness(t)
	g, runner := submitWithGraph(t, h)
	other, _ := submitWithGraph(t, h)
	ctx := context.Background()

	entered, release := make(chan struct{}), make(chan struct{})
	runner.mu.Lock()
	runner.updateRequirements = func(context.Context, jobgraph.JobResourceRequirements) error {
		entered <- struct{}{}
		<-release
		return nil
	}
	runner.mu.Unlock()
	first := make(chan error, 1)
	go func() { first <- h.d.UpdateJobResourceRequirements(ctx, g.JobID, bounds(g, 1, 2, 1, 2)) }()
	<-entered // the first update has reached the JobMaster

	err := h.d.UpdateJobResourceRequirements(ctx, g.JobID, bounds(g, 1, 4, 1, 4))
	assert.ErrorIs(t, err, gateway.ErrJobResourceRequirementsUpdateInProgress)
	assert.EqualError(t, err, "Another update to the job [%s] resource requirements is in progress.", "Flink's text, as Flink sends it")
	require.NoError(t, h.d.UpdateJobResourceRequirements(ctx, other.JobID, bounds(other, 1, 2, 1, 2)), "another job is not held up")

	close(release)
	require.NoError(t, <-first)
	runner.mu.Lock()
	runner.updateRequirements = nil
	runner.mu.Unlock()
	assert.NoError(t, h.d.UpdateJobResourceRequirements(ctx, g.JobID, bounds(g, 1, 4, 1, 4)), "the first update is over")
}

// Only a running job has a JobMaster to ask: a job the Dispatcher does not
// know, and a job that has ended, are not found (Flink looks in its
// runners, not in its archive of ended jobs). A refused update leaves
// nothing in progress.
func TestResourceRequirementsOfAJobThatDoesNotRun(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	g, runner := submitWithGraph(t, h)
	runner.finish(api.JobFinished)
	status, err := h.d.RequestJobStatus(ctx, g.JobID)
	require.NoError(t, err)
	require.Equal(t, api.JobFinished, status, "the Dispatcher knows the job ended")

	for name, jobID := range map[string]api.JobID{"unknown": api.NewJobID(), "finished": g.JobID} {
		_, err := h.d.RequestJobResourceRequirements(ctx, jobID)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound, name)
		for range 2 {
			err = h.d.UpdateJobResourceRequirements(ctx, jobID, bounds(g, 1, 2, 1, 2))
			assert.ErrorIs(t, err, gateway.ErrJobNotFound, "%s: not found each time, never in progress", name)
			assert.EqualError(t, err, "FlinkJobNotFoundException: Could not find Flink job ("+jobID.String()+")")
		}
	}
}
