package remote

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// taskExecutorStub is a remote gateway.TaskExecutorGateway.
type taskExecutorStub struct{ inv *rpc.Invoker }

var _ gateway.TaskExecutorGateway = taskExecutorStub{}

func (s taskExecutorStub) RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	return s.inv.Call(ctx, "RequestSlot", slotID, jobID, allocationID, profile, jobMasterAddress, rmID)
}

func (s taskExecutorStub) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	return s.inv.Call(ctx, "SubmitTask", tdd, jobMasterID)
}

func (s taskExecutorStub) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
	return s.inv.Call(ctx, "CancelTask", attemptID)
}

func (s taskExecutorStub) FreeSlot(ctx context.Context, allocationID api.AllocationID, jobMasterID api.JobMasterID, cause error) error {
	return s.inv.Call(ctx, "FreeSlot", allocationID, jobMasterID, cause)
}

func (s taskExecutorStub) DisconnectJobManager(ctx context.Context, jobID api.JobID, jobMasterID api.JobMasterID, cause error) error {
	return s.inv.Call(ctx, "DisconnectJobManager", jobID, jobMasterID, cause)
}

func (s taskExecutorStub) ReleasePartitions(ctx context.Context, jobID api.JobID, partitionIDs []api.ResultPartitionID) error {
	return s.inv.Call(ctx, "ReleasePartitions", jobID, partitionIDs)
}

func (s taskExecutorStub) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID, payload gateway.AllocatedSlotReport) error {
	return s.inv.Call(ctx, "HeartbeatFromJobManager", resourceID, payload)
}

func (s taskExecutorStub) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	return s.inv.Call(ctx, "HeartbeatFromResourceManager", resourceID)
}

func (s taskExecutorStub) TriggerCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64,
	options checkpoint.CheckpointOptions) error {
	return s.inv.Call(ctx, "TriggerCheckpoint", attemptID, checkpointID, timestamp, options)
}

func (s taskExecutorStub) ConfirmCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64) error {
	return s.inv.Call(ctx, "ConfirmCheckpoint", attemptID, checkpointID, timestamp)
}

func (s taskExecutorStub) AbortCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, latestCompletedCheckpointID, timestamp int64) error {
	return s.inv.Call(ctx, "AbortCheckpoint", attemptID, checkpointID, latestCompletedCheckpointID, timestamp)
}
