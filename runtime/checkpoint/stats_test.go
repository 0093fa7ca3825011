package checkpoint

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The statistics count and list the checkpoints as Flink's REST API does.
func TestCheckpointStatistics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.TolerableFailures = 10
		h := newHarness(t, cfg)
		start := time.Now().UnixMilli()
		h.trigger(Checkpoint, "")
		h.advance(3 * time.Second)
		h.ackAll(1) // completed in 3 s
		h.trigger(Checkpoint, "")
		h.decline(0, 2, CheckpointDeclined, "")
		h.trigger(Checkpoint, "") // in progress
		_ = h.ack(0, 3, h.smallState(0))

		var stats CheckpointStatsSnapshot
		h.read(func() { stats = h.coord.Stats() })
		if want := (CheckpointStatsCounts{Total: 3, InProgress: 1, Completed: 1, Failed: 1}); stats.Counts != want {
			t.Errorf("got counts %+v, want %+v", stats.Counts, want)
		}
		var ids []int64
		var statuses []CheckpointStatsStatus
		for _, s := range stats.History {
			ids, statuses = append(ids, s.ID), append(statuses, s.Status)
		}
		if !slices.Equal(ids, []int64{3, 2, 1}) || !slices.Equal(statuses, []CheckpointStatsStatus{StatusInProgress, StatusFailed, StatusCompleted}) {
			t.Errorf("got history %v %v, want newest first", ids, statuses)
		}
		completed := stats.Latest.Completed
		if completed == nil || completed.ID != 1 || completed.EndToEndDuration != 3000 || completed.NumAcknowledgedSubtasks != 4 ||
			completed.TriggerTimestamp != start || completed.ExternalPath == "" || completed.StateSize == 0 {
			t.Errorf("got latest completed %+v", completed)
		}
		if task := completed.Tasks[keyedVertex.String()]; task.NumSubtasks != 2 || task.NumAcknowledgedSubtasks != 2 {
			t.Errorf("got task statistics %+v", task)
		}
		if failed := stats.Latest.Failed; failed == nil || failed.ID != 2 || failed.FailureMessage != "Checkpoint was declined." {
			t.Errorf("got latest failed %+v", failed)
		}
		if inProgress := stats.History[0]; inProgress.NumSubtasks != 4 || inProgress.NumAcknowledgedSubtasks != 1 {
			t.Errorf("got in progress %+v", inProgress)
		}
		if stats.Summary.EndToEndDuration.Max != 3000 || stats.Summary.StateSize.Min != completed.StateSize {
			t.Errorf("got summary %+v", stats.Summary)
		}

		data, err := json.Marshal(stats)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{`"counts":{"restored":0,"total":3,"in_progress":1,"completed":1,"failed":1}`,
			`"className":"completed"`, `"className":"failed"`, `"className":"in_progress"`, `"latest_ack_timestamp":`,
			`"end_to_end_duration":3000`, `"num_acknowledged_subtasks":4`, `"checkpoint_type":"CHECKPOINT"`,
			`"external_path":`, `"failure_message":"Checkpoint was declined."`, `"restored":null`} {
			if !strings.Contains(string(data), field) {
				t.Errorf("no %s in %s", field, data)
			}
		}
	})
}

// The first periodic checkpoint comes after a random delay between the
// min pause and the interval.
func TestRandomInitialDelay(t *testing.T) {
	cfg := testConfig()
	cfg.MinPause = 4 * time.Second
	c := NewCheckpointCoordinator(CoordinatorDeps{Config: cfg})
	for range 100 {
		if d := c.getRandomCheckpointInitDelay(); d < 4*time.Second || d > 10*time.Second {
			t.Fatalf("initial delay %v outside [4s, 10s]", d)
		}
	}
}

// AT_LEAST_ONCE barriers do not align.
func TestAtLeastOnceCheckpointOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Mode = AtLeastOnce
		h := newHarness(t, cfg)
		h.trigger(Checkpoint, "")
		var options CheckpointOptions
		h.read(func() { options = h.triggered[0].options })
		if options.AlignmentType != AtLeastOnceAlignment || options.NeedsAlignment() {
			t.Errorf("got %+v", options)
		}
	})
}

func TestDeclineReasons(t *testing.T) {
	tests := []struct {
		reason, message string
		want            CheckpointFailureReason
		cause           string
	}{
		{"CHECKPOINT_DECLINED_TASK_NOT_READY", "Checkpoint was declined (tasks not ready)", CheckpointDeclinedTaskNotReady, ""},
		{"CHECKPOINT_ASYNC_EXCEPTION", "Asynchronous task checkpoint failed. Caused by: disk full", CheckpointAsyncException, "disk full"},
		{"SOMETHING_NEW", "it broke", CheckpointDeclined, "it broke"},
		{"Task local checkpoint failure.", "", TaskCheckpointFailure, ""},
	}
	for _, tt := range tests {
		e := declineException(DeclineCheckpoint{Reason: tt.reason, Message: tt.message})
		cause := ""
		if e.Cause != nil {
			cause = e.Cause.Error()
		}
		if e.Reason != tt.want || cause != tt.cause {
			t.Errorf("%s %q: got %s caused by %q, want %s caused by %q", tt.reason, tt.message, e.Reason, cause, tt.want, tt.cause)
		}
	}
}
