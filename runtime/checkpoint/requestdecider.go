package checkpoint

import (
	"cmp"
	"slices"
	"time"
)

// defaultMaxQueuedRequests is how many trigger requests may wait (Flink:
// CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS).
const defaultMaxQueuedRequests = 1000

// checkpointTriggerRequest is one request to trigger a checkpoint or a
// savepoint: from the periodic timer, or from a user (Flink:
// CheckpointCoordinator.CheckpointTriggerRequest).
type checkpointTriggerRequest struct {
	timestamp                 time.Time
	seq                       uint64 // the order of arrival, to sort requests of the same time
	props                     CheckpointProperties
	externalSavepointLocation string
	isPeriodic                bool
	onCompletion              func(*CompletedCheckpoint, error) // nil for periodic requests
}

func (r *checkpointTriggerRequest) isForce() bool { return r.props.Forced }

// complete hands the request's caller the outcome, once.
func (r *checkpointTriggerRequest) complete(completed *CompletedCheckpoint, err error) {
	if r.onCompletion != nil {
		done := r.onCompletion
		r.onCompletion = nil
		done(completed, err)
	}
}

// checkpointRequestDecider decides whether a trigger request runs now,
// waits, or is dropped (Flink's CheckpointRequestDecider). It looks at
// the request (savepoint? forced? periodic?), the configuration (max
// concurrent checkpoints, min pause) and the coordinator's state (pending
// checkpoints, the last completion).
//
// Requests wait in a queue sorted by importance: savepoints first, then
// forced requests, then a user's, then periodic ones, each by age. While
// MaxConcurrent checkpoints are pending, only a forced request (a
// savepoint) runs; the others wait for a pending checkpoint to complete or
// be aborted. A periodic request that comes sooner than MinPause after the
// last completion is dropped, and the periodic timer is set to fire when
// the pause ends.
//
// Differs from Flink: at most one periodic request waits. Flink queues
// every firing of the periodic timer (up to 1000 requests), and after a
// slow checkpoint runs the queued ones back to back; here a periodic
// request that finds one waiting is dropped (TOO_MANY_CHECKPOINT_REQUESTS,
// which counts as no failure).
type checkpointRequestDecider struct {
	maxConcurrentCheckpointAttempts int
	rescheduleTrigger               func(delay time.Duration)
	now                             func() time.Time
	minPauseBetweenCheckpoints      time.Duration
	pendingCheckpointsSize          func() int
	queuedRequests                  []*checkpointTriggerRequest // sorted, most important first
	maxQueuedRequests               int
}

// chooseRequestToExecute queues newRequest and returns the request to run
// now, if any (it may be another one).
func (d *checkpointRequestDecider) chooseRequestToExecute(newRequest *checkpointTriggerRequest, isTriggering bool,
	lastCompletion time.Time) *checkpointTriggerRequest {
	if newRequest.isPeriodic && slices.ContainsFunc(d.queuedRequests, func(r *checkpointTriggerRequest) bool { return r.isPeriodic }) {
		newRequest.complete(nil, NewCheckpointException(TooManyCheckpointRequests, nil))
		return nil
	}
	if len(d.queuedRequests) >= d.maxQueuedRequests && !d.queuedRequests[len(d.queuedRequests)-1].isPeriodic {
		// Only users' requests wait: keep them and drop the new one.
		newRequest.complete(nil, NewCheckpointException(TooManyCheckpointRequests, nil))
		return nil
	}
	d.enqueue(newRequest)
	if len(d.queuedRequests) > d.maxQueuedRequests {
		d.pollLast().complete(nil, NewCheckpointException(TooManyCheckpointRequests, nil))
	}
	return d.chooseQueuedRequestToExecute(isTriggering, lastCompletion)
}

// chooseQueuedRequestToExecute returns the queued request to run now, if
// any. lastCompletion is when the last checkpoint completed; zero if none
// did.
func (d *checkpointRequestDecider) chooseQueuedRequestToExecute(isTriggering bool, lastCompletion time.Time) *checkpointTriggerRequest {
	if isTriggering || len(d.queuedRequests) == 0 {
		return nil
	}
	first := d.queuedRequests[0]
	if d.pendingCheckpointsSize() >= d.maxConcurrentCheckpointAttempts {
		if first.isForce() {
			return d.pollFirst()
		}
		return nil // wait for a pending checkpoint to end
	}
	if !first.isForce() && first.isPeriodic {
		if delay := d.nextTriggerDelay(lastCompletion); delay > 0 {
			d.pollFirst().complete(nil, NewCheckpointException(MinimumTimeBetweenCheckpoints, nil))
			d.rescheduleTrigger(delay)
			return nil
		}
	}
	return d.pollFirst()
}

// nextTriggerDelay returns how long the min pause still lasts.
func (d *checkpointRequestDecider) nextTriggerDelay(lastCompletion time.Time) time.Duration {
	if lastCompletion.IsZero() {
		return 0
	}
	return lastCompletion.Add(d.minPauseBetweenCheckpoints).Sub(d.now())
}

// abortAll fails every queued request with err.
func (d *checkpointRequestDecider) abortAll(err error) {
	for len(d.queuedRequests) > 0 {
		d.pollFirst().complete(nil, err)
	}
}

func (d *checkpointRequestDecider) numQueuedRequests() int { return len(d.queuedRequests) }

func (d *checkpointRequestDecider) enqueue(r *checkpointTriggerRequest) {
	i, _ := slices.BinarySearchFunc(d.queuedRequests, r, compareRequests)
	d.queuedRequests = slices.Insert(d.queuedRequests, i, r)
}

func (d *checkpointRequestDecider) pollFirst() *checkpointTriggerRequest {
	r := d.queuedRequests[0]
	d.queuedRequests = d.queuedRequests[1:]
	return r
}

func (d *checkpointRequestDecider) pollLast() *checkpointTriggerRequest {
	r := d.queuedRequests[len(d.queuedRequests)-1]
	d.queuedRequests = d.queuedRequests[:len(d.queuedRequests)-1]
	return r
}

// compareRequests orders requests as Flink's
// checkpointTriggerRequestsComparator: savepoints, forced, non-periodic
// first, then the oldest.
func compareRequests(a, b *checkpointTriggerRequest) int {
	switch {
	case a.props.IsSavepoint() != b.props.IsSavepoint():
		return before(a.props.IsSavepoint())
	case a.isForce() != b.isForce():
		return before(a.isForce())
	case a.isPeriodic != b.isPeriodic:
		return before(!a.isPeriodic)
	case !a.timestamp.Equal(b.timestamp):
		return a.timestamp.Compare(b.timestamp)
	default:
		return cmp.Compare(a.seq, b.seq)
	}
}

// before returns -1 if a comes first, else 1.
func before(aFirst bool) int {
	if aFirst {
		return -1
	}
	return 1
}
