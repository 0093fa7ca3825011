package gatewaytest

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// TaskExecutorGateway is a fake gateway.TaskExecutorGateway. Its methods
// call the function fields when they are set and succeed otherwise.
type TaskExecutorGateway struct {
	RequestSlotFunc func(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
		profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error
	SubmitTaskFunc           func(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error
	CancelTaskFunc           func(ctx context.Context, attemptID api.ExecutionAttemptID) error
	FreeSlotFunc             func(ctx context.Context, allocationID api.AllocationID, jobMasterID api.JobMasterID, cause error) error
	DisconnectJobManagerFunc func(ctx context.Context, jobID api.JobID, jobMasterID api.JobMasterID, cause error) error
	ReleasePartitionsFunc    func(ctx context.Context, jobID api.JobID, partitionIDs []api.ResultPartitionID) error
	TriggerCheckpointFunc    func(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64,
		options checkpoint.CheckpointOptions) error
	ConfirmCheckpointFunc func(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64) error
	AbortCheckpointFunc   func(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, latestCompletedCheckpointID, timestamp int64) error

	HeartbeatFromJobManagerFunc      func(ctx context.Context, resourceID api.ResourceID, payload gateway.AllocatedSlotReport) error
	HeartbeatFromResourceManagerFunc func(ctx context.Context, resourceID api.ResourceID) error
}

var _ gateway.TaskExecutorGateway = (*TaskExecutorGateway)(nil)

// RequestSlot calls RequestSlotFunc, or accepts the request.
func (f *TaskExecutorGateway) RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	if f.RequestSlotFunc != nil {
		return f.RequestSlotFunc(ctx, slotID, jobID, allocationID, profile, jobMasterAddress, rmID)
	}
	return nil
}

// SubmitTask calls SubmitTaskFunc, or accepts the task.
func (f *TaskExecutorGateway) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	if f.SubmitTaskFunc != nil {
		return f.SubmitTaskFunc(ctx, tdd, jobMasterID)
	}
	return nil
}

// CancelTask calls CancelTaskFunc, or succeeds.
func (f *TaskExecutorGateway) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
	if f.CancelTaskFunc != nil {
		return f.CancelTaskFunc(ctx, attemptID)
	}
	return nil
}

// FreeSlot calls FreeSlotFunc, or succeeds.
func (f *TaskExecutorGateway) FreeSlot(ctx context.Context, allocationID api.AllocationID, jobMasterID api.JobMasterID, cause error) error {
	if f.FreeSlotFunc != nil {
		return f.FreeSlotFunc(ctx, allocationID, jobMasterID, cause)
	}
	return nil
}

// DisconnectJobManager calls DisconnectJobManagerFunc, or succeeds.
func (f *TaskExecutorGateway) DisconnectJobManager(ctx context.Context, jobID api.JobID, jobMasterID api.JobMasterID, cause error) error {
	if f.DisconnectJobManagerFunc != nil {
		return f.DisconnectJobManagerFunc(ctx, jobID, jobMasterID, cause)
	}
	return nil
}

// ReleasePartitions calls ReleasePartitionsFunc, or succeeds.
func (f *TaskExecutorGateway) ReleasePartitions(ctx context.Context, jobID api.JobID, partitionIDs []api.ResultPartitionID) error {
	if f.ReleasePartitionsFunc != nil {
		return f.ReleasePartitionsFunc(ctx, jobID, partitionIDs)
	}
	return nil
}

// HeartbeatFromJobManager calls HeartbeatFromJobManagerFunc, or succeeds
// without answering: a JobMaster that monitors the fake times it out after
// heartbeat.timeout, unless the Func answers (JobMasterHeartbeatGateway.HeartbeatFromTaskManager).
func (f *TaskExecutorGateway) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.AllocatedSlotReport) error {
	if f.HeartbeatFromJobManagerFunc != nil {
		return f.HeartbeatFromJobManagerFunc(ctx, resourceID, payload)
	}
	return nil
}

// HeartbeatFromResourceManager calls HeartbeatFromResourceManagerFunc, or
// succeeds without answering, as HeartbeatFromJobManager does.
func (f *TaskExecutorGateway) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	if f.HeartbeatFromResourceManagerFunc != nil {
		return f.HeartbeatFromResourceManagerFunc(ctx, resourceID)
	}
	return nil
}

// TriggerCheckpoint calls TriggerCheckpointFunc, or succeeds.
func (f *TaskExecutorGateway) TriggerCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64,
	options checkpoint.CheckpointOptions) error {
	if f.TriggerCheckpointFunc != nil {
		return f.TriggerCheckpointFunc(ctx, attemptID, checkpointID, timestamp, options)
	}
	return nil
}

// ConfirmCheckpoint calls ConfirmCheckpointFunc, or succeeds.
func (f *TaskExecutorGateway) ConfirmCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64) error {
	if f.ConfirmCheckpointFunc != nil {
		return f.ConfirmCheckpointFunc(ctx, attemptID, checkpointID, timestamp)
	}
	return nil
}

// AbortCheckpoint calls AbortCheckpointFunc, or succeeds.
func (f *TaskExecutorGateway) AbortCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, latestCompletedCheckpointID, timestamp int64) error {
	if f.AbortCheckpointFunc != nil {
		return f.AbortCheckpointFunc(ctx, attemptID, checkpointID, latestCompletedCheckpointID, timestamp)
	}
	return nil
}
