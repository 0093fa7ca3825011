package failover

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"flinklab/runtime/configuration"
)

// ExponentialDelayRestartBackoffTimeStrategy restarts with a delay that
// grows by BackoffMultiplier after every failure, up to MaxBackoff, with a
// random jitter (Flink: ExponentialDelayRestartBackoffTimeStrategy, as of
// Flink 1.19/1.20; restart-strategy.type: exponential-delay). It is the
// default of a job with checkpointing.
//
// The n-th restart since the last reset (n = 0, 1, 2, ...) waits
//
//	b = InitialBackoff × BackoffMultiplier^n           (whole milliseconds)
//	max(InitialBackoff, min(b ± JitterFactor×b, MaxBackoff))
//
// Three rules decide what counts:
//
//   - A failure at or before the time the pending restart is due joins that
//     restart: NotifyFailure returns false, nothing is counted, and
//     BackoffTime is what is left of the pending delay. A TaskManager that
//     dies takes many tasks with it; they count as one failure.
//   - A failure ResetBackoffThreshold or more after the pending restart was
//     due (the job ran that long without failing) starts over from
//     InitialBackoff and from attempt 0.
//   - More than AttemptsBeforeResetBackoff restarts without a reset fail
//     the job; the default, Integer.MAX_VALUE, never does.
type ExponentialDelayRestartBackoffTimeStrategy struct {
	initialBackoffMS           int64
	maxBackoffMS               int64
	backoffMultiplier          float64
	resetBackoffThreshold      time.Duration
	jitterFactor               float64
	attemptsBeforeResetBackoff int
	random                     func() float64

	currentRestartAttempt int
	nextRestart           time.Time // when the pending restart is due; zero before the first failure
	lastFailure           time.Time
}

// nextRestartTimestampUnset is what Flink's toString() prints for
// nextRestartTimestamp before the first failure (Integer.MIN_VALUE).
const nextRestartTimestampUnset = math.MinInt32

// maxBackoffCalcMS caps b before it is converted to an integer, so that
// b plus its jitter cannot overflow int64 (about 73 million years).
const maxBackoffCalcMS = math.MaxInt64 / 4

// NewExponentialDelayRestartBackoffTimeStrategy checks cfg as Flink's
// constructor does (initial and max backoff at least 1 ms, initial ≤ max,
// multiplier > 1, reset threshold at least 1 ms, jitter in [0, 1], attempts
// at least 1) and returns the strategy. Durations are kept in whole
// milliseconds, as Flink keeps them.
//
// random returns numbers in [0, 1) and draws the jitter; pass a fixed
// function in tests, or a *rand.Rand's Float64 method. nil uses
// math/rand/v2.
func NewExponentialDelayRestartBackoffTimeStrategy(cfg ExponentialDelayConfig, random func() float64) (*ExponentialDelayRestartBackoffTimeStrategy, error) {
	initialMS, maxMS := cfg.InitialBackoff.Milliseconds(), cfg.MaxBackoff.Milliseconds()
	switch {
	case initialMS < 1:
		return nil, invalid(KeyExponentialDelayInitialBackoff, cfg.InitialBackoff, "Initial backoff must be at least 1.")
	case maxMS < 1:
		return nil, invalid(KeyExponentialDelayMaxBackoff, cfg.MaxBackoff, "Maximum backoff must be at least 1.")
	case initialMS > maxMS:
		return nil, invalid(KeyExponentialDelayInitialBackoff, cfg.InitialBackoff, "Initial backoff cannot be higher than maximum backoff.")
	case !(cfg.BackoffMultiplier > 1):
		return nil, invalid(KeyExponentialDelayBackoffMultiplier, cfg.BackoffMultiplier, "Backoff multiplier must be greater than 1.")
	case cfg.ResetBackoffThreshold.Milliseconds() < 1:
		return nil, invalid(KeyExponentialDelayResetBackoffThreshold, cfg.ResetBackoffThreshold, "Threshold duration for exponential backoff reset must be at least 1.")
	case !(0 <= cfg.JitterFactor && cfg.JitterFactor <= 1):
		return nil, invalid(KeyExponentialDelayJitterFactor, cfg.JitterFactor, "Jitter factor must be >= 0 and <= 1.")
	case cfg.AttemptsBeforeResetBackoff < 1:
		return nil, invalid(KeyExponentialDelayAttemptsBeforeResetBackoff, cfg.AttemptsBeforeResetBackoff, "The attemptsBeforeResetBackoff must be at least 1.")
	}
	if random == nil {
		random = rand.Float64
	}
	return &ExponentialDelayRestartBackoffTimeStrategy{
		initialBackoffMS:           initialMS,
		maxBackoffMS:               maxMS,
		backoffMultiplier:          cfg.BackoffMultiplier,
		resetBackoffThreshold:      cfg.ResetBackoffThreshold.Truncate(time.Millisecond),
		jitterFactor:               cfg.JitterFactor,
		attemptsBeforeResetBackoff: cfg.AttemptsBeforeResetBackoff,
		random:                     random,
	}, nil
}

// CanRestart reports whether at most AttemptsBeforeResetBackoff restarts
// have been counted since the last reset.
func (s *ExponentialDelayRestartBackoffTimeStrategy) CanRestart() bool {
	return s.currentRestartAttempt <= s.attemptsBeforeResetBackoff
}

// BackoffTime is how long after the last failure the pending restart is
// due: the whole delay for a counted failure, what is left of it for a
// merged one. It is 0 before the first failure (Flink throws "Please call
// notifyFailure first.").
func (s *ExponentialDelayRestartBackoffTimeStrategy) BackoffTime() time.Duration {
	if s.nextRestart.IsZero() {
		return 0
	}
	return max(0, s.nextRestart.Sub(s.lastFailure))
}

// NotifyFailure applies the three rules of the type's documentation and
// reports whether the failure was counted.
func (s *ExponentialDelayRestartBackoffTimeStrategy) NotifyFailure(_ error, now time.Time) bool {
	s.lastFailure = now
	if !s.nextRestart.IsZero() {
		// Merge the failures that arrive while a restart is pending into it.
		if !now.After(s.nextRestart) {
			return false
		}
		if now.Sub(s.nextRestart) >= s.resetBackoffThreshold {
			s.currentRestartAttempt = 0
		}
	}
	s.nextRestart = now.Add(time.Duration(s.actualBackoffTimeMS()) * time.Millisecond)
	s.currentRestartAttempt++
	return true
}

// String prints Flink's toString(), including the two fields that change.
func (s *ExponentialDelayRestartBackoffTimeStrategy) String() string {
	next := int64(nextRestartTimestampUnset)
	if !s.nextRestart.IsZero() {
		next = s.nextRestart.UnixMilli()
	}
	return fmt.Sprintf("ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=%d, maxBackoffMS=%d, "+
		"backoffMultiplier=%s, resetBackoffThresholdMS=%d, jitterFactor=%s, attemptsBeforeResetBackoff=%d, "+
		"currentRestartAttempt=%d, nextRestartTimestamp=%d)",
		s.initialBackoffMS, s.maxBackoffMS, configuration.FormatJavaDouble(s.backoffMultiplier), s.resetBackoffThreshold.Milliseconds(),
		configuration.FormatJavaDouble(s.jitterFactor), s.attemptsBeforeResetBackoff, s.currentRestartAttempt, next)
}

// actualBackoffTimeMS is the delay of the current attempt, in milliseconds
// (Flink: calculateActualBackoffTime).
func (s *ExponentialDelayRestartBackoffTimeStrategy) actualBackoffTimeMS() int64 {
	b := float64(s.initialBackoffMS) * math.Pow(s.backoffMultiplier, float64(s.currentRestartAttempt))
	backoffMS := int64(maxBackoffCalcMS)
	if b < maxBackoffCalcMS {
		backoffMS = int64(b)
	}
	return max(s.initialBackoffMS, min(backoffMS+s.jitterMS(backoffMS), s.maxBackoffMS))
}

// jitterMS draws a whole number of milliseconds in [-n, n], n =
// JitterFactor × backoffMS, each equally likely (Flink:
// calculateJitterBackoffMS, ThreadLocalRandom.nextLong(-n, n+1)).
func (s *ExponentialDelayRestartBackoffTimeStrategy) jitterMS(backoffMS int64) int64 {
	if s.jitterFactor == 0 {
		return 0
	}
	n := int64(float64(backoffMS) * s.jitterFactor)
	choices := 2*n + 1
	pick := min(int64(s.random()*float64(choices)), choices-1)
	return pick - n
}
