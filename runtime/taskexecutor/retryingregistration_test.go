package taskexecutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

func TestNextRegistrationAttempt(t *testing.T) {
	cfg := DefaultRetryingRegistrationConfig()
	tests := []struct {
		name      string
		prev      registrationAttempt
		err       error
		wantNext  registrationAttempt
		wantDelay time.Duration
		wantRetry bool
	}{
		{"a timeout doubles the timeout at once", registrationAttempt{1, 100 * time.Millisecond},
			rpc.ErrTimeout, registrationAttempt{2, 200 * time.Millisecond}, 0, true},
		{"the timeout stops growing at the max", registrationAttempt{9, 20 * time.Second},
			context.DeadlineExceeded, registrationAttempt{10, 30 * time.Second}, 0, true},
		{"a failure pauses for the refused delay", registrationAttempt{3, 400 * time.Millisecond},
			gateway.RegistrationFailure("not now"), registrationAttempt{1, 100 * time.Millisecond}, 30 * time.Second, true},
		{"an error pauses for the error delay", registrationAttempt{2, 200 * time.Millisecond},
			errors.New("connection refused"), registrationAttempt{1, 100 * time.Millisecond}, 10 * time.Second, true},
		{"a rejection stops", registrationAttempt{1, 100 * time.Millisecond},
			gateway.RegistrationRejected("never"), registrationAttempt{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, delay, retry := nextRegistrationAttempt(cfg, tt.prev, classifyRegistrationError(tt.err))
			assert.Equal(t, tt.wantNext, next)
			assert.Equal(t, tt.wantDelay, delay)
			assert.Equal(t, tt.wantRetry, retry)
		})
	}
}

// registrationRun drives one retryingRegistration on a real endpoint and
// records when each attempt went out and with which timeout.
type registrationRun struct {
	start     time.Time
	attempts  []string // "at=<since start> timeout=<t>"
	succeeded chan string
	rejected  chan error
}

// runRegistration starts a registration whose n-th attempt (from 1) ends as
// answer(n, ctx) says. Call it inside a synctest bubble.
func runRegistration(t *testing.T, resolveErrs int, answer func(n int, ctx context.Context) (string, error)) (*registrationRun, *rpc.Endpoint, *retryingRegistration[string, string]) {
	owner := rpc.NewEndpoint("TaskExecutor")
	owner.Start(nil)
	t.Cleanup(func() { owner.Close(nil) })
	run := &registrationRun{start: time.Now(), succeeded: make(chan string, 1), rejected: make(chan error, 1)}
	resolves, n := 0, 0
	reg := &retryingRegistration[string, string]{
		owner: owner, logger: slog.New(slog.DiscardHandler),
		targetName: "ResourceManager", targetAddress: "rm", config: DefaultRetryingRegistrationConfig(),
		resolveTimeout: 10 * time.Second,
		resolve: func(context.Context) (string, error) {
			resolves++
			if resolves <= resolveErrs {
				return "", errors.New("Could not connect to rpc endpoint under address rm.")
			}
			return "rm-gateway", nil
		},
		invoke: func(ctx context.Context, target string) (string, error) {
			n++
			deadline, _ := ctx.Deadline()
			run.attempts = append(run.attempts, fmt.Sprintf("at=%v timeout=%v", time.Since(run.start), deadline.Sub(time.Now())))
			return answer(n, ctx)
		},
		onSuccess:   func(target, answer string) { run.succeeded <- answer },
		onRejection: func(err error) { run.rejected <- err },
	}
	owner.RunAsync(reg.start)
	return run, owner, reg
}

func TestRetryingRegistrationBacksOff(t *testing.T) {
	tests := []struct {
		name         string
		resolveErrs  int
		answer       func(n int, ctx context.Context) (string, error)
		wantAttempts []string
	}{
		{
			name: "two failures wait the refused delay each",
			answer: func(n int, ctx context.Context) (string, error) {
				if n <= 2 {
					return "", gateway.RegistrationFailure("the ResourceManager is not ready")
				}
				return "registered", nil
			},
			wantAttempts: []string{"at=0s timeout=100ms", "at=30s timeout=100ms", "at=1m0s timeout=100ms"},
		},
		{
			name: "two errors wait the error delay each",
			answer: func(n int, ctx context.Context) (string, error) {
				if n <= 2 {
					return "", errors.New("connection reset")
				}
				return "registered", nil
			},
			wantAttempts: []string{"at=0s timeout=100ms", "at=10s timeout=100ms", "at=20s timeout=100ms"},
		},
		{
			name: "two timeouts double the timeout without a pause",
			answer: func(n int, ctx context.Context) (string, error) {
				if n <= 2 {
					<-ctx.Done()
					return "", ctx.Err()
				}
				return "registered", nil
			},
			wantAttempts: []string{"at=0s timeout=100ms", "at=100ms timeout=200ms", "at=300ms timeout=400ms"},
		},
		{
			name:        "an unresolvable address is retried after the error delay",
			resolveErrs: 1,
			answer: func(int, context.Context) (string, error) {
				return "registered", nil
			},
			wantAttempts: []string{"at=10s timeout=100ms"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				run, _, _ := runRegistration(t, tt.resolveErrs, tt.answer)
				assert.Equal(t, "registered", <-run.succeeded)
				assert.Equal(t, tt.wantAttempts, run.attempts)
			})
		})
	}
}

func TestRetryingRegistrationStopsWhenRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run, _, _ := runRegistration(t, 0, func(int, context.Context) (string, error) {
			return "", gateway.RegistrationRejected("go away")
		})
		err := <-run.rejected
		assert.ErrorIs(t, err, gateway.ErrRegistrationRejected)
		<-time.After(time.Hour) // fake time: no attempt follows a rejection
		assert.Len(t, run.attempts, 1)
	})
}

func TestRetryingRegistrationCancelledDuringPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run, owner, reg := runRegistration(t, 0, func(int, context.Context) (string, error) {
			return "", gateway.RegistrationFailure("not now")
		})
		synctest.Wait() // the first attempt failed; the registration pauses
		_, err := rpc.CallAsync(context.Background(), owner, func() (struct{}, error) {
			reg.cancel()
			return struct{}{}, nil
		})
		require.NoError(t, err)
		<-time.After(time.Hour) // fake time: the pause would have ended long ago
		assert.Len(t, run.attempts, 1)
	})
}
