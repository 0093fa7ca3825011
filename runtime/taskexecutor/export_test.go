package taskexecutor

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/rpc"
)

// JobTableForTest returns the jobs in the TaskExecutor's job table, for the
// tests of package taskexecutor_test.
func (te *TaskExecutor) JobTableForTest(ctx context.Context) ([]api.JobID, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() ([]api.JobID, error) {
		var jobs []api.JobID
		for jobID := range te.jobTable {
			jobs = append(jobs, jobID)
		}
		return jobs, nil
	})
}

// TrackedPartitionsForTest returns the job's BLOCKING partitions the
// TaskExecutor keeps, for the tests of package taskexecutor_test.
func (te *TaskExecutor) TrackedPartitionsForTest(ctx context.Context, jobID api.JobID) ([]api.ResultPartitionID, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() ([]api.ResultPartitionID, error) {
		return te.partitionTracker.partitionsFor(jobID), nil
	})
}
