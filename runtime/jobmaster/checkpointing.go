package jobmaster

import (
	"context"

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
// whole job (Flink: SchedulerUtils#createCompletedCheckpointStoreIfCheckpointingIsEnabled
// and createCheckpointIDCounterIfCheckpointingIsEnabled). Nil when
// checkpointing is off.
func (jm *JobMaster) checkpointing() *scheduler.Checkpointing {
	cfg := jm.cfg.Checkpointing
	if !cfg.IsCheckpointingEnabled() {
		return nil
	}
	return &scheduler.Checkpointing{
		Config:    cfg,
		Store:     checkpoint.NewStandaloneCompletedCheckpointStore(cfg.NumRetained),
		IDCounter: checkpoint.NewStandaloneCheckpointIDCounter(),
	}
}
