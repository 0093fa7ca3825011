package failover

import "time"

// RestartBackoffTimeStrategy decides whether a failed job may restart, and
// after how long (Flink: RestartBackoffTimeStrategy). Which tasks restart is
// not its business; a FailoverStrategy decides that.
//
// The ExecutionFailureHandler asks in one fixed order for every failure:
//
//	isNewAttempt := s.NotifyFailure(cause, now)
//	if s.CanRestart() {
//	    delay := s.BackoffTime()
//	}
//
// so CanRestart and BackoffTime answer for the failure notified last, as of
// the time it was notified. Implementations are not safe for concurrent use:
// the JobMaster calls them from its main thread only.
type RestartBackoffTimeStrategy interface {
	// CanRestart reports whether the job may restart once more (Flink:
	// canRestart).
	CanRestart() bool
	// BackoffTime is how long to wait before the restart (Flink:
	// getBackoffTime).
	BackoffTime() time.Duration
	// NotifyFailure tells the strategy that a task, or the job as a whole,
	// failed at now. It returns whether the failure counts as a new restart
	// attempt. False means it joins a restart that is already pending; only
	// exponential-delay does that, the others count every failure.
	NotifyFailure(cause error, now time.Time) bool
	// String is Flink's toString(), character for character: it is what
	// "Recovery is suppressed by ..." and "Using restart back off time
	// strategy ..." print.
	String() string
}

// NoRestartBackoffTimeStrategy never restarts (Flink:
// NoRestartBackoffTimeStrategy; restart-strategy.type: disable, none or
// off). It is the default of a job without checkpointing: the first failure
// fails the job with "Recovery is suppressed by NoRestartBackoffTimeStrategy".
type NoRestartBackoffTimeStrategy struct{}

// CanRestart is always false.
func (NoRestartBackoffTimeStrategy) CanRestart() bool { return false }

// BackoffTime is always 0.
func (NoRestartBackoffTimeStrategy) BackoffTime() time.Duration { return 0 }

// NotifyFailure ignores the failure and reports it as new.
func (NoRestartBackoffTimeStrategy) NotifyFailure(error, time.Time) bool { return true }

func (NoRestartBackoffTimeStrategy) String() string { return "NoRestartBackoffTimeStrategy" }
