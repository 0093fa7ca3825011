package failover

import (
	"fmt"
	"slices"
	"time"
)

// FailureRateRestartBackoffTimeStrategy restarts as long as the job does not
// fail too often: more than MaxFailuresPerInterval failures within any
// FailureRateInterval fail the job (Flink:
// FailureRateRestartBackoffTimeStrategy; restart-strategy.type:
// failure-rate). Each restart waits the same Delay.
//
// It remembers the times of the last MaxFailuresPerInterval+1 failures. Once
// it holds that many, the job may restart only if the oldest of them lies
// more than FailureRateInterval before the newest:
//
//	max 3 per 5 min:  0:00 ✓  1:00 ✓  2:00 ✓  4:00 ✗ (4 failures in 0:00..4:00)
//	                  0:00 ✓  1:00 ✓  2:00 ✓  5:01 ✓ (0:00 is more than 5 min back)
//
// The window is closed: a failure exactly FailureRateInterval after the
// oldest one still falls inside it.
type FailureRateRestartBackoffTimeStrategy struct {
	failuresInterval       time.Duration
	backoffTimeMS          int64
	maxFailuresPerInterval int

	failureTimestamps []time.Time // oldest first, at most maxFailuresPerInterval+1
	lastFailure       time.Time
}

// NewFailureRateRestartBackoffTimeStrategy returns a strategy that allows
// cfg.MaxFailuresPerInterval failures (at least 1) within
// cfg.FailureRateInterval (at least 1 ms), restarting after cfg.Delay (at
// least 0). Durations are kept in whole milliseconds, as Flink keeps them.
func NewFailureRateRestartBackoffTimeStrategy(cfg FailureRateConfig) (*FailureRateRestartBackoffTimeStrategy, error) {
	if cfg.MaxFailuresPerInterval <= 0 {
		return nil, invalid(KeyFailureRateMaxFailuresPerInterval, cfg.MaxFailuresPerInterval,
			"Maximum number of restart attempts per time unit must be greater than 0.")
	}
	if cfg.FailureRateInterval.Milliseconds() <= 0 {
		return nil, invalid(KeyFailureRateInterval, cfg.FailureRateInterval,
			"Failures interval must be greater than 0 ms.")
	}
	if cfg.Delay < 0 {
		return nil, invalid(KeyFailureRateDelay, cfg.Delay, "Backoff time must be at least 0 ms.")
	}
	return &FailureRateRestartBackoffTimeStrategy{
		failuresInterval:       cfg.FailureRateInterval.Truncate(time.Millisecond),
		backoffTimeMS:          cfg.Delay.Milliseconds(),
		maxFailuresPerInterval: cfg.MaxFailuresPerInterval,
	}, nil
}

// CanRestart reports whether the failures remembered fit the rate, judged
// at the time of the last failure.
func (s *FailureRateRestartBackoffTimeStrategy) CanRestart() bool {
	if !s.isFailureTimestampsQueueFull() {
		return true
	}
	return s.lastFailure.Sub(s.failureTimestamps[0]) > s.failuresInterval
}

// BackoffTime is the configured delay.
func (s *FailureRateRestartBackoffTimeStrategy) BackoffTime() time.Duration {
	return time.Duration(s.backoffTimeMS) * time.Millisecond
}

// NotifyFailure remembers the failure's time, forgetting the oldest one
// when it already remembers MaxFailuresPerInterval+1. Every failure is a new
// attempt.
func (s *FailureRateRestartBackoffTimeStrategy) NotifyFailure(_ error, now time.Time) bool {
	if s.isFailureTimestampsQueueFull() {
		s.failureTimestamps = slices.Delete(s.failureTimestamps, 0, 1)
	}
	s.failureTimestamps = append(s.failureTimestamps, now)
	s.lastFailure = now
	return true
}

// String prints the class name twice, as Flink's toString() does.
func (s *FailureRateRestartBackoffTimeStrategy) String() string {
	return fmt.Sprintf("FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy(failuresIntervalMS=%d,backoffTimeMS=%d,maxFailuresPerInterval=%d)",
		s.failuresInterval.Milliseconds(), s.backoffTimeMS, s.maxFailuresPerInterval)
}

// isFailureTimestampsQueueFull: the queue is full with one more entry than
// the maximum (FLINK-20752 fixed an off-by-one that allowed one restart
// fewer than configured).
func (s *FailureRateRestartBackoffTimeStrategy) isFailureTimestampsQueueFull() bool {
	return len(s.failureTimestamps) > s.maxFailuresPerInterval
}
