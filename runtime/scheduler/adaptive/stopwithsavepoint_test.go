package adaptive

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/scheduler"
)

// savepointOutcome records what a savepoint's done was told.
type savepointOutcome struct {
	done bool
	path string
	err  error
}

func (o *savepointOutcome) callback() func(string, error) {
	return func(path string, err error) { o.done, o.path, o.err = true, path, err }
}

// Only Executing stops with a savepoint (Flink: Executing#stopWithSavepoint);
// a state without a graph takes no savepoint at all.
func TestSavepointsNeedAnExecutingJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, DefaultSettings(), nil)
		h.onMain(h.scheduler.StartScheduling)
		synctest.Wait()
		var stop, savepoint savepointOutcome
		h.onMain(func() {
			h.scheduler.StopWithSavepoint(t.TempDir(), false, stop.callback())
			h.scheduler.TriggerSavepoint(t.TempDir(), false, savepoint.callback())
		})
		assert.ErrorIs(t, stop.err, gateway.ErrJobNotExecuting, "WaitingForResources")
		assert.ErrorIs(t, savepoint.err, gateway.ErrJobNotExecuting)

		h.offer("tm-0", 4)
		synctest.Wait()
		h.onMain(func() { h.scheduler.StopWithSavepoint(t.TempDir(), false, stop.callback()) })
		assert.ErrorIs(t, stop.err, gateway.ErrCheckpointingDisabled, "Executing, without checkpointing")
		name, _ := h.state()
		assert.Equal(t, "Executing", name, "a precondition that fails moves nothing")
		h.onMain(func() { assert.Nil(t, h.scheduler.RequestCheckpointStats()) })
	})
}

// A stop whose savepoint fails (it expires: no task acknowledges it) goes
// back to Executing with the same graph, which runs on: nothing is
// deployed again. The stop fails in Flink's words.
func TestAFailedStopWithSavepointGoesBackToExecuting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
		cfg.Interval, cfg.Timeout = time.Minute, 30*time.Second
		h := newHarnessWithCheckpointing(t, DefaultSettings(), nil, &scheduler.Checkpointing{Config: cfg,
			Store: checkpoint.NewStandaloneCompletedCheckpointStore(1), IDCounter: checkpoint.NewStandaloneCheckpointIDCounter()})
		h.onMain(h.scheduler.StartScheduling)
		h.offer("tm-0", 4)
		synctest.Wait()
		h.runAll(h.deployed(0))
		deployed := len(h.deployed(0))

		var stop savepointOutcome
		h.onMain(func() { h.scheduler.StopWithSavepoint(t.TempDir(), false, stop.callback()) })
		name, _ := h.state()
		assert.Equal(t, "StopWithSavepoint", name)
		h.onMain(func() { require.NotNil(t, h.scheduler.RequestCheckpointStats()) })

		time.Sleep(31 * time.Second)
		synctest.Wait()
		name, _ = h.state()
		assert.Equal(t, "Executing", name)
		assert.Len(t, h.deployed(0), deployed, "the graph runs on")
		h.onMain(func() {
			require.True(t, stop.done)
			assert.EqualError(t, stop.err, "Stop with savepoint operation could not be completed. Caused by: Checkpoint expired before completing.")
		})
		assert.Contains(t, h.path(), "Executing → StopWithSavepoint → Executing")
	})
}
