package gatewaytest

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// JobMasterGateway is a fake gateway.JobMasterGateway and
// gateway.JobMasterHeartbeatGateway. Its methods call the function fields
// when they are set and otherwise succeed with zero values, except where a
// method's comment says otherwise.
type JobMasterGateway struct {
	RegisterTaskManagerFunc func(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
		tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error)
	OfferSlotsFunc func(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
		offers []gateway.SlotOffer) ([]gateway.SlotOffer, error)
	UpdateTaskExecutionStateFunc          func(ctx context.Context, jobMasterID api.JobMasterID, state gateway.TaskExecutionState) error
	DisconnectTaskManagerFunc             func(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID, cause error) error
	NotifyNotEnoughResourcesAvailableFunc func(ctx context.Context, jobMasterID api.JobMasterID, acquired int) error
	RequestJobStatusFunc                  func(ctx context.Context) (api.JobStatus, error)
	RequestJobFunc                        func(ctx context.Context) (*gateway.ArchivedExecutionGraph, error)
	CancelFunc                            func(ctx context.Context) error
	RequestJobResourceRequirementsFunc    func(ctx context.Context) (jobgraph.JobResourceRequirements, error)
	UpdateJobResourceRequirementsFunc     func(ctx context.Context, requirements jobgraph.JobResourceRequirements) error
	AcknowledgeCheckpointFunc             func(ctx context.Context, ack checkpoint.AcknowledgeCheckpoint) error
	DeclineCheckpointFunc                 func(ctx context.Context, decline checkpoint.DeclineCheckpoint) error
	TriggerSavepointFunc                  func(ctx context.Context, targetDirectory string, cancelJob bool) (string, error)
	StopWithSavepointFunc                 func(ctx context.Context, targetDirectory string, terminate bool) (string, error)
	RequestCheckpointStatsFunc            func(ctx context.Context) (*checkpoint.CheckpointStatsSnapshot, error)

	HeartbeatFromTaskManagerFunc     func(ctx context.Context, resourceID api.ResourceID, payload gateway.TaskExecutorToJobManagerHeartbeatPayload) error
	HeartbeatFromResourceManagerFunc func(ctx context.Context, resourceID api.ResourceID) error
}

var (
	_ gateway.JobMasterGateway          = (*JobMasterGateway)(nil)
	_ gateway.JobMasterHeartbeatGateway = (*JobMasterGateway)(nil)
)

// RegisterTaskManager calls RegisterTaskManagerFunc, or accepts the
// TaskManager with a zero JMTMRegistrationSuccess.
func (f *JobMasterGateway) RegisterTaskManager(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
	tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	if f.RegisterTaskManagerFunc != nil {
		return f.RegisterTaskManagerFunc(ctx, jobMasterID, jobID, tm)
	}
	return gateway.JMTMRegistrationSuccess{}, nil
}

// OfferSlots calls OfferSlotsFunc, or accepts every offer.
func (f *JobMasterGateway) OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
	offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	if f.OfferSlotsFunc != nil {
		return f.OfferSlotsFunc(ctx, jobMasterID, taskManager, offers)
	}
	return offers, nil
}

// UpdateTaskExecutionState calls UpdateTaskExecutionStateFunc, or succeeds.
func (f *JobMasterGateway) UpdateTaskExecutionState(ctx context.Context, jobMasterID api.JobMasterID,
	state gateway.TaskExecutionState) error {
	if f.UpdateTaskExecutionStateFunc != nil {
		return f.UpdateTaskExecutionStateFunc(ctx, jobMasterID, state)
	}
	return nil
}

// DisconnectTaskManager calls DisconnectTaskManagerFunc, or succeeds.
func (f *JobMasterGateway) DisconnectTaskManager(ctx context.Context, jobMasterID api.JobMasterID,
	taskManager api.ResourceID, cause error) error {
	if f.DisconnectTaskManagerFunc != nil {
		return f.DisconnectTaskManagerFunc(ctx, jobMasterID, taskManager, cause)
	}
	return nil
}

// RequestJobStatus calls RequestJobStatusFunc, or answers RUNNING: a
// JobMaster that answers at all has started scheduling.
func (f *JobMasterGateway) RequestJobStatus(ctx context.Context) (api.JobStatus, error) {
	if f.RequestJobStatusFunc != nil {
		return f.RequestJobStatusFunc(ctx)
	}
	return api.JobRunning, nil
}

// RequestJob calls RequestJobFunc, or answers an empty graph (never nil).
func (f *JobMasterGateway) RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error) {
	if f.RequestJobFunc != nil {
		return f.RequestJobFunc(ctx)
	}
	return &gateway.ArchivedExecutionGraph{}, nil
}

// Cancel calls CancelFunc, or succeeds.
func (f *JobMasterGateway) Cancel(ctx context.Context) error {
	if f.CancelFunc != nil {
		return f.CancelFunc(ctx)
	}
	return nil
}

// RequestJobResourceRequirements calls RequestJobResourceRequirementsFunc,
// or answers no requirements (an empty map, never nil).
func (f *JobMasterGateway) RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error) {
	if f.RequestJobResourceRequirementsFunc != nil {
		return f.RequestJobResourceRequirementsFunc(ctx)
	}
	return jobgraph.JobResourceRequirements{}, nil
}

// AcknowledgeCheckpoint calls AcknowledgeCheckpointFunc, or succeeds.
func (f *JobMasterGateway) AcknowledgeCheckpoint(ctx context.Context, ack checkpoint.AcknowledgeCheckpoint) error {
	if f.AcknowledgeCheckpointFunc != nil {
		return f.AcknowledgeCheckpointFunc(ctx, ack)
	}
	return nil
}

// DeclineCheckpoint calls DeclineCheckpointFunc, or succeeds.
func (f *JobMasterGateway) DeclineCheckpoint(ctx context.Context, decline checkpoint.DeclineCheckpoint) error {
	if f.DeclineCheckpointFunc != nil {
		return f.DeclineCheckpointFunc(ctx, decline)
	}
	return nil
}

// UpdateJobResourceRequirements calls UpdateJobResourceRequirementsFunc, or
// succeeds.
func (f *JobMasterGateway) UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error {
	if f.UpdateJobResourceRequirementsFunc != nil {
		return f.UpdateJobResourceRequirementsFunc(ctx, requirements)
	}
	return nil
}

// HeartbeatFromTaskManager calls HeartbeatFromTaskManagerFunc, or succeeds.
func (f *JobMasterGateway) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorToJobManagerHeartbeatPayload) error {
	if f.HeartbeatFromTaskManagerFunc != nil {
		return f.HeartbeatFromTaskManagerFunc(ctx, resourceID, payload)
	}
	return nil
}

// HeartbeatFromResourceManager calls HeartbeatFromResourceManagerFunc, or
// succeeds without answering: a ResourceManager that monitors the fake
// times it out after heartbeat.timeout, unless the Func answers
// (ResourceManagerGateway.HeartbeatFromJobManager).
func (f *JobMasterGateway) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	if f.HeartbeatFromResourceManagerFunc != nil {
		return f.HeartbeatFromResourceManagerFunc(ctx, resourceID)
	}
	return nil
}

// NotifyNotEnoughResourcesAvailable calls NotifyNotEnoughResourcesAvailableFunc, or succeeds.
func (f *JobMasterGateway) NotifyNotEnoughResourcesAvailable(ctx context.Context, jobMasterID api.JobMasterID, acquired int) error {
	if f.NotifyNotEnoughResourcesAvailableFunc != nil {
		return f.NotifyNotEnoughResourcesAvailableFunc(ctx, jobMasterID, acquired)
	}
	return nil
}

// TriggerSavepoint calls TriggerSavepointFunc, or fails with
// gateway.ErrCheckpointingDisabled: the fake's job is not checkpointed.
func (f *JobMasterGateway) TriggerSavepoint(ctx context.Context, targetDirectory string, cancelJob bool) (string, error) {
	if f.TriggerSavepointFunc != nil {
		return f.TriggerSavepointFunc(ctx, targetDirectory, cancelJob)
	}
	return "", gateway.ErrCheckpointingDisabled
}

// StopWithSavepoint calls StopWithSavepointFunc, or fails with
// gateway.ErrCheckpointingDisabled.
func (f *JobMasterGateway) StopWithSavepoint(ctx context.Context, targetDirectory string, terminate bool) (string, error) {
	if f.StopWithSavepointFunc != nil {
		return f.StopWithSavepointFunc(ctx, targetDirectory, terminate)
	}
	return "", gateway.ErrCheckpointingDisabled
}

// RequestCheckpointStats calls RequestCheckpointStatsFunc, or answers nil:
// the fake's job is not checkpointed.
func (f *JobMasterGateway) RequestCheckpointStats(ctx context.Context) (*checkpoint.CheckpointStatsSnapshot, error) {
	if f.RequestCheckpointStatsFunc != nil {
		return f.RequestCheckpointStatsFunc(ctx)
	}
	return nil, nil
}
