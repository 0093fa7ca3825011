package registration

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// Config holds the retry rules (Flink's cluster.registration.* options).
type Config struct {
	InitialTimeout time.Duration // cluster.registration.initial-timeout
	MaxTimeout     time.Duration // cluster.registration.max-timeout
	ErrorDelay     time.Duration // cluster.registration.error-delay
	RefusedDelay   time.Duration // cluster.registration.refused-registration-delay
}

// DefaultConfig returns Flink's defaults.
func DefaultConfig() Config {
	return Config{
		InitialTimeout: 100 * time.Millisecond,
		MaxTimeout:     30 * time.Second,
		ErrorDelay:     10 * time.Second,
		RefusedDelay:   30 * time.Second,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
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

// Registration is one component trying to register at another (Flink's
// RetryingRegistration). Create it, then Start it on the owner's main
// thread. All its callbacks run on that main thread.
type Registration[S any] struct {
	Owner         *rpc.Endpoint
	TargetName    string // "ResourceManager"
	TargetAddress string
	Config        Config
	Logger        *slog.Logger
	// Invoke sends one registration attempt; ctx expires after the
	// attempt's timeout.
	Invoke func(ctx context.Context) (S, error)
	// OnSuccess receives the target's answer.
	OnSuccess func(S)
	// OnRejection is called when the target rejects the registration for good.
	OnRejection func(error)

	attempt    int
	cancelled  bool
	cancelNext func()
}

// Start sends the first attempt. Main thread only.
func (r *Registration[S]) Start() {
	r.Config = r.Config.withDefaults()
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	r.register(r.Config.InitialTimeout)
}

// Cancel stops the registration; answers still in flight are ignored.
// Main thread only.
func (r *Registration[S]) Cancel() {
	r.cancelled = true
	if r.cancelNext != nil {
		r.cancelNext()
	}
}

// Attempts returns how many attempts were sent so far.
func (r *Registration[S]) Attempts() int { return r.attempt }

func (r *Registration[S]) register(timeout time.Duration) {
	if r.cancelled {
		return
	}
	r.attempt++
	r.Logger.Debug(fmt.Sprintf("Registration at %s attempt %d (timeout=%dms)", r.TargetName, r.attempt, timeout.Milliseconds()))
	rpc.Ask(r.Owner, timeout, r.Invoke, func(answer S, err error) {
		if r.cancelled {
			return
		}
		switch {
		case err == nil:
			r.OnSuccess(answer)
		case errors.Is(err, gateway.ErrRegistrationRejected):
			r.Logger.Info(fmt.Sprintf("Registration at %s was rejected: %v", r.TargetName, err))
			r.OnRejection(err)
		case errors.Is(err, rpc.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
			r.Logger.Debug(fmt.Sprintf("Registration at %s (%s) attempt %d timed out after %d ms",
				r.TargetName, r.TargetAddress, r.attempt, timeout.Milliseconds()))
			r.register(min(2*timeout, r.Config.MaxTimeout))
		case errors.Is(err, gateway.ErrRegistrationFailure):
			r.Logger.Info(fmt.Sprintf("Registration failure at %s occurred.", r.TargetName), "cause", err.Error())
			r.registerLater(r.Config.RefusedDelay)
		default:
			r.Logger.Info(fmt.Sprintf("Registration at %s failed due to an error", r.TargetName), "cause", err.Error())
			r.registerLater(r.Config.ErrorDelay)
		}
	})
}

func (r *Registration[S]) registerLater(delay time.Duration) {
	r.Logger.Info(fmt.Sprintf("Pausing and re-attempting registration in %d ms", delay.Milliseconds()))
	r.cancelNext = r.Owner.ScheduleRunAsync(func() { r.register(r.Config.InitialTimeout) }, delay)
}
