package resourcemanager

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// FakeTaskExecutorGateway is a TaskExecutorGateway whose methods call the
// function fields when they are set and succeed otherwise.
type FakeTaskExecutorGateway struct {
	RequestSlotFunc func(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
		profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error
	SubmitTaskFunc           func(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error
	CancelTaskFunc           func(ctx context.Context, attemptID api.ExecutionAttemptID) error
	FreeSlotFunc             func(ctx context.Context, allocationID api.AllocationID, cause error) error
	DisconnectJobManagerFunc func(ctx context.Context, jobID api.JobID, cause error) error
}

var _ gateway.TaskExecutorGateway = (*FakeTaskExecutorGateway)(nil)

// RequestSlot calls RequestSlotFunc, or accepts the request.
func (f *FakeTaskExecutorGateway) RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	if f.RequestSlotFunc != nil {
		return f.RequestSlotFunc(ctx, slotID, jobID, allocationID, profile, jobMasterAddress, rmID)
	}
	return nil
}

// SubmitTask calls SubmitTaskFunc, or accepts the task.
func (f *FakeTaskExecutorGateway) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	if f.SubmitTaskFunc != nil {
		return f.SubmitTaskFunc(ctx, tdd, jobMasterID)
	}
	return nil
}

// CancelTask calls CancelTaskFunc, or succeeds.
func (f *FakeTaskExecutorGateway) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
	if f.CancelTaskFunc != nil {
		return f.CancelTaskFunc(ctx, attemptID)
	}
	return nil
}

// FreeSlot calls FreeSlotFunc, or succeeds.
func (f *FakeTaskExecutorGateway) FreeSlot(ctx context.Context, allocationID api.AllocationID, cause error) error {
	if f.FreeSlotFunc != nil {
		return f.FreeSlotFunc(ctx, allocationID, cause)
	}
	return nil
}

// DisconnectJobManager calls DisconnectJobManagerFunc, or succeeds.
func (f *FakeTaskExecutorGateway) DisconnectJobManager(ctx context.Context, jobID api.JobID, cause error) error {
	if f.DisconnectJobManagerFunc != nil {
		return f.DisconnectJobManagerFunc(ctx, jobID, cause)
	}
	return nil
}

// FakeJobMasterGateway is a JobMasterGateway whose methods call the
// function fields when they are set and otherwise succeed with zero values
// (RequestJobStatus answers RUNNING).
type FakeJobMasterGateway struct {
	RegisterTaskManagerFunc func(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
		tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error)
	OfferSlotsFunc func(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
		offers []gateway.SlotOffer) ([]gateway.SlotOffer, error)
	UpdateTaskExecutionStateFunc func(ctx context.Context, jobMasterID api.JobMasterID, state gateway.TaskExecutionState) error
	DisconnectTaskManagerFunc    func(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID, cause error) error
	RequestJobStatusFunc         func(ctx context.Context) (api.JobStatus, error)
	RequestJobFunc               func(ctx context.Context) (*gateway.ArchivedExecutionGraph, error)
	CancelFunc                   func(ctx context.Context) error
}

var _ gateway.JobMasterGateway = (*FakeJobMasterGateway)(nil)

// RegisterTaskManager calls RegisterTaskManagerFunc, or accepts.
func (f *FakeJobMasterGateway) RegisterTaskManager(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID,
	tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
	if f.RegisterTaskManagerFunc != nil {
		return f.RegisterTaskManagerFunc(ctx, jobMasterID, jobID, tm)
	}
	return gateway.JMTMRegistrationSuccess{}, nil
}

// OfferSlots calls OfferSlotsFunc, or accepts every offer.
func (f *FakeJobMasterGateway) OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID,
	offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	if f.OfferSlotsFunc != nil {
		return f.OfferSlotsFunc(ctx, jobMasterID, taskManager, offers)
	}
	return offers, nil
}

// UpdateTaskExecutionState calls UpdateTaskExecutionStateFunc, or succeeds.
func (f *FakeJobMasterGateway) UpdateTaskExecutionState(ctx context.Context, jobMasterID api.JobMasterID,
	state gateway.TaskExecutionState) error {
	if f.UpdateTaskExecutionStateFunc != nil {
		return f.UpdateTaskExecutionStateFunc(ctx, jobMasterID, state)
	}
	return nil
}

// DisconnectTaskManager calls DisconnectTaskManagerFunc, or succeeds.
func (f *FakeJobMasterGateway) DisconnectTaskManager(ctx context.Context, jobMasterID api.JobMasterID,
	taskManager api.ResourceID, cause error) error {
	if f.DisconnectTaskManagerFunc != nil {
		return f.DisconnectTaskManagerFunc(ctx, jobMasterID, taskManager, cause)
	}
	return nil
}

// RequestJobStatus calls RequestJobStatusFunc, or answers RUNNING.
func (f *FakeJobMasterGateway) RequestJobStatus(ctx context.Context) (api.JobStatus, error) {
	if f.RequestJobStatusFunc != nil {
		return f.RequestJobStatusFunc(ctx)
	}
	return api.JobRunning, nil
}

// RequestJob calls RequestJobFunc, or answers an empty graph.
func (f *FakeJobMasterGateway) RequestJob(ctx context.Context) (*gateway.ArchivedExecutionGraph, error) {
	if f.RequestJobFunc != nil {
		return f.RequestJobFunc(ctx)
	}
	return &gateway.ArchivedExecutionGraph{}, nil
}

// Cancel calls CancelFunc, or succeeds.
func (f *FakeJobMasterGateway) Cancel(ctx context.Context) error {
	if f.CancelFunc != nil {
		return f.CancelFunc(ctx)
	}
	return nil
}

// logBuffer collects JSON log lines from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// logRecord is the part of a JSON log line the tests look at.
type logRecord struct {
	Level  string `json:"level"`
	Msg    string `json:"msg"`
	Logger string `json:"logger"`
}

func (b *logBuffer) records() []logRecord {
	b.mu.Lock()
	data := append([]byte(nil), b.buf.Bytes()...)
	b.mu.Unlock()
	var out []logRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// messages returns the messages that start with prefix.
func (b *logBuffer) messages(prefix string) []string {
	var out []string
	for _, r := range b.records() {
		if strings.HasPrefix(r.Msg, prefix) {
			out = append(out, r.Msg)
		}
	}
	return out
}
