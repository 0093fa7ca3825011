package resourcemanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// cluster is a ResourceManager with an in-process RPC service and embedded
// leader election, as in the MiniCluster, plus fake JobMasters and
// TaskExecutors registered in the same service.
type cluster struct {
	t     *testing.T
	ctx   context.Context
	svc   rpc.Service
	ha    *highavailability.EmbeddedHaServices
	rm    *ResourceManager
	rmID  api.ResourceManagerID
	trace *trace.Recorder
	logs  *logbuf.Buffer

	requests slotRequests
}

// startCluster starts a ResourceManager and waits, as a JobMaster or
// TaskExecutor would, until leader retrieval names it the leader.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	return startClusterWith(t, Config{})
}

// startClusterWith is startCluster with more of the ResourceManager's
// Config; it sets the ResourceID and the logger.
func startClusterWith(t *testing.T, cfg Config) *cluster {
	t.Helper()
	return startClusterOn(t, cfg, rpc.NewLocalService())
}

// startClusterOn is startClusterWith on another RPC service.
func startClusterOn(t *testing.T, cfg Config, svc rpc.Service) *cluster {
	t.Helper()
	logs := &logbuf.Buffer{}
	c := &cluster{
		t:     t,
		ctx:   context.Background(),
		svc:   svc,
		ha:    highavailability.NewEmbeddedHaServices(),
		trace: trace.NewRecorder(),
		logs:  logs,
	}
	cfg.ResourceID = "resourcemanager-test"
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rm, err := New(cfg, Deps{RPC: c.svc, HA: c.ha, Trace: c.trace})
	require.NoError(t, err)
	c.rm = rm

	leader := make(chan leaderInfo, 8)
	retrieval := c.ha.ResourceManagerLeaderRetriever()
	require.NoError(t, retrieval.Start(leaderListener(leader)))
	defer func() { require.NoError(t, retrieval.Stop()) }()

	require.NoError(t, rm.Start())
	info := <-leader
	assert.Equal(t, "pekko://flink/user/rpc/resourcemanager_0", info.address)
	assert.Equal(t, rm.Address(), info.address)
	c.rmID = api.ResourceManagerID(info.sessionID)
	return c
}

type leaderInfo struct {
	address   string
	sessionID api.LeaderSessionID
}

// leaderListener passes leader changes into a channel; it never blocks.
type leaderListener chan leaderInfo

func (l leaderListener) NotifyLeaderAddress(address string, sessionID api.LeaderSessionID) {
	if address == "" {
		return // the leader left
	}
	select {
	case l <- leaderInfo{address, sessionID}:
	default:
	}
}

// addTaskExecutor registers a fake TaskExecutor with n free slots and sends
// its first slot report. It returns the registration's InstanceID. The
// fake does not answer heartbeat requests; see addLiveTaskExecutor.
func (c *cluster) addTaskExecutor(name string, n int) api.InstanceID {
	c.t.Helper()
	return c.registerTaskExecutor(name, n, c.requests.gateway())
}

// registerTaskExecutor makes te reachable under name, registers it with n
// free slots and sends its first slot report.
func (c *cluster) registerTaskExecutor(name string, n int, te gateway.TaskExecutorGateway) api.InstanceID {
	c.t.Helper()
	address := c.svc.Address("taskmanager_" + name)
	require.NoError(c.t, c.svc.Register(address, te))
	success, err := c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
		ResourceID: api.ResourceID(name), TaskExecutorAddress: address, NumberOfSlots: n,
		TotalResourceProfile: defaultTaskManagerResources(n),
	})
	require.NoError(c.t, err)
	assert.Equal(c.t, api.ResourceID("resourcemanager-test"), success.ResourceManagerResourceID)
	require.NoError(c.t, c.rm.SendSlotReport(c.ctx, c.rmID, api.ResourceID(name), success.RegistrationID, freeSlots(name, n)))
	return success.RegistrationID
}

// defaultTaskManagerResources is what a default TaskManager
// (taskmanager.memory.process.size: 1728m) with n slots offers them: one
// core per slot, and Flink's task heap, managed and network memory for
// 1728m, to the byte.
func defaultTaskManagerResources(n int) api.ResourceProfile {
	return api.ResourceProfile{
		CPUCores:       float64(n),
		TaskHeapMemory: 402653174,
		ManagedMemory:  536870920,
		NetworkMemory:  134217730,
	}
}

func freeSlots(name string, n int) gateway.SlotReport {
	var report gateway.SlotReport
	for i := range n {
		report = append(report, gateway.SlotStatus{SlotID: api.SlotID{ResourceID: api.ResourceID(name), SlotNumber: i}})
	}
	return report
}

// jobMaster is a fake JobMaster registered in the RPC service.
type jobMaster struct {
	jobID   api.JobID
	id      api.JobMasterID
	address string
}

func (c *cluster) newJobMaster(name string) jobMaster {
	c.t.Helper()
	jm := jobMaster{jobID: api.NewJobID(), id: api.NewJobMasterID(), address: c.svc.Address(name)}
	require.NoError(c.t, c.svc.Register(jm.address, &gatewaytest.JobMasterGateway{}))
	return jm
}

func (c *cluster) registerJobMaster(jm jobMaster) error {
	success, err := c.rm.RegisterJobMaster(c.ctx, c.rmID, jm.id, "jobmanager-test", jm.address, jm.jobID)
	if err == nil {
		assert.Equal(c.t, c.rmID, success.ResourceManagerID)
		assert.Equal(c.t, api.ResourceID("resourcemanager-test"), success.ResourceManagerResourceID)
	}
	return err
}

func (c *cluster) declare(jm jobMaster, slots int) error {
	return c.rm.DeclareRequiredResources(c.ctx, c.rmID, jm.id, requirements(jm, slots))
}

func requirements(jm jobMaster, slots int) gateway.ResourceRequirements {
	r := gateway.ResourceRequirements{JobID: jm.jobID, TargetAddress: jm.address}
	if slots > 0 {
		r.Requirements = []gateway.ResourceRequirement{{NumberOfRequiredSlots: slots}}
	}
	return r
}

func (c *cluster) overview() gateway.ResourceOverview {
	c.t.Helper()
	o, err := c.rm.RequestResourceOverview(c.ctx)
	require.NoError(c.t, err)
	return o
}

// slotRequests records what the fake TaskExecutors are asked for.
type slotRequests struct {
	mu   sync.Mutex
	list []slotRequest
}

type slotRequest struct {
	SlotID           api.SlotID
	JobID            api.JobID
	AllocationID     api.AllocationID
	JobMasterAddress string
	RMID             api.ResourceManagerID
}

func (r *slotRequests) gateway() *gatewaytest.TaskExecutorGateway {
	return &gatewaytest.TaskExecutorGateway{
		RequestSlotFunc: func(_ context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
			_ api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.list = append(r.list, slotRequest{slotID, jobID, allocationID, jobMasterAddress, rmID})
			return nil
		},
	}
}

func (r *slotRequests) all() []slotRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slotRequest(nil), r.list...)
}

// advance lets d of fake time pass inside the synctest bubble (at once in
// real time) and waits until the bubble is idle again.
func advance(d time.Duration) {
	<-time.After(d)
	synctest.Wait()
}

func TestSubmissionReachesATaskExecutor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()

		// A TaskExecutor with two slots registers and reports them.
		instanceID := c.addTaskExecutor("tm-1", 2)
		assert.Equal(t, gateway.ResourceOverview{NumberTaskManagers: 1, NumberRegisteredSlots: 2, NumberFreeSlots: 2}, c.overview())

		// m5: a job's JobMaster registers.
		jm := c.newJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(jm))

		// m6: it declares that it needs one slot.
		require.NoError(t, c.declare(jm, 1))
		assert.Empty(t, c.requests.all(), "the SlotManager waits for its check delay")

		// m7: after slotmanager.requirement-check.delay the TaskExecutor is
		// asked for a slot for the job, to be offered to the JobMaster.
		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 1)
		assert.Equal(t, api.DynamicSlotID("tm-1"), requests[0].SlotID, "a new slot, cut out of its resources")
		assert.Equal(t, jm.jobID, requests[0].JobID)
		assert.Equal(t, jm.address, requests[0].JobMasterAddress)
		assert.Equal(t, c.rmID, requests[0].RMID)
		free, err := c.rm.NumberOfFreeSlots(c.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, free)

		assert.Equal(t, []trace.Step{trace.M5, trace.M6, trace.M7}, trace.Steps(c.trace.JobEvents(jm.jobID)))
		for _, e := range c.trace.JobEvents(jm.jobID) {
			t.Log(e)
		}

		// The slot being allocated takes half of the TaskManager's
		// resources, each halved in whole bytes (SlotManagerUtils#
		// generateDefaultSlotResourceProfile); the rest is free.
		infos, err := c.rm.RequestTaskManagerInfo(c.ctx)
		require.NoError(t, err)
		half := api.ResourceProfile{CPUCores: 1, TaskHeapMemory: 201326587, ManagedMemory: 268435460, NetworkMemory: 67108865}
		assert.Equal(t, []gateway.TaskManagerInfo{{ResourceID: "tm-1", Address: c.svc.Address("taskmanager_tm-1"),
			InstanceID: instanceID, NumberSlots: 2, NumberFreeSlots: 1,
			TotalResource: defaultTaskManagerResources(2), FreeResource: half,
			AllocatedSlots: []gateway.SlotInfo{{JobID: jm.jobID, ResourceProfile: half}}}}, infos)

		// The log reads like a Flink JobManager log, line by line.
		want := []struct{ logger, msg string }{
			{"StandaloneResourceManager", "Starting the resource manager."},
			{"FineGrainedSlotManager", "Starting the slot manager."},
			{"StandaloneResourceManager", "Registering TaskManager with ResourceID tm-1 (pekko://flink/user/rpc/taskmanager_tm-1) at ResourceManager"},
			{"FineGrainedSlotManager", fmt.Sprintf("Registering task executor tm-1 under %s at the slot manager.", instanceID)},
			{"StandaloneResourceManager", fmt.Sprintf("Registering job manager %s@%s for job %s.", jm.id, jm.address, jm.jobID)},
			{"StandaloneResourceManager", fmt.Sprintf("Registered job manager %s@%s for job %s.", jm.id, jm.address, jm.jobID)},
			{"FineGrainedSlotManager", fmt.Sprintf("Received resource requirements from job %s: "+
				"[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]", jm.jobID)},
			{"FineGrainedSlotManager", "Matching resource requirements against available resources.\nMissing resources:"},
			{"DefaultSlotStatusSyncer", fmt.Sprintf("Starting allocation of slot %s from tm-1 for job %s with resource profile %s.",
				requests[0].AllocationID, jm.jobID, half)},
		}
		var got []string
		for _, r := range c.logs.Records() {
			if r.Level != "DEBUG" {
				got = append(got, r.Logger+": "+r.Msg)
			}
		}
		i := 0
		for _, line := range got {
			if i < len(want) && strings.HasPrefix(line, want[i].logger+": "+want[i].msg) {
				i++
			}
		}
		assert.Equal(t, len(want), i, "missing or out of order: %q\nlog:\n%s", want[min(i, len(want)-1)], strings.Join(got, "\n"))
	})
}

func TestStaleFencingTokenIsRejectedBeforeAnythingHappens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		jm := c.newJobMaster("jobmanager_1")
		te := c.svc.Address("taskmanager_tm-1")
		require.NoError(t, c.svc.Register(te, c.requests.gateway()))
		stale := api.NewResourceManagerID()

		calls := map[string]func(api.ResourceManagerID) error{
			"RegisterJobMaster": func(id api.ResourceManagerID) error {
				_, err := c.rm.RegisterJobMaster(c.ctx, id, jm.id, "jm", jm.address, jm.jobID)
				return err
			},
			"DeclareRequiredResources": func(id api.ResourceManagerID) error {
				return c.rm.DeclareRequiredResources(c.ctx, id, jm.id, requirements(jm, 1))
			},
			"DisconnectJobManager": func(id api.ResourceManagerID) error {
				return c.rm.DisconnectJobManager(c.ctx, id, jm.jobID, api.JobFinished, nil)
			},
			"RegisterTaskExecutor": func(id api.ResourceManagerID) error {
				_, err := c.rm.RegisterTaskExecutor(c.ctx, id, gateway.TaskExecutorRegistration{ResourceID: "tm-1", TaskExecutorAddress: te,
					NumberOfSlots: 1, TotalResourceProfile: defaultTaskManagerResources(1)})
				return err
			},
			"SendSlotReport": func(id api.ResourceManagerID) error {
				return c.rm.SendSlotReport(c.ctx, id, "tm-1", api.NewInstanceID(), freeSlots("tm-1", 1))
			},
			"NotifySlotAvailable": func(id api.ResourceManagerID) error {
				return c.rm.NotifySlotAvailable(c.ctx, id, api.NewInstanceID(), api.SlotID{ResourceID: "tm-1"}, api.NewAllocationID())
			},
			"DisconnectTaskManager": func(id api.ResourceManagerID) error {
				return c.rm.DisconnectTaskManager(c.ctx, id, "tm-1", nil)
			},
		}
		for name, call := range calls {
			err := call(stale)
			assert.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, name)
			assert.ErrorContains(t, err, "did not match the expected fencing token", name)
			assert.ErrorIs(t, call(api.ResourceManagerID{}), rpc.ErrFencingTokenMismatch, "%s with no token", name)
		}

		advance(time.Minute)
		assert.Equal(t, gateway.ResourceOverview{}, c.overview(), "no TaskExecutor was registered")
		assert.Empty(t, c.trace.Events(), "no step happened")
		assert.Empty(t, c.logs.Messages("Registering"))
		assert.Empty(t, c.requests.all())
		assert.ErrorIs(t, c.declare(jm, 1), gateway.ErrUnknownJobManager, "no JobMaster was registered")
	})
}

func TestDeclaringRequiresTheRegisteredJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		jm := c.newJobMaster("jobmanager_1")

		err := c.declare(jm, 1)
		assert.ErrorIs(t, err, gateway.ErrUnknownJobManager)
		assert.ErrorContains(t, err, fmt.Sprintf("Could not find registered job manager for job %s.", jm.jobID))

		require.NoError(t, c.registerJobMaster(jm))
		impostor := api.NewJobMasterID()
		err = c.rm.DeclareRequiredResources(c.ctx, c.rmID, impostor, requirements(jm, 1))
		assert.ErrorIs(t, err, gateway.ErrJobLeaderIDMismatch)
		assert.ErrorContains(t, err, fmt.Sprintf("The job leader's id %s does not match the received id %s.", jm.id, impostor))

		assert.Equal(t, []trace.Step{trace.M5}, trace.Steps(c.trace.JobEvents(jm.jobID)), "rejected declarations are not step m6")
	})
}

func TestRegisterJobMasterAtAnUnknownAddressFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		jm := jobMaster{jobID: api.NewJobID(), id: api.NewJobMasterID(), address: c.svc.Address("nobody")}

		err := c.registerJobMaster(jm)
		assert.ErrorIs(t, err, gateway.ErrRegistrationFailure)
		assert.ErrorContains(t, err, "Could not connect to rpc endpoint under address "+jm.address)
		assert.Equal(t, []string{fmt.Sprintf("Registration of job manager %s@%s failed.", jm.id, jm.address)},
			c.logs.Messages("Registration of job manager"))
		assert.Empty(t, c.trace.Events())
	})
}

func TestANewJobMasterReplacesTheOldOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		c.addTaskExecutor("tm-1", 2)
		old := c.newJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(old))
		require.NoError(t, c.declare(old, 1))
		require.NoError(t, c.registerJobMaster(old), "registering again is harmless")

		// The job's JobMaster fails over: a new leader registers for the same job.
		next := c.newJobMaster("jobmanager_2")
		next.jobID = old.jobID
		require.NoError(t, c.registerJobMaster(next))

		assert.ErrorIs(t, c.declare(old, 2), gateway.ErrJobLeaderIDMismatch, "the old leader is fenced off")
		require.NoError(t, c.declare(next, 2))
		assert.Equal(t, []string{fmt.Sprintf("Disconnect job manager %s@%s for job %s from the resource manager.",
			old.id, old.address, old.jobID)}, c.logs.Messages("Disconnect job manager"))

		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 2, "one check serves the latest declaration")
		for _, r := range requests {
			assert.Equal(t, next.address, r.JobMasterAddress, "slots go to the new JobMaster")
		}
	})
}

func TestDisconnectJobManager(t *testing.T) {
	tests := []struct {
		status            api.JobStatus
		wantRequirements  bool
		wantRequestsAfter int
	}{
		{api.JobFinished, false, 0},  // the job is done: its requirements are cleared
		{api.JobSuspended, true, 1},  // the job waits for its next JobMaster: they stay
		{api.JobCanceled, false, 0},  // globally terminal too
		{api.JobRestarting, true, 1}, // not terminal
	}
	for _, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startCluster(t)
				defer c.rm.Close()
				c.addTaskExecutor("tm-1", 1)
				jm := c.newJobMaster("jobmanager_1")
				require.NoError(t, c.registerJobMaster(jm))
				require.NoError(t, c.declare(jm, 1))

				require.NoError(t, c.rm.DisconnectJobManager(c.ctx, c.rmID, jm.jobID, tt.status, errors.New("job is done")))
				assert.Len(t, c.logs.Messages("Disconnect job manager"), 1)
				assert.ErrorIs(t, c.declare(jm, 1), gateway.ErrUnknownJobManager, "the JobMaster is gone")
				if tt.wantRequirements {
					assert.Empty(t, c.logs.Messages("Clearing resource requirements"))
				} else {
					assert.Equal(t, []string{fmt.Sprintf("Clearing resource requirements of job %s", jm.jobID)},
						c.logs.Messages("Clearing resource requirements"))
				}

				advance(DefaultRequirementCheckDelay)
				assert.Len(t, c.requests.all(), tt.wantRequestsAfter)

				require.NoError(t, c.rm.DisconnectJobManager(c.ctx, c.rmID, jm.jobID, tt.status, nil), "twice is harmless")
			})
		})
	}
}

func TestTaskExecutorReRegistrationReplacesTheOldOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		first := c.addTaskExecutor("tm-1", 2)

		// The TaskExecutor restarts and registers again, under the same ResourceID.
		success, err := c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
			ResourceID: "tm-1", TaskExecutorAddress: c.svc.Address("taskmanager_tm-1"), NumberOfSlots: 2,
			TotalResourceProfile: defaultTaskManagerResources(2),
		})
		require.NoError(t, err)
		second := success.RegistrationID
		assert.NotEqual(t, first, second, "each registration has its own InstanceID")
		assert.Equal(t, gateway.ResourceOverview{NumberTaskManagers: 1}, c.overview(), "the old slots are gone until the new report")
		assert.Len(t, c.logs.Messages("Replacing old registration of TaskExecutor tm-1."), 1)

		err = c.rm.SendSlotReport(c.ctx, c.rmID, "tm-1", first, freeSlots("tm-1", 2))
		assert.ErrorIs(t, err, gateway.ErrUnknownTaskManager)
		assert.ErrorContains(t, err, fmt.Sprintf("Unknown TaskManager registration id %s.", first))

		require.NoError(t, c.rm.SendSlotReport(c.ctx, c.rmID, "tm-1", second, freeSlots("tm-1", 2)))
		assert.Equal(t, gateway.ResourceOverview{NumberTaskManagers: 1, NumberRegisteredSlots: 2, NumberFreeSlots: 2}, c.overview())

		// A later report reconciles instead of registering again.
		require.NoError(t, c.rm.SendSlotReport(c.ctx, c.rmID, "tm-1", second, freeSlots("tm-1", 2)))
		assert.Len(t, c.logs.Messages("Registering task executor"), 2, "one per registration")

		_, err = c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
			ResourceID: "tm-2", TaskExecutorAddress: c.svc.Address("nobody"),
		})
		assert.ErrorIs(t, err, gateway.ErrRegistrationFailure)

		// A registration without resources leaves the SlotManager nothing
		// to cut slots from: refused, and nothing of it is kept.
		_, err = c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
			ResourceID: "tm-3", TaskExecutorAddress: c.svc.Address("taskmanager_tm-1"), NumberOfSlots: 2,
		})
		assert.ErrorIs(t, err, gateway.ErrRegistrationFailure)
		assert.ErrorContains(t, err, "The TaskExecutor tm-3 registered without its resources")
		// Nor does a default slot that is not an equal share of the total,
		// or a total of nothing.
		_, err = c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
			ResourceID: "tm-4", TaskExecutorAddress: c.svc.Address("taskmanager_tm-1"), NumberOfSlots: 2,
			TotalResourceProfile: defaultTaskManagerResources(2), DefaultSlotResourceProfile: api.ResourceProfile{CPUCores: 1e-9},
		})
		assert.ErrorContains(t, err, "The TaskExecutor tm-4 registered a default slot that is not an equal share of its total")
		_, err = c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
			ResourceID: "tm-5", TaskExecutorAddress: c.svc.Address("taskmanager_tm-1"), NumberOfSlots: 2,
			TotalResourceProfile: api.ZeroResourceProfile,
		})
		assert.ErrorContains(t, err, "The TaskExecutor tm-5 registered without its resources")
		assert.Equal(t, 1, c.overview().NumberTaskManagers)
	})
}

func TestNotifySlotAvailableFreesTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		instanceID := c.addTaskExecutor("tm-1", 2)
		jobA, jobB := c.newJobMaster("jobmanager_a"), c.newJobMaster("jobmanager_b")
		require.NoError(t, c.registerJobMaster(jobA))
		require.NoError(t, c.registerJobMaster(jobB))
		require.NoError(t, c.declare(jobA, 2))
		require.NoError(t, c.declare(jobB, 1))
		advance(DefaultRequirementCheckDelay)
		require.Len(t, c.requests.all(), 2, "job A takes both slots, job B waits")

		// Job A finishes; its TaskExecutor frees a slot and says so.
		require.NoError(t, c.rm.DisconnectJobManager(c.ctx, c.rmID, jobA.jobID, api.JobFinished, nil))
		freed := c.requests.all()[0]
		require.NoError(t, c.rm.NotifySlotAvailable(c.ctx, c.rmID, api.NewInstanceID(), freed.SlotID, freed.AllocationID),
			"an outdated registration is ignored")
		assert.Equal(t, 0, c.overview().NumberFreeSlots)
		require.NoError(t, c.rm.NotifySlotAvailable(c.ctx, c.rmID, instanceID, freed.SlotID, freed.AllocationID))
		assert.Equal(t, 1, c.overview().NumberFreeSlots)

		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 3)
		assert.Equal(t, jobB.jobID, requests[2].JobID, "the waiting job gets the freed slot")
		assert.Equal(t, freed.SlotID, requests[2].SlotID)
	})
}

func TestDisconnectTaskManagerMovesTheJobElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		c.addTaskExecutor("tm-1", 1)
		jm := c.newJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(jm))
		require.NoError(t, c.declare(jm, 1))
		advance(DefaultRequirementCheckDelay)
		require.Len(t, c.requests.all(), 1)

		require.NoError(t, c.rm.DisconnectTaskManager(c.ctx, c.rmID, "tm-1", errors.New("TaskExecutor is shutting down.")))
		assert.Equal(t, []string{"Closing TaskExecutor connection tm-1 because: TaskExecutor is shutting down."},
			c.logs.Messages("Closing TaskExecutor connection"))
		assert.Equal(t, gateway.ResourceOverview{}, c.overview())

		// The job still declares one slot; a new TaskExecutor serves it.
		c.addTaskExecutor("tm-2", 1)
		advance(DefaultRequirementCheckDelay)
		requests := c.requests.all()
		require.Len(t, requests, 2)
		assert.Equal(t, api.DynamicSlotID("tm-2"), requests[1].SlotID)

		require.NoError(t, c.rm.DisconnectTaskManager(c.ctx, c.rmID, "tm-1", nil), "unknown by now: ignored")
	})
}

func TestLosingLeadershipForgetsEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		c.addTaskExecutor("tm-1", 2)
		jm := c.newJobMaster("jobmanager_1")
		require.NoError(t, c.registerJobMaster(jm))

		c.rm.RevokeLeadership()
		synctest.Wait()
		assert.ErrorIs(t, c.declare(jm, 1), rpc.ErrFencingTokenMismatch, "the old token is no good")
		err := c.rm.DeclareRequiredResources(c.ctx, api.ResourceManagerID{}, jm.id, requirements(jm, 1))
		assert.ErrorIs(t, err, rpc.ErrFencingTokenMismatch, "a ResourceManager without leadership accepts nothing")
		assert.ErrorContains(t, err, "Fencing token not set")
		assert.Equal(t, gateway.ResourceOverview{}, c.overview())
		assert.Len(t, c.logs.Messages("Suspending the slot manager."), 1)

		// Granted leadership again (a new session): a clean slate.
		session := api.NewLeaderSessionID()
		c.rm.GrantLeadership(session)
		synctest.Wait()
		c.rmID = api.ResourceManagerID(session)
		assert.ErrorIs(t, c.declare(jm, 1), gateway.ErrUnknownJobManager, "JobMasters register again with the new leader")
		require.NoError(t, c.registerJobMaster(jm))
		assert.Len(t, c.logs.Messages("Starting the slot manager."), 2)
	})
}

func TestCloseStopsServing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		c.rm.Close()
		c.rm.Close() // twice is harmless

		_, err := rpc.Connect[gateway.ResourceManagerGateway](c.ctx, c.svc, c.rm.Address())
		assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable, "no longer in the RPC service")
		assert.ErrorIs(t, c.declare(jobMaster{}, 1), rpc.ErrRecipientUnreachable)
		_, err = c.rm.NumberOfRegisteredTaskManagers(c.ctx)
		assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable)
		assert.Len(t, c.logs.Messages("Closing the slot manager."), 1)
	})
}

func TestCloseWithoutStart(t *testing.T) {
	rm, err := New(Config{}, Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()})
	require.NoError(t, err)
	rm.Close()
}

func TestNewValidatesItsInputs(t *testing.T) {
	_, err := New(Config{}, Deps{})
	assert.Error(t, err)
	_, err = New(Config{RPCTimeout: -time.Second}, Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()})
	assert.Error(t, err)
	_, err = New(Config{Heartbeat: heartbeat.HeartbeatServices{Interval: time.Minute, Timeout: time.Second}},
		Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()})
	assert.EqualError(t, err, "resource manager: The heartbeat timeout should be larger or equal than the heartbeat interval.")

	rm, err := New(Config{}, Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()})
	require.NoError(t, err)
	defer rm.Close()
	assert.True(t, strings.HasPrefix(string(rm.ResourceID()), "resourcemanager-"))
	assert.Equal(t, DefaultRPCTimeout, rm.cfg.RPCTimeout)
	assert.Equal(t, 50*time.Millisecond, rm.cfg.RequirementCheckDelay)
	assert.Equal(t, heartbeat.DefaultHeartbeatServices(), rm.cfg.Heartbeat, "Flink's heartbeat defaults")
}

func TestStartFailsWhenTheAddressIsTaken(t *testing.T) {
	svc := rpc.NewLocalService()
	require.NoError(t, svc.Register(svc.Address(EndpointName), struct{}{}))
	rm, err := New(Config{}, Deps{RPC: svc, HA: highavailability.NewEmbeddedHaServices()})
	require.NoError(t, err)
	assert.Error(t, rm.Start())
	rm.Close()
	_, err = svc.Connect(context.Background(), svc.Address(EndpointName))
	assert.NoError(t, err, "Close leaves the other endpoint's registration alone")
}

// The leadership lines are Flink's, word for word, at INFO and under
// Flink's logger names: ResourceManagerServiceImpl's for the service that
// follows the leadership (start, grantLeadership, revokeLeadership,
// closeAsync), the ResourceManager's own for ResourceManager#onStart.
func TestLeadershipIsLoggedWithFlinksLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		first := c.rmID
		c.rm.RevokeLeadership()
		synctest.Wait()
		c.rm.RevokeLeadership() // no leadership left to revoke
		synctest.Wait()
		second := api.NewLeaderSessionID()
		c.rm.GrantLeadership(second)
		synctest.Wait()
		c.rm.Close()

		const service, rm = "ResourceManagerServiceImpl", "StandaloneResourceManager"
		want := []struct{ logger, msg string }{
			{service, "Starting resource manager service."},
			{service, "Resource manager service is granted leadership with session id " + first.String() + "."},
			{rm, "Starting the resource manager."},
			{service, "Resource manager service is revoked leadership with session id " + first.String() + "."},
			{service, "Resource manager service is revoked leadership with session id null."},
			{service, "Resource manager service is granted leadership with session id " + second.String() + "."},
			{rm, "Starting the resource manager."},
			{service, "Stopping resource manager service."},
			{service, "Resource manager service is not running. Ignore revoking leadership."},
		}
		var got []struct{ logger, msg string }
		for _, r := range c.logs.Records() {
			if r.Level == "INFO" && (r.Logger == service || strings.HasSuffix(r.Msg, "the resource manager.")) {
				got = append(got, struct{ logger, msg string }{r.Logger, r.Msg})
			}
		}
		assert.Equal(t, want, got)
	})
}

// A grant that arrives after Close has begun is ignored with Flink's line.
func TestAGrantAfterCloseIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		defer c.rm.Close()
		c.rm.running.Store(false) // as Close does first
		session := api.NewLeaderSessionID()
		c.rm.GrantLeadership(session)
		synctest.Wait()
		assert.Equal(t, []string{"Resource manager service is not running. Ignore granting leadership with session ID " + session.String() + "."},
			c.logs.Messages("Resource manager service is not running."))
		assert.Equal(t, c.rmID, c.rm.FencingToken(), "the leadership it had is untouched")
	})
}
