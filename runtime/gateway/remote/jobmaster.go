package remote

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

// jobMasterStub is a remote gateway.JobMasterGateway and
// gateway.JobMasterHeartbeatGateway, as the JobMaster is both.
type jobMasterStub struct{ inv *rpc.Invoker }

var (
	_ gateway.JobMasterGateway          = jobMasterStub{}
	_ gateway.JobMasterHeartbeatGateway = jobMasterStub{}
)

func (s jobMasterStub) RegisterTaskManager(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
	tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	return rpc.CallRemote[gateway.JMTMRegistrationSuccess](ctx, s.inv, "RegisterTaskManager", jobMasterID, jobID, tm)
}

func (s jobMasterStub) OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
	offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	return rpc.CallRemote[[]gateway.SlotOffer](ctx, s.inv, "OfferSlots", jobMasterID, taskManager, offers)
}

func (s jobMasterStub) UpdateTaskExecutionState(ctx context.Context, jobMasterID api.JobMasterID, state gateway.TaskExecutionState) error {
	return s.inv.Call(ctx, "UpdateTaskExecutionState", jobMasterID, state)
}

func (s jobMasterStub) DisconnectTaskManager(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID, cause error) error {
	return s.inv.Call(ctx, "DisconnectTaskManager", jobMasterID, taskManager, cause)
}

func (s jobMasterStub) NotifyNotEnoughResourcesAvailable(ctx context.Context, jobMasterID api.JobMasterID, acquired int) error {
	return s.inv.Call(ctx, "NotifyNotEnoughResourcesAvailable", jobMasterID, acquired)
}

func (s jobMasterStub) RequestJobStatus(ctx context.Context) (api.JobStatus, error) {
	return rpc.CallRemote[api.JobStatus](ctx, s.inv, "RequestJobStatus")
}

func (s jobMasterStub) RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error) {
	return rpc.CallRemote[*gateway.ArchivedExecutionGraph](ctx, s.inv, "RequestJob")
}

func (s jobMasterStub) Cancel(ctx context.Context) error {
	return s.inv.Call(ctx, "Cancel")
}

func (s jobMasterStub) RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error) {
	return rpc.CallRemote[jobgraph.JobResourceRequirements](ctx, s.inv, "RequestJobResourceRequirements")
}

func (s jobMasterStub) UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error {
	return s.inv.Call(ctx, "UpdateJobResourceRequirements", requirements)
}

func (s jobMasterStub) AcknowledgeCheckpoint(ctx context.Context, ack checkpoint.AcknowledgeCheckpoint) error {
	return s.inv.Call(ctx, "AcknowledgeCheckpoint", ack)
}

func (s jobMasterStub) DeclineCheckpoint(ctx context.Context, decline checkpoint.DeclineCheckpoint) error {
	return s.inv.Call(ctx, "DeclineCheckpoint", decline)
}

func (s jobMasterStub) TriggerSavepoint(ctx context.Context, targetDirectory string, cancelJob bool) (string, error) {
	return rpc.CallRemote[string](ctx, s.inv, "TriggerSavepoint", targetDirectory, cancelJob)
}

func (s jobMasterStub) StopWithSavepoint(ctx context.Context, targetDirectory string, terminate bool) (string, error) {
	return rpc.CallRemote[string](ctx, s.inv, "StopWithSavepoint", targetDirectory, terminate)
}

func (s jobMasterStub) RequestCheckpointStats(ctx context.Context) (*checkpoint.CheckpointStatsSnapshot, error) {
	return rpc.CallRemote[*checkpoint.CheckpointStatsSnapshot](ctx, s.inv, "RequestCheckpointStats")
}

func (s jobMasterStub) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorToJobManagerHeartbeatPayload) error {
	return s.inv.Call(ctx, "HeartbeatFromTaskManager", resourceID, payload)
}

func (s jobMasterStub) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	return s.inv.Call(ctx, "HeartbeatFromResourceManager", resourceID)
}
