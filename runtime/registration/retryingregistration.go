package registration

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/rpc"
)

// defaultResolveTimeout bounds Resolve when ResolveTimeout is zero: Flink's
// pekko.ask.timeout.
const defaultResolveTimeout = 10 * time.Second

// RetryingRegistration registers a component at a target until it succeeds,
// is rejected, or is cancelled (Flink's RetryingRegistration, with the
// RegisteredRpcConnection around it). G is the target's gateway, S the
// answer of a successful registration.
//
// It first resolves the target's address to a gateway, then sends attempts
// to it following NextAttempt. Fill in the fields, then call Start on the
// owner's main thread. Everything else happens there too: calls go out
// through rpc.Ask, pauses through ScheduleRunAsync, and OnSuccess and
// OnRejection run on the main thread.
type RetryingRegistration[G, S any] struct {
	// Owner is the endpoint whose main thread runs the registration.
	Owner *rpc.Endpoint
	// Logger receives Flink's log lines; nil means slog.Default().
	Logger *slog.Logger
	// TargetName names the target in the logs: "ResourceManager" or
	// "JobManager", as in Flink's.
	TargetName string
	// TargetAddress is the target's RPC address.
	TargetAddress string
	// Config holds the retry rules; Start fills its zero fields with
	// Flink's defaults.
	Config Config
	// ResolveTimeout bounds each call of Resolve; zero means 10 s (Flink's
	// pekko.ask.timeout).
	ResolveTimeout time.Duration

	// Resolve connects to TargetAddress, usually with rpc.Connect. It runs
	// off the main thread.
	Resolve func(ctx context.Context) (G, error)
	// Invoke sends one registration attempt to the resolved target; ctx
	// ends at the attempt's timeout. It runs off the main thread.
	Invoke func(ctx context.Context, target G) (S, error)
	// OnSuccess receives the target and its answer.
	OnSuccess func(target G, answer S)
	// OnRejection is told that the target rejected the registration for
	// good.
	OnRejection func(err error)

	attempts    int // sent so far, across pauses
	canceled    bool
	cancelPause func()
}

// Start resolves the target and begins the attempts. Main thread only.
func (r *RetryingRegistration[G, S]) Start() {
	r.Config = r.Config.withDefaults()
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.ResolveTimeout <= 0 {
		r.ResolveTimeout = defaultResolveTimeout
	}
	r.resolve()
}

// Cancel stops the registration: no more attempts, a pending pause is
// dropped, and answers still in flight are ignored. Main thread only.
func (r *RetryingRegistration[G, S]) Cancel() {
	r.canceled = true
	if r.cancelPause != nil {
		r.cancelPause()
	}
}

// Attempts returns how many registration attempts were sent so far, in
// all (unlike the attempt numbers in the logs, it does not restart after a
// pause). Main thread only.
func (r *RetryingRegistration[G, S]) Attempts() int { return r.attempts }

// resolve turns the address into a gateway, retrying after ErrorDelay
// until it works.
func (r *RetryingRegistration[G, S]) resolve() {
	if r.canceled {
		return
	}
	rpc.Ask(r.Owner, r.ResolveTimeout, r.Resolve, func(target G, err error) {
		if r.canceled {
			return
		}
		if err != nil {
			r.Logger.Info(fmt.Sprintf("Could not resolve %s address %s, retrying in %d ms: %v",
				r.TargetName, r.TargetAddress, r.Config.ErrorDelay.Milliseconds(), err))
			r.pause(r.Config.ErrorDelay, r.resolve)
			return
		}
		r.Logger.Info(fmt.Sprintf("Resolved %s address, beginning registration", r.TargetName))
		r.register(target, FirstAttempt(r.Config))
	})
}

// register sends one attempt and decides, from its outcome, what follows.
func (r *RetryingRegistration[G, S]) register(target G, attempt Attempt) {
	if r.canceled {
		return
	}
	r.attempts++
	r.Logger.Debug(fmt.Sprintf("Registration at %s attempt %d (timeout=%dms)",
		r.TargetName, attempt.Number, attempt.Timeout.Milliseconds()))
	invoke := func(ctx context.Context) (S, error) { return r.Invoke(ctx, target) }
	rpc.Ask(r.Owner, attempt.Timeout, invoke, func(answer S, err error) {
		if r.canceled {
			return
		}
		if err == nil {
			r.OnSuccess(target, answer)
			return
		}

		outcome := Classify(err)
		next, delay, retry := NextAttempt(r.Config, attempt, outcome)
		switch outcome {
		case TimedOut:
			r.Logger.Debug(fmt.Sprintf("Registration at %s (%s) attempt %d timed out after %d ms",
				r.TargetName, r.TargetAddress, attempt.Number, attempt.Timeout.Milliseconds()))
		case Rejected:
			r.Logger.Debug(fmt.Sprintf("Registration at %s was rejected: %v", r.TargetName, err))
		case Failed:
			r.Logger.Info(fmt.Sprintf("Registration failure at %s occurred.", r.TargetName), "cause", err.Error())
		default:
			r.Logger.Error(fmt.Sprintf("Registration at %s failed due to an error", r.TargetName), "cause", err.Error())
		}
		if !retry {
			r.OnRejection(err)
			return
		}
		if delay == 0 {
			r.register(target, next)
			return
		}
		r.Logger.Info(fmt.Sprintf("Pausing and re-attempting registration in %d ms", delay.Milliseconds()))
		r.pause(delay, func() { r.register(target, next) })
	})
}

// pause runs then after delay, unless the registration is cancelled first.
func (r *RetryingRegistration[G, S]) pause(delay time.Duration, then func()) {
	r.cancelPause = r.Owner.ScheduleRunAsync(then, delay)
}
