package slotmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
	// notEnough records Deps.NotEnoughResources; touched only on the main
	// thread.
	notEnough []notEnoughResources
}

// notEnoughResources is one call of Deps.NotEnoughResources.
type notEnoughResources struct {
	JobID    api.JobID
	Acquired int
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := trace.NewRecorder()
	h := &harness{
		t:          t,
		mainThread: rpc.NewEndpoint("StandaloneResourceManager"),
		rmID:       api.NewResourceManagerID(),
		trace:      rec,
		logs:       logs,
		jmAddress:  "pekko://flink/user/rpc/jobmanager_1",
	}
	sm, err := New(cfg, Deps{Trace: rec, NotEnoughResources: func(jobID api.JobID, acquired int) {
		h.notEnough = append(h.notEnough, notEnoughResources{jobID, acquired})
	}})
	require.NoError(t, err)
	h.sm = sm
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

// slotsOf is what a TaskExecutor started with n default slots of
// defaultSlot registers with.
func slotsOf(n int, defaultSlot api.ResourceProfile) TaskManagerResources {
	return TaskManagerResources{Total: defaultSlot.Multiply(n), DefaultSlotProfile: defaultSlot}
}

// staticSlotID names static slot n of a TaskExecutor, as its slot report
// does.
func staticSlotID(tm string, n int) api.SlotID {
	return api.SlotID{ResourceID: api.ResourceID(tm), SlotNumber: n}
}

// registerTaskManager registers a TaskExecutor named name, started with n
// default slots of defaultSlot, none of them allocated. Its slot report
// lists the free static slots, as a real TaskExecutor's does.
func (h *harness) registerTaskManager(name string, n int, defaultSlot api.ResourceProfile, gw gateway.TaskExecutorGateway) TaskExecutorConnection {
	h.t.Helper()
	conn := TaskExecutorConnection{ResourceID: api.ResourceID(name), InstanceID: api.NewInstanceID(), Gateway: gw}
	var report gateway.SlotReport
	for i := range n {
		report = append(report, gateway.SlotStatus{SlotID: staticSlotID(name, i), ResourceProfile: defaultSlot})
	}
	h.do(func() {
		assert.Equal(h.t, RegistrationSuccess, h.sm.RegisterTaskManager(conn, report, slotsOf(n, defaultSlot)))
	})
	return conn
}

// declare replaces a job's requirements with n slots of any profile.
func (h *harness) declare(jobID api.JobID, n int) {
	h.t.Helper()
	var reqs []gateway.ResourceRequirement
	if n > 0 {
		reqs = []gateway.ResourceRequirement{req(unknown, n)}
	}
	h.declareRequirements(jobID, reqs...)
}

// declareRequirements replaces a job's requirements.
func (h *harness) declareRequirements(jobID api.JobID, reqs ...gateway.ResourceRequirement) {
	h.t.Helper()
	h.do(func() {
		h.sm.ProcessResourceRequirements(gateway.ResourceRequirements{JobID: jobID, TargetAddress: h.jmAddress, Requirements: reqs})
	})
}

// slots returns a snapshot of every slot jobs hold, keyed by allocation.
func (h *harness) slots() map[api.AllocationID]SlotInfo {
	h.t.Helper()
	out := make(map[api.AllocationID]SlotInfo)
	h.do(func() {
		for _, s := range h.sm.Slots() {
			out[s.AllocationID] = s
		}
	})
	return out
}

// counts returns (registered slots, free slots).
func (h *harness) counts() (registered, free int) {
	h.t.Helper()
	h.do(func() { registered, free = h.sm.NumberOfRegisteredSlots(), h.sm.NumberOfFreeSlots() })
	return registered, free
}

// freeResourceOf returns what a TaskExecutor has left.
func (h *harness) freeResourceOf(tm TaskExecutorConnection) (free api.ResourceProfile) {
	h.t.Helper()
	h.do(func() { free = h.sm.FreeResourceOf(tm.InstanceID) })
	return free
}

// freeSlotsOf returns Flink's count of a TaskExecutor's free slots.
func (h *harness) freeSlotsOf(tm TaskExecutorConnection) (free int) {
	h.t.Helper()
	h.do(func() { free = h.sm.NumberOfFreeSlotsOf(tm.InstanceID) })
	return free
}

func (h *harness) notEnoughResources() (got []notEnoughResources) {
	h.t.Helper()
	h.do(func() { got = append(got, h.notEnough...) })
	return got
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
			assert.Equal(t, small, r.Profile, "an unknown requirement is requested as the TaskManager's default slot")
			assert.Equal(t, api.DynamicSlotID(r.SlotID.ResourceID), r.SlotID, "the TaskExecutor is asked for a new dynamic slot")
		}
		assert.Len(t, allocationIDs, 3, "each request has its own AllocationID")
		assert.ElementsMatch(t, []api.ResourceID{"tm-1", "tm-1", "tm-2"}, requests.resourceIDs(), "tm-1 is filled before tm-2")

		slots := h.slots()
		require.Len(t, slots, 3)
		for id := range allocationIDs {
			assert.Equal(t, SlotAllocated, slots[id].State, "acknowledged slot %s", id)
			assert.Equal(t, job, slots[id].JobID)
			assert.Equal(t, small, slots[id].ResourceProfile)
		}
		assert.Equal(t, 0, h.freeSlotsOf(tm1))
		assert.Equal(t, 1, h.freeSlotsOf(tm2))
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(tm1))
		assert.Equal(t, small, h.freeResourceOf(tm2))

		events := h.trace.JobEvents(job)
		assert.Equal(t, []trace.Step{trace.M7, trace.M7, trace.M7}, trace.Steps(events))
		assert.Equal(t, "SlotManager", events[0].From)
		assert.Equal(t, "TaskExecutor", events[0].To)
		assert.Contains(t, events[0].Message, "requestSlot: slot tm-1_dynamic of TaskExecutor tm-1 for job "+job.String())

		assert.Equal(t, []string{fmt.Sprintf("Received resource requirements from job %s: "+
			"[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=3}]", job)},
			h.logs.Messages("Received resource requirements"))
		starting := h.logs.Messages("Starting allocation of slot ")
		require.Len(t, starting, 3)
		for _, line := range starting {
			assert.Regexp(t, `^Starting allocation of slot [0-9a-f]{32} from tm-[12] for job `+job.String()+
				` with resource profile ResourceProfile\{cpuCores=1, taskHeapMemory=512.000mb \(536870912 bytes\), `+
				`taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes\}\.$`, line)
		}
		assert.Equal(t, []string{
			fmt.Sprintf("Registering task executor tm-1 under %s at the slot manager.", tm1.InstanceID),
			fmt.Sprintf("Registering task executor tm-2 under %s at the slot manager.", tm2.InstanceID),
		}, h.logs.Messages("Registering task executor"))
		assert.Equal(t, []string{"Starting the slot manager."}, h.logs.Messages("Starting the slot manager."))
	})
}

func TestTheMatchingLogShowsWhatJobsLackAndWhatEachTaskManagerHas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.registerTaskManager("tm-2", 1, large, requests.gateway(nil))
		jobA, jobB := api.NewJobID(), api.NewJobID()

		h.declareRequirements(jobA, req(half, 1))
		advance(delay)
		h.declareRequirements(jobB, req(unknown, 1), req(large, 1))
		advance(delay)

		const (
			halfString  = "ResourceProfile{cpuCores=0.5, taskHeapMemory=256.000mb (268435456 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"
			largeString = "ResourceProfile{cpuCores=2, taskHeapMemory=1024.000mb (1073741824 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"
			restString  = "ResourceProfile{cpuCores=1.5, taskHeapMemory=768.000mb (805306368 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"
		)
		assert.Equal(t, []string{
			"Matching resource requirements against available resources.\n" +
				"Missing resources:\n" +
				"\t Job " + jobA.String() + "\n" +
				"\t\tResourceRequirement{resourceProfile=" + halfString + ", numberOfRequiredSlots=1}\n" +
				"Current resources:\n" +
				"\tTaskManager tm-1\n" +
				"\t\tAvailable: " + largeString + "\n" +
				"\t\tTotal:     " + largeString + "\n" +
				"\tTaskManager tm-2\n" +
				"\t\tAvailable: " + largeString + "\n" +
				"\t\tTotal:     " + largeString,
			// Job A holds its slot now: tm-1 has less available than in
			// total, and job B's specific requirement is listed first.
			"Matching resource requirements against available resources.\n" +
				"Missing resources:\n" +
				"\t Job " + jobB.String() + "\n" +
				"\t\tResourceRequirement{resourceProfile=" + largeString + ", numberOfRequiredSlots=1}\n" +
				"\t\tResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}\n" +
				"Current resources:\n" +
				"\tTaskManager tm-1\n" +
				"\t\tAvailable: " + restString + "\n" +
				"\t\tTotal:     " + largeString + "\n" +
				"\tTaskManager tm-2\n" +
				"\t\tAvailable: " + largeString + "\n" +
				"\t\tTotal:     " + largeString,
		}, h.logs.Messages("Matching resource requirements against available resources."))
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

func TestFineGrainedRequirementsCutSlotsOfDifferentSizesOutOfOneTaskManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm1 := h.registerTaskManager("tm-1", 4, small, requests.gateway(nil))
		tm2 := h.registerTaskManager("tm-2", 4, small, requests.gateway(nil))
		job := api.NewJobID()

		h.declareRequirements(job, req(large, 1), req(small, 1), req(half, 2))
		advance(delay)

		assert.ElementsMatch(t, []api.ResourceProfile{large, small, half, half}, requests.profiles(),
			"each slot is requested with the profile its requirement declared")
		assert.Equal(t, []api.ResourceID{"tm-1", "tm-1", "tm-1", "tm-1"}, requests.resourceIDs(),
			"all four fit into tm-1, which is filled first")
		for _, r := range requests.all() {
			assert.Equal(t, api.DynamicSlotID("tm-1"), r.SlotID)
			assert.Equal(t, "tm-1_dynamic", r.SlotID.String())
		}

		h.do(func() {
			assert.Len(t, h.sm.AllocatedSlotsOf(tm1.InstanceID), 4)
			assert.Empty(t, h.sm.AllocatedSlotsOf(tm2.InstanceID))
			assert.Equal(t, small.Multiply(4), h.sm.RegisteredResourceOf(tm1.InstanceID))
			assert.Equal(t, api.ZeroResourceProfile, h.sm.FreeResourceOf(tm1.InstanceID), "tm-1 is used up")
			assert.Equal(t, 4, h.sm.NumberOfRegisteredSlotsOf(tm1.InstanceID))
			assert.Equal(t, 0, h.sm.NumberOfFreeSlotsOf(tm1.InstanceID))
			assert.Equal(t, small.Multiply(4), h.sm.FreeResourceOf(tm2.InstanceID), "tm-2 is untouched")
			assert.Equal(t, 4, h.sm.NumberOfFreeSlotsOf(tm2.InstanceID))
		})
		registered, free := h.counts()
		assert.Equal(t, 8, registered)
		assert.Equal(t, 4, free)
	})
}

func TestAnUnknownRequirementGetsEachTaskManagersDefaultSlotProfile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 1, small, requests.gateway(nil))
		h.registerTaskManager("tm-2", 2, large, requests.gateway(nil))
		job := api.NewJobID()

		h.declare(job, 3)
		advance(delay)

		byTaskManager := map[api.ResourceID][]api.ResourceProfile{}
		for _, r := range requests.all() {
			byTaskManager[r.SlotID.ResourceID] = append(byTaskManager[r.SlotID.ResourceID], r.Profile)
		}
		assert.Equal(t, map[api.ResourceID][]api.ResourceProfile{"tm-1": {small}, "tm-2": {large, large}}, byTaskManager,
			"a slot for an unknown requirement is one default slot of the TaskManager it is cut from")

		advance(10 * delay)
		assert.Len(t, requests.all(), 3, "the default slots count against the unknown requirement")
	})
}

func TestNumberOfFreeSlotsCountsSlotsNotResources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm := h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		jobA, jobB := api.NewJobID(), api.NewJobID()

		h.declareRequirements(jobA, req(half, 3))
		advance(delay)
		require.Len(t, requests.all(), 3)
		assert.Equal(t, half, h.freeResourceOf(tm))
		assert.Equal(t, 0, h.freeSlotsOf(tm), "two static slots, three slots held: Flink counts no free slot, never -1")
		_, free := h.counts()
		assert.Equal(t, 0, free)

		// The count says nothing about the resources: half a slot is left,
		// and a job that fits takes it.
		h.declareRequirements(jobB, req(half, 1))
		advance(delay)
		require.Len(t, requests.all(), 4)
		assert.Equal(t, jobB, requests.all()[3].JobID)
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(tm))
	})
}

func TestFailedSlotRequestFreesTheSlotAndIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		refused := errors.New("Could not allocate slot.")
		attempts := 0 // touched only by the one RequestSlot call in flight
		tm := h.registerTaskManager("tm-1", 1, small, requests.gateway(func(context.Context, slotRequest) error {
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
		first := requests.all()[0].AllocationID
		assert.Empty(t, h.slots(), "a refused slot is not held")
		assert.Equal(t, small, h.freeResourceOf(tm), "its resources are available again")
		assert.Equal(t, []string{fmt.Sprintf("Slot allocation for allocation %s for job %s failed.", first, job)},
			h.logs.Messages("Slot allocation for allocation"))

		advance(delay - time.Nanosecond)
		assert.Len(t, requests.all(), 1, "the retry waits for the next check")
		advance(time.Nanosecond)
		require.Len(t, requests.all(), 2)
		second := requests.all()[1]
		assert.Equal(t, api.DynamicSlotID("tm-1"), second.SlotID)
		assert.Equal(t, small, second.Profile)
		assert.NotEqual(t, first, second.AllocationID, "a retry is a new allocation")
		assert.Equal(t, SlotAllocated, h.slots()[second.AllocationID].State)
	})
}

func TestSlotRequestTimesOutAfterTheRPCTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{TaskManagerRequestTimeout: 10 * time.Second})
		defer h.close()
		var requests slotRequests
		answered := 0
		tm := h.registerTaskManager("tm-1", 1, small, requests.gateway(func(ctx context.Context, _ slotRequest) error {
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
		first := requests.all()[0].AllocationID
		assert.Equal(t, SlotPending, h.slots()[first].State, "waiting for the answer")
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(tm), "a pending slot holds its resources")

		advance(10*time.Second - time.Nanosecond)
		assert.Equal(t, SlotPending, h.slots()[first].State)
		advance(time.Nanosecond)
		assert.NotContains(t, h.slots(), first, "timed out: the slot is freed")
		assert.Equal(t, small, h.freeResourceOf(tm))
		assert.Len(t, h.logs.Messages("Slot allocation for allocation"), 1)

		advance(delay)
		require.Len(t, requests.all(), 2, "and asked for again")
		assert.Equal(t, SlotAllocated, h.slots()[requests.all()[1].AllocationID].State)
	})
}

func TestFreedSlotGoesToAWaitingJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm := h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
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
		assert.NotContains(t, h.slots(), released.AllocationID)
		assert.Equal(t, small, h.freeResourceOf(tm))
		assert.Equal(t, []string{fmt.Sprintf("Freeing slot %s.", released.AllocationID)}, h.logs.Messages("Freeing slot"))

		advance(delay)
		require.Len(t, requests.all(), 3)
		got := requests.all()[2]
		assert.Equal(t, jobB, got.JobID, "the waiting job gets the freed resources")
		assert.Equal(t, api.DynamicSlotID("tm-1"), got.SlotID)
		assert.Equal(t, small, got.Profile)
	})
}

func TestFreeSlotGoesByTheAllocationAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 1, small, requests.gateway(nil))
		h.declare(api.NewJobID(), 1)
		advance(delay)
		require.Len(t, requests.all(), 1)
		ours := requests.all()[0]

		h.do(func() { h.sm.FreeSlot(ours.SlotID, api.NewAllocationID()) })
		assert.Equal(t, SlotAllocated, h.slots()[ours.AllocationID].State, "an outdated allocation frees nothing")

		h.do(func() { h.sm.FreeSlot(staticSlotID("tm-1", 7), ours.AllocationID) })
		assert.Empty(t, h.slots(), "the allocation names the slot; the SlotID is not looked at")
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
		assert.Empty(t, h.notEnoughResources())

		advance(time.Minute)
		assert.Len(t, requests.all(), 4, "nothing more is sent while nothing changes")

		// A third TaskManager arrives: the waiting job gets its fifth slot.
		h.registerTaskManager("tm-3", 2, small, requests.gateway(nil))
		advance(delay)
		require.Len(t, requests.all(), 5)
		assert.Equal(t, api.DynamicSlotID("tm-3"), requests.all()[4].SlotID)
	})
}

func TestARequirementLargerThanWhatIsAvailableWaitsForAFreedSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		tm := h.registerTaskManager("tm-1", 2, small, requests.gateway(nil)) // large in total
		jobA, jobB := api.NewJobID(), api.NewJobID()

		h.declare(jobA, 1)
		advance(delay)
		require.Len(t, requests.all(), 1)
		slotOfA := requests.all()[0]

		// Job B needs all of tm-1, but half of it is job A's.
		h.declareRequirements(jobB, req(large, 1))
		advance(delay)
		assert.Len(t, requests.all(), 1, "what is available is too small, whatever the total")
		assert.Equal(t, []string{fmt.Sprintf("Job %s waits for resources that no registered TaskManager can offer now: "+
			"[ResourceRequirement{resourceProfile=%s, numberOfRequiredSlots=1}]", jobB, large)},
			h.logs.Messages("Job "))

		// Job A finishes and gives its slot back.
		h.do(func() {
			h.sm.ClearResourceRequirements(jobA)
			h.sm.FreeSlot(slotOfA.SlotID, slotOfA.AllocationID)
		})
		advance(delay)
		require.Len(t, requests.all(), 2)
		got := requests.all()[1]
		assert.Equal(t, jobB, got.JobID)
		assert.Equal(t, large, got.Profile)
		assert.Equal(t, api.DynamicSlotID("tm-1"), got.SlotID)
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(tm))
		assert.Equal(t, 1, h.freeSlotsOf(tm), "one slot held of two static ones, however large it is")
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
		assert.Equal(t, []notEnoughResources{{job, 0}}, h.notEnoughResources())
	})
}

func TestARequirementLargerThanEveryTaskManagerIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{FailUnfulfillableRequests: true})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 2, small, requests.gateway(nil))
		h.registerTaskManager("tm-2", 2, small, requests.gateway(nil))
		job := api.NewJobID()

		h.declareRequirements(job, req(huge, 1), req(unknown, 1))
		advance(delay)

		require.Len(t, requests.all(), 1, "what fits is requested all the same")
		assert.Equal(t, small, requests.all()[0].Profile)
		assert.Equal(t, []string{fmt.Sprintf("Could not fulfill resource requirements of job %s.", job)},
			h.logs.Messages("Could not fulfill"))
		assert.Equal(t, []notEnoughResources{{job, 1}}, h.notEnoughResources(),
			"the job is told, with the one slot it holds")

		advance(delay)
		assert.Len(t, h.notEnoughResources(), 1, "nothing changed, so nothing is checked again")
	})
}

func TestSetFailUnfulfillableRequestReportsTheJobsThatWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		h.registerTaskManager("tm-1", 1, small, requests.gateway(nil))
		job := api.NewJobID()
		h.declare(job, 2)
		advance(delay)
		assert.Empty(t, h.notEnoughResources(), "during the start-up period the job waits")

		h.do(func() { h.sm.SetFailUnfulfillableRequest(true) })
		advance(delay)
		assert.Equal(t, []notEnoughResources{{job, 1}}, h.notEnoughResources(), "after it, the waiting job is told")
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
		assert.Equal(t, []api.ResourceID{"tm-1", "tm-1"}, requests.resourceIDs())

		h.do(func() { assert.True(t, h.sm.UnregisterTaskManager(tm1.InstanceID)) })
		registered, free := h.counts()
		assert.Equal(t, 2, registered, "tm-1's slots are gone")
		assert.Equal(t, 2, free)
		assert.Empty(t, h.slots(), "the job's slots went with tm-1")
		h.do(func() {
			assert.Equal(t, api.ZeroResourceProfile, h.sm.RegisteredResourceOf(tm1.InstanceID))
			assert.Equal(t, api.ZeroResourceProfile, h.sm.FreeResourceOf(tm1.InstanceID))
			assert.Equal(t, 0, h.sm.NumberOfRegisteredSlotsOf(tm1.InstanceID))
			assert.Equal(t, 0, h.sm.NumberOfFreeSlotsOf(tm1.InstanceID))
		})

		// The job's requirements stay, so it gets slots elsewhere.
		advance(delay)
		assert.Equal(t, []api.ResourceID{"tm-1", "tm-1", "tm-2", "tm-2"}, requests.resourceIDs())

		h.do(func() { assert.False(t, h.sm.UnregisterTaskManager(tm1.InstanceID), "unknown by now") })
	})
}

func TestLateAnswersAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		// Each requestSlot waits for its own answer.
		var mu sync.Mutex
		answers := map[api.AllocationID]chan error{}
		gw := requests.gateway(func(ctx context.Context, req slotRequest) error {
			answer := make(chan error)
			mu.Lock()
			answers[req.AllocationID] = answer
			mu.Unlock()
			select {
			case err := <-answer:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		answer := func(id api.AllocationID, err error) {
			mu.Lock()
			ch := answers[id]
			mu.Unlock()
			ch <- err
			synctest.Wait()
		}
		tm := h.registerTaskManager("tm-1", 2, small, gw)
		job := api.NewJobID()
		h.declare(job, 2)
		advance(delay)
		require.Len(t, requests.all(), 2)
		pending := requests.all()

		// The JobMaster frees the first slot while requestSlot is in flight...
		h.do(func() { h.sm.FreeSlot(pending[0].SlotID, pending[0].AllocationID) })
		answer(pending[0].AllocationID, nil) // ...then the TaskExecutor acknowledges it: too late.
		assert.NotContains(t, h.slots(), pending[0].AllocationID)
		assert.Equal(t, SlotPending, h.slots()[pending[1].AllocationID].State)

		// The TaskExecutor goes away while the second request is in flight.
		h.do(func() { h.sm.UnregisterTaskManager(tm.InstanceID) })
		answer(pending[1].AllocationID, errors.New("TaskManager is shutting down"))

		registered, free := h.counts()
		assert.Equal(t, 0, registered)
		assert.Equal(t, 0, free)
		assert.Empty(t, h.slots())
		assert.Len(t, h.logs.Messages("Ignoring slot allocation update"), 2)
		assert.Empty(t, h.logs.Messages("Slot allocation for allocation"), "an ignored failure is not a failure")
	})
}

func TestSlotReportsReconcileSlotsByAllocation(t *testing.T) {
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

		// The TaskExecutor reports: our allocation is gone (the job
		// released it there), and a dynamic slot holds an allocation this
		// SlotManager never made. The free static slots say nothing.
		foreign := api.NewAllocationID()
		report := gateway.SlotReport{
			{SlotID: staticSlotID("tm-1", 0), ResourceProfile: small},
			{SlotID: staticSlotID("tm-1", 1), ResourceProfile: small},
			{SlotID: staticSlotID("tm-1", 2), ResourceProfile: small},
			{SlotID: staticSlotID("tm-1", 3), ResourceProfile: large, AllocationID: foreign, JobID: otherJob},
		}
		h.do(func() { assert.True(t, h.sm.ReportSlotStatus(tm.InstanceID, report)) })
		assert.Equal(t, map[api.AllocationID]SlotInfo{
			foreign: {AllocationID: foreign, InstanceID: tm.InstanceID, JobID: otherJob, ResourceProfile: large, State: SlotAllocated},
		}, h.slots(), "ours is freed, the unknown allocation is an ALLOCATED slot of the reported profile")
		assert.Equal(t, small, h.freeResourceOf(tm))
		assert.Equal(t, []string{fmt.Sprintf("Freeing slot %s by slot report.", ours.AllocationID)},
			h.logs.Messages("Freeing slot"))

		// The report changed what the job holds, so it is served again,
		// from what is left.
		advance(delay)
		require.Len(t, requests.all(), 2)
		assert.Equal(t, job, requests.all()[1].JobID)
		assert.Equal(t, small, requests.all()[1].Profile)
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(tm))

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
		assert.Equal(t, SlotPending, h.slots()[req.AllocationID].State)

		free := gateway.SlotReport{{SlotID: staticSlotID("tm-1", 0), ResourceProfile: small}}
		h.do(func() { h.sm.ReportSlotStatus(tm.InstanceID, free) })
		assert.Equal(t, SlotPending, h.slots()[req.AllocationID].State,
			"a report without the allocation leaves it PENDING: requestSlot may not have arrived yet")

		allocated := gateway.SlotReport{
			{SlotID: staticSlotID("tm-1", 0), ResourceProfile: small},
			{SlotID: staticSlotID("tm-1", 1), ResourceProfile: small, AllocationID: req.AllocationID, JobID: job},
		}
		h.do(func() { h.sm.ReportSlotStatus(tm.InstanceID, allocated) })
		assert.Equal(t, SlotAllocated, h.slots()[req.AllocationID].State, "the report is as good as the answer")

		close(release)
		synctest.Wait()
		assert.Equal(t, SlotAllocated, h.slots()[req.AllocationID].State)
		assert.Len(t, h.logs.Messages("Ignoring slot allocation update"), 1)
		assert.Empty(t, h.logs.Messages("Freeing slot"))
	})
}

// A slot report that claims more than the TaskExecutor registered with, or
// a slot of no known size, is not trusted with the resources: the entry is
// ignored with a warning, and nothing else changes.
func TestASlotReportBeyondTheTaskManagersResourcesIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Config{})
		defer h.close()
		var requests slotRequests
		job := api.NewJobID()
		conn := TaskExecutorConnection{ResourceID: "tm-1", InstanceID: api.NewInstanceID(), Gateway: requests.gateway(nil)}
		tooLarge, unknownSize := api.NewAllocationID(), api.NewAllocationID()
		report := gateway.SlotReport{
			{SlotID: staticSlotID("tm-1", 0), ResourceProfile: small.Multiply(3), AllocationID: tooLarge, JobID: job},
			{SlotID: staticSlotID("tm-1", 1), ResourceProfile: api.UnknownResourceProfile, AllocationID: unknownSize, JobID: job},
		}
		h.do(func() {
			assert.Equal(t, RegistrationSuccess, h.sm.RegisterTaskManager(conn, report, slotsOf(2, small)))
		})
		assert.Empty(t, h.slots(), "neither entry is taken")
		assert.Equal(t, small.Multiply(2), h.freeResourceOf(conn), "the resources are untouched")
		assert.Len(t, h.logs.Messages("Ignoring the status of slot tm-1_0: allocation "+tooLarge.String()), 1)
		assert.Len(t, h.logs.Messages("Ignoring the status of slot tm-1_1: allocation "+unknownSize.String()), 1)
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
		held := api.NewAllocationID()
		report := gateway.SlotReport{
			{SlotID: staticSlotID("tm-1", 0), ResourceProfile: small, AllocationID: held, JobID: job},
			{SlotID: staticSlotID("tm-1", 1), ResourceProfile: small},
		}
		h.do(func() {
			assert.Equal(t, RegistrationSuccess, h.sm.RegisterTaskManager(conn, report, slotsOf(2, small)))
		})
		assert.Equal(t, small, h.freeResourceOf(conn), "the held slot is taken out of the resources at once")
		assert.Equal(t, SlotAllocated, h.slots()[held].State)

		advance(delay)
		require.Len(t, requests.all(), 1, "only the missing slot is requested")
		assert.Equal(t, api.DynamicSlotID("tm-1"), requests.all()[0].SlotID)
		assert.Equal(t, api.ZeroResourceProfile, h.freeResourceOf(conn))

		h.do(func() {
			assert.Equal(t, RegistrationIgnored, h.sm.RegisterTaskManager(conn, report, slotsOf(2, small)), "registered already")
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
		assert.Empty(t, h.slots())
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
	assert.PanicsWithValue(t, "The slot manager has not been started.", func() {
		sm.RegisterTaskManager(TaskExecutorConnection{ResourceID: "tm-1", InstanceID: api.NewInstanceID()}, nil, slotsOf(1, small))
	})
	assert.Equal(t, 0, sm.NumberOfRegisteredSlots(), "counters work at any time")
	assert.Equal(t, api.ZeroResourceProfile, sm.RegisteredResourceOf(api.NewInstanceID()))
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
		{api.ResourceProfileFromResources(1, 384), "ResourceProfile{cpuCores=1, taskHeapMemory=384.000mb (402653184 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
		{api.ResourceProfileFromResources(0.5, 2048), "ResourceProfile{cpuCores=0.5, taskHeapMemory=2.000gb (2147483648 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
		{api.ResourceProfile{CPUCores: 2}, "ResourceProfile{cpuCores=2, taskHeapMemory=0 bytes, taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
		{api.ZeroResourceProfile, "ResourceProfile{cpuCores=0, taskHeapMemory=0 bytes, taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.profile.String())
	}
	assert.Equal(t, "[]", formatResourceRequirements(nil))
	assert.Equal(t, "[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=2}, "+
		"ResourceRequirement{resourceProfile="+small.String()+", numberOfRequiredSlots=1}]",
		formatResourceRequirements([]gateway.ResourceRequirement{req(unknown, 2), req(small, 1)}))
}
