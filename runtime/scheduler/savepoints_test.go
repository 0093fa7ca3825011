package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/rpc"
)

// savepointHarness is a DefaultScheduler of source(2) → sink(2) with a
// checkpoint every minute (so that only the test's savepoints run), whose
// TaskExecutor records the checkpoints it is asked to trigger; the test
// plays the tasks.
type savepointHarness struct {
	*harness
	savepoints string
	mu         sync.Mutex
	triggered  []int64 // checkpoint IDs, one per source triggered
}

func newSavepointHarness(t *testing.T) *savepointHarness {
	g := jobgraph.New("job")
	source := jobgraph.NewJobVertex("Source", "test.Source", 2)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
	source.SlotSharingGroup, sink.SlotSharingGroup = "default", "default"
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	graph, err := executiongraph.BuildGraph(g)
	require.NoError(t, err)

	h := &savepointHarness{
		harness: &harness{t: t, main: rpc.NewEndpoint("jobmanager_test"), graph: graph, tm: &taskExecutor{}, logs: &logbuf.Buffer{},
			gone: make(map[api.ResourceID]bool)},
		savepoints: t.TempDir(),
	}
	h.main.Start(nil)
	t.Cleanup(func() { h.main.Close(nil) })
	tm := h.tm.gateway()
	tm.TriggerCheckpointFunc = func(_ context.Context, _ api.ExecutionAttemptID, checkpointID, _ int64, _ checkpoint.CheckpointOptions) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.triggered = append(h.triggered, checkpointID)
		return nil
	}
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval, cfg.Timeout, cfg.SavepointDir = time.Minute, 30*time.Second, h.savepoints
	h.onMain(func() {
		h.pool = slotpool.New(g.JobID, "jm", func(fn func()) { h.main.RunAsync(fn) }, slog.New(slog.DiscardHandler))
		h.pool.ConnectToResourceManager(func(gateway.ResourceRequirements) {})
		h.scheduler = NewDefaultScheduler(Config{RPCTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(h.logs, nil))}, Deps{
			Graph: graph, JobGraph: g, MainThread: h.main, SlotPool: h.pool,
			TaskExecutor: func(id api.ResourceID) (gateway.TaskExecutorGateway, bool) { return tm, !h.gone[id] },
			JobMasterID:  api.NewJobMasterID(),
			OnTerminal:   func(a *gateway.ArchivedExecutionGraph) { h.final = a },
			Checkpointing: &Checkpointing{Config: cfg, Store: checkpoint.NewStandaloneCompletedCheckpointStore(1),
				IDCounter: checkpoint.NewStandaloneCheckpointIDCounter()},
		})
	})
	return h
}

// running starts the job and runs its four tasks.
func (h *savepointHarness) running() {
	h.onMain(h.scheduler.StartScheduling)
	h.offer(2)
	synctest.Wait()
	for _, tdd := range h.tm.deployed() {
		h.report(tdd, api.ExecutionInitializing, nil)
		h.report(tdd, api.ExecutionRunning, nil)
	}
	require.Equal(h.t, api.JobRunning, h.jobStatus())
}

// outcome is what a savepoint's done was told; done is false until then.
type outcome struct {
	mu   sync.Mutex
	done bool
	path string
	err  error
}

func (o *outcome) callback() func(string, error) {
	return func(path string, err error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.done, o.path, o.err = true, path, err
	}
}

func (o *outcome) get() (done bool, path string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.done, o.path, o.err
}

// ackAll acknowledges the latest triggered checkpoint from every task.
func (h *savepointHarness) ackAll() {
	h.mu.Lock()
	id := h.triggered[len(h.triggered)-1]
	h.mu.Unlock()
	for _, tdd := range h.tm.deployed() {
		var err error
		h.onMain(func() {
			err = h.scheduler.AcknowledgeCheckpoint(checkpoint.AcknowledgeCheckpoint{JobID: h.graph.JobID(),
				TaskExecutionID: tdd.ExecutionAttemptID, CheckpointID: id})
		})
		require.NoError(h.t, err)
	}
	synctest.Wait()
}

// cancelledAll reports every task CANCELED, as the TaskExecutor does once
// it cancelled them.
func (h *savepointHarness) cancelledAll() {
	for _, tdd := range h.tm.deployed() {
		h.report(tdd, api.ExecutionCanceled, nil)
	}
	synctest.Wait()
}

// Stop with savepoint: the periodic checkpoints stop, the SAVEPOINT_SUSPEND
// savepoint completes, the tasks are cancelled while the job stays
// RUNNING, and when the last has stopped the job FINISHES and the stop is
// told the path.
func TestStopWithSavepointFinishesTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSavepointHarness(t)
		h.running()
		var stop outcome
		h.onMain(func() { h.scheduler.StopWithSavepoint("", false, stop.callback()) })
		synctest.Wait()
		require.Len(t, h.triggered, 2, "the savepoint goes to both sources")
		h.onMain(func() { assert.False(t, h.scheduler.CheckpointCoordinator().IsPeriodicCheckpointingStarted()) })

		h.ackAll()
		done, _, _ := stop.get()
		assert.False(t, done, "the tasks have not stopped yet")
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Len(t, h.tm.cancelled, 4, "every task is cancelled")

		h.cancelledAll()
		done, path, err := stop.get()
		require.True(t, done)
		require.NoError(t, err)
		assert.Equal(t, h.savepoints, filepath.Dir(path))
		_, statErr := os.Stat(filepath.Join(path, "_metadata"))
		assert.NoError(t, statErr)
		state, ended := h.finalState()
		assert.True(t, ended)
		assert.Equal(t, api.JobFinished, state)
		assert.Contains(t, h.logs.String(), "Triggering stop-with-savepoint for job "+h.graph.JobID().String()+".")
	})
}

// A savepoint that expires (execution.checkpointing.timeout, 30 s here)
// leaves the job running, with its periodic checkpoints started again;
// the stop gets the failure. (A task that declines the savepoint of a
// stop fails the job instead: see package checkpoint's
// CheckpointFailureManager.)
func TestStopWithSavepointThatFailsLeavesTheJobRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSavepointHarness(t)
		h.running()
		var stop outcome
		h.onMain(func() { h.scheduler.StopWithSavepoint("", false, stop.callback()) })
		time.Sleep(31 * time.Second)
		synctest.Wait()

		done, _, err := stop.get()
		require.True(t, done)
		var exception *checkpoint.CheckpointException
		require.ErrorAs(t, err, &exception)
		assert.Equal(t, checkpoint.CheckpointExpired, exception.Reason)
		assert.Equal(t, api.JobRunning, h.jobStatus())
		assert.Empty(t, h.tm.cancelled, "no task was cancelled")
		h.onMain(func() { assert.True(t, h.scheduler.CheckpointCoordinator().IsPeriodicCheckpointingStarted()) })
	})
}

// A cancel while the stop's tasks end: the job ends CANCELED, and the stop
// fails with Flink's StopWithSavepointStoppingException, which names the
// savepoint that was taken.
func TestCancelDuringStopWithSavepoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSavepointHarness(t)
		h.running()
		var stop outcome
		h.onMain(func() { h.scheduler.StopWithSavepoint("", false, stop.callback()) })
		synctest.Wait()
		h.ackAll()
		h.onMain(h.scheduler.Cancel)
		h.cancelledAll()

		done, path, err := stop.get()
		require.True(t, done)
		assert.Empty(t, path)
		require.Error(t, err)
		assert.Regexp(t, `^StopWithSavepointStoppingException: A savepoint has been created at: `+h.savepoints+`/savepoint-\w+-\w+, `+
			`but the corresponding job `+h.graph.JobID().String()+` failed during stopping\.`, err.Error())
		state, _ := h.finalState()
		assert.Equal(t, api.JobCanceled, state)
	})
}

// Cancel with savepoint: the job is cancelled once the savepoint is there
// ("Savepoint stored in … Now cancelling …").
func TestTriggerSavepointWithCancelJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSavepointHarness(t)
		h.running()
		var savepoint outcome
		h.onMain(func() { h.scheduler.TriggerSavepoint(t.TempDir(), true, savepoint.callback()) })
		synctest.Wait()
		h.ackAll()

		done, path, err := savepoint.get()
		require.True(t, done)
		require.NoError(t, err)
		assert.Equal(t, api.JobCancelling, h.jobStatus())
		assert.Contains(t, h.logs.String(), "Savepoint stored in "+path+". Now cancelling "+h.graph.JobID().String()+".")
		h.cancelledAll()
		state, _ := h.finalState()
		assert.Equal(t, api.JobCanceled, state)
	})
}

// The preconditions: a savepoint without a directory, when
// state.savepoints.dir is not set either, fails at once.
func TestSavepointPreconditions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSavepointHarness(t)
		h.running()
		h.onMain(func() { h.scheduler.deps.Checkpointing.Config.SavepointDir = "" })
		var savepoint outcome
		h.onMain(func() { h.scheduler.TriggerSavepoint("", false, savepoint.callback()) })
		done, _, err := savepoint.get()
		require.True(t, done, "at once")
		assert.True(t, errors.Is(err, checkpoint.ErrNoSavepointDirectory))
		assert.Empty(t, h.triggered)
		h.onMain(func() {
			assert.ErrorIs(t, h.scheduler.CheckSavepointActionPreconditions(""), checkpoint.ErrNoSavepointDirectory)
		})
	})
}
