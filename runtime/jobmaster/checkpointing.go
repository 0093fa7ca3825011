package jobmaster

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler"
)

// AcknowledgeCheckpoint hands a task's acknowledgement to the job's
// CheckpointCoordinator, on the main thread (Flink:
// JobMaster#acknowledgeCheckpoint → SchedulerNG).
func (jm *JobMaster) AcknowledgeCheckpoint(ctx context.Context, ack checkpoint.AcknowledgeCheckpoint) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		return struct{}{}, jm.scheduler.AcknowledgeCheckpoint(ack)
	})
	return err
}

// DeclineCheckpoint hands a task's decline to the job's
// CheckpointCoordinator, on the main thread.
func (jm *JobMaster) DeclineCheckpoint(ctx context.Context, decline checkpoint.DeclineCheckpoint) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		return struct{}{}, jm.scheduler.DeclineCheckpoint(decline)
	})
	return err
}

// checkpointing is what the job's schedulers checkpoint with: the
// options, and one store and ID counter of completed checkpoints for the
// whole job, made by the HA services' CheckpointRecoveryFactory (Flink:
// SchedulerUtils#createCompletedCheckpointStoreIfCheckpointingIsEnabled
// and createCheckpointIDCounterIfCheckpointingIsEnabled). Nil when
// checkpointing is off.
//
// The store keeps state.checkpoints.num-retained checkpoints. Under
// ZooKeeper HA it comes with the checkpoints the job's previous JobMaster
// completed, and the counter counts on from where that one stopped: the
// scheduler restores the latest of them when it starts, and the job
// resumes from there. Without HA both start empty.
//
// An error fails the JobMaster's creation, with Flink's message: the job
// cannot start without the checkpoints it must resume from.
func (jm *JobMaster) checkpointing() (*scheduler.Checkpointing, error) {
	cfg := jm.cfg.Checkpointing
	if !cfg.IsCheckpointingEnabled() {
		return nil, nil
	}
	jobID := jm.jobGraph.JobID
	factory := jm.deps.HA.CheckpointRecoveryFactory()

	maxNumberOfCheckpointsToRetain := cfg.NumRetained
	if maxNumberOfCheckpointsToRetain <= 0 {
		jm.log.Warn(fmt.Sprintf("The setting for '%s : %d' is invalid. Using default value of %d",
			checkpoint.KeyNumRetained, maxNumberOfCheckpointsToRetain, checkpoint.DefaultNumRetained))
		maxNumberOfCheckpointsToRetain = checkpoint.DefaultNumRetained
	}
	store, err := factory.CreateRecoveredCompletedCheckpointStore(jobID, maxNumberOfCheckpointsToRetain)
	if err != nil {
		return nil, fmt.Errorf("Failed to initialize high-availability completed checkpoint store: %w", err)
	}
	counter, err := factory.CreateCheckpointIDCounter(jobID)
	if err != nil {
		// Let go of what the store holds (its locks), for the next try.
		_ = store.Shutdown(api.JobSuspended, func(*checkpoint.CompletedCheckpoint) {})
		return nil, fmt.Errorf("Failed to initialize high-availability checkpoint id counter: %w", err)
	}
	return &scheduler.Checkpointing{Config: cfg, Store: store, IDCounter: counter, Faults: jm.deps.Faults}, nil
}

// suspendCheckpointServices shuts the job's store and counter down as
// SUSPENDED when the JobMaster stops before its job ended, on the main
// thread (Flink: SchedulerBase#closeAsync → shutDownCheckpointServices
// with the suspended graph's status). A highly available store lets go of
// its locks and keeps every checkpoint for the job's next JobMaster; the
// standalone one just forgets them. A job that ended was shut down with
// its final status already, by its CheckpointCoordinator.
//
// Differs from Flink: nothing is discarded here, where Flink's
// StandaloneCompletedCheckpointStore deletes the checkpoints that
// CheckpointProperties discard when SUSPENDED.
func (jm *JobMaster) suspendCheckpointServices() {
	cp := jm.checkpointServices
	if cp == nil || jm.scheduler.RequestJobStatus().IsGloballyTerminalState() {
		return
	}
	if err := cp.Store.Shutdown(api.JobSuspended, func(*checkpoint.CompletedCheckpoint) {}); err != nil {
		jm.log.Warn("Failed to shut down the completed checkpoint store.", "cause", err.Error())
	}
	if err := cp.IDCounter.Shutdown(api.JobSuspended); err != nil {
		jm.log.Warn("Failed to shut down the checkpoint ID counter.", "cause", err.Error())
	}
}
