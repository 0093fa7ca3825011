// Exercise m07: the SlotManager matches what jobs lack to free slots.
//
// The tests look at the decision from three distances:
//
//   - TestTheMatchingRule calls DefaultResourceAllocationStrategy on its
//     own. It is a pure function, so a table of (missing, free) → (allocations,
//     unfulfilled) says everything about it.
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
	large   = api.ResourceProfileFromResources(2, 1024)
	unknown = api.UnknownResourceProfile
)

func need(profile api.ResourceProfile, slots int) gateway.ResourceRequirement {
	return gateway.ResourceRequirement{ResourceProfile: profile, NumberOfRequiredSlots: slots}
}

func slotOf(taskManager string, n int) api.SlotID {
	return api.SlotID{ResourceID: api.ResourceID(taskManager), SlotNumber: n}
}

// tryFulfill asks the strategy. A strategy that panics fails the test here,
// on this line, instead of ending the whole test binary.
func tryFulfill(t *testing.T, missing []slotmanager.JobRequirements, free []slotmanager.FreeSlot) (result slotmanager.ResourceAllocationResult) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("TryFulfillRequirements must decide, not panic: %v", r)
		}
	}()
	return slotmanager.DefaultResourceAllocationStrategy{}.TryFulfillRequirements(missing, free)
}

// The rule, one case per line of its documentation: jobs first come, first
// served; specific profiles before unknown ones; each requirement takes the
// first free slots that match it, TaskManager by TaskManager; what no slot
// serves is reported with the number still missing.
func TestTheMatchingRule(t *testing.T) {
	// IDs that say in a failure which job and which TaskManager they are.
	jobA, jobB := mustParse[api.JobID](t, strings.Repeat("a", 32)), mustParse[api.JobID](t, strings.Repeat("b", 32))
	tm1, tm2 := mustParse[api.InstanceID](t, strings.Repeat("1", 32)), mustParse[api.InstanceID](t, strings.Repeat("2", 32))
	instances := map[string]api.InstanceID{"tm-1": tm1, "tm-2": tm2}
	free := func(tm string, n int, p api.ResourceProfile) slotmanager.FreeSlot {
		return slotmanager.FreeSlot{SlotID: slotOf(tm, n), InstanceID: instances[tm], ResourceProfile: p}
	}
	give := func(job api.JobID, tm string, n int, p api.ResourceProfile) slotmanager.SlotAllocation {
		return slotmanager.SlotAllocation{JobID: job, SlotID: slotOf(tm, n), InstanceID: instances[tm], ResourceProfile: p}
	}
	lacks := func(job api.JobID, reqs ...gateway.ResourceRequirement) slotmanager.JobRequirements {
		return slotmanager.JobRequirements{JobID: job, Requirements: reqs}
	}
	twoByTwo := []slotmanager.FreeSlot{free("tm-1", 0, small), free("tm-1", 1, small), free("tm-2", 0, small), free("tm-2", 1, small)}

	tests := []struct {
		name            string
		missing         []slotmanager.JobRequirements
		free            []slotmanager.FreeSlot
		wantAllocations []slotmanager.SlotAllocation
		wantUnfulfilled []slotmanager.JobRequirements
	}{
		{
			name:            "exactly the missing number of slots",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(small, 2))},
			free:            twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, "tm-1", 0, small), give(jobA, "tm-1", 1, small)},
		},
		{
			name:            "one TaskManager is filled before the next",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(unknown, 3))},
			free:            twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, "tm-1", 0, unknown), give(jobA, "tm-1", 1, unknown), give(jobA, "tm-2", 0, unknown)},
		},
		{
			name:    "what no slot serves is reported with the number still missing",
			missing: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 5))},
			free:    twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, "tm-1", 0, unknown), give(jobA, "tm-1", 1, unknown), give(jobA, "tm-2", 0, unknown), give(jobA, "tm-2", 1, unknown),
			},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
		},
		{
			name:            "no free slot at all",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1))},
		},
		{
			name:            "a slot smaller than the requirement does not serve it",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
			free:            []slotmanager.FreeSlot{free("tm-1", 0, small)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
		{
			name:            "a larger slot serves a smaller requirement, which keeps its own profile",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(small, 1))},
			free:            []slotmanager.FreeSlot{free("tm-1", 0, large)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, "tm-1", 0, small)},
		},
		{
			name:    "specific profiles are served before unknown ones",
			missing: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 1), need(large, 1))},
			free:    []slotmanager.FreeSlot{free("tm-1", 0, large), free("tm-1", 1, small)},
			// In the declared order the unknown requirement would take the
			// large slot, and the large requirement would find none.
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, "tm-1", 0, large), give(jobA, "tm-1", 1, unknown)},
		},
		{
			name:    "jobs are served first come, first served, and no slot twice",
			missing: []slotmanager.JobRequirements{lacks(jobA, need(unknown, 3)), lacks(jobB, need(unknown, 2))},
			free:    twoByTwo,
			wantAllocations: []slotmanager.SlotAllocation{
				give(jobA, "tm-1", 0, unknown), give(jobA, "tm-1", 1, unknown), give(jobA, "tm-2", 0, unknown),
				give(jobB, "tm-2", 1, unknown),
			},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobB, need(unknown, 1))},
		},
		{
			name:            "a requirement left short does not stop the job's next one",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1), need(unknown, 1))},
			free:            []slotmanager.FreeSlot{free("tm-1", 0, small)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobA, "tm-1", 0, unknown)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
		{
			name:            "a later job takes the slots an earlier job cannot use",
			missing:         []slotmanager.JobRequirements{lacks(jobA, need(large, 1)), lacks(jobB, need(small, 1))},
			free:            []slotmanager.FreeSlot{free("tm-1", 0, small)},
			wantAllocations: []slotmanager.SlotAllocation{give(jobB, "tm-1", 0, small)},
			wantUnfulfilled: []slotmanager.JobRequirements{lacks(jobA, need(large, 1))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tryFulfill(t, tt.missing, tt.free)
			assert.Equal(t, tt.wantAllocations, got.Allocations, "the slots handed out, in order")
			assert.Equal(t, tt.wantUnfulfilled, got.Unfulfilled, "what each job still lacks")
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
	t          *testing.T
	mainThread *rpc.Endpoint
	sm         *slotmanager.FineGrainedSlotManager
	id         api.ResourceManagerID
	logs       *scenario.Logs

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
	rm := &resourceManager{t: t, mainThread: rpc.NewEndpoint("StandaloneResourceManager"), id: api.NewResourceManagerID(), logs: &scenario.Logs{}}
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

// registerTaskManager registers a TaskExecutor called name with one free
// slot per profile.
func (rm *resourceManager) registerTaskManager(name string, profiles ...api.ResourceProfile) {
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
	var report gateway.SlotReport
	for i, p := range profiles {
		report = append(report, gateway.SlotStatus{SlotID: slotOf(name, i), ResourceProfile: p})
	}
	rm.do(func() { rm.sm.RegisterTaskManager(conn, report) })
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

// requested returns the requestSlot calls so far, ordered by slot, since
// the calls of one check travel concurrently.
func (rm *resourceManager) requested() []slotRequest {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	out := slices.Clone(rm.requests)
	slices.SortFunc(out, func(a, b slotRequest) int {
		if c := strings.Compare(string(a.SlotID.ResourceID), string(b.SlotID.ResourceID)); c != 0 {
			return c
		}
		return a.SlotID.SlotNumber - b.SlotID.SlotNumber
	})
	return out
}

func (rm *resourceManager) requestedSlots() []api.SlotID {
	var ids []api.SlotID
	for _, r := range rm.requested() {
		ids = append(ids, r.SlotID)
	}
	return ids
}

func (rm *resourceManager) notEnoughResources() []notEnoughResources {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return slices.Clone(rm.notEnough)
}

func TestTheSlotManagerRequestsExactlyTheMissingSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, false)
		rm.registerTaskManager("tm-1", small, small)
		rm.registerTaskManager("tm-2", small, small)
		job := api.NewJobID()

		rm.declare(job, need(unknown, 3))
		rm.check()

		got := rm.requested()
		require.Equal(t, []api.SlotID{slotOf("tm-1", 0), slotOf("tm-1", 1), slotOf("tm-2", 0)}, rm.requestedSlots(),
			"a job that lacks 3 slots gets 3 requestSlot calls, the first TaskManager filled before the next")
		for _, r := range got {
			assert.Equal(t, job, r.JobID, "requestSlot names the job")
			assert.Equal(t, unknown, r.Profile, "requestSlot carries the requirement's profile")
			assert.Equal(t, jobMasterAddress, r.JobMasterAddress, "the TaskExecutor must know where to offer the slot (m8)")
			assert.Equal(t, rm.id, r.RMID, "requestSlot carries the ResourceManager's fencing token")
			assert.Contains(t, rm.logs.String(), "Starting allocation of slot "+r.AllocationID.String()+" from "+string(r.SlotID.ResourceID)+
				" for job "+job.String()+" with resource profile ResourceProfile{UNKNOWN}.")
		}

		rm.check()
		assert.Len(t, rm.requested(), 3, "a job that holds what it declared gets nothing more")
	})
}

func TestTheSlotManagerNeverRequestsASlotTooSmallForTheRequirement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", small, small)
		job := api.NewJobID()

		rm.declare(job, need(large, 1))
		rm.check()

		assert.Empty(t, rm.requested(), "no free slot is large enough, so no slot may be requested")
		assert.Equal(t, []notEnoughResources{{job, 0}}, rm.notEnoughResources(),
			"after the start-up period the job must be told that its requirements cannot be met")
		assert.Contains(t, rm.logs.String(), "Could not fulfill resource requirements of job "+job.String()+".")
	})
}

func TestTheSlotManagerServesSpecificProfilesBeforeUnknownOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", large, small)
		job := api.NewJobID()

		rm.declare(job, need(unknown, 1), need(large, 1))
		rm.check()

		got := rm.requested()
		require.Len(t, got, 2, "both requirements fit the two slots")
		assert.Equal(t, large, got[0].Profile, "the large slot must go to the large requirement")
		assert.Equal(t, unknown, got[1].Profile, "the unknown requirement takes what is left")
		assert.Empty(t, rm.notEnoughResources(), "the job has everything it asked for")
	})
}

func TestTheSlotManagerGivesEachFreeSlotToOneJobFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rm := startSlotManager(t, true)
		rm.registerTaskManager("tm-1", small, small)
		first, second := api.NewJobID(), api.NewJobID()

		rm.declare(first, need(unknown, 1))
		rm.declare(second, need(unknown, 2)) // within the same check delay
		rm.check()

		got := rm.requested()
		require.Len(t, got, 2, "two free slots, two requestSlot calls")
		assert.Equal(t, first, got[0].JobID, "the job that declared first is served first")
		assert.Equal(t, second, got[1].JobID, "the second job gets the slot that is left")
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
