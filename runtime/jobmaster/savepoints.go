package jobmaster

import (
	"context"
	"fmt"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/rpc"
)

// TriggerSavepoint asks the scheduler for a savepoint on the main thread
// and waits for its path (Flink: JobMaster#triggerSavepoint, a future of
// the path the scheduler completes). See gateway.JobMasterGateway.
func (jm *JobMaster) TriggerSavepoint(ctx context.Context, targetDirectory string, cancelJob bool) (string, error) {
	return jm.awaitSavepoint(ctx, func(done func(string, error)) {
		jm.scheduler.TriggerSavepoint(targetDirectory, cancelJob, done)
	})
}

// StopWithSavepoint asks the scheduler to stop the job with a savepoint
// and waits for its path, which comes once the job has FINISHED (Flink:
// JobMaster#stopWithSavepoint).
func (jm *JobMaster) StopWithSavepoint(ctx context.Context, targetDirectory string, terminate bool) (string, error) {
	return jm.awaitSavepoint(ctx, func(done func(string, error)) {
		jm.scheduler.StopWithSavepoint(targetDirectory, terminate, done)
	})
}

// RequestCheckpointStats returns the statistics of the job's checkpoints,
// nil for a job that is not checkpointed (Flink:
// JobMaster#requestCheckpointStats).
func (jm *JobMaster) RequestCheckpointStats(ctx context.Context) (*checkpoint.CheckpointStatsSnapshot, error) {
	return rpc.CallAsync(ctx, jm.Endpoint, func() (*checkpoint.CheckpointStatsSnapshot, error) {
		return jm.scheduler.RequestCheckpointStats(), nil
	})
}

// awaitSavepoint starts a savepoint on the main thread and waits, on the
// caller's goroutine, for the scheduler's answer, which comes back on the
// main thread later: the main thread never waits for a savepoint. The
// wait ends with ctx, or when the JobMaster stops first: its job is
// suspended, and the coordinator will not complete the savepoint.
func (jm *JobMaster) awaitSavepoint(ctx context.Context, start func(done func(string, error))) (string, error) {
	type outcome struct {
		path string
		err  error
	}
	answer := make(chan outcome, 1) // the scheduler answers once
	if _, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		start(func(path string, err error) { answer <- outcome{path, err} })
		return struct{}{}, nil
	}); err != nil {
		return "", err
	}
	select {
	case o := <-answer:
		return o.path, o.err
	case <-ctx.Done():
		return "", fmt.Errorf("%w: the savepoint of job %s did not complete in time: %w", rpc.ErrTimeout, jm.jobGraph.JobID, ctx.Err())
	case <-jm.Terminated():
		select {
		case o := <-answer: // answered just before the JobMaster stopped
			return o.path, o.err
		default:
			return "", checkpoint.NewCheckpointException(checkpoint.CheckpointCoordinatorShutdown, nil)
		}
	}
}
