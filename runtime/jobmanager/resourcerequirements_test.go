package jobmanager_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// The resource requirements are the JobMaster's to answer: while the job
// initializes there is none to ask, and the runner says so at once with
// Flink's UnavailableDispatcherOperationException instead of waiting, as a
// cancel does; once the JobMaster runs, both requests reach it; once the
// job has ended, the job is not found, as in Flink once its runner is gone.
func TestResourceRequirementsNeedARunningJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRunnerFixture(t)
		f.factory.release = make(chan struct{})
		require.NoError(t, f.runner.Start())
		synctest.Wait()
		source := f.graph.Vertices()[0].ID
		requirements := jobgraph.JobResourceRequirements{source: {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 2}}}

		// Initializing: no JobMaster yet.
		_, err := f.runner.RequestJobResourceRequirements(context.Background())
		assert.ErrorIs(t, err, gateway.ErrUnavailableDispatcherOperation)
		err = f.runner.UpdateJobResourceRequirements(context.Background(), requirements)
		assert.ErrorIs(t, err, gateway.ErrUnavailableDispatcherOperation)
		assert.EqualError(t, err, "UnavailableDispatcherOperationException: Unable to get JobMasterGateway for initializing job. "+
			"The requested operation is not available while the JobManager is initializing.")

		// Running: the JobMaster answers.
		close(f.factory.release)
		synctest.Wait()
		require.NoError(t, f.runner.UpdateJobResourceRequirements(context.Background(), requirements))
		got, err := f.runner.RequestJobResourceRequirements(context.Background())
		require.NoError(t, err)
		assert.Equal(t, requirements, got)

		// Ended: no JobMaster to ask any more.
		f.factory.complete(&gateway.ArchivedExecutionGraph{JobID: f.graph.JobID, State: api.JobFinished})
		_, err = f.runner.RequestJobResourceRequirements(context.Background())
		assert.ErrorIs(t, err, gateway.ErrJobNotFound)
		err = f.runner.UpdateJobResourceRequirements(context.Background(), requirements)
		assert.ErrorIs(t, err, gateway.ErrJobNotFound)
		assert.EqualError(t, err, "FlinkJobNotFoundException: Could not find Flink job ("+f.graph.JobID.String()+")")

		require.NoError(t, f.runner.Close())
	})
}
