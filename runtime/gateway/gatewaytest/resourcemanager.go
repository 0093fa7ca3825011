package gatewaytest

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// ResourceManagerGateway is a fake gateway.ResourceManagerGateway. Its
// methods call the function fields when they are set and otherwise succeed
// with zero values.
type ResourceManagerGateway struct {
	RegisterJobMasterFunc func(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
		jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error)
	DeclareRequiredResourcesFunc func(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
		requirements gateway.ResourceRequirements) error
	DisconnectJobManagerFunc func(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
		jobStatus api.JobStatus, cause error) error
	RegisterTaskExecutorFunc func(ctx context.Context, rmID api.ResourceManagerID,
		registration gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error)
	SendSlotReportFunc func(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
		instanceID api.InstanceID, report gateway.SlotReport) error
	NotifySlotAvailableFunc func(ctx context.Context, rmID api.ResourceManagerID, instanceID api.InstanceID,
		slotID api.SlotID, allocationID api.AllocationID) error
	DisconnectTaskManagerFunc func(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
		cause error) error
	HeartbeatFromTaskManagerFunc func(ctx context.Context, resourceID api.ResourceID, payload gateway.TaskExecutorHeartbeatPayload) error
	HeartbeatFromJobManagerFunc  func(ctx context.Context, resourceID api.ResourceID) error
	RequestResourceOverviewFunc  func(ctx context.Context) (gateway.ResourceOverview, error)
	RequestTaskManagerInfoFunc   func(ctx context.Context) ([]gateway.TaskManagerInfo, error)
}

var _ gateway.ResourceManagerGateway = (*ResourceManagerGateway)(nil)

// RegisterJobMaster calls RegisterJobMasterFunc, or accepts the JobMaster
// with a zero JobMasterRegistrationSuccess.
func (f *ResourceManagerGateway) RegisterJobMaster(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	if f.RegisterJobMasterFunc != nil {
		return f.RegisterJobMasterFunc(ctx, rmID, jobMasterID, jobManagerResourceID, jobMasterAddress, jobID)
	}
	return gateway.JobMasterRegistrationSuccess{}, nil
}

// DeclareRequiredResources calls DeclareRequiredResourcesFunc, or succeeds.
func (f *ResourceManagerGateway) DeclareRequiredResources(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	requirements gateway.ResourceRequirements) error {
	if f.DeclareRequiredResourcesFunc != nil {
		return f.DeclareRequiredResourcesFunc(ctx, rmID, jobMasterID, requirements)
	}
	return nil
}

// DisconnectJobManager calls DisconnectJobManagerFunc, or succeeds.
func (f *ResourceManagerGateway) DisconnectJobManager(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
	jobStatus api.JobStatus, cause error) error {
	if f.DisconnectJobManagerFunc != nil {
		return f.DisconnectJobManagerFunc(ctx, rmID, jobID, jobStatus, cause)
	}
	return nil
}

// RegisterTaskExecutor calls RegisterTaskExecutorFunc, or accepts the
// TaskExecutor with a zero TaskExecutorRegistrationSuccess.
func (f *ResourceManagerGateway) RegisterTaskExecutor(ctx context.Context, rmID api.ResourceManagerID,
	registration gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
	if f.RegisterTaskExecutorFunc != nil {
		return f.RegisterTaskExecutorFunc(ctx, rmID, registration)
	}
	return gateway.TaskExecutorRegistrationSuccess{}, nil
}

// SendSlotReport calls SendSlotReportFunc, or succeeds.
func (f *ResourceManagerGateway) SendSlotReport(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	instanceID api.InstanceID, report gateway.SlotReport) error {
	if f.SendSlotReportFunc != nil {
		return f.SendSlotReportFunc(ctx, rmID, taskManager, instanceID, report)
	}
	return nil
}

// NotifySlotAvailable calls NotifySlotAvailableFunc, or succeeds.
func (f *ResourceManagerGateway) NotifySlotAvailable(ctx context.Context, rmID api.ResourceManagerID, instanceID api.InstanceID,
	slotID api.SlotID, allocationID api.AllocationID) error {
	if f.NotifySlotAvailableFunc != nil {
		return f.NotifySlotAvailableFunc(ctx, rmID, instanceID, slotID, allocationID)
	}
	return nil
}

// DisconnectTaskManager calls DisconnectTaskManagerFunc, or succeeds.
func (f *ResourceManagerGateway) DisconnectTaskManager(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	cause error) error {
	if f.DisconnectTaskManagerFunc != nil {
		return f.DisconnectTaskManagerFunc(ctx, rmID, taskManager, cause)
	}
	return nil
}

// HeartbeatFromTaskManager calls HeartbeatFromTaskManagerFunc, or succeeds.
func (f *ResourceManagerGateway) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorHeartbeatPayload) error {
	if f.HeartbeatFromTaskManagerFunc != nil {
		return f.HeartbeatFromTaskManagerFunc(ctx, resourceID, payload)
	}
	return nil
}

// HeartbeatFromJobManager calls HeartbeatFromJobManagerFunc, or succeeds.
func (f *ResourceManagerGateway) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID) error {
	if f.HeartbeatFromJobManagerFunc != nil {
		return f.HeartbeatFromJobManagerFunc(ctx, resourceID)
	}
	return nil
}

// RequestResourceOverview calls RequestResourceOverviewFunc, or answers a
// zero ResourceOverview: no TaskManagers.
func (f *ResourceManagerGateway) RequestResourceOverview(ctx context.Context) (gateway.ResourceOverview, error) {
	if f.RequestResourceOverviewFunc != nil {
		return f.RequestResourceOverviewFunc(ctx)
	}
	return gateway.ResourceOverview{}, nil
}

// RequestTaskManagerInfo calls RequestTaskManagerInfoFunc, or answers no
// TaskManagers.
func (f *ResourceManagerGateway) RequestTaskManagerInfo(ctx context.Context) ([]gateway.TaskManagerInfo, error) {
	if f.RequestTaskManagerInfoFunc != nil {
		return f.RequestTaskManagerInfoFunc(ctx)
	}
	return nil, nil
}
