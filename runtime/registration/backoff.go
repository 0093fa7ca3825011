package registration

import (
	"context"
	"errors"
	"time"

	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// Outcome is how one registration attempt ended.
type Outcome int

const (
	// Succeeded: the target accepted the registration (Flink's
	// RegistrationResponse.Success).
	Succeeded Outcome = iota
	// TimedOut: no answer within the attempt's timeout (a TimeoutException
	// in Flink).
	TimedOut
	// Failed: the target cannot accept the registration now and may later
	// (RegistrationResponse.Failure, gateway.ErrRegistrationFailure).
	Failed
	// Rejected: the target will never accept it
	// (RegistrationResponse.Rejection, gateway.ErrRegistrationRejected).
	Rejected
	// Errored: anything else, e.g. the target is unreachable.
	Errored
)

func (o Outcome) String() string {
	switch o {
	case Succeeded:
		return "Succeeded"
	case TimedOut:
		return "TimedOut"
	case Failed:
		return "Failed"
	case Rejected:
		return "Rejected"
	case Errored:
		return "Errored"
	}
	return "Outcome(?)"
}

// Classify tells how an attempt ended from the error it returned; a nil
// error is Succeeded. Both rpc.ErrTimeout and context.DeadlineExceeded
// count as TimedOut.
func Classify(err error) Outcome {
	switch {
	case err == nil:
		return Succeeded
	case errors.Is(err, rpc.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return TimedOut
	case errors.Is(err, gateway.ErrRegistrationRejected):
		return Rejected
	case errors.Is(err, gateway.ErrRegistrationFailure):
		return Failed
	}
	return Errored
}

// Attempt is one attempt to register: its Number, counted from the last
// pause as Flink's logs count (so it restarts at 1 after every pause), and
// the Timeout it waits for an answer.
type Attempt struct {
	Number  int
	Timeout time.Duration
}

// FirstAttempt is the attempt a registration starts with, and starts over
// with after each pause: number 1, waiting InitialTimeout.
func FirstAttempt(cfg Config) Attempt {
	return Attempt{Number: 1, Timeout: cfg.InitialTimeout}
}

// NextAttempt is the backoff rule of Flink's RetryingRegistration#register
// as a pure function: after attempt prev ended with outcome, which attempt
// comes next and after what delay, or none (retry is false).
//
//   - TimedOut: at once, with double the timeout, at most MaxTimeout;
//   - Failed: after RefusedDelay, starting over from FirstAttempt;
//   - Errored: after ErrorDelay, starting over from FirstAttempt;
//   - Succeeded, Rejected: never.
//
// cfg must have its defaults filled in (RetryingRegistration.Start does).
func NextAttempt(cfg Config, prev Attempt, outcome Outcome) (next Attempt, delay time.Duration, retry bool) {
	switch outcome {
	case TimedOut:
		return Attempt{Number: prev.Number + 1, Timeout: min(2*prev.Timeout, cfg.MaxTimeout)}, 0, true
	case Failed:
		return FirstAttempt(cfg), cfg.RefusedDelay, true
	case Errored:
		return FirstAttempt(cfg), cfg.ErrorDelay, true
	default: // Succeeded, Rejected
		return Attempt{}, 0, false
	}
}
