package registration_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/gateway"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answer is how the fake target answers one attempt.
type answer int

const (
	hang      answer = iota // never answers: the attempt times out
	succeed                 // "registered"
	fail                    // gateway.ErrRegistrationFailure: try again later
	reject                  // gateway.ErrRegistrationRejected: never again
	breakDown               // any other error: the target is unreachable, say
)

func (a answer) String() string {
	return [...]string{"hang", "succeed", "fail", "reject", "breakDown"}[a]
}

// attempt is one registration attempt the target saw: when it arrived
// (since the registration started) and how long the caller would wait.
type attempt struct {
	At      time.Duration
	Timeout time.Duration
}

// fakeTarget is the ResourceManager the registration talks to. It answers
// attempt n with script[n-1], and with the last entry of script after that.
type fakeTarget struct {
	start  time.Time
	script []answer
	gate   chan struct{} // if set, every answer waits until it is closed

	mu       sync.Mutex
	attempts []attempt
	arrived  chan int // the number of each attempt, as it arrives
}

func newFakeTarget(script ...answer) *fakeTarget {
	return &fakeTarget{start: time.Now(), script: script, arrived: make(chan int, 100)}
}

func (f *fakeTarget) invoke(ctx context.Context) (string, error) {
	now := time.Now()
	deadline, _ := ctx.Deadline()
	f.mu.Lock()
	f.attempts = append(f.attempts, attempt{At: now.Sub(f.start), Timeout: deadline.Sub(now)})
	n := len(f.attempts)
	f.mu.Unlock()
	f.arrived <- n

	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	switch f.script[min(n, len(f.script))-1] {
	case succeed:
		return fmt.Sprintf("registration-%d", n), nil
	case fail:
		return "", gateway.RegistrationFailure("the ResourceManager is not ready")
	case reject:
		return "", gateway.RegistrationRejected("the ResourceManager will never accept you")
	case breakDown:
		return "", errors.New("connection refused")
	default: // hang
		<-ctx.Done()
		return "", ctx.Err()
	}
}

func (f *fakeTarget) seen() []attempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]attempt(nil), f.attempts...)
}

// waitForAttempt blocks until attempt n arrived. Inside a synctest bubble
// the fake clock runs until it does.
func (f *fakeTarget) waitForAttempt(t *testing.T, n int) {
	t.Helper()
	for got := range f.arrived {
		if got == n {
			return
		}
	}
}

// outcome records the callbacks, which run on the owner's main thread.
type outcome struct {
	start time.Time

	mu         sync.Mutex
	successes  []string
	successAt  []time.Duration
	rejections []error
}

func (o *outcome) onSuccess(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.successes = append(o.successes, s)
	o.successAt = append(o.successAt, time.Since(o.start))
}

func (o *outcome) onRejection(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejections = append(o.rejections, err)
}

func (o *outcome) get() (successes []string, successAt []time.Duration, rejections []error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.successes...), append([]time.Duration(nil), o.successAt...),
		append([]error(nil), o.rejections...)
}

// harness is a JobMaster-like owner registering at a fake ResourceManager.
type harness struct {
	owner   *rpc.Endpoint
	target  *fakeTarget
	outcome *outcome
	reg     *registration.Registration[string]
}

// startRegistration starts the owner and the registration on its main
// thread. Call it inside a synctest bubble.
func startRegistration(t *testing.T, cfg registration.Config, logger *slog.Logger, script ...answer) *harness {
	t.Helper()
	return startRegistrationAt(t, cfg, logger, newFakeTarget(script...))
}

// startRegistrationAt is startRegistration with a target built by the test.
func startRegistrationAt(t *testing.T, cfg registration.Config, logger *slog.Logger, target *fakeTarget) *harness {
	t.Helper()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h := &harness{
		owner:   rpc.NewEndpoint("JobMaster"),
		target:  target,
		outcome: &outcome{start: time.Now()},
	}
	h.reg = &registration.Registration[string]{
		Owner:         h.owner,
		TargetName:    "ResourceManager",
		TargetAddress: "pekko://flink/user/rpc/resourcemanager_0",
		Config:        cfg,
		Logger:        logger,
		Invoke:        h.target.invoke,
		OnSuccess:     h.outcome.onSuccess,
		OnRejection:   h.outcome.onRejection,
	}
	h.owner.Start(h.reg.Start)
	t.Cleanup(func() { h.owner.Close(nil) })
	return h
}

// attemptsSent asks the owner's main thread how many attempts it sent.
func (h *harness) attemptsSent(t *testing.T) int {
	t.Helper()
	n, err := rpc.CallAsync(context.Background(), h.owner, func() (int, error) { return h.reg.Attempts(), nil })
	require.NoError(t, err)
	return n
}

// cancel cancels the registration on the owner's main thread and returns
// once it has.
func (h *harness) cancel(t *testing.T) {
	t.Helper()
	_, err := rpc.CallAsync(context.Background(), h.owner, func() (struct{}, error) {
		h.reg.Cancel()
		return struct{}{}, nil
	})
	require.NoError(t, err)
}

const ms = time.Millisecond

func TestTimeoutsDoubleUpToMaxTimeout(t *testing.T) {
	tests := []struct {
		name string
		cfg  registration.Config
		want []attempt
	}{
		{
			name: "capped at one second",
			cfg:  registration.Config{InitialTimeout: 100 * ms, MaxTimeout: time.Second},
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms},
				{300 * ms, 400 * ms},
				{700 * ms, 800 * ms},
				{1500 * ms, 1000 * ms},
				{2500 * ms, 1000 * ms},
				{3500 * ms, 1000 * ms},
			},
		},
		{
			name: "Flink's defaults: 100ms up to 30s",
			cfg:  registration.DefaultConfig(),
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms},
				{300 * ms, 400 * ms},
				{700 * ms, 800 * ms},
				{1500 * ms, 1600 * ms},
				{3100 * ms, 3200 * ms},
				{6300 * ms, 6400 * ms},
				{12700 * ms, 12800 * ms},
				{25500 * ms, 25600 * ms},
				{51100 * ms, 30000 * ms},
				{81100 * ms, 30000 * ms},
			},
		},
		{
			name: "zero config means Flink's defaults",
			cfg:  registration.Config{},
			want: []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}, {300 * ms, 400 * ms}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startRegistration(t, tt.cfg, nil, hang)
				h.target.waitForAttempt(t, len(tt.want))
				h.cancel(t)

				got := h.target.seen()
				assert.Equal(t, tt.want, got)
				assert.Equal(t, len(tt.want), h.attemptsSent(t))
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes)
				assert.Empty(t, rejections)
			})
		})
	}
}

func TestRetryRules(t *testing.T) {
	cfg := registration.Config{
		InitialTimeout: 100 * ms,
		MaxTimeout:     time.Second,
		ErrorDelay:     10 * time.Second,
		RefusedDelay:   30 * time.Second,
	}
	tests := []struct {
		name          string
		script        []answer
		want          []attempt
		wantSuccessAt []time.Duration
	}{
		{
			name:          "success at once",
			script:        []answer{succeed},
			want:          []attempt{{0, 100 * ms}},
			wantSuccessAt: []time.Duration{0},
		},
		{
			name:          "success after two timeouts",
			script:        []answer{hang, hang, succeed},
			want:          []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}, {300 * ms, 400 * ms}},
			wantSuccessAt: []time.Duration{300 * ms},
		},
		{
			name:   "a failure waits RefusedDelay, then starts again from InitialTimeout",
			script: []answer{hang, hang, fail, succeed},
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms},
				{300 * ms, 400 * ms}, // fails at once
				{30300 * ms, 100 * ms},
			},
			wantSuccessAt: []time.Duration{30300 * ms},
		},
		{
			name:   "another error waits ErrorDelay, then starts again from InitialTimeout",
			script: []answer{hang, breakDown, hang, succeed},
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms}, // errors at once
				{10100 * ms, 100 * ms},
				{10200 * ms, 200 * ms},
			},
			wantSuccessAt: []time.Duration{10200 * ms},
		},
		{
			name:   "failures keep waiting RefusedDelay",
			script: []answer{fail, fail, breakDown, succeed},
			want: []attempt{
				{0, 100 * ms},
				{30 * time.Second, 100 * ms},
				{60 * time.Second, 100 * ms},
				{70 * time.Second, 100 * ms},
			},
			wantSuccessAt: []time.Duration{70 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startRegistration(t, cfg, nil, tt.script...)
				h.target.waitForAttempt(t, len(tt.want))
				synctest.Wait()       // the last answer has been handled
				time.Sleep(time.Hour) // fake time: no further attempt may come

				got := h.target.seen()
				assert.Equal(t, tt.want, got)
				assert.Equal(t, len(tt.want), h.attemptsSent(t))
				successes, successAt, rejections := h.outcome.get()
				assert.Equal(t, []string{fmt.Sprintf("registration-%d", len(tt.want))}, successes, "OnSuccess is called exactly once")
				assert.Equal(t, tt.wantSuccessAt, successAt)
				assert.Empty(t, rejections)
			})
		})
	}
}

func TestRejectionEndsTheRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startRegistration(t, registration.DefaultConfig(), nil, hang, reject, succeed)
		h.target.waitForAttempt(t, 2)
		synctest.Wait()
		time.Sleep(time.Hour) // fake time: no further attempt may come

		got, want := h.target.seen(), []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}}
		assert.Equal(t, want, got)
		assert.Equal(t, 2, h.attemptsSent(t))
		successes, _, rejections := h.outcome.get()
		assert.Empty(t, successes)
		require.Len(t, rejections, 1, "OnRejection is called exactly once")
		assert.ErrorIs(t, rejections[0], gateway.ErrRegistrationRejected)
	})
}

func TestCancelDuringTheRetryDelayStopsTheRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startRegistration(t, registration.DefaultConfig(), nil, fail, succeed)
		h.target.waitForAttempt(t, 1)
		synctest.Wait()              // the failure is handled: the retry waits 30s
		time.Sleep(10 * time.Second) // fake time
		h.cancel(t)
		time.Sleep(time.Hour) // fake time: the pending retry must not fire

		assert.Len(t, h.target.seen(), 1)
		assert.Equal(t, 1, h.attemptsSent(t))
		successes, _, rejections := h.outcome.get()
		assert.Empty(t, successes)
		assert.Empty(t, rejections)
	})
}

func TestCancelIgnoresTheAnswerInFlight(t *testing.T) {
	for _, late := range []answer{succeed, reject, fail, breakDown} {
		t.Run(late.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				target := newFakeTarget(late)
				target.gate = make(chan struct{})
				h := startRegistrationAt(t, registration.DefaultConfig(), nil, target)
				target.waitForAttempt(t, 1)
				h.cancel(t) // while attempt 1 waits for its answer

				close(target.gate) // the answer arrives after all
				synctest.Wait()
				time.Sleep(time.Hour) // fake time: no retry may come either

				assert.Len(t, target.seen(), 1)
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes, "an answer to a cancelled registration is ignored")
				assert.Empty(t, rejections, "an answer to a cancelled registration is ignored")
			})
		})
	}
}

func TestCancelIgnoresATimeoutInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startRegistration(t, registration.DefaultConfig(), nil, hang)
		h.target.waitForAttempt(t, 1)
		h.cancel(t)
		time.Sleep(time.Hour) // fake time: attempt 1 times out, and nothing follows

		assert.Len(t, h.target.seen(), 1)
		assert.Equal(t, 1, h.attemptsSent(t))
	})
}

func TestRetriesAreLoggedAsInFlink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		h := startRegistration(t, registration.DefaultConfig(), logger, hang, fail, breakDown, succeed)
		h.target.waitForAttempt(t, 4)
		synctest.Wait()
		h.owner.Close(nil) // the main thread has stopped writing logs

		for _, want := range []string{
			"Registration at ResourceManager attempt 1 (timeout=100ms)",
			"Registration at ResourceManager (pekko://flink/user/rpc/resourcemanager_0) attempt 1 timed out after 100 ms",
			"Registration failure at ResourceManager occurred.",
			"Pausing and re-attempting registration in 30000 ms",
			"Registration at ResourceManager failed due to an error",
			"Pausing and re-attempting registration in 10000 ms",
		} {
			assert.Contains(t, logs.String(), want)
		}
		// Attempts 1, 3 and 4 wait InitialTimeout; attempt 2 waits double.
		assert.Equal(t, 3, strings.Count(logs.String(), "(timeout=100ms)"))
		assert.Equal(t, 1, strings.Count(logs.String(), "(timeout=200ms)"))
	})
}
