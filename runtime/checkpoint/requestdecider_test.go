package checkpoint

import (
	"errors"
	"testing"
	"time"
)

// The decider runs, queues or drops trigger requests as Flink's
// CheckpointRequestDecider does (with at most one periodic request waiting).
func TestCheckpointRequestDecider(t *testing.T) {
	now := time.Unix(1000, 0)
	pending := 0
	var rescheduled []time.Duration
	d := &checkpointRequestDecider{
		maxConcurrentCheckpointAttempts: 1, now: func() time.Time { return now }, minPauseBetweenCheckpoints: 5 * time.Second,
		pendingCheckpointsSize: func() int { return pending }, maxQueuedRequests: defaultMaxQueuedRequests,
		rescheduleTrigger: func(delay time.Duration) { rescheduled = append(rescheduled, delay) },
	}
	var seq uint64
	request := func(props CheckpointProperties, periodic bool, failed *error) *checkpointTriggerRequest {
		seq++
		return &checkpointTriggerRequest{timestamp: now, seq: seq, props: props, isPeriodic: periodic,
			onCompletion: func(_ *CompletedCheckpoint, err error) { *failed = err }}
	}
	checkpoint := PropertiesForCheckpoint(NoExternalizedCheckpoints)
	var err1, err2, err3, err4, err5 error

	// Nothing pending: a periodic request runs.
	if r := d.chooseRequestToExecute(request(checkpoint, true, &err1), false, time.Time{}); r == nil {
		t.Fatal("a periodic request did not run")
	}
	pending = 1
	// One pending: a user's checkpoint and a periodic one wait; a second
	// periodic one is dropped; a savepoint runs.
	user := request(checkpoint, false, &err2)
	if d.chooseRequestToExecute(user, false, time.Time{}) != nil ||
		d.chooseRequestToExecute(request(checkpoint, true, &err3), false, time.Time{}) != nil {
		t.Fatal("ran a request beside the pending checkpoint")
	}
	if d.chooseRequestToExecute(request(checkpoint, true, &err4), false, time.Time{}) != nil || !errors.Is(err4, ErrCheckpoint) ||
		err4.Error() != TooManyCheckpointRequests.Message {
		t.Errorf("second periodic request: got %v, want TOO_MANY_CHECKPOINT_REQUESTS", err4)
	}
	savepoint := request(PropertiesForSavepoint(), false, &err5)
	if r := d.chooseRequestToExecute(savepoint, false, time.Time{}); r != savepoint {
		t.Errorf("the savepoint waited")
	}
	// The pending one completed just now: the user's checkpoint runs, the
	// min pause does not hold it back; the periodic one must wait 5 s.
	pending = 0
	if r := d.chooseQueuedRequestToExecute(false, now); r != user {
		t.Errorf("got %+v, want the user's checkpoint", r)
	}
	if r := d.chooseQueuedRequestToExecute(false, now.Add(-2*time.Second)); r != nil || err3 == nil ||
		err3.Error() != MinimumTimeBetweenCheckpoints.Message || len(rescheduled) != 1 || rescheduled[0] != 3*time.Second {
		t.Errorf("got %v, %v, rescheduled %v; want MINIMUM_TIME_BETWEEN_CHECKPOINTS and 3 s", r, err3, rescheduled)
	}
	if err1 != nil || err2 != nil || err5 != nil || d.numQueuedRequests() != 0 {
		t.Errorf("requests that ran failed: %v %v %v, or some wait: %d", err1, err2, err5, d.numQueuedRequests())
	}
}
