package scenario

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler"
	"flinklab/runtime/scheduler/adaptive"
)

// Scheduling is a job's scheduler without the JobMaster around it: the
// JobMaster's main thread (an rpc.Endpoint of its own), its slot pool,
// whose slots the test offers as TaskExecutors would at step m8, and one
// fake TaskExecutor gateway that records what the scheduler asks of the
// TaskManagers (submitTask, cancelTask, releasePartitions) and answers
// yes. The test plays the TaskExecutors: it reports each deployed task's
// states (Report), and loses a TaskManager when it likes (LoseTaskManager).
//
// Start it inside the test's synctest bubble (call it from synctest.Test)
// with StartDefaultScheduler or StartAdaptiveScheduler; it stops when the
// test ends. Its methods wait for the main thread, so call synctest.Wait
// to let what they set off come to rest.
type Scheduling struct {
	// Main is the JobMaster's main thread, where the scheduler lives.
	Main *rpc.Endpoint
	// Pool is the job's slot pool.
	Pool *slotpool.SlotPool
	// Scheduler is the scheduler under test.
	Scheduler scheduler.SchedulerNG
	// Logs holds the scheduler's lines, DEBUG included.
	Logs *Logs

	t     *testing.T
	final *gateway.ArchivedExecutionGraph // on the main thread

	mu           sync.Mutex
	submitted    []gateway.TaskDeploymentDescriptor
	cancelled    []api.ExecutionAttemptID
	released     []api.ResultPartitionID
	taskManagers map[api.AllocationID]api.ResourceID // where each offered slot is
}

// StartDefaultScheduler creates a DefaultScheduler for jg with cfg (its
// Logger and, if zero, its RPCTimeout are set here), as the JobMaster
// does at step m4. The job is CREATED; call StartScheduling.
func StartDefaultScheduler(t *testing.T, jg *jobgraph.JobGraph, cfg scheduler.Config) (*Scheduling, *executiongraph.ExecutionGraph) {
	t.Helper()
	graph, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	s := newScheduling(t, jg)
	cfg.Logger = s.logger()
	if cfg.RPCTimeout == 0 {
		cfg.RPCTimeout = 10 * time.Second
	}
	s.must(func() {
		s.Scheduler = scheduler.NewDefaultScheduler(cfg, scheduler.Deps{
			Graph: graph, JobGraph: jg, MainThread: s.Main, SlotPool: s.Pool,
			TaskExecutor: s.taskExecutor(), JobMasterID: api.NewJobMasterID(), OnTerminal: s.onTerminal,
		})
	})
	return s, graph
}

// StartAdaptiveScheduler creates an AdaptiveScheduler for jg with cfg
// (its Logger and, if zero, its RPCTimeout are set here), as the
// JobMaster does at step m4 under jobmanager.scheduler: adaptive. The
// scheduler is in state Created; call StartScheduling.
func StartAdaptiveScheduler(t *testing.T, jg *jobgraph.JobGraph, cfg adaptive.Config) (*Scheduling, *adaptive.AdaptiveScheduler) {
	t.Helper()
	s := newScheduling(t, jg)
	cfg.Logger = s.logger()
	if cfg.RPCTimeout == 0 {
		cfg.RPCTimeout = 10 * time.Second
	}
	var a *adaptive.AdaptiveScheduler
	s.must(func() {
		a = adaptive.New(cfg, adaptive.Deps{
			JobGraph: jg, MainThread: s.Main, SlotPool: s.Pool,
			TaskExecutor: s.taskExecutor(), JobMasterID: api.NewJobMasterID(), OnTerminal: s.onTerminal,
		})
		s.Scheduler = a
	})
	return s, a
}

func newScheduling(t *testing.T, jg *jobgraph.JobGraph) *Scheduling {
	s := &Scheduling{t: t, Main: rpc.NewEndpoint("jobmanager"), Logs: &Logs{}, taskManagers: make(map[api.AllocationID]api.ResourceID)}
	s.Main.SetLogger(s.logger())
	s.Main.Start(nil)
	t.Cleanup(func() { s.Main.Close(nil) })
	s.must(func() {
		s.Pool = slotpool.New(jg.JobID, "jobmanager", func(fn func()) { s.Main.RunAsync(fn) }, slog.New(slog.DiscardHandler))
		s.Pool.ConnectToResourceManager(func(gateway.ResourceRequirements) {})
	})
	return s
}

func (s *Scheduling) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(s.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (s *Scheduling) onTerminal(a *gateway.ArchivedExecutionGraph) { s.final = a }

// taskExecutor is the gateway of every TaskManager: it records each call
// and accepts it.
func (s *Scheduling) taskExecutor() func(api.ResourceID) (gateway.TaskExecutorGateway, bool) {
	gw := &gatewaytest.TaskExecutorGateway{
		SubmitTaskFunc: func(_ context.Context, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.submitted = append(s.submitted, tdd)
			return nil
		},
		CancelTaskFunc: func(_ context.Context, id api.ExecutionAttemptID) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.cancelled = append(s.cancelled, id)
			return nil
		},
		ReleasePartitionsFunc: func(_ context.Context, _ api.JobID, ids []api.ResultPartitionID) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.released = append(s.released, ids...)
			return nil
		},
	}
	return func(api.ResourceID) (gateway.TaskExecutorGateway, bool) { return gw, true }
}

// OnMain runs fn on the main thread and waits for it. A panic in fn comes
// back as the error.
func (s *Scheduling) OnMain(fn func()) error {
	_, err := rpc.CallAsync(context.Background(), s.Main, func() (struct{}, error) { fn(); return struct{}{}, nil })
	return err
}

// Panics returns the log lines of the panics the main thread caught in
// what it ran on its own (a timer, a slot pool's news), which no caller
// got as an error: "Caught exception while executing runnable in main
// thread.", with the panic as its cause.
func (s *Scheduling) Panics() []string {
	var lines []string
	for line := range strings.Lines(s.Logs.String()) {
		if strings.Contains(line, "Caught exception while executing runnable in main thread.") {
			line, _, _ = strings.Cut(line, " stack=")
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// must is OnMain for what the harness itself does: a panic there fails
// the test at once.
func (s *Scheduling) must(fn func()) {
	s.t.Helper()
	require.NoError(s.t, s.OnMain(fn))
}

// StartScheduling starts the scheduler (what the JobMaster does once it
// has registered at the ResourceManager). Its error is a panic on the
// main thread.
func (s *Scheduling) StartScheduling() error { return s.OnMain(s.Scheduler.StartScheduling) }

// Offer offers n slots of TaskManager tm, as its TaskExecutor does at
// step m8, and returns how many the slot pool accepted (it accepts a slot
// only for a request that waits for one).
func (s *Scheduling) Offer(tm string, n int) int {
	s.t.Helper()
	offers := make([]gateway.SlotOffer, n)
	s.mu.Lock()
	for i := range offers {
		offers[i] = gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: i}
		s.taskManagers[offers[i].AllocationID] = api.ResourceID(tm)
	}
	s.mu.Unlock()
	var accepted []gateway.SlotOffer
	s.must(func() {
		accepted = s.Pool.OfferSlots(gateway.TaskManagerLocation{ResourceID: api.ResourceID(tm), Address: tm}, offers)
	})
	return len(accepted)
}

// LoseTaskManager drops TaskManager tm, as the JobMaster does when its
// heartbeat times out: its slots leave the pool, and the scheduler fails
// what ran in them and forgets the partitions it held. The error is a
// panic on the main thread.
func (s *Scheduling) LoseTaskManager(tm string) error {
	cause := fmt.Errorf("Heartbeat of TaskManager with id %s timed out.", tm)
	return s.OnMain(func() {
		s.Scheduler.ReleaseTaskManager(api.ResourceID(tm), s.Pool.ReleaseTaskManager(api.ResourceID(tm)), cause)
	})
}

// Report reports a deployed task's new state, as its TaskExecutor does
// (updateTaskExecutionState). The error is the scheduler's answer, or a
// panic on the main thread.
func (s *Scheduling) Report(tdd gateway.TaskDeploymentDescriptor, state api.ExecutionState, cause error) error {
	var err error
	if panicked := s.OnMain(func() {
		err = s.Scheduler.UpdateTaskExecutionState(gateway.TaskExecutionState{AttemptID: tdd.ExecutionAttemptID, State: state, FailureCause: cause})
	}); panicked != nil {
		return panicked
	}
	return err
}

// Run reports the tasks INITIALIZING, then RUNNING.
func (s *Scheduling) Run(tdds ...gateway.TaskDeploymentDescriptor) error {
	for _, tdd := range tdds {
		for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning} {
			if err := s.Report(tdd, state, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Finish reports the tasks FINISHED.
func (s *Scheduling) Finish(tdds ...gateway.TaskDeploymentDescriptor) error {
	for _, tdd := range tdds {
		if err := s.Report(tdd, api.ExecutionFinished, nil); err != nil {
			return err
		}
	}
	return nil
}

// Deployed returns the tasks deployed so far (every submitTask, in the
// order the TaskExecutors got them), from the given one on.
func (s *Scheduling) Deployed(from int) []gateway.TaskDeploymentDescriptor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.submitted[min(from, len(s.submitted)):])
}

// Cancelled returns the attempts the scheduler asked to cancel so far.
func (s *Scheduling) Cancelled() []api.ExecutionAttemptID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cancelled)
}

// TaskManagerOf returns the TaskManager a task was deployed to: the one
// that offered its slot.
func (s *Scheduling) TaskManagerOf(tdd gateway.TaskDeploymentDescriptor) api.ResourceID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskManagers[tdd.AllocationID]
}

// JobStatus returns the job's status.
func (s *Scheduling) JobStatus() (status api.JobStatus) {
	s.must(func() { status = s.Scheduler.RequestJobStatus() })
	return status
}

// Job returns a snapshot of the job's ExecutionGraph (what GET
// /jobs/{jobid} shows).
func (s *Scheduling) Job() (a *gateway.ArchivedExecutionGraph) {
	s.must(func() { a = s.Scheduler.RequestJob() })
	return a
}

// Final returns the job's final ExecutionGraph, or nil while the job has
// not reached a globally terminal state.
func (s *Scheduling) Final() (a *gateway.ArchivedExecutionGraph) {
	s.must(func() { a = s.final })
	return a
}

// Name writes a deployment as "Task/subtask#attempt", the subtask counted
// from 0: "Sink/1#0".
func Name(tdd gateway.TaskDeploymentDescriptor) string {
	return fmt.Sprintf("%s/%d#%d", tdd.TaskInfo.TaskName, tdd.SubtaskIndex(), tdd.AttemptNumber())
}

// Names writes deployments with Name.
func Names(tdds []gateway.TaskDeploymentDescriptor) []string {
	names := make([]string, 0, len(tdds))
	for _, tdd := range tdds {
		names = append(names, Name(tdd))
	}
	return names
}

// Latest returns the newest deployment of subtask i of the task named
// task, and false if it was never deployed.
func (s *Scheduling) Latest(task string, subtask int) (gateway.TaskDeploymentDescriptor, bool) {
	deployed := s.Deployed(0)
	for i := len(deployed) - 1; i >= 0; i-- {
		if deployed[i].TaskInfo.TaskName == task && deployed[i].SubtaskIndex() == subtask {
			return deployed[i], true
		}
	}
	return gateway.TaskDeploymentDescriptor{}, false
}
