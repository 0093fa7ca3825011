package adaptive

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness runs an AdaptiveScheduler on a main thread of its own, with a
// slot pool whose slots the test offers, and one fake TaskExecutor
// gateway for every TaskManager that records what it is asked.
type harness struct {
	t         *testing.T
	main      *rpc.Endpoint
	pool      *slotpool.SlotPool
	scheduler *AdaptiveScheduler
	logs      *logbuf.Buffer
	final     *gateway.ArchivedExecutionGraph

	mu        sync.Mutex
	submitted []gateway.TaskDeploymentDescriptor
	cancelled []api.ExecutionAttemptID
}

// ticker is Source (4) → Count (4), all-to-all, in one slot sharing group:
// it wants 4 slots and needs 1.
func ticker() *jobgraph.JobGraph {
	g := jobgraph.New("Ticker")
	source := jobgraph.NewJobVertex("Source", "test.Source", 4)
	count := jobgraph.NewJobVertex("Count", "test.Count", 4)
	source.SlotSharingGroup, count.SlotSharingGroup = "default", "default"
	count.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(count)
	return g
}

func newHarness(t *testing.T, settings Settings, restarts failover.RestartBackoffTimeStrategy) *harness {
	return newHarnessWithCheckpointing(t, settings, restarts, nil)
}

// newHarnessWithCheckpointing is newHarness with the job checkpointed as
// checkpointing says (nil: not at all).
func newHarnessWithCheckpointing(t *testing.T, settings Settings, restarts failover.RestartBackoffTimeStrategy,
	checkpointing *scheduler.Checkpointing) *harness {
	h := &harness{t: t, main: rpc.NewEndpoint("jobmanager_test"), logs: &logbuf.Buffer{}}
	h.main.Start(nil)
	t.Cleanup(func() { h.main.Close(nil) })
	tm := &gatewaytest.TaskExecutorGateway{
		SubmitTaskFunc: func(_ context.Context, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.submitted = append(h.submitted, tdd)
			return nil
		},
		CancelTaskFunc: func(_ context.Context, id api.ExecutionAttemptID) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.cancelled = append(h.cancelled, id)
			return nil
		},
	}
	g := ticker()
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.onMain(func() {
		h.pool = slotpool.New(g.JobID, "jm", func(fn func()) { h.main.RunAsync(fn) }, slog.New(slog.DiscardHandler))
		h.pool.ConnectToResourceManager(func(gateway.ResourceRequirements) {})
		h.scheduler = New(Config{RPCTimeout: 10 * time.Second, RestartStrategy: restarts, Settings: settings, Logger: logger}, Deps{
			JobGraph: g, MainThread: h.main, SlotPool: h.pool,
			TaskExecutor: func(api.ResourceID) (gateway.TaskExecutorGateway, bool) { return tm, true },
			JobMasterID:  api.NewJobMasterID(),
			OnTerminal:   func(a *gateway.ArchivedExecutionGraph) { h.final = a },

			Checkpointing: checkpointing,
		})
	})
	return h
}

// onMain runs fn on the scheduler's main thread and waits for it.
func (h *harness) onMain(fn func()) {
	_, err := rpc.CallAsync(context.Background(), h.main, func() (struct{}, error) { fn(); return struct{}{}, nil })
	require.NoError(h.t, err)
}

// offer offers n slots of TaskManager tm.
func (h *harness) offer(tm string, n int) {
	offers := make([]gateway.SlotOffer, n)
	for i := range offers {
		offers[i] = gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: i}
	}
	h.onMain(func() {
		h.pool.OfferSlots(gateway.TaskManagerLocation{ResourceID: api.ResourceID(tm), Address: tm}, offers)
	})
}

// state returns the scheduler's state and the job's status.
func (h *harness) state() (name string, status api.JobStatus) {
	h.onMain(func() { name, status = h.scheduler.State(), h.scheduler.RequestJobStatus() })
	return name, status
}

// deployed returns the deployments from the given one on.
func (h *harness) deployed(from int) []gateway.TaskDeploymentDescriptor {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]gateway.TaskDeploymentDescriptor(nil), h.submitted[from:]...)
}

// parallelism reads the parallelism of the job's vertices from GET
// /jobs/{jobid}'s snapshot: "Source=2 Count=2".
func (h *harness) parallelism() string {
	var out string
	h.onMain(func() {
		for i, v := range h.scheduler.RequestJob().Vertices {
			if i > 0 {
				out += " "
			}
			out += fmt.Sprintf("%s=%d", v.Name, v.Parallelism)
		}
	})
	return out
}

// report reports a task's new state as its TaskExecutor would.
func (h *harness) report(tdd gateway.TaskDeploymentDescriptor, state api.ExecutionState) {
	var err error
	h.onMain(func() {
		err = h.scheduler.UpdateTaskExecutionState(gateway.TaskExecutionState{AttemptID: tdd.ExecutionAttemptID, State: state})
	})
	require.NoError(h.t, err)
}

// runAll reports the deployments RUNNING.
func (h *harness) runAll(tdds []gateway.TaskDeploymentDescriptor) {
	for _, tdd := range tdds {
		h.report(tdd, api.ExecutionInitializing)
		h.report(tdd, api.ExecutionRunning)
	}
}

// path is the states the job went through, "Created → … → Executing".
func (h *harness) path() string {
	var out string
	h.onMain(func() {
		for i, tr := range h.scheduler.Transitions() {
			if i == 0 {
				out = tr.From
			}
			out += " → " + tr.To
		}
	})
	return out
}

// gatewayFailed is a FAILED report of a deployment.
func gatewayFailed(tdd gateway.TaskDeploymentDescriptor, cause error) gateway.TaskExecutionState {
	return gateway.TaskExecutionState{AttemptID: tdd.ExecutionAttemptID, State: api.ExecutionFailed, FailureCause: cause}
}

// finalGraph is the graph OnTerminal got, nil before.
func (h *harness) finalGraph() (a *gateway.ArchivedExecutionGraph) {
	h.onMain(func() { a = h.final })
	return a
}
