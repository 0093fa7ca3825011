package taskexecutor_test

import (
	"context"
	"errors"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
)

// record puts v into a buffered channel the test reads; it never blocks a
// fake.
func record[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
		panic("fake gateway: too many unread calls")
	}
}

// drain returns everything in ch without waiting.
func drain[T any](ch chan T) []T {
	var out []T
	for {
		select {
		case v := <-ch:
			out = append(out, v)
		default:
			return out
		}
	}
}

// fakeResourceManager is a ResourceManagerGateway whose behaviour a test
// sets through function fields; unset ones succeed. Every TaskExecutor-facing
// call is recorded in a channel.
type fakeResourceManager struct {
	registerTaskExecutor  func(ctx context.Context, rmID api.ResourceManagerID, reg gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error)
	sendSlotReport        func(ctx context.Context, report gateway.SlotReport) error
	notifySlotAvailable   func(ctx context.Context, slotID api.SlotID, allocationID api.AllocationID) error
	disconnectTaskManager func(ctx context.Context, cause error) error

	registrations  chan gateway.TaskExecutorRegistration
	slotReports    chan gateway.SlotReport
	slotsAvailable chan api.AllocationID
	disconnects    chan error
	heartbeats     chan api.ResourceID // HeartbeatFromTaskManager: the TaskExecutor's answers
}

var _ gateway.ResourceManagerGateway = (*fakeResourceManager)(nil)

func newFakeResourceManager() *fakeResourceManager {
	return &fakeResourceManager{
		registrations:  make(chan gateway.TaskExecutorRegistration, 64),
		slotReports:    make(chan gateway.SlotReport, 64),
		slotsAvailable: make(chan api.AllocationID, 64),
		disconnects:    make(chan error, 64),
		heartbeats:     make(chan api.ResourceID, 64),
	}
}

func (f *fakeResourceManager) RegisterTaskExecutor(ctx context.Context, rmID api.ResourceManagerID,
	reg gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
	record(f.registrations, reg)
	if f.registerTaskExecutor != nil {
		return f.registerTaskExecutor(ctx, rmID, reg)
	}
	return gateway.TaskExecutorRegistrationSuccess{RegistrationID: api.NewInstanceID(), ResourceManagerResourceID: "resourcemanager"}, nil
}

func (f *fakeResourceManager) SendSlotReport(ctx context.Context, _ api.ResourceManagerID, _ api.ResourceID,
	_ api.InstanceID, report gateway.SlotReport) error {
	record(f.slotReports, report)
	if f.sendSlotReport != nil {
		return f.sendSlotReport(ctx, report)
	}
	return nil
}

func (f *fakeResourceManager) NotifySlotAvailable(ctx context.Context, _ api.ResourceManagerID, _ api.InstanceID,
	slotID api.SlotID, allocationID api.AllocationID) error {
	record(f.slotsAvailable, allocationID)
	if f.notifySlotAvailable != nil {
		return f.notifySlotAvailable(ctx, slotID, allocationID)
	}
	return nil
}

func (f *fakeResourceManager) DisconnectTaskManager(ctx context.Context, _ api.ResourceManagerID, _ api.ResourceID, cause error) error {
	record(f.disconnects, cause)
	if f.disconnectTaskManager != nil {
		return f.disconnectTaskManager(ctx, cause)
	}
	return nil
}

func (f *fakeResourceManager) HeartbeatFromTaskManager(_ context.Context, resourceID api.ResourceID,
	_ gateway.TaskExecutorHeartbeatPayload) error {
	record(f.heartbeats, resourceID)
	return nil
}

// The JobMaster-facing methods are not used by a TaskExecutor.

func (f *fakeResourceManager) HeartbeatFromJobManager(context.Context, api.ResourceID) error {
	return errors.New("fakeResourceManager: HeartbeatFromJobManager not supported")
}

func (f *fakeResourceManager) RegisterJobMaster(context.Context, api.ResourceManagerID, api.JobMasterID,
	api.ResourceID, string, api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	return gateway.JobMasterRegistrationSuccess{}, errors.New("fakeResourceManager: RegisterJobMaster not supported")
}

func (f *fakeResourceManager) DeclareRequiredResources(context.Context, api.ResourceManagerID, api.JobMasterID,
	gateway.ResourceRequirements) error {
	return errors.New("fakeResourceManager: DeclareRequiredResources not supported")
}

func (f *fakeResourceManager) DisconnectJobManager(context.Context, api.ResourceManagerID, api.JobID, api.JobStatus, error) error {
	return nil
}

func (f *fakeResourceManager) RequestResourceOverview(context.Context) (gateway.ResourceOverview, error) {
	return gateway.ResourceOverview{}, errors.New("fakeResourceManager: RequestResourceOverview not supported")
}

func (f *fakeResourceManager) RequestTaskManagerInfo(context.Context) ([]gateway.TaskManagerInfo, error) {
	return nil, errors.New("fakeResourceManager: RequestTaskManagerInfo not supported")
}

// offerCall is one OfferSlots call as the fake JobMaster saw it.
type offerCall struct {
	jobMasterID api.JobMasterID
	taskManager api.ResourceID
	offers      []gateway.SlotOffer
}

// fakeJobMaster is a JobMasterGateway whose behaviour a test sets through
// function fields; unset ones succeed, and OfferSlots accepts every offer.
// RegisterTaskManager answers with the fake's own ResourceID, under which
// the TaskExecutor watches its heartbeat.
type fakeJobMaster struct {
	resourceID api.ResourceID

	registerTaskManager      func(ctx context.Context, jobID api.JobID, tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error)
	offerSlots               func(ctx context.Context, offers []gateway.SlotOffer) ([]gateway.SlotOffer, error)
	updateTaskExecutionState func(ctx context.Context, state gateway.TaskExecutionState) error
	disconnectTaskManager    func(ctx context.Context, cause error) error

	registrations chan gateway.TaskManagerLocation
	offers        chan offerCall
	states        chan gateway.TaskExecutionState
	disconnects   chan error
	heartbeats    chan api.ResourceID // HeartbeatFromTaskManager: the TaskExecutor's answers
}

var (
	_ gateway.JobMasterGateway          = (*fakeJobMaster)(nil)
	_ gateway.JobMasterHeartbeatGateway = (*fakeJobMaster)(nil)
)

func newFakeJobMaster() *fakeJobMaster {
	return &fakeJobMaster{
		resourceID:    api.NewResourceID("jobmanager"),
		registrations: make(chan gateway.TaskManagerLocation, 64),
		offers:        make(chan offerCall, 64),
		states:        make(chan gateway.TaskExecutionState, 64),
		disconnects:   make(chan error, 64),
		heartbeats:    make(chan api.ResourceID, 64),
	}
}

func (f *fakeJobMaster) RegisterTaskManager(ctx context.Context, _ api.JobMasterID, jobID api.JobID,
	tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	record(f.registrations, tm)
	if f.registerTaskManager != nil {
		return f.registerTaskManager(ctx, jobID, tm)
	}
	return gateway.JMTMRegistrationSuccess{JobManagerResourceID: f.resourceID}, nil
}

func (f *fakeJobMaster) OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
	offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	record(f.offers, offerCall{jobMasterID, taskManager, offers})
	if f.offerSlots != nil {
		return f.offerSlots(ctx, offers)
	}
	return offers, nil
}

func (f *fakeJobMaster) UpdateTaskExecutionState(ctx context.Context, _ api.JobMasterID, state gateway.TaskExecutionState) error {
	record(f.states, state)
	if f.updateTaskExecutionState != nil {
		return f.updateTaskExecutionState(ctx, state)
	}
	return nil
}

func (f *fakeJobMaster) NotifyNotEnoughResourcesAvailable(context.Context, api.JobMasterID, int) error {
	return nil
}

func (f *fakeJobMaster) DisconnectTaskManager(ctx context.Context, _ api.JobMasterID, _ api.ResourceID, cause error) error {
	record(f.disconnects, cause)
	if f.disconnectTaskManager != nil {
		return f.disconnectTaskManager(ctx, cause)
	}
	return nil
}

func (f *fakeJobMaster) RequestJobStatus(context.Context) (api.JobStatus, error) {
	return api.JobStatus(0), nil
}

func (f *fakeJobMaster) RequestJob(context.Context) (*gateway.ArchivedExecutionGraph, error) {
	return nil, errors.New("fakeJobMaster: RequestJob not supported")
}

func (f *fakeJobMaster) Cancel(context.Context) error { return nil }

func (f *fakeJobMaster) RequestJobResourceRequirements(context.Context) (jobgraph.JobResourceRequirements, error) {
	return nil, errors.New("fakeJobMaster: RequestJobResourceRequirements is not for a TaskExecutor")
}

func (f *fakeJobMaster) UpdateJobResourceRequirements(context.Context, jobgraph.JobResourceRequirements) error {
	return errors.New("fakeJobMaster: UpdateJobResourceRequirements is not for a TaskExecutor")
}

func (f *fakeJobMaster) HeartbeatFromTaskManager(_ context.Context, resourceID api.ResourceID,
	_ gateway.TaskExecutorToJobManagerHeartbeatPayload) error {
	record(f.heartbeats, resourceID)
	return nil
}

func (f *fakeJobMaster) HeartbeatFromResourceManager(context.Context, api.ResourceID) error {
	return errors.New("fakeJobMaster: HeartbeatFromResourceManager is not for a TaskExecutor")
}

// fakeContender wins an election and confirms its leadership at once with
// the address its fake gateway is registered under.
type fakeContender struct {
	election highavailability.LeaderElection
	address  string
	session  api.LeaderSessionID
}

func (c *fakeContender) GrantLeadership(session api.LeaderSessionID) {
	c.session = session
	c.election.ConfirmLeadership(session, c.address)
}

func (c *fakeContender) RevokeLeadership() {}

func (f *fakeJobMaster) AcknowledgeCheckpoint(context.Context, checkpoint.AcknowledgeCheckpoint) error {
	return errors.New("fakeJobMaster: AcknowledgeCheckpoint is not expected")
}

func (f *fakeJobMaster) DeclineCheckpoint(context.Context, checkpoint.DeclineCheckpoint) error {
	return errors.New("fakeJobMaster: DeclineCheckpoint is not expected")
}

func (f *fakeJobMaster) TriggerSavepoint(context.Context, string, bool) (string, error) {
	return "", errors.New("fakeJobMaster: TriggerSavepoint is not expected")
}

func (f *fakeJobMaster) StopWithSavepoint(context.Context, string, bool) (string, error) {
	return "", errors.New("fakeJobMaster: StopWithSavepoint is not expected")
}

func (f *fakeJobMaster) RequestCheckpointStats(context.Context) (*checkpoint.CheckpointStatsSnapshot, error) {
	return nil, errors.New("fakeJobMaster: RequestCheckpointStats is not expected")
}
