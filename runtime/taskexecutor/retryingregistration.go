package taskexecutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/gateway"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

// RetryingRegistrationConfig says how a registration is retried (Flink's
// RetryingRegistrationConfiguration, set by the cluster.registration.*
// options): InitialTimeout (100 ms) is how long the first attempt waits for
// an answer; the timeout doubles after every attempt that timed out, up to
// MaxTimeout (30 s); ErrorDelay (10 s) is the pause after an error such as
// an unreachable target; RefusedDelay (30 s) the pause after the target
// answered with a failure.
//
// It is the cluster-wide registration.Config, which the JobMaster's
// registration at the ResourceManager uses too; zero fields take Flink's
// defaults.
type RetryingRegistrationConfig = registration.Config

// DefaultRetryingRegistrationConfig returns Flink's defaults.
func DefaultRetryingRegistrationConfig() RetryingRegistrationConfig {
	return registration.DefaultConfig()
}

// registrationConfigWithDefaults fills the zero fields of c with Flink's
// defaults.
func registrationConfigWithDefaults(c RetryingRegistrationConfig) RetryingRegistrationConfig {
	d := DefaultRetryingRegistrationConfig()
	if c.InitialTimeout <= 0 {
		c.InitialTimeout = d.InitialTimeout
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = d.MaxTimeout
	}
	if c.ErrorDelay <= 0 {
		c.ErrorDelay = d.ErrorDelay
	}
	if c.RefusedDelay <= 0 {
		c.RefusedDelay = d.RefusedDelay
	}
	return c
}

// registrationOutcome classifies how an attempt that did not succeed ended.
type registrationOutcome int

const (
	registrationTimedOut registrationOutcome = iota // no answer within the attempt's timeout
	registrationFailed                              // the target answered Failure: try again later
	registrationRejected                            // the target answered Rejection: never again
	registrationError                               // anything else, e.g. the target is unreachable
)

// classifyRegistrationError tells how a registration attempt ended from its
// error.
func classifyRegistrationError(err error) registrationOutcome {
	switch {
	case errors.Is(err, rpc.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return registrationTimedOut
	case errors.Is(err, gateway.ErrRegistrationRejected):
		return registrationRejected
	case errors.Is(err, gateway.ErrRegistrationFailure):
		return registrationFailed
	}
	return registrationError
}

// registrationAttempt is one attempt to register: its number (counted from
// the last pause, as Flink's logs count) and how long it waits for an answer.
type registrationAttempt struct {
	number  int
	timeout time.Duration
}

// firstRegistrationAttempt is the attempt a registration starts with, and
// starts over with after each pause.
func firstRegistrationAttempt(c RetryingRegistrationConfig) registrationAttempt {
	return registrationAttempt{number: 1, timeout: c.InitialTimeout}
}

// nextRegistrationAttempt is the backoff rule of Flink's
// RetryingRegistration, as a pure function: after an attempt that ended
// with outcome, which attempt comes next and after what pause, or none.
//
//   - timed out: at once, with double the timeout, at most MaxTimeout;
//   - failure: after RefusedDelay, starting over from the first attempt;
//   - error: after ErrorDelay, starting over;
//   - rejected: never.
func nextRegistrationAttempt(c RetryingRegistrationConfig, prev registrationAttempt, outcome registrationOutcome) (next registrationAttempt, delay time.Duration, retry bool) {
	switch outcome {
	case registrationTimedOut:
		return registrationAttempt{number: prev.number + 1, timeout: min(2*prev.timeout, c.MaxTimeout)}, 0, true
	case registrationFailed:
		return firstRegistrationAttempt(c), c.RefusedDelay, true
	case registrationRejected:
		return registrationAttempt{}, 0, false
	default:
		return firstRegistrationAttempt(c), c.ErrorDelay, true
	}
}

// retryingRegistration registers a component at a target until it
// succeeds, is rejected, or is cancelled (Flink's RetryingRegistration and
// the RegisteredRpcConnection around it). G is the target's gateway, S the
// answer of a successful registration.
//
// It first resolves the target's address to a gateway, then sends attempts
// following nextRegistrationAttempt. Everything runs on the owner's main thread: calls
// go out through rpc.Ask, pauses through ScheduleRunAsync, and the callbacks
// run on the main thread too. Start and cancel it there.
type retryingRegistration[G, S any] struct {
	owner          *rpc.Endpoint
	logger         *slog.Logger
	targetName     string // "ResourceManager" or "JobManager", as in Flink's logs
	targetAddress  string
	config         RetryingRegistrationConfig
	resolveTimeout time.Duration

	// resolve connects to the target's address (rpc.Connect).
	resolve func(ctx context.Context) (G, error)
	// invoke sends one registration attempt; ctx ends at its timeout.
	invoke func(ctx context.Context, target G) (S, error)
	// onSuccess receives the target and its answer.
	onSuccess func(target G, answer S)
	// onRejection is told that the target rejected the registration.
	onRejection func(err error)

	canceled    bool
	cancelPause func()
}

// start resolves the target and begins the attempts. Main thread only.
func (r *retryingRegistration[G, S]) start() {
	if r.canceled {
		return
	}
	rpc.Ask(r.owner, r.resolveTimeout, r.resolve, func(target G, err error) {
		if r.canceled {
			return
		}
		if err != nil {
			r.logger.Info(fmt.Sprintf("Could not resolve %s address %s, retrying in %d ms: %v",
				r.targetName, r.targetAddress, r.config.ErrorDelay.Milliseconds(), err))
			r.pause(r.config.ErrorDelay, r.start)
			return
		}
		r.logger.Info(fmt.Sprintf("Resolved %s address, beginning registration", r.targetName))
		r.register(target, firstRegistrationAttempt(r.config))
	})
}

// register sends one attempt and decides, from its outcome, what follows.
func (r *retryingRegistration[G, S]) register(target G, attempt registrationAttempt) {
	if r.canceled {
		return
	}
	r.logger.Debug(fmt.Sprintf("Registration at %s attempt %d (timeout=%dms)",
		r.targetName, attempt.number, attempt.timeout.Milliseconds()))
	invoke := func(ctx context.Context) (S, error) { return r.invoke(ctx, target) }
	rpc.Ask(r.owner, attempt.timeout, invoke, func(answer S, err error) {
		if r.canceled {
			return
		}
		if err == nil {
			r.onSuccess(target, answer)
			return
		}

		outcome := classifyRegistrationError(err)
		next, delay, retry := nextRegistrationAttempt(r.config, attempt, outcome)
		switch outcome {
		case registrationTimedOut:
			r.logger.Debug(fmt.Sprintf("Registration at %s (%s) attempt %d timed out after %d ms",
				r.targetName, r.targetAddress, attempt.number, attempt.timeout.Milliseconds()))
		case registrationRejected:
			r.logger.Debug(fmt.Sprintf("Registration at %s was rejected: %v", r.targetName, err))
		case registrationFailed:
			r.logger.Info(fmt.Sprintf("Registration failure at %s occurred.", r.targetName), "cause", err.Error())
		default:
			r.logger.Error(fmt.Sprintf("Registration at %s failed due to an error", r.targetName), "cause", err.Error())
		}
		if !retry {
			r.onRejection(err)
			return
		}
		if delay == 0 {
			r.register(target, next)
			return
		}
		r.logger.Info(fmt.Sprintf("Pausing and re-attempting registration in %d ms", delay.Milliseconds()))
		r.pause(delay, func() { r.register(target, next) })
	})
}

func (r *retryingRegistration[G, S]) pause(delay time.Duration, then func()) {
	r.cancelPause = r.owner.ScheduleRunAsync(then, delay)
}

// cancel stops the registration: no more attempts, and answers still in
// flight are ignored. Main thread only.
func (r *retryingRegistration[G, S]) cancel() {
	r.canceled = true
	if r.cancelPause != nil {
		r.cancelPause()
	}
}
