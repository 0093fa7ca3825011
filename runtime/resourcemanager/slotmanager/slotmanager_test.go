package slotmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

const delay = DefaultRequirementCheckDelay

// harness runs a FineGrainedSlotManager on the main thread of an endpoint
// that stands in for the ResourceManager, as the real one does.
type harness struct {
	t          *testing.T
	mainThread *rpc.Endpoint
	sm         *FineGrainedSlotManager
	rmID       api.ResourceManagerID
	trace      *trace.Recorder
	logs       *logbuf.Buffer
	jmAddress  string
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := trace.NewRecorder()
	sm, err := New(cfg, Deps{Trace: rec})
	require.NoError(t, err)
	h := &harness{
		t:          t,
		mainThread: rpc.NewEndpoint("StandaloneResourceManager"),
		sm:         sm,
		rmID:       api.NewResourceManagerID(),
		trace:      rec,
		logs:       logs,
		jmAddress:  "pekko://flink/user/rpc/jobmanager_1",
	}
	h.mainThread.Start(nil)
	h.do(func() { sm.Start(h.rmID, h.mainThread) })
	return h
}

// close stops the endpoint; the slot manager is closed on its main thread.
func (h *harness) close() { h.mainThread.Close(h.sm.Close) }

// do runs fn on the main thread and waits for it.
func (h *harness) do(fn func()) {
	h.t.Helper()
	_, err := rpc.CallAsync(context.Background(), h.mainThread, func() (struct{}, error) {
		fn()
		return struct{}{}, nil
	})
	require.NoError(h.t, err)
}

// registerTaskManager registers a TaskExecutor named name with n free slots
// of the given profile.
func (h *harness) registerTaskManager(name string, n int, profile api.ResourceProfile, gw gateway.TaskExecutorGateway) TaskExecutorConnection {
	conn := TaskExecutorConnection{ResourceID: api.ResourceID(name), InstanceID: api.NewInstanceID(), Gateway: gw}
	var report gateway.SlotReport
	for i := range n {
		report = append(report, gateway.SlotStatus{SlotID: slotID(name, i), ResourceProfile: profile})
	}
	h.do(func() { assert.Equal(h.t, RegistrationSuccess, h.sm.RegisterTaskManager(conn, report)) })
	return conn
}

// declare replaces a job's requirements with n slots of any profile.
func (h *harness) declare(jobID api.JobID, n int) {
	var reqs []gateway.ResourceRequirement
	if n > 0 {
		reqs = []gateway.ResourceRequirement{req(unknown, n)}
	}
	h.do(func() {
		h.sm.ProcessResourceRequirements(gateway.ResourceRequirements{JobID: jobID, TargetAddress: h.jmAddress, Requirements: reqs})
	})
}

// slots returns a snapshot of every slot, keyed by slot ID.
func (h *harness) slots() map[api.SlotID]SlotInfo {
	out := make(map[api.SlotID]SlotInfo)
	h.do(func() {
		for _, s := range h.sm.Slots() {
			out[s.SlotID] = s
		}
	})
	return out
}

// counts returns (registered slots, free slots).
func (h *harness) counts() (registered, free int) {
	h.do(func() { registered, free = h.sm.NumberOfRegisteredSlots(), h.sm.NumberOfFreeSlots() })
	return registered, free
}

// advance lets d of fake time pass inside the synctest bubble (it returns
// at once in real time) and then waits until every goroutine of the bubble
// is idle again, so whatever the time triggered has happened.
func advance(d time.Duration) {
	<-time.After(d)
	synctest.Wait()
}

func TestRequirementsAreMatchedAfterExactlyTheCheckDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm1 := h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		tm2 := h.registerTaskManager("tm-2", 2, small, requests.gateway(nil))
		job := api.NewJobID()

		h.declare(job, 3)

		advance(delay - time.Nanosecond)
		assert.Empty(t, requests.all(), "nothing is sent before slotmanager.requirement-check.delay")

		advance(time.Nanosecond)
		got := requests.all()
		require.Len(t, got, 3, "exactly the missing slots are requested")
		allocationIDs := map[api.AllocationID]bool{}
		for _, r := range got {
			allocationIDs[r.AllocationID] = true
			assert.Equal(t, job, r.JobID)
			assert.Equal(t, h.rmID, r.RMID, "requestSlot carries the ResourceManager's fencing token")
			assert.Equal(t, h.jmAddress, r.JobMasterAddress, "the TaskExecutor offers the slot to the JobMaster")
			assert.Equal(t, unknown, r.Profile, "the requirement's profile is requested")
		}
		assert.Len(t, allocationIDs, 3, "each request has its own AllocationID")
		assert.ElementsMatch(t, []api.SlotID{slotID("tm-1", 0), slotID("tm-1", 1), slotID("tm-2", 0)}, requests.slotIDs(),
			"tm-1 is filled before tm-2")

		slots := h.slots()
		for _, id := range requests.slotIDs() {
			assert.Equal(t, SlotAllocated, slots[id].State, "acknowledged slot %s", id)
			assert.Equal(t, job, slots[id].JobID)
		}
		assert.Equal(t, SlotFree, slots[slotID("tm-2", 1)].State)
		h.do(func() {
			assert.Equal(t, 0, h.sm.NumberOfFreeSlotsOf(tm1.InstanceID))
			assert.Equal(t, 1, h.sm.NumberOfFreeSlotsOf(tm2.InstanceID))
			assert.Equal(t, 2, h.sm.NumberOfRegisteredSlotsOf(tm2.InstanceID))
		})

		events := h.trace.JobEvents(job)
		assert.Equal(t, []trace.Step{trace.M7, trace.M7, trace.M7}, trace.Steps(events))
		assert.Equal(t, "SlotManager", events[0].From)
		assert.Equal(t, "TaskExecutor", events[0].To)
		assert.Contains(t, events[0].Message, "slot tm-1_0 of TaskExecutor tm-1")

		matching := h.logs.Messages("Matching resource requirements against available resources.")
		require.Len(t, matching, 1)
		assert.Equal(t, fmt.Sprintf("Matching resource requirements against available resources.\n"+
			"Missing resources:\n"+
			"\t Job %s\n"+
			"\t\tResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=3}\n"+
			"Current resources:\n"+
			"\tTaskManager tm-1\n\t\tAvailable: 2 free slot(s)\n\t\tTotal:     2 slot(s)\n"+
			"\tTaskManager tm-2\n\t\tAvailable: 2 free slot(s)\n\t\tTotal:     2 slot(s)", job), matching[0])
		assert.Equal(t, []string{fmt.Sprintf("Received resource requirements from job %s: "+
			"[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=3}]", job)},
			h.logs.Messages("Received resource requirements"))
		assert.Len(t, h.logs.Messages("Starting allocation of slot "), 3)
		assert.Equal(t, []string{
			fmt.Sprintf("Registering task executor tm-1 under %s at the slot manager.", tm1.InstanceID),
			fmt.Sprintf("Registering task executor tm-2 under %s at the slot manager.", tm2.InstanceID),
		}, h.logs.Messages("Registering task executor"))
		assert.Equal(t, []string{"Starting the slot manager."}, h.logs.Messages("Starting the slot manager."))
	})
}

func TestDeclarationsWithinTheDelayCoalesceIntoOneCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 4, small, requests.gateway(nil))
		job := api.NewJobID()

		h.declare(job, 1)
		advance(delay / 2)
		h.declare(job, 2) // replaces the first declaration; no second check is scheduled

		advance(delay/2 - time.Nanosecond)
		assert.Empty(t, requests.all())
		advance(time.Nanosecond)
		assert.Len(t, requests.all(), 2, "one check, for the latest declaration")
		assert.Len(t, h.logs.Messages("Matching resource requirements"), 1)

		advance(10 * delay)
		assert.Len(t, requests.all(), 2, "nothing more once the job has what it declared")
	})
}

func TestFailedSlotRequestFreesTheSlotAndIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		refused := errors.New("Could not allocate slot.")
		attempts := 0 // touched only by the one RequestSlot call in flight
		h.registerTaskManager("tm-1", 1, small, requests.gateway(func(context.Context, slotRequest) error {
			attempts++
			if attempts == 1 {
				return refused
			}
			return nil
		}))
		job := api.NewJobID()
		h.declare(job, 1)

		advance(delay)
		require.Len(t, requests.all(), 1)
		assert.Equal(t, SlotFree, h.slots()[slotID("tm-1", 0)].State, "a refused slot is FREE again")
		first := requests.all()[0].AllocationID
		assert.Equal(t, []string{fmt.Sprintf("Slot allocation for allocation %s for job %s failed.", first, job)},
			h.logs.Messages("Slot allocation for allocation"))

		advance(delay - time.Nanosecond)
		assert.Len(t, requests.all(), 1, "the retry waits for the next check")
		advance(time.Nanosecond)
		require.Len(t, requests.all(), 2)
		second := requests.all()[1]
		assert.Equal(t, slotID("tm-1", 0), second.SlotID)
		assert.NotEqual(t, first, second.AllocationID, "a retry is a new allocation")
		assert.Equal(t, SlotAllocated, h.slots()[slotID("tm-1", 0)].State)
	})
}

func TestSlotRequestTimesOutAfterTheRPCTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{TaskManagerRequestTimeout: 10 * time.Second})
		defer h.close()
		var requests slotRequests
		answered := 0
		h.registerTaskManager("tm-1", 1, small, requests.gateway(func(ctx context.Context, _ slotRequest) error {
			answered++
			if answered == 1 {
				<-ctx.Done() // a TaskExecutor that never answers
				return ctx.Err()
			}
			return nil
		}))
		h.declare(api.NewJobID(), 1)

		advance(delay)
		require.Len(t, requests.all(), 1)
		assert.Equal(t, SlotPending, h.slots()[slotID("tm-1", 0)].State, "waiting for the answer")

		advance(10*time.Second - time.Nanosecond)
		assert.Equal(t, SlotPending, h.slots()[slotID("tm-1", 0)].State)
		advance(time.Nanosecond)
		assert.Equal(t, SlotFree, h.slots()[slotID("tm-1", 0)].State, "timed out: FREE again")
		assert.Len(t, h.logs.Messages("Slot allocation for allocation"), 1)

		advance(delay)
		assert.Len(t, requests.all(), 2, "and asked for again")
		assert.Equal(t, SlotAllocated, h.slots()[slotID("tm-1", 0)].State)
	})
}

func TestFreedSlotGoesToAWaitingJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		jobA, jobB := api.NewJobID(), api.NewJobID()

		h.declare(jobA, 2)
		h.declare(jobB, 1)
		advance(delay)
		require.Len(t, requests.all(), 2)
		for _, r := range requests.all() {
			assert.Equal(t, jobA, r.JobID, "job A declared first and takes both slots")
		}
		assert.Len(t, h.logs.Messages(fmt.Sprintf("Job %s waits for resources", jobB)), 1, "job B waits")

		// Job A scales down: it declares 1 slot and frees the other one, as
		// its JobMaster does (the TaskExecutor then calls notifySlotAvailable).
		released := requests.all()[1]
		h.declare(jobA, 1)
		h.do(func() { h.sm.FreeSlot(released.SlotID, released.AllocationID) })
		assert.Equal(t, SlotFree, h.slots()[released.SlotID].State)

		advance(delay)
		require.Len(t, requests.all(), 3)
		got := requests.all()[2]
		assert.Equal(t, jobB, got.JobID, "the waiting job gets the freed slot")
		assert.Equal(t, released.SlotID, got.SlotID)
	})
}

func TestFreeSlotWithAnOutdatedAllocationIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 1, small, requests.gateway(nil))
		h.declare(api.NewJobID(), 1)
		advance(delay)

		h.do(func() { h.sm.FreeSlot(slotID("tm-1", 0), api.NewAllocationID()) })
		assert.Equal(t, SlotAllocated, h.slots()[slotID("tm-1", 0)].State)
	})
}

func TestMoreRequiredThanRegisteredWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.registerTaskManager("tm-2", 2, small, requests.gateway(nil))
		job := api.NewJobID()

		h.declare(job, 5)
		advance(delay)
		assert.Len(t, requests.all(), 4, "every slot there is")
		registered, free := h.counts()
		assert.Equal(t, 4, registered)
		assert.Equal(t, 0, free)
		assert.Equal(t, []string{fmt.Sprintf("Job %s waits for resources that no registered TaskManager can offer now: "+
			"[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]", job)},
			h.logs.Messages("Job "))
		assert.Empty(t, h.logs.Messages("Could not fulfill"), "a standalone ResourceManager waits quietly during start-up")

		advance(time.Minute)
		assert.Len(t, requests.all(), 4, "nothing more is sent while nothing changes")

		// A third TaskManager arrives: the waiting job gets its fifth slot.
		h.registerTaskManager("tm-3", 2, small, requests.gateway(nil))
		advance(delay)
		require.Len(t, requests.all(), 5)
		assert.Equal(t, slotID("tm-3", 0), requests.all()[4].SlotID)
	})
}

func TestFailUnfulfillableRequestsLogsFlinksWarning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{FailUnfulfillableRequests: true})
		defer h.close()
		job := api.NewJobID()
		h.declare(job, 1)
		advance(delay)
		assert.Equal(t, []string{fmt.Sprintf("Could not fulfill resource requirements of job %s.", job)},
			h.logs.Messages("Could not fulfill"))
		assert.Contains(t, h.logs.Messages("Matching resource requirements")[0], "Current resources:\n\t(none)")
	})
}

func TestUnregisterTaskManagerDropsItsSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm1 := h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.registerTaskManager("tm-2", 2, small, requests.gateway(nil))
		job := api.NewJobID()
		h.declare(job, 2)
		advance(delay)
		assert.ElementsMatch(t, []api.SlotID{slotID("tm-1", 0), slotID("tm-1", 1)}, requests.slotIDs())

		h.do(func() { assert.True(t, h.sm.UnregisterTaskManager(tm1.InstanceID)) })
		registered, free := h.counts()
		assert.Equal(t, 2, registered, "tm-1's slots are gone")
		assert.Equal(t, 2, free)
		assert.NotContains(t, h.slots(), slotID("tm-1", 0))

		// The job's requirements stay, so it gets slots elsewhere.
		advance(delay)
		assert.ElementsMatch(t, []api.SlotID{slotID("tm-1", 0), slotID("tm-1", 1), slotID("tm-2", 0), slotID("tm-2", 1)},
			requests.slotIDs())

		h.do(func() { assert.False(t, h.sm.UnregisterTaskManager(tm1.InstanceID), "unknown by now") })
	})
}

func TestLateAnswersAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		// Each slot's requestSlot waits for its own answer.
		answer := map[api.SlotID]chan error{slotID("tm-1", 0): make(chan error), slotID("tm-1", 1): make(chan error)}
		gw := requests.gateway(func(ctx context.Context, req slotRequest) error {
			select {
			case err := <-answer[req.SlotID]:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		tm := h.registerTaskManager("tm-1", 2, small, gw)
		job := api.NewJobID()
		h.declare(job, 2)
		advance(delay)
		require.Len(t, requests.all(), 2)
		pending := requests.all()

		// The JobMaster frees the first slot while requestSlot is in flight...
		h.do(func() { h.sm.FreeSlot(pending[0].SlotID, pending[0].AllocationID) })
		answer[pending[0].SlotID] <- nil // ...then the TaskExecutor acknowledges it: too late.
		synctest.Wait()
		assert.Equal(t, SlotFree, h.slots()[pending[0].SlotID].State)

		// The TaskExecutor goes away while the second request is in flight.
		h.do(func() { h.sm.UnregisterTaskManager(tm.InstanceID) })
		answer[pending[1].SlotID] <- errors.New("TaskManager is shutting down")
		synctest.Wait()

		registered, free := h.counts()
		assert.Equal(t, 0, registered)
		assert.Equal(t, 0, free)
		assert.Len(t, h.logs.Messages("Ignoring slot allocation update"), 2)
		assert.Empty(t, h.logs.Messages("Slot allocation for allocation"), "an ignored failure is not a failure")
	})
}

func TestSlotReportsReconcileSlotStates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm := h.registerTaskManager("tm-1", 3, small, requests.gateway(nil))
		job, otherJob := api.NewJobID(), api.NewJobID()
		h.declare(job, 1)
		advance(delay)
		require.Len(t, requests.all(), 1)
		ours := requests.all()[0]

		// The TaskExecutor reports: slot 0 is free again (the job released
		// it there), slot 2 holds an allocation this SlotManager never made.
		foreign := api.NewAllocationID()
		report := gateway.SlotReport{
			{SlotID: slotID("tm-1", 0), ResourceProfile: small},
			{SlotID: slotID("tm-1", 1), ResourceProfile: small},
			{SlotID: slotID("tm-1", 2), ResourceProfile: small, AllocationID: foreign, JobID: otherJob},
		}
		h.do(func() { assert.True(t, h.sm.ReportSlotStatus(tm.InstanceID, report)) })
		slots := h.slots()
		assert.Equal(t, SlotFree, slots[slotID("tm-1", 0)].State)
		assert.Equal(t, SlotAllocated, slots[slotID("tm-1", 2)].State)
		assert.Equal(t, otherJob, slots[slotID("tm-1", 2)].JobID)
		assert.Equal(t, foreign, slots[slotID("tm-1", 2)].AllocationID)
		assert.Equal(t, []string{fmt.Sprintf("Freeing slot %s by slot report.", ours.AllocationID)},
			h.logs.Messages("Freeing slot"))

		// The report changed what the job holds, so it is served again.
		advance(delay)
		require.Len(t, requests.all(), 2)
		assert.Equal(t, slotID("tm-1", 0), requests.all()[1].SlotID)

		h.do(func() { assert.False(t, h.sm.ReportSlotStatus(api.NewInstanceID(), report), "unknown TaskExecutor") })
	})
}

func TestSlotReportCompletesAPendingAllocation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		release := make(chan struct{})
		tm := h.registerTaskManager("tm-1", 1, small, requests.gateway(func(context.Context, slotRequest) error {
			<-release
			return nil
		}))
		job := api.NewJobID()
		h.declare(job, 1)
		advance(delay)
		req := requests.all()[0]

		report := gateway.SlotReport{{SlotID: req.SlotID, ResourceProfile: small, AllocationID: req.AllocationID, JobID: job}}
		h.do(func() { h.sm.ReportSlotStatus(tm.InstanceID, report) })
		assert.Equal(t, SlotAllocated, h.slots()[req.SlotID].State, "the report is as good as the answer")

		close(release)
		synctest.Wait()
		assert.Equal(t, SlotAllocated, h.slots()[req.SlotID].State)
		assert.Len(t, h.logs.Messages("Ignoring slot allocation update"), 1)
	})
}

func TestInitialSlotReportWithAllocationsCountsForTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		job := api.NewJobID()
		h.declare(job, 2)

		// A TaskExecutor that already holds one slot for the job (say, from
		// before a ResourceManager failover) registers.
		conn := TaskExecutorConnection{ResourceID: "tm-1", InstanceID: api.NewInstanceID(), Gateway: requests.gateway(nil)}
		report := gateway.SlotReport{
			{SlotID: slotID("tm-1", 0), ResourceProfile: small, AllocationID: api.NewAllocationID(), JobID: job},
			{SlotID: slotID("tm-1", 1), ResourceProfile: small},
		}
		h.do(func() { h.sm.RegisterTaskManager(conn, report) })
		advance(delay)
		assert.Equal(t, []api.SlotID{slotID("tm-1", 1)}, requests.slotIDs(), "only the missing slot is requested")

		h.do(func() {
			assert.Equal(t, RegistrationIgnored, h.sm.RegisterTaskManager(conn, report), "registered already")
		})
	})
}

func TestClearingRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		jobA, jobB := api.NewJobID(), api.NewJobID()

		h.declare(jobA, 1)
		h.declare(jobA, 0) // an empty declaration clears
		h.do(func() { h.sm.ClearResourceRequirements(jobB) })
		h.declare(jobB, 1)
		h.do(func() { h.sm.ClearResourceRequirements(jobB) })
		advance(delay)

		assert.Empty(t, requests.all())
		assert.Equal(t, []string{
			fmt.Sprintf("Clearing resource requirements of job %s", jobA),
			fmt.Sprintf("Clearing resource requirements of job %s", jobB),
		}, h.logs.Messages("Clearing"), "jobs without requirements are not cleared again")
	})
}

func TestSuspendForgetsEverythingAndCancelsTheCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.declare(api.NewJobID(), 1)

		h.do(h.sm.Suspend)
		advance(delay)
		assert.Empty(t, requests.all(), "the scheduled check was cancelled")
		registered, _ := h.counts()
		assert.Equal(t, 0, registered)
		assert.Equal(t, []string{"Suspending the slot manager."}, h.logs.Messages("Suspending"))

		// A new leadership starts from scratch.
		newRMID := api.NewResourceManagerID()
		h.do(func() { h.sm.Start(newRMID, h.mainThread) })
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.declare(api.NewJobID(), 1)
		advance(delay)
		require.Len(t, requests.all(), 1)
		assert.Equal(t, newRMID, requests.all()[0].RMID)
	})
}

func TestUseBeforeStartPanics(t *testing.T) {
	sm, err := New(Config{}, Deps{})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "The slot manager has not been started.", func() {
		sm.ProcessResourceRequirements(gateway.ResourceRequirements{JobID: api.NewJobID()})
	})
	assert.Equal(t, 0, sm.NumberOfRegisteredSlots(), "counters work at any time")
}

func TestNewRejectsNegativeDurations(t *testing.T) {
	_, err := New(Config{RequirementCheckDelay: -time.Second}, Deps{})
	assert.Error(t, err)
}

func TestProfilesPrintLikeFlinks(t *testing.T) {
	tests := []struct {
		profile api.ResourceProfile
		want    string
	}{
		{api.UnknownResourceProfile, "ResourceProfile{UNKNOWN}"},
		{api.ResourceProfileFromResources(1, 384), "ResourceProfile{cpuCores=1.0, taskHeapMemory=384.000mb (402653184 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
		{api.ResourceProfileFromResources(0.5, 2048), "ResourceProfile{cpuCores=0.5, taskHeapMemory=2.000gb (2147483648 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
		{api.ResourceProfile{CPUCores: 2}, "ResourceProfile{cpuCores=2.0, taskHeapMemory=0 bytes, taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.profile.String())
	}
	assert.True(t, strings.HasPrefix(formatResourceRequirements(nil), "["))
}
