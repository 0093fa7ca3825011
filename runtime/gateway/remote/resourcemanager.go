package remote

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// resourceManagerStub is a remote gateway.ResourceManagerGateway.
type resourceManagerStub struct{ inv *rpc.Invoker }

var _ gateway.ResourceManagerGateway = resourceManagerStub{}

func (s resourceManagerStub) RegisterJobMaster(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	return rpc.CallRemote[gateway.JobMasterRegistrationSuccess](ctx, s.inv, "RegisterJobMaster",
		rmID, jobMasterID, jobManagerResourceID, jobMasterAddress, jobID)
}

func (s resourceManagerStub) DeclareRequiredResources(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	requirements gateway.ResourceRequirements) error {
	return s.inv.Call(ctx, "DeclareRequiredResources", rmID, jobMasterID, requirements)
}

func (s resourceManagerStub) DisconnectJobManager(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
	jobStatus api.JobStatus, cause error) error {
	return s.inv.Call(ctx, "DisconnectJobManager", rmID, jobID, jobStatus, cause)
}

func (s resourceManagerStub) RegisterTaskExecutor(ctx context.Context, rmID api.ResourceManagerID,
	registration gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
	return rpc.CallRemote[gateway.TaskExecutorRegistrationSuccess](ctx, s.inv, "RegisterTaskExecutor", rmID, registration)
}

func (s resourceManagerStub) SendSlotReport(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	instanceID api.InstanceID, report gateway.SlotReport) error {
	return s.inv.Call(ctx, "SendSlotReport", rmID, taskManager, instanceID, report)
}

func (s resourceManagerStub) NotifySlotAvailable(ctx context.Context, rmID api.ResourceManagerID, instanceID api.InstanceID,
	slotID api.SlotID, allocationID api.AllocationID) error {
	return s.inv.Call(ctx, "NotifySlotAvailable", rmID, instanceID, slotID, allocationID)
}

func (s resourceManagerStub) DisconnectTaskManager(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	cause error) error {
	return s.inv.Call(ctx, "DisconnectTaskManager", rmID, taskManager, cause)
}

func (s resourceManagerStub) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorHeartbeatPayload) error {
	return s.inv.Call(ctx, "HeartbeatFromTaskManager", resourceID, payload)
}

func (s resourceManagerStub) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID) error {
	return s.inv.Call(ctx, "HeartbeatFromJobManager", resourceID)
}

func (s resourceManagerStub) RequestResourceOverview(ctx context.Context) (gateway.ResourceOverview, error) {
	return rpc.CallRemote[gateway.ResourceOverview](ctx, s.inv, "RequestResourceOverview")
}

func (s resourceManagerStub) RequestTaskManagerInfo(ctx context.Context) ([]gateway.TaskManagerInfo, error) {
	return rpc.CallRemote[[]gateway.TaskManagerInfo](ctx, s.inv, "RequestTaskManagerInfo")
}
