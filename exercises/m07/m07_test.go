// Exercise m07: the SlotManager matches what jobs lack to the resources
// TaskManagers have left.
//
// The tests look at the decision from three distances:
//
//   - TestTheMatchingRule calls DefaultResourceAllocationStrategy on its
//     own. It is a pure function, so a table of (missing, TaskManagers) →
//     (allocations, unfulfilled) says everything about it.
//   - The TestTheSlotManager… tests run a real FineGrainedSlotManager on an
//     endpoint that stands in for the ResourceManager's main thread, with
//     fake TaskExecutors that record every requestSlot: they show what the
//     decisions turn into.
//   - The TestAJob… tests run a MiniCluster and look at what an operator
//     sees: the job's tasks running, or the job waiting and then failing with
//     NoResourceAvailableException.
package m07_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/resourcemanager/slotmanager"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

var (
	small   = api.ResourceProfileFromResources(1, 512)
	large   = api.ResourceProfileFromResources(2, 1024) // two smalls
	half    = api.ResourceProfileFromResources(0.5, 256)
	huge    = api.ResourceProfileFromResources(16, 8192)
	unknown = api.UnknownResourceProfile
)

func need(profile api.ResourceProfile, slots int) gateway.ResourceRequirement {
	return gateway.ResourceRequirement{ResourceProfile: profile, NumberOfRequiredSlots: slots}
}

// tryFulfill asks the strategy. A strategy that panics fails the test here,
// on this line, with the rule the case checks, instead of ending the whole
// test binary.
func tryFulfill(t *testing.T, why string, missing []slotmanager.JobRequirements, taskManagers []slotmanager.RegisteredTaskManager) (result slotmanager.ResourceAllocationResult) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("TryFulfillRequirements must decide, not panic: %v\nThe rule this case checks: %s", r, why)
		}
	}()
	return slotmanager.DefaultResourceAllocationStrategy{}.TryFulfillRequirements(missing, taskManagers)
}

// The rule, one case per line of its documentation: jobs first come, first
// served; specific profiles before unknown ones; an unknown requirement gets
// the TaskManager's default slot; each requirement takes as many slots as
// fit from the first TaskManager that has the resources available, then the
// next; what no TaskManager can serve is reported with the number still
// missing. Each case says, in why, what a failure means.
func TestTheMatchingRule(t *testing.T) {
	// IDs that say in a failure which job and which TaskManager they are.
	jobA, jobB := mustParse[api.JobID](t, strings.Repeat("a", 32)), mustParse[api.JobID](t, strings.Repeat("b", 32))
	tm1, tm2 := mustParse[api.InstanceID](t, strings.Repeat("1", 32)), mustParse[api.InstanceID](t, strings.Repeat("2", 32))
	// taskManager is tm started with n default slots of defaultSlot, of
	// which the slots in used are cut out already.
	taskManager := func(tm api.InstanceID, n int, defaultSlot api.ResourceProfile, used ...api.ResourceProfile) slotmanager.RegisteredTaskManager {
		total := defaultSlot.Multiply(n)
		available := total
		for _, u := range used {
			available = available.Subtract(u)
		}
		return slotmanager.RegisteredTaskManager{InstanceID: tm, DefaultSlotProfile: defaultSlot, Total: total, Available: available}
	}
	give := func(job api.JobID, tm api.InstanceID, p api.ResourceProfile) slotmanager.SlotAllocation {
		return slotmanager.SlotAllocation{JobID: job, InstanceID: tm, ResourceProfile: p}
	}
	lacks := func(job api.JobID, reqs ...gateway.ResourceRequirement) slotmanager.JobRequirements {
		return slotmanager.JobRequirements{JobID: job, Requirements: reqs}
	}
	twoByTwo := []slotmanager.RegisteredTaskManager{taskManager(tm1, 2, small), taskManager(tm2, 2, small)}

	tests := []struct {
		name            string
		why             string // what a failure of this case means
		missing         []slotmanager.JobRequirements
		taskManagers    []slotmanager.RegisteredTaskManager
		wantAllocations []slotmanager.SlotAllocation
		wantUnfulfilled []slotmanager.JobRequirements
	}{
		{
			name:            "exactly the missing number of slots",
			why:             "a requirement gets exactly the slots it lacks, no more, and a TaskManager serves it when what it has available is at least the slot's profile in every dimension",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(small, 2))},
			taskManagers:    twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, tm1, small), give(jobA, tm1, small)},
		},
		{
			name:         "one TaskManager is filled before the next",
			why:          "each slot uses up part of what its TaskManager has available, and a requirement takes as many slots as fit from one TaskManager before it moves on to the next",
			missing:      []slotmanager.JobRequirements{lacks(jobA, need(unknown, 3))},
			taskManagers: twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, small), give(jobA, tm1, small), give(jobA, tm2, small),
			},
		},
		{
			name:         "what no TaskManager can serve is reported with the number still missing",
			why:          "a requirement left short is reported under its job with the number of slots it still lacks, not the number it declared",
			missing:      []slotmanager.JobRequirements{lacks(jobA, need(unknown, 5))},
			taskManagers: twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, small), give(jobA, tm1, small), give(jobA, tm2, small), give(jobA, tm2, small),
			},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
		},
		{
			name:            "no TaskManager at all",
			why:             "without TaskManagers nothing is allocated and the whole requirement is reported",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
		},
		{
			name:            "a requirement larger than every TaskManager is reported, not allocated",
			why:             "a slot is cut only out of a TaskManager that has at least its profile available in every dimension",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(huge, 1))},
			taskManagers:    twoByTwo,
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(huge, 1))},
		},
		{
			name:            "a larger TaskManager serves a smaller requirement, which keeps its own profile",
			why:             "a TaskManager with more than a slot's profile available serves it, and the slot has the requirement's profile, not the TaskManager's default slot",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(small, 1))},
			taskManagers:    []slotmanager.RegisteredTaskManager{taskManager(tm1, 1, large)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, tm1, small)},
		},
		{
			name:    "slots of different sizes are cut out of one TaskManager",
			why:     "each specific requirement gets slots of its own profile, cut out of the same TaskManager while it has room",
			missing: []slotmanager.JobRequirements{lacks(jobA, need(large, 1), need(small, 1), need(half, 2))},
			// tm-1 has room for exactly these four slots.
			taskManagers: []slotmanager.RegisteredTaskManager{taskManager(tm1, 4, small), taskManager(tm2, 4, small)},
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, large), give(jobA, tm1, small), give(jobA, tm1, half), give(jobA, tm1, half),
			},
		},
		{
			name:         "an unknown requirement gets the default slot profile of the TaskManager it is cut from",
			why:          "a slot for ResourceProfile{UNKNOWN} is one default slot of its own TaskManager; UNKNOWN itself is never allocated",
			missing:      []slotmanager.JobRequirements{lacks(jobA, need(unknown, 3))},
			taskManagers: []slotmanager.RegisteredTaskManager{taskManager(tm1, 1, small), taskManager(tm2, 2, large)},
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, small), give(jobA, tm2, large), give(jobA, tm2, large),
			},
		},
		{
			name: "what a TaskManager has available counts, not its total",
			why:  "slots cut out of a TaskManager before this call are gone: only what it has available may be handed out",
			// tm-1 could hold a large slot in total, but a small slot is cut
			// out of it already.
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1), need(small, 1))},
			taskManagers:    []slotmanager.RegisteredTaskManager{taskManager(tm1, 2, small, small)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, tm1, small)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
		{
			name: "specific profiles are served before unknown ones",
			why:  "within a job, the requirements for a specific profile are served before those for ResourceProfile{UNKNOWN}",
			// In the declared order the unknown requirement would take a
			// default slot out of tm-1, and the large one would find room
			// nowhere.
			missing:      []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1), need(large, 1))},
			taskManagers: []slotmanager.RegisteredTaskManager{taskManager(tm1, 2, small), taskManager(tm2, 1, small)},
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, large), give(jobA, tm2, small),
			},
		},
		{
			name:         "jobs are served first come, first served, and nothing twice",
			why:          "what one job's slots take is no longer available to the next job in the same call",
			missing:      []slotmanager.JobRequirements{lacks(jobA, need(unknown, 3)), lacks(jobB, need(unknown, 2))},
			taskManagers: twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, tm1, small), give(jobA, tm1, small), give(jobA, tm2, small),
				give(jobB, tm2, small),
			},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobB, need(unknown, 1))},
		},
		{
			name:            "a requirement left short does not stop the job's next one",
			why:             "every requirement of a job is tried, even after one of them was left short",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1), need(unknown, 1))},
			taskManagers:    []slotmanager.RegisteredTaskManager{taskManager(tm1, 1, small)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, tm1, small)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
		{
			name:            "a later job takes what an earlier job cannot use, and lacks nothing",
			why:             "each job's report lists what that job lacks, and nothing another job lacks",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1)), lacks(jobB, need(small, 1))},
			taskManagers:    []slotmanager.RegisteredTaskManager{taskManager(tm1, 1, small)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobB, tm1, small)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tryFulfill(t, tt.why, tt.missing, tt.taskManagers)
			assert.Equal(t, tt.wantAllocations, got.Allocations, "the slots handed out, in order: %s", tt.why)
			assert.Equal(t, tt.wantUnfulfilled, got.Unfulfilled, "what each job still lacks: %s", tt.why)
		})
	}
}

// mustParse reads an ID from its 32 hex characters.
func mustParse[T any, P interface {
	*T
	UnmarshalText([]byte) error
}](t *testing.T, hex string) T {
	t.Helper()
	var id T
	require.NoError(t, P(&id).UnmarshalText([]byte(hex)))
	return id
}

// slotRequest is one requestSlot a fake TaskExecutor received.
type slotRequest struct {
	SlotID           api.SlotID
	JobID            api.JobID
	AllocationID     api.AllocationID
	Profile          api.ResourceProfile
	JobMasterAddress string
	RMID             api.ResourceManagerID
}

// notEnoughResources is one report that a job's requirements cannot be met.
type notEnoughResources struct {
	JobID    api.JobID
	Acquired int
}

// resourceManager is a FineGrainedSlotManager on the main thread of an
// endpoint that stands in for the ResourceManager, as the real one runs.
// Its fake TaskExecutors record every requestSlot and accept it.
type resourceManager struct {
	t            *testing.T
	mainThread   *rpc.Endpoint
	sm           *slotmanager.FineGrainedSlotManager
	id           api.ResourceManagerID
	logs         *scenario.Logs
	taskManagers map[string]api.InstanceID

	mu        sync.Mutex
	requests  []slotRequest
	notEnough []notEnoughResources
}

const jobMasterAddress = "pekko://flink/user/rpc/jobmanager_7"

// startSlotManager starts a slot manager; with failUnfulfillable it reports
// the jobs it cannot serve, as a ResourceManager does after its start-up
// period.
func startSlotManager(t *testing.T, failUnfulfillable bool) *resourceManager {
	t.Helper()
	rm := &resourceManager{t: t, mainThread: rpc.NewEndpoint("StandaloneResourceManager"), id: api.NewResourceManagerID(),
		logs: &scenario.Logs{}, taskManagers: map[string]api.InstanceID{}}
	sm, err := slotmanager.New(slotmanager.Config{
		FailUnfulfillableRequests: failUnfulfillable,
		Logger:                    slog.New(slog.NewTextHandler(rm.logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}, slotmanager.Deps{
		NotEnoughResources: func(jobID api.JobID, acquired int) {
			rm.mu.Lock()
			defer rm.mu.Unlock()
			rm.notEnough = append(rm.notEnough, notEnoughResources{jobID, acquired})
		},
	})
	require.NoError(t, err)
	rm.sm = sm
	rm.mainThread.Start(nil)
	rm.do(func() { sm.Start(rm.id, rm.mainThread) })
	t.Cleanup(func() { rm.mainThread.Close(sm.Close) })
	return rm
}

// do runs fn on the main thread and waits for it.
func (rm *resourceManager) do(fn func()) {
	rm.t.Helper()
	_, err := rpc.CallAsync(context.Background(), rm.mainThread, func() (struct{}, error) {
		fn()
		return struct{}{}, nil
	})
	require.NoError(rm.t, err)
}

// registerTaskManager registers a TaskExecutor called name, started with n
// default slots of defaultSlot, none of them allocated.
func (rm *resourceManager) registerTaskManager(name string, n int, defaultSlot api.ResourceProfile) {
	rm.t.Helper()
	te := &gatewaytest.TaskExecutorGateway{
		RequestSlotFunc: func(_ context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
			profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
			rm.mu.Lock()
			defer rm.mu.Unlock()
			rm.requests = append(rm.requests, slotRequest{slotID, jobID, allocationID, profile, jobMasterAddress, rmID})
			return nil
		},
	}
	conn := slotmanager.TaskExecutorConnection{ResourceID: api.ResourceID(name), InstanceID: api.NewInstanceID(), Gateway: te}
	rm.taskManagers[name] = conn.InstanceID
	var report gateway.SlotReport // the free static slots, as a TaskExecutor reports them
	for i := range n {
		report = append(report, gateway.SlotStatus{SlotID: api.SlotID{ResourceID: conn.ResourceID, SlotNumber: i}, ResourceProfile: defaultSlot})
	}
	resources := slotmanager.TaskManagerResources{Total: defaultSlot.Multiply(n), DefaultSlotProfile: defaultSlot}
	rm.do(func() { rm.sm.RegisterTaskManager(conn, report, resources) })
}

// freeResourceOf returns what the TaskExecutor called name has left.
func (rm *resourceManager) freeResourceOf(name string) (free api.ResourceProfile) {
	rm.t.Helper()
	rm.do(func() { free = rm.sm.FreeResourceOf(rm.taskManagers[name]) })
	return free
}

// declare is step m6 arriving: the job's complete requirements.
func (rm *resourceManager) declare(jobID api.JobID, reqs ...gateway.ResourceRequirement) {
	rm.t.Helper()
	rm.do(func() {
		rm.sm.ProcessResourceRequirements(gateway.ResourceRequirements{JobID: jobID, TargetAddress: jobMasterAddress, Requirements: reqs})
	})
}

// check lets slotmanager.requirement-check.delay pass (fake time, inside
// the bubble) and waits until the check and every requestSlot it sent are
// done.
func (rm *resourceManager) check() {
	<-time.After(slotmanager.DefaultRequirementCheckDelay)
	synctest.Wait()
}

// requested returns the requestSlot calls so far, ordered by TaskExecutor,
// then by profile (cpu cores), since the calls of one check travel
// concurrently.
func (rm *resourceManager) requested() []slotRequest {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	out := slices.Clone(rm.requests)
	slices.SortStableFunc(out, func(a, b slotRequest) int {
		if c := strings.Compare(string(a.SlotID.ResourceID), string(b.SlotID.ResourceID)); c != 0 {
			return c
		}
		return -compareCPU(a.Profile, b.Profile)
	})
	return out
}

func compareCPU(a, b api.ResourceProfile) int {
	switch {
	case a.CPUCores < b.CPUCores:
		return -1
	case a.CPUCores > b.CPUCores:
		return 1
	}
	return 0
}

// requestedFrom returns, for each requestSlot so far, the TaskExecutor it
// went to, in the order of requested.
func (rm *resourceManager) requestedFrom() []api.ResourceID {
	var ids []api.ResourceID
	for _, r := range rm.requested() {
		ids = append(ids, r.SlotID.ResourceID)
	}
	return ids
}

// requestedProfiles returns the profile of each requestSlot so far, in the
// order of requested.
func (rm *resourceManager) requestedProfiles() []api.ResourceProfile {
	var profiles []api.ResourceProfile
	for _, r := range rm.requested() {
		profiles = append(profiles, r.Profile)
	}
	return profiles
}

func (rm *resourceManager) notEnoughResources() []notEnoughResources {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return slices.Clone(rm.notEnough)
}

func TestTheSlotManagerRequestsExactlyTheMissingSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, false)
		rm.registerTaskManager("tm-1", 2, small)
		rm.registerTaskManager("tm-2", 2, small)
		job := api.NewJobID()

		rm.declare(job, need(unknown, 3))
		rm.check()

		got := rm.requested()
		require.Equal(t, []api.ResourceID{"tm-1", "tm-1", "tm-2"}, rm.requestedFrom(),
			"a job that lacks 3 slots gets 3 requestSlot calls, the first TaskManager filled before the next")
		for _, r := range got {
			assert.Equal(t, job, r.JobID, "requestSlot names the job")
			assert.Equal(t, api.DynamicSlotID(r.SlotID.ResourceID), r.SlotID, "requestSlot asks the TaskExecutor for a new dynamic slot")
			assert.Equal(t, small, r.Profile, "requestSlot carries the TaskManager's default slot profile for an unknown requirement")
			assert.Equal(t, jobMasterAddress, r.JobMasterAddress, "the TaskExecutor must know where to offer the slot (m8)")
			assert.Equal(t, rm.id, r.RMID, "requestSlot carries the ResourceManager's fencing token")
			assert.Contains(t, rm.logs.String(), "Starting allocation of slot "+r.AllocationID.String()+" from "+string(r.SlotID.ResourceID)+
				" for job "+job.String()+" with resource profile "+small.String()+".")
		}
		assert.Equal(t, api.ZeroResourceProfile, rm.freeResourceOf("tm-1"), "tm-1 is used up")
		assert.Equal(t, small, rm.freeResourceOf("tm-2"), "tm-2 has one default slot's worth left")

		rm.check()
		assert.Len(t, rm.requested(), 3, "a job that holds what it declared gets nothing more")
	})
}

func TestTheSlotManagerCutsSlotsOfDifferentSizesOutOfOneTaskManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", 4, small)
		rm.registerTaskManager("tm-2", 4, small)
		job := api.NewJobID()

		rm.declare(job, need(large, 1), need(small, 1), need(half, 2))
		rm.check()

		assert.Equal(t, []api.ResourceProfile{large, small, half, half}, rm.requestedProfiles(),
			"each slot must be requested with the profile its requirement declared")
		assert.Equal(t, []api.ResourceID{"tm-1", "tm-1", "tm-1", "tm-1"}, rm.requestedFrom(),
			"the four slots fit into tm-1 together, so tm-2 must not be touched")
		assert.Equal(t, api.ZeroResourceProfile, rm.freeResourceOf("tm-1"))
		assert.Empty(t, rm.notEnoughResources(), "the job has everything it asked for")
	})
}

func TestTheSlotManagerNeverRequestsMoreThanATaskManagerHas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", 2, small)
		job := api.NewJobID()

		rm.declare(job, need(huge, 1))
		rm.check()

		assert.Empty(t, rm.requested(), "no TaskManager has the resources for this slot, so none may be requested")
		assert.Equal(t, []notEnoughResources{{job, 0}}, rm.notEnoughResources(),
			"after the start-up period the job must be told that its requirements cannot be met")
		assert.Contains(t, rm.logs.String(), "Could not fulfill resource requirements of job "+job.String()+".")
	})
}

func TestTheSlotManagerServesSpecificProfilesBeforeUnknownOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", 2, small) // room for one large slot
		rm.registerTaskManager("tm-2", 1, small)
		job := api.NewJobID()

		rm.declare(job, need(unknown, 1), need(large, 1))
		rm.check()

		require.Len(t, rm.requested(), 2, "both requirements fit, so both must be requested")
		assert.Equal(t, []api.ResourceProfile{large, small}, rm.requestedProfiles(),
			"the large requirement must get a large slot, and the unknown one a default slot")
		assert.Equal(t, []api.ResourceID{"tm-1", "tm-2"}, rm.requestedFrom(),
			"the large slot must come out of tm-1, the only TaskManager with room for it, so the unknown requirement goes to tm-2")
		assert.Empty(t, rm.notEnoughResources(), "the job has everything it asked for")
	})
}

func TestTheSlotManagerGivesEachResourceToOneJobFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", 2, small)
		first, second := api.NewJobID(), api.NewJobID()

		rm.declare(first, need(unknown, 1))
		rm.declare(second, need(unknown, 2)) // within the same check delay
		rm.check()

		var jobs []api.JobID
		for _, r := range rm.requested() {
			jobs = append(jobs, r.JobID)
		}
		require.Len(t, jobs, 2, "tm-1 has room for two default slots: two requestSlot calls")
		assert.ElementsMatch(t, []api.JobID{first, second}, jobs,
			"the job that declared first gets what it asked for, the second job what is left")
		assert.Equal(t, []notEnoughResources{{second, 1}}, rm.notEnoughResources(),
			"the second job, holding 1 slot of 2, must be told; the first has what it needs")
	})
}

func startCluster(t *testing.T, taskManagers, slots int) (*minicluster.MiniCluster, *scenario.Logs) {
	return scenario.Cluster(t, minicluster.Config{NumTaskManagers: taskManagers, NumSlotsPerTaskManager: slots})
}

// submitNumbers submits an unbounded numbers job whose every vertex runs
// at parallelism; it needs one slot per parallel subtask.
func submitNumbers(t *testing.T, cluster *minicluster.MiniCluster, parallelism int) api.JobID {
	t.Helper()
	collector := numbers.NewCollector()
	t.Cleanup(collector.Close)
	g := numbers.JobGraph(numbers.Config{Parallelism: parallelism, Unbounded: true, Collector: collector})
	require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
	jobID, err := cluster.SubmitJob(context.Background(), g)
	require.NoError(t, err)
	return jobID
}

// awaitRunningTasks waits until n tasks of the job have reported RUNNING
// (step m11), or a minute of fake time has passed.
func awaitRunningTasks(cluster *minicluster.MiniCluster, jobID api.JobID, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return cluster.Trace().Await(ctx, jobID, func(events []trace.Event) bool {
		running := 0
		for _, e := range events {
			if e.Step == trace.M11 && strings.HasSuffix(e.Message, " to RUNNING.") {
				running++
			}
		}
		return running >= n
	})
}

// allocationsFor counts the "Starting allocation of slot …" lines for a job.
func allocationsFor(logs *scenario.Logs, jobID api.JobID) int {
	return strings.Count(logs.String(), " for job "+jobID.String()+" with resource profile ")
}

func TestAJobGetsASlotForEachParallelSubtaskAndRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t, 2, 2)
		jobID := submitNumbers(t, cluster, 3)

		require.NoError(t, awaitRunningTasks(cluster, jobID, 9), "each of the 9 subtasks (3 vertices at parallelism 3) must get a slot and run")
		assert.Equal(t, 3, allocationsFor(logs, jobID), "three subtasks sharing slots need three slots, no more")

		infos, err := cluster.ResourceManager().RequestTaskManagerInfo(context.Background())
		require.NoError(t, err)
		var free []int
		for _, tm := range infos {
			free = append(free, tm.NumberFreeSlots)
		}
		slices.Sort(free)
		assert.Equal(t, []int{0, 1}, free, "one TaskManager is filled before the next is touched")
	})
}

// The job's own slot.request.timeout (Flink's default: 5 min, the same
// as the start-up period) is made longer here, so that the
// ResourceManager, not the JobMaster's slot request timeout, is the one
// that gives up on the job.
func TestAJobThatLacksSlotsWaitsThroughTheStartUpPeriodThenFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := scenario.Cluster(t, minicluster.Config{
			NumTaskManagers: 1, NumSlotsPerTaskManager: 2,
			StartUpPeriod: resourcemanager.DefaultStartUpPeriod, SlotRequestTimeout: 2 * resourcemanager.DefaultStartUpPeriod,
		})
		jobID := submitNumbers(t, cluster, 3)

		ctx, cancel := context.WithTimeout(context.Background(), resourcemanager.DefaultStartUpPeriod-time.Second)
		_, err := cluster.RequestJobResult(ctx, jobID)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "during the start-up period a job that lacks slots waits for TaskManagers")
		assert.Equal(t, 2, allocationsFor(logs, jobID), "the two free slots go to the job at once; the third requirement waits")
		assert.NotContains(t, logs.String(), "Could not fulfill resource requirements", "nobody is told during the start-up period")

		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		result, err := cluster.RequestJobResult(ctx, jobID)
		require.NoError(t, err, "once the start-up period is over the job must be told that no slot is coming")
		assert.Equal(t, api.JobFailed, result.JobStatus, "without restarts the job fails")
		assert.Contains(t, result.FailureCause, "NoResourceAvailableException: Could not acquire the minimum required resources.")
		assert.Contains(t, logs.String(), "Could not fulfill resource requirements of job "+jobID.String()+".")
	})
}
