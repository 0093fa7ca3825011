package dispatcher

import (
	"context"
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// requirementsUpdate is one update of a job's resource requirements in
// progress. The Dispatcher keeps it in requirementsUpdates while it runs;
// its address tells it from a later update of the same job.
type requirementsUpdate struct {
	requirements jobgraph.JobResourceRequirements
}

// RequestJobResourceRequirements returns the parallelism bounds of a
// job's vertices, as its JobMaster's scheduler has them (Flink's
// requestJobResourceRequirements). Only a running JobMaster answers: a
// job this Dispatcher does not run is not found, also one that has ended
// (Flink asks its runners, not its archive), and a job still initializing
// answers gateway.ErrUnavailableDispatcherOperation.
func (d *Dispatcher) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	runner, err := rpc.CallAsync(ctx, d.Endpoint, func() (jobmanager.JobManagerRunner, error) { return d.runningJob(jobID) })
	if err != nil {
		return nil, err
	}
	return runner.RequestJobResourceRequirements(ctx)
}

// UpdateJobResourceRequirements gives a running job new parallelism
// bounds (Flink's updateJobResourceRequirements), in Flink's order:
//
//  1. Is another update of the job's requirements in progress? Then
//     gateway.ErrJobResourceRequirementsUpdateInProgress.
//  2. Does this Dispatcher run the job? If not, or if it has ended, the
//     job is not found.
//  3. Do the requirements fit the job? They are checked with
//     jobgraph.ValidateJobResourceRequirements against the max
//     parallelism of each vertex, as the job's ExecutionGraph has it
//     (RequestJob: Flink's Dispatcher reads it from the archived
//     ExecutionGraph the JobMaster answers with). If not,
//     *gateway.InvalidJobResourceRequirementsError.
//  4. The JobMaster hands them to its scheduler, which applies them or
//     refuses them (the DefaultScheduler refuses, with
//     gateway.ErrUnsupportedOperation).
//
// The update is in progress from step 1 until it returns, whatever its
// answer. Steps 3 and 4 ask the job's runner from the caller's goroutine,
// as every question about a job does; only steps 1 and 2 and the end of
// the update touch the Dispatcher's fields, on its main thread.
//
// Differs from Flink: Flink persists the requirements in the
// JobGraphStore between steps 3 and 4 (JobGraphWriter
// #putJobResourceRequirements, or 500 "The resource requirements could
// not be persisted and have not been applied. Please retry."), so that a
// JobMaster taking over the job after a failover starts with them. Here
// the JobGraph has no place for them, and they are not persisted. And
// Flink refuses a job that is still initializing at step 2, with an
// UnavailableDispatcherOperationException; here step 3 checks the
// requirements against the sparse ExecutionGraph the runner answers with
// meanwhile, and the runner refuses at step 4 with that exception, so
// that requirements which do not fit are told so even then.
func (d *Dispatcher) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, requirements jobgraph.JobResourceRequirements) error {
	update := &requirementsUpdate{requirements: requirements}
	runner, err := rpc.CallAsync(ctx, d.Endpoint, func() (jobmanager.JobManagerRunner, error) {
		return d.startRequirementsUpdate(jobID, update)
	})
	// The update ends here whatever happened. Even if ctx ended before the
	// main thread started it, the mailbox runs the end after the start.
	defer d.endRequirementsUpdate(jobID, update)
	if errors.Is(err, gateway.ErrJobResourceRequirementsUpdateInProgress) {
		return err
	}
	if err == nil {
		err = applyJobResourceRequirements(ctx, runner, jobID, requirements)
	}
	if err != nil {
		d.log.Debug(fmt.Sprintf("Failed to update requirements for job %s.", jobID), "cause", err.Error())
	}
	return err
}

// startRequirementsUpdate makes steps 1 and 2 of an update, on the main
// thread, and registers the update if they pass.
func (d *Dispatcher) startRequirementsUpdate(jobID api.JobID, update *requirementsUpdate) (jobmanager.JobManagerRunner, error) {
	if _, inProgress := d.requirementsUpdates[jobID]; inProgress {
		return nil, gateway.ErrJobResourceRequirementsUpdateInProgress
	}
	runner, err := d.runningJob(jobID)
	if err != nil {
		return nil, err
	}
	d.requirementsUpdates[jobID] = update
	return runner, nil
}

// endRequirementsUpdate forgets the update, if it is still the job's, and
// waits until the main thread has done so: whoever learns that the update
// is over may start the next one.
func (d *Dispatcher) endRequirementsUpdate(jobID api.JobID, update *requirementsUpdate) {
	// A Dispatcher that has stopped has nothing left to forget.
	_, _ = rpc.CallAsync(context.Background(), d.Endpoint, func() (struct{}, error) {
		if d.requirementsUpdates[jobID] == update {
			delete(d.requirementsUpdates, jobID)
		}
		return struct{}{}, nil
	})
}

// applyJobResourceRequirements makes steps 3 and 4 of an update, on the
// caller's goroutine.
func applyJobResourceRequirements(ctx context.Context, runner jobmanager.JobManagerRunner, jobID api.JobID,
	requirements jobgraph.JobResourceRequirements) error {
	graph, err := runner.RequestJob(ctx)
	if err != nil {
		return err
	}
	maxParallelismPerVertex := make(map[api.JobVertexID]int, len(graph.Vertices))
	for _, v := range graph.Vertices {
		maxParallelismPerVertex[v.ID] = v.MaxParallelism
	}
	if errs := jobgraph.ValidateJobResourceRequirements(requirements, maxParallelismPerVertex); len(errs) > 0 {
		return &gateway.InvalidJobResourceRequirementsError{JobID: jobID, Errors: errs}
	}
	return runner.UpdateJobResourceRequirements(ctx, requirements)
}

// runningJob returns the runner of a job that has not ended, on the main
// thread (Flink asks its JobManagerRunnerRegistry, which holds no ended
// job once it has been cleaned up). A job that has ended, or that this
// Dispatcher does not know, is not found.
func (d *Dispatcher) runningJob(jobID api.JobID) (jobmanager.JobManagerRunner, error) {
	found, err := d.findJob(jobID)
	if err != nil {
		return nil, err
	}
	if found.archived != nil {
		return nil, jobNotFound(jobID)
	}
	return found.runner, nil
}
