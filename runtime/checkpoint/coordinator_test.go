package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

// A checkpoint completes when its last task acknowledges, not before, and
// only once.
func TestCheckpointCompletesOnlyWhenTheLastTaskAcknowledges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		h.do(h.coord.StartCheckpointScheduler)

		h.advance(10*time.Second - time.Millisecond)
		if got := h.triggeredIDs(); len(got) != 0 {
			t.Fatalf("triggered %v before the first interval", got)
		}
		h.advance(time.Millisecond) // step k1, at exactly one interval
		var triggered []triggerCall
		h.read(func() { triggered = slices.Clone(h.triggered) })
		if len(triggered) != 2 {
			t.Fatalf("got %d triggerCheckpoint RPCs, want one per source: %+v", len(triggered), triggered)
		}
		chk1 := filepath.Join(h.checkpoint, h.job.String(), "chk-1")
		want := CheckpointOptions{CheckpointType: Checkpoint, TargetLocation: state.CheckpointStorageLocation{Directory: chk1},
			AlignmentType: Aligned}
		for _, c := range triggered {
			if c.checkpointID != 1 || c.timestamp != time.Now().UnixMilli() || c.options != want {
				t.Errorf("got trigger %+v, want checkpoint 1 now with %+v", c, want)
			}
		}
		if !h.log.contains("INFO CheckpointCoordinator - Triggering checkpoint 1 (type=CheckpointType{name='Checkpoint', " +
			"sharingFilesStrategy=FORWARD_BACKWARD}) @ 946684810000 for job " + h.job.String() + ".") {
			t.Errorf("no Triggering line in\n%s", h.log)
		}

		for i := range 3 {
			if err := h.ack(i, 1, h.smallState(i)); err != nil {
				t.Fatal(err)
			}
		}
		_ = h.ack(0, 1, h.smallState(0)) // a duplicate
		if h.latest() != nil || h.pending() != 1 {
			t.Fatalf("completed before the last acknowledgement")
		}
		h.advance(2 * time.Second)
		if err := h.ack(3, 1, h.smallState(3)); err != nil { // the last one: step k6
			t.Fatal(err)
		}

		completed := h.latest()
		if completed == nil || completed.CheckpointID != 1 || h.pending() != 0 {
			t.Fatalf("got latest %v, %d pending; want checkpoint 1, none pending", completed, h.pending())
		}
		if got, want := completed.CompletionTimestamp-completed.Timestamp, int64(2000); got != want {
			t.Errorf("checkpoint took %d ms, want %d", got, want)
		}
		if got := len(completed.OperatorStates); got != 3 {
			t.Errorf("got %d operator states, want 3", got)
		}
		if s := completed.OperatorStates[reduceOp]; s.Parallelism != 2 || s.MaxParallelism != 128 || len(s.SubtaskStates) != 2 {
			t.Errorf("got reduce state %v, want both subtasks at parallelism 2 of 128", s)
		}
		if !h.log.contains("INFO CheckpointCoordinator - Completed checkpoint 1 for job "+h.job.String(),
			"bytes, checkpointDuration=2000 ms, finalizationTime=0 ms).") {
			t.Errorf("no Completed line in\n%s", h.log)
		}
		if _, err := os.Stat(filepath.Join(chk1, state.MetadataFileName)); err != nil {
			t.Errorf("no _metadata: %v", err)
		}

		// Acknowledgements after completion change nothing.
		_ = h.ack(3, 1, h.smallState(3))
		var completes []notification
		h.read(func() { completes = slices.Clone(h.completes) })
		if len(completes) != 4 {
			t.Errorf("got %d notifyCheckpointComplete, want one per task: %v", len(completes), completes)
		}
		if !h.log.contains("WARN CheckpointCoordinator - Received late message for now expired checkpoint attempt 1 from task") {
			t.Errorf("no late message line in\n%s", h.log)
		}
		if got := h.log.count("Completed checkpoint"); got != 1 {
			t.Errorf("completed %d times", got)
		}

		steps := trace.Steps(h.trace.JobEvents(h.job))
		wantSteps := []trace.Step{trace.K1, trace.K5, trace.K5, trace.K5, trace.K5, trace.K6, trace.K7, trace.K7, trace.K7, trace.K7}
		if !slices.Equal(steps, wantSteps) {
			t.Errorf("got steps %v, want %v", steps, wantSteps)
		}
	})
}

// A task's decline aborts the checkpoint: the tasks hear it, the directory
// goes, and the failure counts.
func TestDeclineAbortsTheCheckpointAndNotifiesTheTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.TolerableFailures = 1
		h := newHarness(t, cfg)
		outcome := h.trigger(Checkpoint, "")
		_ = h.ack(0, 1, h.smallState(0))

		h.decline(2, 1, CheckpointDeclined, "Checkpoint was declined. Caused by: the disk is full")

		if h.pending() != 0 {
			t.Fatal("checkpoint still pending after a decline")
		}
		if !h.log.contains("INFO CheckpointCoordinator - Decline checkpoint 1 by task " + h.tasks[2].AttemptID.String() +
			" of job " + h.job.String() + " at tm-0 @ localhost.\nthe disk is full") {
			t.Errorf("no Decline line in\n%s", h.log)
		}
		if !h.log.contains("WARN CheckpointFailureManager - Failed to trigger or complete checkpoint 1 for job " +
			h.job.String() + ". (0 consecutive failed attempts so far)\n" +
			"org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint was declined. Caused by: the disk is full") {
			t.Errorf("no failure manager line in\n%s", h.log)
		}
		var aborts []notification
		h.read(func() { aborts = slices.Clone(h.aborts) })
		if len(aborts) != 4 || aborts[0].checkpointID != 1 {
			t.Errorf("got aborts %v, want checkpoint 1 to each task", aborts)
		}
		if _, err := os.Stat(filepath.Join(h.checkpoint, h.job.String(), "chk-1")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("chk-1 still there: %v", err)
		}
		_, err, done := outcome()
		var exception *CheckpointException
		if !done || !errors.As(err, &exception) || exception.Reason != CheckpointDeclined {
			t.Errorf("got outcome %v, want CHECKPOINT_DECLINED", err)
		}
		var count int
		h.read(func() { count = h.coord.failureManager.ContinuousFailureCount() })
		if count != 1 || len(h.failJob) != 0 {
			t.Errorf("got %d failures counted and FailJob %v, want 1 and none", count, h.failJob)
		}
	})
}

// A checkpoint that does not complete within the timeout expires, exactly
// then.
func TestCheckpointExpiresAfterTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.TolerableFailures = 5
		h := newHarness(t, cfg)
		outcome := h.trigger(Checkpoint, "")

		h.advance(time.Minute - time.Millisecond)
		if h.pending() != 1 {
			t.Fatal("expired before the timeout")
		}
		h.advance(time.Millisecond)
		if h.pending() != 0 {
			t.Fatal("not expired at the timeout")
		}
		if !h.log.contains("INFO CheckpointCoordinator - Checkpoint 1 of job " + h.job.String() + " expired before completing.") {
			t.Errorf("no expiry line in\n%s", h.log)
		}
		if !h.log.contains("(0 consecutive failed attempts so far)\n" +
			"org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.") {
			t.Errorf("no failure manager line in\n%s", h.log)
		}
		if _, err, _ := outcome(); !errors.Is(err, ErrCheckpoint) || err.Error() != CheckpointExpired.Message {
			t.Errorf("got %v, want CHECKPOINT_EXPIRED", err)
		}
		// The tasks' late acknowledgements are logged and their state dropped.
		_ = h.ack(0, 1, nil)
		if !h.log.contains("Received late message for now expired checkpoint attempt 1") {
			t.Errorf("no late message line in\n%s", h.log)
		}
	})
}

// More failures in a row than tolerated fail the job; a completed
// checkpoint starts the count again.
func TestTolerableFailedCheckpoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.TolerableFailures = 2
		h := newHarness(t, cfg)
		id := int64(0)
		fail := func() {
			id++
			h.trigger(Checkpoint, "")
			h.decline(0, id, CheckpointDeclined, "")
		}
		fail()
		fail()
		h.trigger(Checkpoint, "")
		id++
		h.ackAll(id) // resets the count
		fail()
		fail()
		// Failures that do not count: a task not running, a task not ready.
		h.do(func() { h.planErr = NewCheckpointException(NotAllRequiredTasksRunning, nil) })
		h.trigger(Checkpoint, "")
		h.do(func() { h.planErr = nil })
		id++
		h.trigger(Checkpoint, "")
		h.decline(0, id, CheckpointDeclinedTaskNotReady, "")
		if len(h.failJob) != 0 {
			t.Fatalf("failed the job after 2 failures in a row: %v", h.failJob)
		}

		fail() // the third in a row
		var failJob []error
		h.read(func() { failJob = slices.Clone(h.failJob) })
		if len(failJob) != 1 {
			t.Fatalf("got FailJob %v, want one call", failJob)
		}
		want := "Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to Checkpoint was " +
			"declined., view the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints failed."
		if failJob[0].Error() != want || !errors.Is(failJob[0], ErrExceededCheckpointTolerableFailure) {
			t.Errorf("got cause %q, want %q", failJob[0], want)
		}
		if !h.log.contains("Failed to trigger or complete checkpoint UNKNOWN_CHECKPOINT_ID for job "+h.job.String()+
			". (2 consecutive failed attempts so far)", "Not all required tasks are currently running.") {
			t.Errorf("no line for the failed trigger in\n%s", h.log)
		}
	})
}

// With max-concurrent-checkpoints 1, a periodic trigger waits for the
// pending checkpoint; at most one waits.
func TestMaxConcurrentCheckpointsQueuesThePeriodicTrigger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		start := time.Now()
		h.do(h.coord.StartCheckpointScheduler)
		h.advance(10 * time.Second) // checkpoint 1
		h.advance(20 * time.Second) // two periodic triggers, at 20 s and 30 s
		var queued int
		h.read(func() { queued = h.coord.NumberOfQueuedRequests() })
		if got := h.triggeredIDs(); !slices.Equal(got, []int64{1}) || queued != 1 {
			t.Fatalf("got triggered %v with %d queued, want only 1 with one queued", got, queued)
		}

		h.advance(5 * time.Second)
		h.ackAll(1) // at 35 s: the queued trigger runs at once
		synctest.Wait()
		if got := h.triggeredIDs(); !slices.Equal(got, []int64{1, 2}) {
			t.Fatalf("got triggered %v, want 1 and 2", got)
		}
		var last triggerCall
		h.read(func() { last = h.triggered[len(h.triggered)-1] })
		if got, want := last.timestamp, start.Add(35*time.Second).UnixMilli(); got != want {
			t.Errorf("checkpoint 2 triggered at %d, want %d", got, want)
		}
	})
}

// The min pause holds the next periodic checkpoint back after a completion.
func TestMinPauseBetweenCheckpoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.MinPause = 8 * time.Second
		h := newHarness(t, cfg)
		start := time.Now()
		h.do(h.coord.StartCheckpointScheduler)
		h.advance(10 * time.Second) // checkpoint 1 at 10 s
		h.advance(5 * time.Second)
		h.ackAll(1) // completes at 15 s: no checkpoint before 23 s

		h.advance(8*time.Second - time.Millisecond) // the trigger at 20 s was held back
		if got := h.triggeredIDs(); !slices.Equal(got, []int64{1}) {
			t.Fatalf("got triggered %v before the pause ended", got)
		}
		h.advance(time.Millisecond)
		h.ackAll(2)
		h.advance(10 * time.Second) // the interval counts from the rescheduled trigger: 33 s
		var times []time.Duration
		h.read(func() {
			for _, c := range h.triggered {
				times = append(times, time.UnixMilli(c.timestamp).Sub(start))
			}
		})
		want := []time.Duration{10 * time.Second, 10 * time.Second, 23 * time.Second, 23 * time.Second,
			33 * time.Second, 33 * time.Second}
		if !slices.Equal(times, want) {
			t.Errorf("triggered at %v, want %v", times, want)
		}
	})
}

// state.checkpoints.num-retained 2 keeps the two newest checkpoints and
// deletes the older ones' directories.
func TestNumRetainedKeepsTheNewestAndDeletesTheOlder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.NumRetained = 2
		h := newHarness(t, cfg)
		var files []string
		for id := int64(1); id <= 3; id++ {
			h.trigger(Checkpoint, "")
			var location state.CheckpointStorageLocation
			h.read(func() { location = h.triggered[len(h.triggered)-1].options.TargetLocation })
			for i := range h.tasks {
				snapshot := h.smallState(i)
				big, err := location.WriteState(make([]byte, state.DefaultMemoryThreshold+1)) // a file in chk-<id>
				if err != nil {
					t.Fatal(err)
				}
				snapshot.SubtaskStateMappings[h.tasks[i].OperatorIDs[0]] = OperatorSubtaskState{
					ManagedOperatorState: []state.OperatorStateHandle{{Delegate: big}}}
				files = append(files, big.FilePath)
				if err := h.ack(i, id, snapshot); err != nil {
					t.Fatal(err)
				}
			}
		}
		var ids []int64
		h.read(func() {
			for _, c := range h.coord.CheckpointStore().GetAllCheckpoints() {
				ids = append(ids, c.CheckpointID)
			}
		})
		if !slices.Equal(ids, []int64{2, 3}) {
			t.Errorf("store keeps %v, want [2 3]", ids)
		}
		jobDir := filepath.Join(h.checkpoint, h.job.String())
		for id, wantExists := range map[int]bool{1: false, 2: true, 3: true} {
			_, err := os.Stat(filepath.Join(jobDir, fmt.Sprintf("chk-%d", id), state.MetadataFileName))
			if (err == nil) != wantExists {
				t.Errorf("chk-%d/_metadata exists: %v, want %v", id, err == nil, wantExists)
			}
		}
		for i, f := range files {
			_, err := os.Stat(f)
			if wantExists := i >= len(h.tasks); (err == nil) != wantExists {
				t.Errorf("state file %s exists: %v, want %v", f, err == nil, wantExists)
			}
		}
		if h.read(func() {}); !h.coord.Stats().History[2].Discarded {
			t.Errorf("checkpoint 1 not marked discarded in the statistics")
		}
	})
}

// StopCheckpointScheduler aborts the pending checkpoints and stops the
// periodic ones; a periodic trigger that was due is refused.
func TestStopCheckpointSchedulerAbortsPendingCheckpoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testConfig())
		h.do(h.coord.StartCheckpointScheduler)
		h.advance(10 * time.Second)
		h.do(h.coord.StopCheckpointScheduler)
		if h.pending() != 0 {
			t.Fatal("checkpoint still pending")
		}
		if !h.log.contains("org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint Coordinator is suspending.") {
			t.Errorf("no suspend line in\n%s", h.log)
		}
		h.advance(time.Minute)
		var started bool
		h.read(func() { started = h.coord.IsPeriodicCheckpointingStarted() })
		if got := h.triggeredIDs(); !slices.Equal(got, []int64{1}) || started {
			t.Errorf("triggered %v after the stop (started: %v)", got, started)
		}
		if len(h.failJob) != 0 {
			t.Errorf("a suspension failed the job: %v", h.failJob)
		}
	})
}

// A task that fails aborts the checkpoints it did not acknowledge.
func TestFailUnacknowledgedPendingCheckpointsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.MaxConcurrent = 2
		h := newHarness(t, cfg)
		h.trigger(Checkpoint, "")
		h.trigger(Checkpoint, "")
		_ = h.ack(1, 1, nil)
		h.do(func() { h.coord.FailUnacknowledgedPendingCheckpointsFor(h.tasks[1].AttemptID, errors.New("lost")) })
		var ids []int64
		h.read(func() {
			for id := range h.coord.pendingCheckpoints {
				ids = append(ids, id)
			}
		})
		if !slices.Equal(ids, []int64{1}) || len(h.failJob) != 0 {
			t.Errorf("pending %v and FailJob %v, want checkpoint 1 only and no failure", ids, h.failJob)
		}
	})
}
