package jobmaster_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
)

// journal is the ordered record of every call the fakes received, each
// stamped with the (fake) time since the test started. One journal is shared
// by the fake ResourceManager and the fake TaskExecutors, so a test can tell
// which of two calls to different components arrived first.
type journal struct {
	start time.Time

	mu      sync.Mutex
	calls   []call
	changed chan struct{} // closed by the next add; made by await
}

// call is one call a fake received: when, which method, and its arguments.
type call struct {
	At     time.Duration
	Method string
	Arg    any
}

func newJournal() *journal { return &journal{start: time.Now()} }

func (j *journal) add(method string, arg any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls = append(j.calls, call{At: time.Since(j.start), Method: method, Arg: arg})
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
}

// all returns the calls so far, oldest first.
func (j *journal) all() []call {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]call(nil), j.calls...)
}

// of returns the calls of one method, oldest first.
func (j *journal) of(method string) []call {
	var out []call
	for _, c := range j.all() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// methods returns the method names in the order they were called.
func (j *journal) methods() []string {
	var out []string
	for _, c := range j.all() {
		out = append(out, c.Method)
	}
	return out
}

// await blocks until method has been called n times and returns those
// calls. Inside a synctest bubble, waiting lets fake time pass, so a call
// that comes after a 30 s pause arrives at once.
func (j *journal) await(method string, n int) []call {
	for {
		j.mu.Lock()
		var got []call
		for _, c := range j.calls {
			if c.Method == method {
				got = append(got, c)
			}
		}
		if len(got) >= n {
			j.mu.Unlock()
			return got[:n]
		}
		if j.changed == nil {
			j.changed = make(chan struct{})
		}
		changed := j.changed
		j.mu.Unlock()
		<-changed
	}
}

// jobMasterRegistration is the arguments of one RegisterJobMaster call.
type jobMasterRegistration struct {
	RMID                 api.ResourceManagerID
	JobMasterID          api.JobMasterID
	JobManagerResourceID api.ResourceID
	Address              string
	JobID                api.JobID
}

// requirementsDeclaration is the arguments of one DeclareRequiredResources call.
type requirementsDeclaration struct {
	RMID         api.ResourceManagerID
	JobMasterID  api.JobMasterID
	Requirements gateway.ResourceRequirements
}

// jobManagerDisconnect is the arguments of one DisconnectJobManager call.
type jobManagerDisconnect struct {
	RMID   api.ResourceManagerID
	JobID  api.JobID
	Status api.JobStatus
}

// fakeResourceManager is a ResourceManagerGateway whose JobMaster-facing
// methods record their calls in the journal and then call the function
// fields; unset fields succeed. The TaskExecutor-facing methods are not
// used by a JobMaster and fail.
type fakeResourceManager struct {
	journal *journal

	registerJobMaster        func(ctx context.Context, reg jobMasterRegistration) (gateway.JobMasterRegistrationSuccess, error)
	declareRequiredResources func(ctx context.Context, decl requirementsDeclaration) error
	disconnectJobManager     func(ctx context.Context, disconnect jobManagerDisconnect) error
	heartbeatFromJobManager  func(from api.ResourceID)
}

var _ gateway.ResourceManagerGateway = (*fakeResourceManager)(nil)

func (f *fakeResourceManager) RegisterJobMaster(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	reg := jobMasterRegistration{RMID: rmID, JobMasterID: jobMasterID, JobManagerResourceID: jobManagerResourceID, Address: jobMasterAddress, JobID: jobID}
	f.journal.add("RegisterJobMaster", reg)
	if f.registerJobMaster != nil {
		return f.registerJobMaster(ctx, reg)
	}
	return gateway.JobMasterRegistrationSuccess{ResourceManagerID: rmID, ResourceManagerResourceID: "resourcemanager-fake"}, nil
}

func (f *fakeResourceManager) DeclareRequiredResources(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	requirements gateway.ResourceRequirements) error {
	decl := requirementsDeclaration{RMID: rmID, JobMasterID: jobMasterID, Requirements: requirements}
	f.journal.add("DeclareRequiredResources", decl)
	if f.declareRequiredResources != nil {
		return f.declareRequiredResources(ctx, decl)
	}
	return nil
}

func (f *fakeResourceManager) DisconnectJobManager(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
	jobStatus api.JobStatus, _ error) error {
	disconnect := jobManagerDisconnect{RMID: rmID, JobID: jobID, Status: jobStatus}
	f.journal.add("DisconnectJobManager", disconnect)
	if f.disconnectJobManager != nil {
		return f.disconnectJobManager(ctx, disconnect)
	}
	return nil
}

func (f *fakeResourceManager) RegisterTaskExecutor(context.Context, api.ResourceManagerID,
	gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
	return gateway.TaskExecutorRegistrationSuccess{}, fmt.Errorf("fakeResourceManager: RegisterTaskExecutor not supported")
}

func (f *fakeResourceManager) SendSlotReport(context.Context, api.ResourceManagerID, api.ResourceID, api.InstanceID, gateway.SlotReport) error {
	return fmt.Errorf("fakeResourceManager: SendSlotReport not supported")
}

func (f *fakeResourceManager) NotifySlotAvailable(context.Context, api.ResourceManagerID, api.InstanceID, api.SlotID, api.AllocationID) error {
	return fmt.Errorf("fakeResourceManager: NotifySlotAvailable not supported")
}

func (f *fakeResourceManager) DisconnectTaskManager(context.Context, api.ResourceManagerID, api.ResourceID, error) error {
	return fmt.Errorf("fakeResourceManager: DisconnectTaskManager not supported")
}

func (f *fakeResourceManager) HeartbeatFromTaskManager(context.Context, api.ResourceID, gateway.TaskExecutorHeartbeatPayload) error {
	return fmt.Errorf("fakeResourceManager: HeartbeatFromTaskManager not supported")
}

func (f *fakeResourceManager) RequestResourceOverview(context.Context) (gateway.ResourceOverview, error) {
	return gateway.ResourceOverview{}, fmt.Errorf("fakeResourceManager: RequestResourceOverview not supported")
}

func (f *fakeResourceManager) RequestTaskManagerInfo(context.Context) ([]gateway.TaskManagerInfo, error) {
	return nil, fmt.Errorf("fakeResourceManager: RequestTaskManagerInfo not supported")
}

// HeartbeatFromJobManager is the JobMaster's answer to a heartbeat request
// of the test (harness.heartbeatFromResourceManager). It is not journaled:
// heartbeats come and go in every test, which checks them on their own.
func (f *fakeResourceManager) HeartbeatFromJobManager(_ context.Context, resourceID api.ResourceID) error {
	if f.heartbeatFromJobManager != nil {
		f.heartbeatFromJobManager(resourceID)
	}
	return nil
}

// taskSubmission is the arguments of one SubmitTask call.
type taskSubmission struct {
	TaskManager api.ResourceID
	TDD         gateway.TaskDeploymentDescriptor
	JobMasterID api.JobMasterID
}

// slotRelease is the arguments of one FreeSlot call.
type slotRelease struct {
	TaskManager  api.ResourceID
	AllocationID api.AllocationID
}

// taskCancellation is the arguments of one CancelTask call.
type taskCancellation struct {
	TaskManager api.ResourceID
	AttemptID   api.ExecutionAttemptID
}

// fakeTaskExecutor is a TaskExecutorGateway whose JobMaster-facing methods
// record their calls in the journal and then call the function fields;
// unset fields succeed.
type fakeTaskExecutor struct {
	journal  *journal
	location gateway.TaskManagerLocation

	submitTask           func(ctx context.Context, s taskSubmission) error
	cancelTask           func(ctx context.Context, c taskCancellation) error
	disconnectJobManager func(ctx context.Context, cause error) error
	// heartbeatFromJobManager handles the JobMaster's heartbeat requests;
	// nil leaves them unanswered. They are not journaled.
	heartbeatFromJobManager func(ctx context.Context, from api.ResourceID) error
}

var _ gateway.TaskExecutorGateway = (*fakeTaskExecutor)(nil)

func (f *fakeTaskExecutor) RequestSlot(context.Context, api.SlotID, api.JobID, api.AllocationID, api.ResourceProfile, string, api.ResourceManagerID) error {
	return fmt.Errorf("fakeTaskExecutor: RequestSlot not supported")
}

func (f *fakeTaskExecutor) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	s := taskSubmission{TaskManager: f.location.ResourceID, TDD: tdd, JobMasterID: jobMasterID}
	f.journal.add("SubmitTask", s)
	if f.submitTask != nil {
		return f.submitTask(ctx, s)
	}
	return nil
}

func (f *fakeTaskExecutor) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
	c := taskCancellation{TaskManager: f.location.ResourceID, AttemptID: attemptID}
	f.journal.add("CancelTask", c)
	if f.cancelTask != nil {
		return f.cancelTask(ctx, c)
	}
	return nil
}

func (f *fakeTaskExecutor) FreeSlot(ctx context.Context, allocationID api.AllocationID, _ api.JobMasterID, _ error) error {
	r := slotRelease{TaskManager: f.location.ResourceID, AllocationID: allocationID}
	f.journal.add("FreeSlot", r)
	return nil
}

// DisconnectJobManager is journaled with its cause, as
// "TaskExecutor.DisconnectJobManager" (the ResourceManager has a method of
// the same name).
func (f *fakeTaskExecutor) DisconnectJobManager(ctx context.Context, _ api.JobID, _ api.JobMasterID, cause error) error {
	f.journal.add("TaskExecutor.DisconnectJobManager", cause)
	if f.disconnectJobManager != nil {
		return f.disconnectJobManager(ctx, cause)
	}
	return nil
}

func (f *fakeTaskExecutor) ReleasePartitions(context.Context, api.JobID, []api.ResultPartitionID) error {
	return nil
}

func (f *fakeTaskExecutor) HeartbeatFromJobManager(ctx context.Context, from api.ResourceID, _ gateway.AllocatedSlotReport) error {
	if f.heartbeatFromJobManager != nil {
		return f.heartbeatFromJobManager(ctx, from)
	}
	return nil
}

func (f *fakeTaskExecutor) HeartbeatFromResourceManager(context.Context, api.ResourceID) error {
	return fmt.Errorf("fakeTaskExecutor: HeartbeatFromResourceManager not supported")
}

// gate holds back the calls of a fake until the test lets them through,
// one per release. A held call gives up when its ctx ends.
type gate chan struct{}

func (g gate) wait(ctx context.Context) error {
	select {
	case <-g:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release lets one held call through; it blocks until a call is waiting.
func (g gate) release() { g <- struct{}{} }

// leaderContender is the fake ResourceManager's side of the embedded
// leader election: it confirms every grant at the fake's address, so the
// JobMaster's ResourceManager leader retrieval finds the fake.
type leaderContender struct {
	election highavailability.LeaderElection
	address  string
	granted  chan api.LeaderSessionID
}

var _ highavailability.LeaderContender = (*leaderContender)(nil)

func (c *leaderContender) GrantLeadership(session api.LeaderSessionID) {
	c.granted <- session
	c.election.ConfirmLeadership(session, c.address)
}

func (c *leaderContender) RevokeLeadership() {}

func (f *fakeTaskExecutor) TriggerCheckpoint(context.Context, api.ExecutionAttemptID, int64, int64, checkpoint.CheckpointOptions) error {
	return nil
}

func (f *fakeTaskExecutor) ConfirmCheckpoint(context.Context, api.ExecutionAttemptID, int64, int64) error {
	return nil
}

func (f *fakeTaskExecutor) AbortCheckpoint(context.Context, api.ExecutionAttemptID, int64, int64, int64) error {
	return nil
}
