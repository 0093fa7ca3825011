package jobmaster_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/rpc"
)

// runningCheckpointedJob starts a JobMaster that checkpoints every minute
// and runs its four tasks on one fake TaskExecutor, which takes the
// checkpoint triggers and never acknowledges: a savepoint stays pending.
func runningCheckpointedJob(t *testing.T) *harness {
	t.Helper()
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = time.Minute
	h := newHarness(t, jobmaster.Config{Checkpointing: cfg})
	h.start()
	h.journal.await("DeclareRequiredResources", 1)
	synctest.Wait()
	_, tasks := h.deploy(h.newTaskExecutor("taskexecutor-0"))
	for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning} {
		for _, task := range tasks {
			h.report(task, state)
		}
	}
	require.Equal(t, api.JobRunning, h.status())
	return h
}

// The JobMaster's savepoint waits on the caller's goroutine, as long as
// the caller's ctx allows: the main thread goes on meanwhile.
func TestASavepointCallerWaitsAsLongAsItsContextAllows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := runningCheckpointedJob(t)
		ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
		defer cancel()
		_, err := h.gw.TriggerSavepoint(ctx, t.TempDir(), false)
		assert.ErrorIs(t, err, rpc.ErrTimeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, api.JobRunning, h.status(), "the main thread was never blocked")

		stats, err := h.gw.RequestCheckpointStats(h.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, stats.Counts.InProgress, "the savepoint is pending still")
	})
}

// A JobMaster that stops while a savepoint is pending answers its caller:
// the savepoint will not complete.
func TestAStoppedJobMasterAnswersItsPendingSavepoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := runningCheckpointedJob(t)
		answer := make(chan error, 1)
		go func() {
			_, err := h.gw.StopWithSavepoint(h.ctx, t.TempDir(), false)
			answer <- err
		}()
		synctest.Wait()
		closed := h.closeInBackground()
		err := <-answer
		require.NoError(t, <-closed)
		var exception *checkpoint.CheckpointException
		require.ErrorAs(t, err, &exception)
		assert.Equal(t, checkpoint.CheckpointCoordinatorShutdown, exception.Reason)
	})
}

// A job without checkpointing takes no savepoint and has no statistics.
func TestAJobWithoutCheckpointingHasNoSavepoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		_, err := h.gw.TriggerSavepoint(h.ctx, t.TempDir(), false)
		assert.ErrorIs(t, err, gateway.ErrCheckpointingDisabled)
		_, err = h.gw.StopWithSavepoint(h.ctx, t.TempDir(), true)
		assert.ErrorIs(t, err, gateway.ErrCheckpointingDisabled)
		stats, err := h.gw.RequestCheckpointStats(h.ctx)
		require.NoError(t, err)
		assert.Nil(t, stats)
	})
}
