package jobmanager

import (
	"context"
	"fmt"

	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// RequestJobResourceRequirements asks the running JobMaster for the job's
// parallelism bounds; see runningJobMaster for when there is none.
func (r *JobMasterServiceLeadershipRunner) RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error) {
	jm, err := r.runningJobMaster()
	if err != nil {
		return nil, err
	}
	return jm.Gateway().RequestJobResourceRequirements(ctx)
}

// UpdateJobResourceRequirements hands the running JobMaster new
// parallelism bounds; see runningJobMaster for when there is none.
func (r *JobMasterServiceLeadershipRunner) UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error {
	jm, err := r.runningJobMaster()
	if err != nil {
		return err
	}
	return jm.Gateway().UpdateJobResourceRequirements(ctx, requirements)
}

// runningJobMaster returns the JobMaster of the current leadership if it
// runs, for a request that only a JobMaster can answer (Flink: the
// Dispatcher's getJobMasterGateway). Unlike a cancel, such a request does
// not wait for one. While the job initializes, it fails with Flink's
// UnavailableDispatcherOperationException; once the job's result is
// known, with FlinkJobNotFoundException, as Flink's Dispatcher answers
// once it has removed the job's runner.
func (r *JobMasterServiceLeadershipRunner) runningJobMaster() (JobMasterService, error) {
	result, jm, _ := r.snapshot()
	switch {
	case result != nil:
		return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, r.JobID())
	case jm == nil:
		return nil, fmt.Errorf("%w: Unable to get JobMasterGateway for initializing job. "+
			"The requested operation is not available while the JobManager is initializing.", gateway.ErrUnavailableDispatcherOperation)
	}
	return jm, nil
}
