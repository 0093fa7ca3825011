package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/rpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// taskExecutor records what the scheduler asks of the TaskExecutor that
// holds every slot, and answers each SubmitTask with submitErr.
type taskExecutor struct {
	mu        sync.Mutex
	submitted []gateway.TaskDeploymentDescriptor
	cancelled []api.ExecutionAttemptID
	released  []api.ResultPartitionID
	submitErr error
	cancelErr error
}

func (te *taskExecutor) gateway() *gatewaytest.TaskExecutorGateway {
	return &gatewaytest.TaskExecutorGateway{
		SubmitTaskFunc: func(_ context.Context, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) error {
			te.mu.Lock()
			defer te.mu.Unlock()
			te.submitted = append(te.submitted, tdd)
			return te.submitErr
		},
		ReleasePartitionsFunc: func(_ context.Context, _ api.JobID, ids []api.ResultPartitionID) error {
			te.mu.Lock()
			defer te.mu.Unlock()
			te.released = append(te.released, ids...)
			return nil
		},
		CancelTaskFunc: func(_ context.Context, id api.ExecutionAttemptID) error {
			te.mu.Lock()
			defer te.mu.Unlock()
			te.cancelled = append(te.cancelled, id)
			return te.cancelErr
		},
	}
}

// releasedPartitions returns the partitions the scheduler asked to release.
func (te *taskExecutor) releasedPartitions() []api.ResultPartitionID {
	te.mu.Lock()
	defer te.mu.Unlock()
	return append([]api.ResultPartitionID(nil), te.released...)
}

func (te *taskExecutor) deployed() []gateway.TaskDeploymentDescriptor {
	te.mu.Lock()
	defer te.mu.Unlock()
	return append([]gateway.TaskDeploymentDescriptor(nil), te.submitted...)
}

type harness struct {
	t         *testing.T
	main      *rpc.Endpoint
	pool      *slotpool.SlotPool
	scheduler *DefaultScheduler
	graph     *executiongraph.ExecutionGraph
	tm        *taskExecutor
	logs      *logbuf.Buffer // the scheduler's and the ExecutionGraph's lines
	declared  []gateway.ResourceRequirements
	final     *gateway.ArchivedExecutionGraph
	// gone holds the TaskManagers the JobMaster forgot: their gateways
	// are not found any more, as the JobMaster's are not.
	gone map[api.ResourceID]bool
}

// source(p1) →ALL_TO_ALL→ sink(p2), both in slot sharing group "default".
func newHarness(t *testing.T, p1, p2 int) *harness { return newHarnessWithRestarts(t, p1, p2, nil) }

// newHarnessWithRestarts is newHarness with a restart strategy (nil: none).
func newHarnessWithRestarts(t *testing.T, p1, p2 int, restarts failover.RestartBackoffTimeStrategy) *harness {
	g := jobgraph.New("job")
	source := jobgraph.NewJobVertex("Source", "test.Source", p1)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", p2)
	source.SlotSharingGroup, sink.SlotSharingGroup = "default", "default"
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	return newHarnessForJob(t, g, Config{RestartStrategy: restarts})
}

// newHarnessForJob schedules the job g with cfg; the harness sets cfg's
// RPCTimeout and Logger.
func newHarnessForJob(t *testing.T, g *jobgraph.JobGraph, cfg Config) *harness {
	graph, err := executiongraph.BuildGraph(g)
	require.NoError(t, err)

	h := &harness{t: t, main: rpc.NewEndpoint("jobmanager_test"), graph: graph, tm: &taskExecutor{}, logs: &logbuf.Buffer{},
		gone: make(map[api.ResourceID]bool)}
	h.main.Start(nil)
	t.Cleanup(func() { h.main.Close(nil) })
	quiet := slog.New(slog.DiscardHandler)
	tm := h.tm.gateway()
	cfg.RPCTimeout = 10 * time.Second
	cfg.Logger = slog.New(slog.NewTextHandler(h.logs, nil))
	h.onMain(func() {
		h.pool = slotpool.New(g.JobID, "jm", func(fn func()) { h.main.RunAsync(fn) }, quiet)
		h.pool.ConnectToResourceManager(func(r gateway.ResourceRequirements) { h.declared = append(h.declared, r) })
		h.scheduler = NewDefaultScheduler(cfg, Deps{
			Graph: graph, JobGraph: g, MainThread: h.main, SlotPool: h.pool,
			TaskExecutor: func(id api.ResourceID) (gateway.TaskExecutorGateway, bool) { return tm, !h.gone[id] },
			JobMasterID:  api.NewJobMasterID(),
			OnTerminal:   func(a *gateway.ArchivedExecutionGraph) { h.final = a },
		})
	})
	return h
}

// onMain runs fn on the scheduler's main thread and waits for it.
func (h *harness) onMain(fn func()) {
	_, err := rpc.CallAsync(context.Background(), h.main, func() (struct{}, error) { fn(); return struct{}{}, nil })
	require.NoError(h.t, err)
}

// offer offers n slots of TaskManager tm-0.
func (h *harness) offer(n int) { h.offerFrom("tm-0", n) }

// offerFrom offers n slots of a TaskManager.
func (h *harness) offerFrom(tm api.ResourceID, n int) {
	offers := make([]gateway.SlotOffer, n)
	for i := range offers {
		offers[i] = gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: i}
	}
	h.onMain(func() { h.pool.OfferSlots(gateway.TaskManagerLocation{ResourceID: tm, Address: string(tm)}, offers) })
}

func (h *harness) report(tdd gateway.TaskDeploymentDescriptor, state api.ExecutionState, cause error) {
	var err error
	h.onMain(func() {
		err = h.scheduler.UpdateTaskExecutionState(gateway.TaskExecutionState{AttemptID: tdd.ExecutionAttemptID, State: state, FailureCause: cause})
	})
	require.NoError(h.t, err)
}

func (h *harness) jobStatus() (s api.JobStatus) {
	h.onMain(func() { s = h.scheduler.RequestJobStatus() })
	return s
}

func (h *harness) finalState() (s api.JobStatus, done bool) {
	h.onMain(func() {
		if h.final != nil {
			s, done = h.final.State, true
		}
	})
	return s, done
}

func TestSlotSharingNeedsTheLargestParallelismNotTheSum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 3, 2)
		h.onMain(h.scheduler.StartScheduling)
		synctest.Wait()

		assert.Equal(t, api.JobRunning, h.jobStatus())
		require.NotEmpty(t, h.declared)
		assert.Equal(t, 3, h.declared[len(h.declared)-1].TotalSlots(), "max(3, 2) slots, not 3+2")
	})
}

func TestNothingIsDeployedUntilEverySlotHasArrived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		assert.Empty(t, h.tm.deployed(), "one of two slots is not enough for the region")

		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		require.Len(t, deployed, 4, "2 sources + 2 sinks in 2 shared slots")
		slots := map[api.AllocationID]int{}
		for _, tdd := range deployed {
			slots[tdd.AllocationID]++
		}
		assert.Len(t, slots, 2)
		for _, n := range slots {
			assert.Equal(t, 2, n, "subtask i of the source and of the sink share a slot")
		}
	})
}

func TestDeploymentDescriptorsWireTheAllToAllEdge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 3)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(3)
		synctest.Wait()

		var sources, sinks []gateway.TaskDeploymentDescriptor
		for _, tdd := range h.tm.deployed() {
			if tdd.TaskInfo.TaskName == "Source" {
				sources = append(sources, tdd)
			} else {
				sinks = append(sinks, tdd)
			}
		}
		require.Len(t, sources, 2)
		require.Len(t, sinks, 3)
		for _, src := range sources {
			require.Len(t, src.ProducedPartitions, 1)
			assert.Equal(t, 3, src.ProducedPartitions[0].NumberOfSubpartitions, "one subpartition per consumer")
			assert.Equal(t, src.ExecutionAttemptID, src.ProducedPartitions[0].PartitionID.ProducerID)
		}
		for _, sink := range sinks {
			require.Len(t, sink.InputGates, 1)
			gate := sink.InputGates[0]
			assert.Equal(t, sink.SubtaskIndex(), gate.ConsumedSubpartitionIndex)
			require.Len(t, gate.ShuffleDescriptors, 2, "one channel per producer")
			assert.Equal(t, api.ResourceID("tm-0"), gate.ShuffleDescriptors[0].ProducerLocation)
		}
		assert.Same(t, &sinks[0].InputGates[0].ShuffleDescriptors[0], &sinks[1].InputGates[0].ShuffleDescriptors[0],
			"all consumers of one ConsumedPartitionGroup share one descriptor list")
	})
}

func TestJobFinishesWhenEveryTaskFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		require.Len(t, deployed, 2)

		for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished} {
			h.report(deployed[0], state, nil)
		}
		_, done := h.finalState()
		assert.False(t, done, "one task is still running")
		for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished} {
			h.report(deployed[1], state, nil)
		}
		state, done := h.finalState()
		assert.True(t, done)
		assert.Equal(t, api.JobFinished, state)
	})
}

func TestAFailedTaskFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		h.report(deployed[0], api.ExecutionInitializing, nil)
		h.report(deployed[0], api.ExecutionFailed, errors.New("open() threw"))
		synctest.Wait()

		assert.Equal(t, api.JobFailing, h.jobStatus(), "the other task is being cancelled")
		assert.Len(t, h.tm.cancelled, 1)
		h.report(deployed[1], api.ExecutionCanceled, nil)

		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFailed, state)
		assert.Contains(t, h.final.FailureCause, "Recovery is suppressed by NoRestartBackoffTimeStrategy")
		assert.Contains(t, h.final.FailureCause, "open() threw")
	})
}

func TestSubmitTaskErrorFailsTheTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.tm.submitErr = errors.New("No task slot allocated for job ID x and allocation ID y.")
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()

		// Both deployments fail: the first fails the job, the second is
		// being cancelled by then and counts as canceled.
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobFailed, state)
		assert.Contains(t, h.final.FailureCause, "No task slot allocated for job ID x and allocation ID y.")
	})
}

func TestCancelBeforeSlotsArriveCancelsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		h.onMain(h.scheduler.StartScheduling)
		synctest.Wait()
		h.onMain(h.scheduler.Cancel)
		synctest.Wait()

		state, done := h.finalState()
		require.True(t, done, "nothing was deployed, so nothing has to stop")
		assert.Equal(t, api.JobCanceled, state)
		assert.Equal(t, 0, h.declared[len(h.declared)-1].TotalSlots(), "the slot requests are withdrawn")
	})
}

func TestCancelARunningJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		h.onMain(h.scheduler.Cancel)
		synctest.Wait()
		assert.Equal(t, api.JobCancelling, h.jobStatus())
		assert.Len(t, h.tm.cancelled, 2)

		for _, tdd := range h.tm.deployed() {
			h.report(tdd, api.ExecutionCanceled, nil)
		}
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state)
	})
}

func TestUnknownAttemptIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		var err error
		h.onMain(func() {
			err = h.scheduler.UpdateTaskExecutionState(gateway.TaskExecutionState{State: api.ExecutionRunning})
		})
		assert.ErrorContains(t, err, "was not found.")
	})
}

func TestReportsCrossingACancelDoNotFailTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		require.Len(t, deployed, 2)

		h.onMain(h.scheduler.Cancel) // both tasks are DEPLOYING here: → CANCELING
		synctest.Wait()
		// The TaskExecutor had sent these before it saw the cancel.
		h.report(deployed[0], api.ExecutionInitializing, nil)
		h.report(deployed[0], api.ExecutionRunning, nil)
		h.report(deployed[1], api.ExecutionInitializing, nil)
		h.report(deployed[1], api.ExecutionRunning, nil)
		h.report(deployed[1], api.ExecutionFinished, nil)
		assert.Equal(t, api.JobCancelling, h.jobStatus())

		h.report(deployed[0], api.ExecutionCanceled, nil)
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state, "not FAILED: the reports lost the race with the cancel")
		for _, v := range h.final.Vertices {
			assert.Equal(t, api.ExecutionCanceled, v.Subtasks[0].State, v.Name)
		}
	})
}

func TestATaskFailingWhileBeingCanceledCompletesTheCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, 1)
		h.onMain(h.scheduler.StartScheduling)
		h.offer(1)
		synctest.Wait()
		deployed := h.tm.deployed()
		h.onMain(h.scheduler.Cancel)
		synctest.Wait()

		h.report(deployed[0], api.ExecutionFailed, errors.New("interrupted while cancelling"))
		h.report(deployed[1], api.ExecutionCanceled, nil)
		state, done := h.finalState()
		require.True(t, done)
		assert.Equal(t, api.JobCanceled, state, "a user's cancel ends CANCELED, as in Flink")
	})
}

func TestASlotThePoolAlreadyHoldsDoesNotCompleteTheRegionEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, 2)
		// The pool holds one free slot from an earlier request.
		h.onMain(func() {
			h.pool.RequestNewAllocatedSlot(1000, api.UnknownResourceProfile, func(slotpool.PhysicalSlot) {}, nil)
		})
		h.offer(1)
		h.onMain(func() { h.pool.CancelSlotRequest(1000) })

		h.onMain(h.scheduler.StartScheduling) // the first shared slot is served at once
		synctest.Wait()
		assert.Empty(t, h.tm.deployed(), "the second shared slot has not arrived")

		h.offer(1)
		synctest.Wait()
		assert.Len(t, h.tm.deployed(), 4)
	})
}

// loseTaskManager is what the JobMaster does when a TaskManager is gone:
// it forgets the TaskManager, then releases its slots in the pool and the
// scheduler.
func (h *harness) loseTaskManager(id api.ResourceID, cause error) {
	h.onMain(func() {
		h.gone[id] = true
		h.scheduler.ReleaseTaskManager(id, h.pool.ReleaseTaskManager(id), cause)
	})
}
