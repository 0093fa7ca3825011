package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// A savepoint goes to its own directory, runs beside a pending checkpoint,
// stays out of the store and is not told to the tasks.
func TestSavepoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		if _, err, _ := h.trigger(Savepoint, "")(); !errors.Is(err, ErrNoSavepointDirectory) {
			t.Fatalf("got %v, want ErrNoSavepointDirectory", err)
		}
		h.trigger(Checkpoint, "") // checkpoint 1 stays pending
		target := t.TempDir()
		outcome := h.trigger(Savepoint, target)
		if got := h.triggeredIDs(); !slices.Equal(got, []int64{1, 2}) {
			t.Fatalf("triggered %v, want the savepoint beside checkpoint 1", got)
		}
		h.ackAll(2)
		savepoint, err, done := outcome()
		if !done || err != nil {
			t.Fatalf("savepoint not completed: %v", err)
		}
		base := filepath.Base(savepoint.ExternalPointer)
		if filepath.Dir(savepoint.ExternalPointer) != target || len(base) != len("savepoint-123456-")+12 ||
			base[:17] != "savepoint-"+h.job.String()[:6]+"-" {
			t.Errorf("savepoint at %s, want %s/savepoint-%s-<12 hex digits>", savepoint.ExternalPointer, target, h.job.String()[:6])
		}
		if savepoint.String() != fmt.Sprintf("Savepoint 2 @ %d for %s located at %s", savepoint.Timestamp, h.job, savepoint.ExternalPointer) {
			t.Errorf("got %s", savepoint)
		}
		if h.latest() != nil || len(h.completes) != 0 || h.pending() != 1 {
			t.Errorf("savepoint in the store (%v), told to tasks (%v), or checkpoint 1 subsumed", h.latest(), h.completes)
		}
		if _, err := LoadCheckpointMetadata(savepoint.ExternalPointer); err != nil {
			t.Error(err)
		}
	})
}

// Shutdown deletes the retained checkpoints, or keeps them, as the
// retention and the job's end say.
func TestShutdownDiscardsOrRetainsCheckpoints(t *testing.T) {
	tests := []struct {
		retention string
		status    api.JobStatus
		kept      bool
	}{
		{NoExternalizedCheckpoints, api.JobFinished, false},
		{NoExternalizedCheckpoints, api.JobCanceled, false},
		{RetainOnCancellation, api.JobFinished, false},
		{RetainOnCancellation, api.JobCanceled, true},
		{RetainOnCancellation, api.JobFailed, true},
		{DeleteOnCancellation, api.JobCanceled, false},
		{DeleteOnCancellation, api.JobFailed, true},
	}
	for _, tt := range tests {
		t.Run(tt.retention+"/"+tt.status.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.Retention = tt.retention
				h := newHarness(t, cfg)
				h.trigger(Checkpoint, "")
				h.ackAll(1)
				h.trigger(Checkpoint, "") // pending at shutdown
				h.do(func() { h.coord.Shutdown(tt.status) })

				_, err := os.Stat(filepath.Join(h.checkpoint, h.job.String(), "chk-1", state.MetadataFileName))
				if kept := err == nil; kept != tt.kept {
					t.Errorf("chk-1 kept: %v, want %v", kept, tt.kept)
				}
				if _, err := os.Stat(filepath.Join(h.checkpoint, h.job.String(), "chk-2")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the pending checkpoint's directory is left: %v", err)
				}
				if !h.log.contains("Checkpoint Coordinator is shutdown.") && !h.log.contains("CheckpointCoordinator shutdown.") {
					t.Errorf("pending checkpoint not aborted:\n%s", h.log)
				}
			})
		})
	}
}

// Triggering fails while a task is not running, and after the shutdown.
func TestTriggerFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		h.do(func() { h.planErr = NewCheckpointException(NotAllRequiredTasksRunning, nil) })
		_, err, _ := h.trigger(Checkpoint, "")()
		if err == nil || err.Error() != NotAllRequiredTasksRunning.Message {
			t.Errorf("got %v, want NOT_ALL_REQUIRED_TASKS_RUNNING", err)
		}
		h.do(func() { h.coord.Shutdown(api.JobCanceled) })
		_, err, _ = h.trigger(Checkpoint, "")()
		if err == nil || err.Error() != CheckpointCoordinatorShutdown.Message {
			t.Errorf("got %v, want CHECKPOINT_COORDINATOR_SHUTDOWN", err)
		}
		var stats CheckpointStatsSnapshot
		h.read(func() { stats = h.coord.Stats() })
		if stats.Counts.Failed != 2 || stats.Counts.Total != 2 || len(h.failJob) != 0 {
			t.Errorf("got counts %+v and FailJob %v", stats.Counts, h.failJob)
		}
	})
}

// A _metadata that cannot be written aborts the checkpoint
// (FINALIZE_CHECKPOINT_FAILURE), which counts as no failure.
func TestFinalizeFailureAbortsTheCheckpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		outcome := h.trigger(Checkpoint, "")
		for i := range 3 {
			_ = h.ack(i, 1, nil)
		}
		if err := os.RemoveAll(filepath.Join(h.checkpoint, h.job.String(), "chk-1")); err != nil {
			t.Fatal(err)
		}
		err := h.ack(3, 1, nil)
		var exception *CheckpointException
		if !errors.As(err, &exception) || exception.Reason != FinalizeCheckpointFailure {
			t.Fatalf("got %v, want FINALIZE_CHECKPOINT_FAILURE", err)
		}
		if _, got, _ := outcome(); got != err {
			t.Errorf("the trigger's caller got %v, want %v", got, err)
		}
		if h.latest() != nil || h.pending() != 0 || len(h.aborts) != 4 || len(h.failJob) != 0 {
			t.Errorf("latest %v, %d pending, aborts %v, FailJob %v", h.latest(), h.pending(), h.aborts, h.failJob)
		}
	})
}
