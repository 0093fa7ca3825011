package dispatcher

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// TriggerSavepointAndGetLocation asks the running job's JobMaster for a
// savepoint and waits for its path (Flink's triggerSavepointAndGetLocation,
// through performOperationOnJobMasterGateway): ModeCancelWithSavepoint
// cancels the job after it. A job that has ended, or that this Dispatcher
// does not run, is not found; one still initializing has no JobMaster to
// ask yet (gateway.ErrUnavailableDispatcherOperation). The wait happens on
// the caller's goroutine: the main thread only finds the job's runner.
func (d *Dispatcher) TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	jm, err := d.jobMasterGateway(ctx, jobID)
	if err != nil {
		return "", err
	}
	return jm.TriggerSavepoint(ctx, targetDirectory, savepointMode.IsTerminalMode())
}

// StopWithSavepointAndGetLocation stops the running job with a savepoint
// and waits for its path, which comes once the job has ended (Flink's
// stopWithSavepointAndGetLocation): ModeTerminateWithSavepoint drains it
// first. It finds the job as TriggerSavepointAndGetLocation does.
func (d *Dispatcher) StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, targetDirectory string,
	savepointMode gateway.TriggerSavepointMode) (string, error) {
	jm, err := d.jobMasterGateway(ctx, jobID)
	if err != nil {
		return "", err
	}
	return jm.StopWithSavepoint(ctx, targetDirectory, savepointMode.IsTerminalMode())
}

// RequestCheckpointStats returns the statistics of a job's checkpoints
// (Flink's requestCheckpointStats): a running job's JobMaster answers;
// for a job that has ended, or ends before its JobMaster could answer,
// they are the ones its final ExecutionGraph kept in the job store. nil
// for a job that is not checkpointed.
func (d *Dispatcher) RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	found, err := d.lookup(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if found.archived != nil {
		return found.archived.CheckpointStatsSnapshot, nil
	}
	jm, err := found.runner.JobMasterGateway()
	if err == nil {
		var stats *checkpoint.CheckpointStatsSnapshot
		if stats, err = jm.RequestCheckpointStats(ctx); err == nil {
			return stats, nil
		}
	}
	if again, lookupErr := d.lookup(ctx, jobID); lookupErr == nil && again.archived != nil {
		return again.archived.CheckpointStatsSnapshot, nil
	}
	return nil, err
}

// jobMasterGateway returns the gateway of the JobMaster that runs the job
// now (Flink's getJobMasterGateway): the runner is found on the main
// thread, and asked for its JobMaster off it.
func (d *Dispatcher) jobMasterGateway(ctx context.Context, jobID api.JobID) (gateway.JobMasterGateway, error) {
	runner, err := rpc.CallAsync(ctx, d.Endpoint, func() (jobmanager.JobManagerRunner, error) { return d.runningJob(jobID) })
	if err != nil {
		return nil, err
	}
	return runner.JobMasterGateway()
}
