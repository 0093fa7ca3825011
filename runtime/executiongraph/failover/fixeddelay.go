package failover

import (
	"fmt"
	"time"
)

// FixedDelayRestartBackoffTimeStrategy restarts a fixed number of times, each
// after the same delay (Flink: FixedDelayRestartBackoffTimeStrategy;
// restart-strategy.type: fixed-delay).
//
// Every failure counts, for the whole life of the job: with Attempts 3 the
// fourth failure fails the job, whether the first three came in one minute
// or in one month. There is no reset.
type FixedDelayRestartBackoffTimeStrategy struct {
	maxNumberRestartAttempts int
	backoffTimeMS            int64
	currentRestartAttempt    int
}

// NewFixedDelayRestartBackoffTimeStrategy returns a strategy that allows
// cfg.Attempts restarts (at least 0), each after cfg.Delay (at least 0,
// kept in whole milliseconds as Flink keeps it).
func NewFixedDelayRestartBackoffTimeStrategy(cfg FixedDelayConfig) (*FixedDelayRestartBackoffTimeStrategy, error) {
	if cfg.Attempts < 0 {
		return nil, invalid(KeyFixedDelayAttempts, cfg.Attempts,
			"Maximum number of restart attempts must be at least 0.")
	}
	if cfg.Delay < 0 {
		return nil, invalid(KeyFixedDelayDelay, cfg.Delay,
			"Backoff time between restart attempts must be at least 0 ms.")
	}
	return &FixedDelayRestartBackoffTimeStrategy{
		maxNumberRestartAttempts: cfg.Attempts,
		backoffTimeMS:            cfg.Delay.Milliseconds(),
	}, nil
}

// CanRestart reports whether at most Attempts failures have been notified.
func (s *FixedDelayRestartBackoffTimeStrategy) CanRestart() bool {
	return s.currentRestartAttempt <= s.maxNumberRestartAttempts
}

// BackoffTime is the configured delay.
func (s *FixedDelayRestartBackoffTimeStrategy) BackoffTime() time.Duration {
	return time.Duration(s.backoffTimeMS) * time.Millisecond
}

// NotifyFailure counts the failure; every failure is a new attempt.
func (s *FixedDelayRestartBackoffTimeStrategy) NotifyFailure(error, time.Time) bool {
	s.currentRestartAttempt++
	return true
}

func (s *FixedDelayRestartBackoffTimeStrategy) String() string {
	return fmt.Sprintf("FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=%d, backoffTimeMS=%d)",
		s.maxNumberRestartAttempts, s.backoffTimeMS)
}
