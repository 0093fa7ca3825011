package scenario

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/network"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// Invokable classes that every test binary importing scenario knows, for
// the tasks a scenario deploys.
const (
	// FinishingTask restores and returns at once: its task goes through
	// INITIALIZING and RUNNING to FINISHED.
	FinishingTask = "org.flinklab.exercises.FinishingTask"
	// BlockingTask runs until it is cancelled (or failed from outside).
	BlockingTask = "org.flinklab.exercises.BlockingTask"
)

func init() {
	taskmanager.RegisterInvokable(FinishingTask, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return scenarioInvokable{}, nil
	})
	taskmanager.RegisterInvokable(BlockingTask, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return scenarioInvokable{block: true}, nil
	})
}

type scenarioInvokable struct{ block bool }

func (i scenarioInvokable) Restore(context.Context) error { return nil }

func (i scenarioInvokable) Invoke(ctx context.Context) error {
	if i.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// TaskManager is one real TaskExecutor with fakes around it: a fake
// ResourceManager that leads and accepts its registration, fake JobMasters
// (StartJobMaster), and a BlobServer its BlobCache downloads the jobs' jars
// from. A test plays the SlotManager (RequestSlot, step m7) and the
// JobMaster (SubmitTask, step m9) itself.
type TaskManager struct {
	// TaskExecutor is the TaskExecutor under test.
	TaskExecutor *taskexecutor.TaskExecutor
	// BlobServer holds the jars of the jobs.
	BlobServer *blob.BlobServer
	// Trace records what the TaskExecutor and its tasks emit.
	Trace *trace.Recorder
	// Logs holds the TaskManager's log lines, DEBUG included.
	Logs *Logs

	t    *testing.T
	rpc  *rpc.LocalService
	ha   *highavailability.EmbeddedHaServices
	rmID api.ResourceManagerID
}

// StartTaskExecutor starts a TaskExecutor with cfg inside the test's
// synctest bubble (call it from synctest.Test), with the fake
// ResourceManager as leader, and waits until it has registered there. The
// zero cfg gives the TaskExecutor "tm-1" with two slots and Flink's
// timeouts; cfg's Logger is replaced by one writing to Logs. Everything is
// closed when the test ends, after the trace is written to the test's log
// (see LogTrace).
func StartTaskExecutor(t *testing.T, cfg taskexecutor.Config) *TaskManager {
	t.Helper()
	tm := &TaskManager{
		Trace: trace.NewRecorder(),
		Logs:  &Logs{},
		t:     t,
		rpc:   rpc.NewLocalService(),
		ha:    highavailability.NewEmbeddedHaServices(),
	}
	rm := &gatewaytest.ResourceManagerGateway{
		RegisterTaskExecutorFunc: func(context.Context, api.ResourceManagerID, gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
			return gateway.TaskExecutorRegistrationSuccess{RegistrationID: api.NewInstanceID(), ResourceManagerResourceID: "resourcemanager"}, nil
		},
	}
	session, _ := tm.lead(tm.ha.ResourceManagerLeaderElection(), "resourcemanager_0", rm)
	tm.rmID = api.ResourceManagerID(session)

	var err error
	tm.BlobServer, err = blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: discardLogger()})
	require.NoError(t, err)
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{StorageDir: t.TempDir(), Source: tm.BlobServer, Logger: discardLogger()})
	require.NoError(t, err)
	shuffle, err := network.NewShuffleEnvironment(network.Config{})
	require.NoError(t, err)

	if cfg.ResourceID == "" {
		cfg.ResourceID = "tm-1"
	}
	if cfg.NumberOfSlots == 0 {
		cfg.NumberOfSlots = 2
	}
	cfg.Logger = slog.New(slog.NewTextHandler(tm.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tm.TaskExecutor, err = taskexecutor.New(cfg, taskexecutor.Deps{
		RPC: tm.rpc, HA: tm.ha, BlobCache: cache, Shuffle: shuffle, Trace: tm.Trace,
	})
	require.NoError(t, err)
	require.NoError(t, tm.TaskExecutor.Start())
	t.Cleanup(func() {
		LogTrace(t, tm.Trace.Events())
		require.NoError(t, tm.TaskExecutor.Close())
		_ = cache.Close()
		_ = tm.BlobServer.Close()
		shuffle.Close()
	})
	synctest.Wait() // registered at the ResourceManager
	return tm
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// lead registers a fake gateway under name and makes it the leader of an
// election; it returns the leader session, from which the fencing token
// follows, and the election.
func (tm *TaskManager) lead(election highavailability.LeaderElection, name string, fake any) (api.LeaderSessionID, highavailability.LeaderElection) {
	address := tm.rpc.Address(name)
	require.NoError(tm.t, tm.rpc.Register(address, fake))
	contender := &grantingContender{election: election, address: address}
	require.NoError(tm.t, election.StartLeaderElection(contender))
	return contender.session, election
}

// grantingContender wins an election and confirms its leadership at once.
type grantingContender struct {
	election highavailability.LeaderElection
	address  string
	session  api.LeaderSessionID
}

func (c *grantingContender) GrantLeadership(session api.LeaderSessionID) {
	c.session = session
	c.election.ConfirmLeadership(session, c.address)
}

func (c *grantingContender) RevokeLeadership() {}

// JobLeader is a fake JobMaster leading one job: the leader the
// TaskExecutor's JobLeaderService finds for it. It accepts the
// TaskExecutor's registration and every slot offer (unless the test set
// OfferSlotsFunc) and keeps the task states reported to it.
type JobLeader struct {
	*gatewaytest.JobMasterGateway
	JobID       api.JobID
	JobMasterID api.JobMasterID

	t        *testing.T
	election highavailability.LeaderElection

	mu      sync.Mutex
	reports []gateway.TaskExecutionState
}

// StartJobMaster makes a fake JobMaster the leader of job. configure, if
// not nil, sets the fake's function fields before anything can call it
// (UpdateTaskExecutionStateFunc is the JobMaster's own and is replaced).
func (tm *TaskManager) StartJobMaster(jobID api.JobID, configure func(jm *gatewaytest.JobMasterGateway)) *JobLeader {
	tm.t.Helper()
	jm := &JobLeader{JobMasterGateway: &gatewaytest.JobMasterGateway{}, JobID: jobID, t: tm.t}
	jobManagerResourceID := api.NewResourceID("jobmanager")
	jm.RegisterTaskManagerFunc = func(context.Context, api.JobMasterID, api.JobID, gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
		return gateway.JMTMRegistrationSuccess{JobManagerResourceID: jobManagerResourceID}, nil
	}
	if configure != nil {
		configure(jm.JobMasterGateway)
	}
	jm.UpdateTaskExecutionStateFunc = func(_ context.Context, _ api.JobMasterID, state gateway.TaskExecutionState) error {
		jm.mu.Lock()
		defer jm.mu.Unlock()
		jm.reports = append(jm.reports, state)
		return nil
	}
	session, election := tm.lead(tm.ha.JobManagerLeaderElection(jobID), "jobmanager_"+jobID.String(), jm.JobMasterGateway)
	jm.JobMasterID, jm.election = api.JobMasterID(session), election
	return jm
}

// LoseLeadership ends the JobMaster's leadership of its job, as when its
// JobManager fails over, and waits until the TaskExecutor has heard: it
// closes its connection to the job's JobMaster (the job's slots stay
// allocated to it, for the next leader) and waits for a new one. The fake
// itself goes on answering, as a JobMaster that does not know yet.
func (jm *JobLeader) LoseLeadership() {
	jm.t.Helper()
	require.NoError(jm.t, jm.election.Close())
	synctest.Wait()
}

// Reports returns the task states the JobMaster received, in order.
func (jm *JobLeader) Reports() []gateway.TaskExecutionState {
	jm.mu.Lock()
	defer jm.mu.Unlock()
	return append([]gateway.TaskExecutionState(nil), jm.reports...)
}

// States returns the states of Reports.
func (jm *JobLeader) States() []api.ExecutionState {
	var states []api.ExecutionState
	for _, r := range jm.Reports() {
		states = append(states, r.State)
	}
	return states
}

// RequestSlot is the SlotManager's step m7: it asks the TaskExecutor for
// its slot at index on behalf of job, under a new AllocationID.
func (tm *TaskManager) RequestSlot(index int, jobID api.JobID) (api.AllocationID, error) {
	allocationID := api.NewAllocationID()
	err := tm.TaskExecutor.RequestSlot(context.Background(),
		api.SlotID{ResourceID: tm.TaskExecutor.ResourceID(), SlotNumber: index},
		jobID, allocationID, api.UnknownResourceProfile, "", tm.rmID)
	return allocationID, err
}

// JobWithActiveSlot starts a fake JobMaster for a new job and runs steps
// m7 and m8 for the slot at index: the slot is requested, offered to the
// JobMaster and accepted, so it is ACTIVE for the job.
func (tm *TaskManager) JobWithActiveSlot(index int) (*JobLeader, api.AllocationID) {
	tm.t.Helper()
	jm := tm.StartJobMaster(api.NewJobID(), nil)
	allocationID, err := tm.RequestSlot(index, jm.JobID)
	require.NoError(tm.t, err)
	synctest.Wait()
	require.Equal(tm.t, taskexecutor.SlotActive, tm.SlotState(index), "the JobMaster accepted the slot")
	return jm, allocationID
}

// TDD describes subtask 1 of 1 of a vertex "Source" of job whose invokable
// is className, deployed into allocationID, with a jar the BlobServer
// holds.
func (tm *TaskManager) TDD(jobID api.JobID, allocationID api.AllocationID, className string) gateway.TaskDeploymentDescriptor {
	tm.t.Helper()
	jarKey, err := tm.BlobServer.PutPermanentBytes(jobID, []byte("PK\x03\x04 "+className+".jar"))
	require.NoError(tm.t, err)
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID()},
	}
	return gateway.TaskDeploymentDescriptor{
		JobID:              jobID,
		JobName:            "scenario",
		ExecutionAttemptID: attempt,
		AllocationID:       allocationID,
		TaskInfo: gateway.TaskInformation{
			JobVertexID: attempt.ExecutionVertexID.JobVertexID, TaskName: "Source", NumberOfSubtasks: 1,
			InvokableClassName: className,
		},
		UserJarBlobKeys: []blob.PermanentBlobKey{jarKey},
	}
}

// SlotState returns the state of the slot at index, which must be
// allocated.
func (tm *TaskManager) SlotState(index int) taskexecutor.TaskSlotState {
	tm.t.Helper()
	slots, err := tm.TaskExecutor.Slots(context.Background())
	require.NoError(tm.t, err)
	for _, slot := range slots {
		if slot.Index == index {
			return slot.State
		}
	}
	tm.t.Fatalf("slot %d is free: it has no state", index)
	return 0
}

// Tasks returns the state of every task the TaskExecutor holds.
func (tm *TaskManager) Tasks() map[api.ExecutionAttemptID]api.ExecutionState {
	tm.t.Helper()
	tasks, err := tm.TaskExecutor.Tasks(context.Background())
	require.NoError(tm.t, err)
	return tasks
}
