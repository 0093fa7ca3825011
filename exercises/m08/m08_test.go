// Exercise m08: the JobMaster accepts or rejects the slots TaskExecutors
// offer.
//
// The tests look at the decision from three distances:
//
//   - The TestTheJobMaster… tests drive a real JobMaster through its
//     gateway, as TaskExecutors do, with fake TaskExecutors that record the
//     tasks deployed to them (step m9): which offers come back accepted,
//     and which slots the job then uses.
//   - The TestTheSlotPool… test calls the SlotPool on its own, to see which
//     waiting request each accepted slot goes to.
//   - TestAJobRunsOnTheSlotsItsTaskManagersOffered runs a MiniCluster.
package m08_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
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
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

var slotProfile = api.ResourceProfileFromResources(1, 512)

// jobMaster is a real JobMaster for the job Source(2) ──ALL_TO_ALL──►
// Sink(2), whose four tasks share two slots, so the job waits for two
// slots. It has no ResourceManager: the slots arrive straight from the
// tests, as TaskExecutors would offer them after step m7.
type jobMaster struct {
	t     *testing.T
	rpc   *rpc.LocalService
	jm    *jobmaster.JobMaster
	id    api.JobMasterID
	jobID api.JobID
	trace *trace.Recorder
	logs  *scenario.Logs // the JobMaster's log

	mu       sync.Mutex
	deployed []deployment
}

// deployment is one submitTask a fake TaskExecutor received.
type deployment struct {
	TaskManager  api.ResourceID
	Task         string
	AllocationID api.AllocationID
}

func startJobMaster(t *testing.T) *jobMaster {
	t.Helper()
	g := jobgraph.New("two-stage job")
	source := jobgraph.NewJobVertex("Source", "test.Source", 2)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
	source.SlotSharingGroup, sink.SlotSharingGroup = "default", "default"
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)

	h := &jobMaster{t: t, rpc: rpc.NewLocalService(), id: api.NewJobMasterID(), jobID: g.JobID, trace: trace.NewRecorder(), logs: &scenario.Logs{}}
	jm, err := jobmaster.New(jobmaster.Config{Logger: slog.New(slog.NewTextHandler(h.logs, nil))},
		jobmaster.Deps{RPC: h.rpc, HA: highavailability.NewEmbeddedHaServices(), Trace: h.trace},
		g, h.id, func(*gateway.ArchivedExecutionGraph) {})
	require.NoError(t, err)
	h.jm = jm
	require.NoError(t, jm.Start())
	t.Cleanup(func() { assert.NoError(t, jm.Close()) })
	synctest.Wait() // scheduling has started: the job waits for two slots
	return h
}

// taskExecutor makes a fake TaskExecutor reachable under name; it records
// every task deployed to it.
func (h *jobMaster) taskExecutor(name string) gateway.TaskManagerLocation {
	h.t.Helper()
	location := gateway.TaskManagerLocation{ResourceID: api.ResourceID(name), Address: h.rpc.Address(name)}
	te := &gatewaytest.TaskExecutorGateway{
		SubmitTaskFunc: func(_ context.Context, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.deployed = append(h.deployed, deployment{location.ResourceID, tdd.TaskInfo.TaskName, tdd.AllocationID})
			return nil
		},
	}
	require.NoError(h.t, h.rpc.Register(location.Address, gateway.TaskExecutorGateway(te)))
	return location
}

// register is the TaskExecutor registering at the JobMaster, as its job
// leader service does before it offers anything.
func (h *jobMaster) register(tm gateway.TaskManagerLocation) {
	h.t.Helper()
	_, err := h.jm.RegisterTaskManager(context.Background(), h.id, h.jobID, tm)
	require.NoError(h.t, err)
}

// offer is step m8: the TaskExecutor offers slots and gets back those the
// JobMaster accepted.
func (h *jobMaster) offer(tm gateway.TaskManagerLocation, offers ...gateway.SlotOffer) ([]gateway.SlotOffer, error) {
	return h.jm.OfferSlots(context.Background(), h.id, tm.ResourceID, offers)
}

// deployments returns the tasks deployed so far, once the JobMaster has
// done everything it can.
func (h *jobMaster) deployments() []deployment {
	synctest.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.deployed)
}

// deployedTo reads the JobMaster's "Deploying <task> … to <where> with
// allocation id <id>" log lines: where the tasks of each slot went.
func (h *jobMaster) deployedTo() map[string]string {
	where := map[string]string{}
	for line := range strings.SplitSeq(h.logs.String(), "\n") {
		_, deploying, ok := strings.Cut(line, `msg="Deploying `)
		if !ok {
			continue
		}
		_, rest, _ := strings.Cut(deploying, " to ")
		tm, allocation, _ := strings.Cut(rest, " with allocation id ")
		allocation, _, _ = strings.Cut(allocation, `"`)
		where[allocation] = tm
	}
	return where
}

func newSlot(index int) gateway.SlotOffer {
	return gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: index, ResourceProfile: slotProfile}
}

// slotsUsed counts the tasks deployed into each slot.
func slotsUsed(deployed []deployment) map[api.AllocationID]int {
	used := make(map[api.AllocationID]int)
	for _, d := range deployed {
		used[d.AllocationID]++
	}
	return used
}

func TestTheJobMasterAcceptsTheSlotsItWaitsForAndUsesThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startJobMaster(t)
		tm := h.taskExecutor("taskexecutor-0")
		h.register(tm)
		a, b := newSlot(0), newSlot(1)

		accepted, err := h.offer(tm, a, b)
		require.NoError(t, err, "slots offered by a registered TaskManager must be accepted")
		assert.Equal(t, []gateway.SlotOffer{a, b}, accepted, "slots offered by a registered TaskManager must be accepted when the job waits for them")

		assert.Equal(t, map[api.AllocationID]int{a.AllocationID: 2, b.AllocationID: 2}, slotsUsed(h.deployments()),
			"the four tasks are deployed into the two accepted slots, two tasks sharing each")
		where := tm.String() // "taskexecutor-0 @ pekko://…"
		assert.Equal(t, map[string]string{a.AllocationID.String(): where, b.AllocationID.String(): where}, h.deployedTo(),
			"the JobMaster must know where an accepted slot is, its TaskExecutor and that one's address: "+
				"each \"Deploying …\" line of its log names them")
		var m8 []string
		for _, e := range h.trace.JobEvents(h.jobID) {
			if e.Step == trace.M8 {
				m8 = append(m8, e.Message)
			}
		}
		assert.Equal(t, []string{"offerSlots from taskexecutor-0: 2 offered, 2 accepted"}, m8, "the trace records step m8")
	})
}

func TestTheJobMasterRefusesAnOfferFromAnUnknownTaskManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startJobMaster(t)
		tm := h.taskExecutor("taskexecutor-0") // reachable, but never registered at the JobMaster
		a, b := newSlot(0), newSlot(1)

		accepted, err := h.offer(tm, a, b)
		assert.EqualError(t, err, "Unknown TaskManager taskexecutor-0",
			"an offer from a TaskManager that did not register at the JobMaster must be refused with Flink's error")
		assert.Empty(t, accepted)
		assert.Empty(t, h.deployments(), "nothing may be deployed into the slots of an unknown TaskManager")

		h.register(tm)
		accepted, err = h.offer(tm, a, b)
		require.NoError(t, err)
		assert.Equal(t, []gateway.SlotOffer{a, b}, accepted, "once registered, the same TaskManager's offer is accepted: the refused one took nothing")
	})
}

func TestTheJobMasterRejectsSlotsNobodyWaitsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startJobMaster(t)
		tm := h.taskExecutor("taskexecutor-0")
		h.register(tm)
		a, b, c := newSlot(0), newSlot(1), newSlot(2)

		accepted, err := h.offer(tm, a, b, c)
		require.NoError(t, err)
		assert.Equal(t, []gateway.SlotOffer{a, b}, accepted,
			"the job waits for two slots: it takes two, and the third is rejected (its TaskExecutor frees it)")

		d := newSlot(3)
		accepted, err = h.offer(tm, d)
		require.NoError(t, err)
		assert.Empty(t, accepted, "a slot offered when no request waits is rejected")
		assert.Len(t, h.deployments(), 4, "four tasks, each deployed once")
	})
}

// A TaskExecutor whose offer timed out offers the same slots again. The
// JobMaster may have accepted them the first time: it accepts them again,
// and they stay the slots they were.
func TestTheJobMasterAcceptsARepeatedOfferAgainAndUsesTheSlotOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startJobMaster(t)
		tm := h.taskExecutor("taskexecutor-0")
		h.register(tm)
		a, b := newSlot(0), newSlot(1)

		accepted, err := h.offer(tm, a)
		require.NoError(t, err)
		require.Equal(t, []gateway.SlotOffer{a}, accepted, "the job waits for two slots, so it takes the first")
		assert.Empty(t, h.deployments(), "the job's tasks are deployed together, once both slots are there")

		accepted, err = h.offer(tm, a)
		require.NoError(t, err)
		assert.Equal(t, []gateway.SlotOffer{a}, accepted, "a slot accepted before must be accepted again when it is offered again")
		assert.Empty(t, h.deployments(), "an offered-again slot is still one slot: the job still waits for its second")

		accepted, err = h.offer(tm, a, b)
		require.NoError(t, err)
		assert.Equal(t, []gateway.SlotOffer{a, b}, accepted)
		assert.Equal(t, map[api.AllocationID]int{a.AllocationID: 2, b.AllocationID: 2}, slotsUsed(h.deployments()),
			"each slot serves one request: two tasks in each")
	})
}

// offerToPool offers slots to a slot pool. A pool that panics fails the
// test here, instead of ending the whole test binary.
func offerToPool(t *testing.T, pool *slotpool.SlotPool, tm gateway.TaskManagerLocation, offers ...gateway.SlotOffer) (accepted []gateway.SlotOffer) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("SlotPool.OfferSlots must answer, not panic: %v", r)
		}
	}()
	return pool.OfferSlots(tm, offers)
}

// Each accepted slot goes to the oldest waiting request it can serve; a
// slot too small for every waiting request is rejected.
func TestTheSlotPoolGivesEachSlotToTheOldestRequestItCanServe(t *testing.T) {
	small := slotProfile
	large := api.ResourceProfileFromResources(2, 1024)
	pool := slotpool.New(api.NewJobID(), "pekko://flink/user/rpc/jobmanager_1", func(func()) {}, slog.New(slog.DiscardHandler))
	tm := gateway.TaskManagerLocation{ResourceID: "taskexecutor-0", Address: "pekko://flink/user/rpc/taskmanager_0"}
	var served []string // "request ← slot"
	request := func(id slotpool.SlotRequestID, name string, profile api.ResourceProfile) {
		pool.RequestNewAllocatedSlot(id, profile, func(slot slotpool.PhysicalSlot) {
			served = append(served, name+" ← slot "+strconv.Itoa(slot.SlotIndex))
		}, nil)
	}
	request(1, "large request", large)
	request(2, "first small request", small)
	request(3, "second small request", small)

	smallSlot := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 0, ResourceProfile: small}
	accepted := offerToPool(t, pool, tm, smallSlot)
	assert.Equal(t, []gateway.SlotOffer{smallSlot}, accepted, "a small slot serves a small request")
	assert.Equal(t, []string{"first small request ← slot 0"}, served,
		"the slot goes to the oldest request it can serve: the large request is older, but a small slot cannot serve it")

	largeSlot := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 1, ResourceProfile: large}
	anotherSmall := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 2, ResourceProfile: small}
	accepted = offerToPool(t, pool, tm, largeSlot, anotherSmall)
	assert.Equal(t, []gateway.SlotOffer{largeSlot, anotherSmall}, accepted)
	assert.Equal(t, []string{"first small request ← slot 0", "large request ← slot 1", "second small request ← slot 2"}, served)
	slot, held := pool.Slot(largeSlot.AllocationID)
	require.True(t, held, "an accepted slot is held by the pool")
	assert.Equal(t, slotpool.PhysicalSlot{AllocationID: largeSlot.AllocationID, TaskManager: tm, SlotIndex: 1, ResourceProfile: large}, slot,
		"the pool remembers where the slot is, for the deployment (m9)")

	request(4, "another large request", large)
	tooSmall := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 3, ResourceProfile: small}
	assert.Empty(t, offerToPool(t, pool, tm, tooSmall), "a slot too small for every waiting request must be rejected")
	assert.Equal(t, 1, pool.PendingRequests(), "the large request still waits")
	assert.Equal(t, 3, pool.NumberOfSlots(), "the pool holds the three slots it accepted, no more")
}

// A slot the ResourceManager cut to a request's exact profile serves that
// request, even when an older request would take any slot: otherwise the
// exact request is left with slots it cannot use.
func TestTheSlotPoolServesTheRequestOfExactlyTheSlotsProfileFirst(t *testing.T) {
	counting := api.ResourceProfileFromResources(0.25, 64)
	pool := slotpool.New(api.NewJobID(), "pekko://flink/user/rpc/jobmanager_1", func(func()) {}, slog.New(slog.DiscardHandler))
	tm := gateway.TaskManagerLocation{ResourceID: "taskexecutor-0", Address: "pekko://flink/user/rpc/taskmanager_0"}
	var served []string
	request := func(id slotpool.SlotRequestID, name string, profile api.ResourceProfile) {
		pool.RequestNewAllocatedSlot(id, profile, func(slot slotpool.PhysicalSlot) {
			served = append(served, name+" ← slot "+strconv.Itoa(slot.SlotIndex))
		}, nil)
	}
	request(1, "any-slot request", api.UnknownResourceProfile)
	request(2, "counting request", counting)

	countingSlot := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 2, ResourceProfile: counting}
	defaultSlot := gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: 3, ResourceProfile: slotProfile}
	accepted := offerToPool(t, pool, tm, countingSlot, defaultSlot)
	assert.Equal(t, []gateway.SlotOffer{countingSlot, defaultSlot}, accepted, "both slots are needed")
	assert.Equal(t, []string{"counting request ← slot 2", "any-slot request ← slot 3"}, served,
		"the slot of exactly the counting profile goes to the counting request, although the any-slot request is older")
}

func TestAJobRunsOnTheSlotsItsTaskManagersOffered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2})
		collector := numbers.NewCollector()
		t.Cleanup(collector.Close)
		g := numbers.JobGraph(numbers.Config{Parallelism: 4, Unbounded: true, Collector: collector})
		require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
		jobID, err := cluster.SubmitJob(context.Background(), g)
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = cluster.Trace().Await(ctx, jobID, func(events []trace.Event) bool {
			running := 0
			for _, e := range events {
				if e.Step == trace.M11 && strings.HasSuffix(e.Message, " to RUNNING.") {
					running++
				}
			}
			return running == 12
		})
		require.NoError(t, err, "every subtask (3 vertices at parallelism 4) must run in the slots its TaskManagers offered")

		offeredBy := map[string]bool{}
		for _, e := range cluster.Trace().JobEvents(jobID) {
			if e.Step != trace.M8 {
				continue
			}
			var from string
			var offered, accepted int
			_, err := fmt.Sscanf(e.Message, "offerSlots from %s %d offered, %d accepted", &from, &offered, &accepted)
			require.NoError(t, err, "m8 trace: %s", e.Message)
			offeredBy[strings.TrimSuffix(from, ":")] = true
			assert.Equal(t, offered, accepted, "the ResourceManager asked for these slots because the job waits for them: %s", e.Message)
		}
		assert.Equal(t, map[string]bool{"taskexecutor-0": true, "taskexecutor-1": true}, offeredBy,
			"four slots on two TaskManagers of two: both offered theirs")
		assert.Contains(t, logs.String(), "Offer reserved slots to the leader of job "+jobID.String()+".")
	})
}
