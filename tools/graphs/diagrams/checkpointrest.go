package diagrams

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/checkpoints"
)

// DrawCheckpoint reads a checkpoint of a job on a running cluster from
// its REST endpoint at address (host:port): the job's shape from GET
// /jobs/{jobid}/plan, its checkpoints from GET /jobs/{jobid}/trace. It
// takes the CheckpointDrawn-th completed checkpoint in the trace, or the
// first when only one has completed; a trace without a completed
// checkpoint is an error. Files are named after the JobID.
//
// The trace is the JobManager's: the coordinator's steps k1, k5, k6 and k7
// are in it. The steps k2, k3 and k4, which the TaskManagers take, are in
// it only when they record into the same trace, as a MiniCluster's do;
// the TaskManager processes of a standalone cluster record none, and the
// drawing marks those steps "not in the trace". Where the barrier went is
// drawn all the same: a subtask acknowledges an aligned checkpoint only
// once the barrier has come on every input channel.
func DrawCheckpoint(ctx context.Context, address, jobID string) (*CheckpointRun, error) {
	id, err := api.ParseJobID(jobID)
	if err != nil {
		return nil, fmt.Errorf("-job %q: %w", jobID, err)
	}
	get := restGetter(ctx, address)
	var plan rest.JobPlanInfo
	if err := get("/jobs/"+id.String()+"/plan", &plan); err != nil {
		return nil, err
	}
	var answer struct {
		Events []trace.Event `json:"events"`
	}
	if err := get("/jobs/"+id.String()+"/trace", &answer); err != nil {
		return nil, err
	}

	completed := checkpoints.Completed(answer.Events)
	if len(completed) == 0 {
		return nil, fmt.Errorf("job %s has no completed checkpoint in its trace: is it checkpointed (execution.checkpointing.interval), and has it run for an interval?", id)
	}
	chosen := completed[min(CheckpointDrawn, len(completed))-1]
	g := jobGraphOf(plan.Plan)
	for _, v := range g.Vertices() {
		// The plan does not say what code a vertex runs, and building the
		// ExecutionGraph wants a name for it; the code is never run here.
		v.InvokableClassName = "(not in the plan)"
	}
	job, err := checkpoints.JobOf(g)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	c, err := checkpoints.Read(answer.Events, chosen, job)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	return &CheckpointRun{Name: id.String(), Checkpoint: c, Completed: completed}, nil
}
