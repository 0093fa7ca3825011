package registration_test

import (
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

const (
	ms = time.Millisecond

	targetAddress = "pekko://flink/user/rpc/resourcemanager_0"
	// resolvedGateway is what resolving targetAddress returns.
	resolvedGateway = "resourcemanager-gateway"
)

// answer is how the fake target answers one resolution or attempt.
type answer int

const (
	hang      answer = iota // never answers: the call times out
	succeed                 // "registered" (or "resolved")
	fail                    // gateway.ErrRegistrationFailure: try again later
	reject                  // gateway.ErrRegistrationRejected: never again
	breakDown               // any other error: the target is unreachable, say
)

func (a answer) String() string {
	return [...]string{"hang", "succeed", "fail", "reject", "breakDown"}[a]
}

// attempt is one call the target saw: when it arrived (since the
// registration started) and how long the caller would wait.
type attempt struct {
	At      time.Duration
	Timeout time.Duration
}

// fakeTarget is the ResourceManager the registration talks to. It answers
// resolution n with resolveScript[n-1] (succeed if the script is empty) and
// attempt n with script[n-1]; past the end of a script, with its last
// entry.
type fakeTarget struct {
	start         time.Time
	script        []answer
	resolveScript []answer      // only hang, succeed and breakDown make sense here
	gate          chan struct{} // if set, every attempt's answer waits until it is closed
	resolveGate   chan struct{} // if set, every resolution's answer waits until it is closed

	mu       sync.Mutex
	resolves []attempt
	attempts []attempt
	gateways []string // the gateway each attempt was sent to
	arrived  chan int // the number of each attempt, as it arrives
}

func newFakeTarget(script ...answer) *fakeTarget {
	return &fakeTarget{start: time.Now(), script: script, arrived: make(chan int, 100)}
}

// record notes a call that arrives now with ctx, and returns its number.
func (f *fakeTarget) record(ctx context.Context, calls *[]attempt) int {
	now := time.Now()
	deadline, _ := ctx.Deadline()
	f.mu.Lock()
	defer f.mu.Unlock()
	*calls = append(*calls, attempt{At: now.Sub(f.start), Timeout: deadline.Sub(now)})
	return len(*calls)
}

func (f *fakeTarget) resolve(ctx context.Context) (string, error) {
	n := f.record(ctx, &f.resolves)
	if f.resolveGate != nil {
		select {
		case <-f.resolveGate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	how := succeed
	if len(f.resolveScript) > 0 {
		how = f.resolveScript[min(n, len(f.resolveScript))-1]
	}
	switch how {
	case succeed:
		return resolvedGateway, nil
	case hang:
		<-ctx.Done()
		return "", ctx.Err()
	default:
		return "", fmt.Errorf("Could not connect to rpc endpoint under address %s.", targetAddress)
	}
}

func (f *fakeTarget) invoke(ctx context.Context, gw string) (string, error) {
	n := f.record(ctx, &f.attempts)
	f.mu.Lock()
	f.gateways = append(f.gateways, gw)
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

// seen returns the attempts the target saw.
func (f *fakeTarget) seen() []attempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]attempt(nil), f.attempts...)
}

// resolvesSeen returns the resolutions of the target's address.
func (f *fakeTarget) resolvesSeen() []attempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]attempt(nil), f.resolves...)
}

// gatewaysSeen returns the gateway each attempt was sent to.
func (f *fakeTarget) gatewaysSeen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.gateways...)
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
	successGWs []string // the gateway OnSuccess received
	rejections []error
}

func (o *outcome) onSuccess(gw, s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.successes = append(o.successes, s)
	o.successAt = append(o.successAt, time.Since(o.start))
	o.successGWs = append(o.successGWs, gw)
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

func (o *outcome) successGateways() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.successGWs...)
}

// harness is a JobMaster-like owner registering at a fake ResourceManager.
type harness struct {
	owner   *rpc.Endpoint
	target  *fakeTarget
	outcome *outcome
	reg     *registration.RetryingRegistration[string, string]
}

// startRegistration starts the owner and the registration on its main
// thread. Call it inside a synctest bubble.
func startRegistration(t *testing.T, cfg registration.Config, logger *slog.Logger, script ...answer) *harness {
	t.Helper()
	return startRegistrationAt(t, cfg, logger, newFakeTarget(script...))
}

// startRegistrationAt is startRegistration with a target built by the
// test; options change the registration before it starts.
func startRegistrationAt(t *testing.T, cfg registration.Config, logger *slog.Logger, target *fakeTarget,
	options ...func(*registration.RetryingRegistration[string, string])) *harness {
	t.Helper()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h := &harness{
		owner:   rpc.NewEndpoint("JobMaster"),
		target:  target,
		outcome: &outcome{start: time.Now()},
	}
	h.reg = &registration.RetryingRegistration[string, string]{
		Owner:         h.owner,
		Logger:        logger,
		TargetName:    "ResourceManager",
		TargetAddress: targetAddress,
		Config:        cfg,
		Resolve:       h.target.resolve,
		Invoke:        h.target.invoke,
		OnSuccess:     h.outcome.onSuccess,
		OnRejection:   h.outcome.onRejection,
	}
	for _, option := range options {
		option(h.reg)
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

// logRecorder is a slog.Handler that keeps "LEVEL message key=value ..."
// for every record, in order.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		line += fmt.Sprintf(" %s=%q", a.Key, a.Value.String())
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	return nil
}

func (r *logRecorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

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
	rules := registration.Config{
		InitialTimeout: 100 * ms,
		MaxTimeout:     time.Second,
		ErrorDelay:     10 * time.Second,
		RefusedDelay:   30 * time.Second,
	}
	resolvedAtOnce := []attempt{{0, 10 * time.Second}} // the default ResolveTimeout is 10 s
	tests := []struct {
		name           string
		cfg            registration.Config
		resolveTimeout time.Duration
		resolveScript  []answer
		script         []answer
		wantResolves   []attempt
		want           []attempt
		wantSuccessAt  []time.Duration
	}{
		{
			name:          "success at once",
			cfg:           rules,
			script:        []answer{succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}},
			wantSuccessAt: []time.Duration{0},
		},
		{
			name:          "success after two timeouts",
			cfg:           rules,
			script:        []answer{hang, hang, succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}, {300 * ms, 400 * ms}},
			wantSuccessAt: []time.Duration{300 * ms},
		},
		{
			name:         "a failure waits RefusedDelay, then starts again from InitialTimeout",
			cfg:          rules,
			script:       []answer{hang, hang, fail, succeed},
			wantResolves: resolvedAtOnce,
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms},
				{300 * ms, 400 * ms}, // fails at once
				{30300 * ms, 100 * ms},
			},
			wantSuccessAt: []time.Duration{30300 * ms},
		},
		{
			name:         "another error waits ErrorDelay, then starts again from InitialTimeout",
			cfg:          rules,
			script:       []answer{hang, breakDown, hang, succeed},
			wantResolves: resolvedAtOnce,
			want: []attempt{
				{0, 100 * ms},
				{100 * ms, 200 * ms}, // errors at once
				{10100 * ms, 100 * ms},
				{10200 * ms, 200 * ms},
			},
			wantSuccessAt: []time.Duration{10200 * ms},
		},
		{
			name:         "failures keep waiting RefusedDelay",
			cfg:          rules,
			script:       []answer{fail, fail, breakDown, succeed},
			wantResolves: resolvedAtOnce,
			want: []attempt{
				{0, 100 * ms},
				{30 * time.Second, 100 * ms},
				{60 * time.Second, 100 * ms},
				{70 * time.Second, 100 * ms},
			},
			wantSuccessAt: []time.Duration{70 * time.Second},
		},
		{
			name:          "Flink's defaults: two failures wait the refused delay each",
			cfg:           registration.DefaultConfig(),
			script:        []answer{fail, fail, succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}, {30 * time.Second, 100 * ms}, {60 * time.Second, 100 * ms}},
			wantSuccessAt: []time.Duration{60 * time.Second},
		},
		{
			name:          "Flink's defaults: two errors wait the error delay each",
			cfg:           registration.DefaultConfig(),
			script:        []answer{breakDown, breakDown, succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}, {10 * time.Second, 100 * ms}, {20 * time.Second, 100 * ms}},
			wantSuccessAt: []time.Duration{20 * time.Second},
		},
		{
			name:          "Flink's defaults: two timeouts double the timeout without a pause",
			cfg:           registration.DefaultConfig(),
			script:        []answer{hang, hang, succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}, {300 * ms, 400 * ms}},
			wantSuccessAt: []time.Duration{300 * ms},
		},
		{
			name:          "zero config: Flink's refused and error delays",
			cfg:           registration.Config{},
			script:        []answer{fail, breakDown, succeed},
			wantResolves:  resolvedAtOnce,
			want:          []attempt{{0, 100 * ms}, {30 * time.Second, 100 * ms}, {40 * time.Second, 100 * ms}},
			wantSuccessAt: []time.Duration{40 * time.Second},
		},
		{
			name:          "an unresolvable address is retried after the error delay",
			cfg:           registration.DefaultConfig(),
			resolveScript: []answer{breakDown, succeed},
			script:        []answer{succeed},
			wantResolves:  []attempt{{0, 10 * time.Second}, {10 * time.Second, 10 * time.Second}},
			want:          []attempt{{10 * time.Second, 100 * ms}},
			wantSuccessAt: []time.Duration{10 * time.Second},
		},
		{
			name:          "a resolution that times out is retried after the error delay",
			cfg:           rules,
			resolveScript: []answer{hang, succeed},
			script:        []answer{succeed},
			wantResolves:  []attempt{{0, 10 * time.Second}, {20 * time.Second, 10 * time.Second}},
			want:          []attempt{{20 * time.Second, 100 * ms}},
			wantSuccessAt: []time.Duration{20 * time.Second},
		},
		{
			name:           "ResolveTimeout bounds each resolution",
			cfg:            rules,
			resolveTimeout: 2 * time.Second,
			resolveScript:  []answer{hang, breakDown, succeed},
			script:         []answer{hang, fail, succeed},
			wantResolves:   []attempt{{0, 2 * time.Second}, {12 * time.Second, 2 * time.Second}, {22 * time.Second, 2 * time.Second}},
			// Once resolved, the registration does not resolve again: a
			// failure pauses and sends attempt 1 to the same gateway.
			want:          []attempt{{22 * time.Second, 100 * ms}, {22100 * ms, 200 * ms}, {52100 * ms, 100 * ms}},
			wantSuccessAt: []time.Duration{52100 * ms},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				target := newFakeTarget(tt.script...)
				target.resolveScript = tt.resolveScript
				h := startRegistrationAt(t, tt.cfg, nil, target, func(r *registration.RetryingRegistration[string, string]) {
					r.ResolveTimeout = tt.resolveTimeout
				})
				h.target.waitForAttempt(t, len(tt.want))
				synctest.Wait()       // the last answer has been handled
				time.Sleep(time.Hour) // fake time: no further attempt may come

				assert.Equal(t, tt.wantResolves, h.target.resolvesSeen())
				got := h.target.seen()
				assert.Equal(t, tt.want, got)
				assert.Equal(t, len(tt.want), h.attemptsSent(t))
				for _, gw := range h.target.gatewaysSeen() {
					assert.Equal(t, resolvedGateway, gw, "every attempt goes to the resolved gateway")
				}
				successes, successAt, rejections := h.outcome.get()
				assert.Equal(t, []string{fmt.Sprintf("registration-%d", len(tt.want))}, successes, "OnSuccess is called exactly once")
				assert.Equal(t, tt.wantSuccessAt, successAt)
				assert.Equal(t, []string{resolvedGateway}, h.outcome.successGateways(), "OnSuccess receives the resolved gateway")
				assert.Empty(t, rejections)
			})
		})
	}
}

func TestRejectionEndsTheRegistration(t *testing.T) {
	tests := []struct {
		name   string
		script []answer
		want   []attempt
	}{
		{"rejected at once", []answer{reject, succeed}, []attempt{{0, 100 * ms}}},
		{"rejected after a timeout", []answer{hang, reject, succeed}, []attempt{{0, 100 * ms}, {100 * ms, 200 * ms}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &logRecorder{}
				h := startRegistration(t, registration.DefaultConfig(), slog.New(logs), tt.script...)
				h.target.waitForAttempt(t, len(tt.want))
				synctest.Wait()
				time.Sleep(time.Hour) // fake time: no further attempt may come

				got := h.target.seen()
				assert.Equal(t, tt.want, got)
				assert.Equal(t, len(tt.want), h.attemptsSent(t))
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes)
				require.Len(t, rejections, 1, "OnRejection is called exactly once")
				assert.ErrorIs(t, rejections[0], gateway.ErrRegistrationRejected)
				assert.Contains(t, logs.get(),
					"DEBUG Registration at ResourceManager was rejected: registration rejected: the ResourceManager will never accept you")
			})
		})
	}
}

func TestCancelDuringAPauseStopsTheRegistration(t *testing.T) {
	tests := []struct {
		name          string
		resolveScript []answer
		script        []answer
		cancelAfter   time.Duration // since the pause began
		wantAttempts  int
	}{
		{"during RefusedDelay, at once", nil, []answer{fail, succeed}, 0, 1},
		{"during RefusedDelay", nil, []answer{fail, succeed}, 10 * time.Second, 1},
		{"during ErrorDelay", nil, []answer{breakDown, succeed}, 5 * time.Second, 1},
		{"while waiting to resolve again", []answer{breakDown, succeed}, []answer{succeed}, 5 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				target := newFakeTarget(tt.script...)
				target.resolveScript = tt.resolveScript
				h := startRegistrationAt(t, registration.DefaultConfig(), nil, target)
				synctest.Wait()            // the first answer is handled: the registration pauses
				time.Sleep(tt.cancelAfter) // fake time
				h.cancel(t)
				time.Sleep(time.Hour) // fake time: the pending retry must not fire

				assert.Len(t, h.target.resolvesSeen(), 1)
				assert.Len(t, h.target.seen(), tt.wantAttempts)
				assert.Equal(t, tt.wantAttempts, h.attemptsSent(t))
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes)
				assert.Empty(t, rejections)
			})
		})
	}
}

func TestCancelIgnoresTheAnswerInFlight(t *testing.T) {
	for _, late := range []answer{succeed, reject, fail, breakDown} {
		t.Run(late.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &logRecorder{}
				target := newFakeTarget(late)
				target.gate = make(chan struct{})
				h := startRegistrationAt(t, registration.DefaultConfig(), slog.New(logs), target)
				target.waitForAttempt(t, 1)
				h.cancel(t) // while attempt 1 waits for its answer

				close(target.gate) // the answer arrives after all
				synctest.Wait()
				time.Sleep(time.Hour) // fake time: no retry may come either

				assert.Len(t, target.seen(), 1)
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes, "an answer to a cancelled registration is ignored")
				assert.Empty(t, rejections, "an answer to a cancelled registration is ignored")
				assert.Equal(t, []string{
					"INFO Resolved ResourceManager address, beginning registration",
					"DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)",
				}, logs.get(), "nothing is logged about the ignored answer")
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

func TestCancelIgnoresAResolutionInFlight(t *testing.T) {
	for _, late := range []answer{succeed, breakDown, hang} {
		t.Run(late.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logs := &logRecorder{}
				target := newFakeTarget(succeed)
				target.resolveScript = []answer{late}
				target.resolveGate = make(chan struct{})
				h := startRegistrationAt(t, registration.DefaultConfig(), slog.New(logs), target)
				synctest.Wait() // the resolution waits at the gate
				h.cancel(t)

				close(target.resolveGate) // the gateway (or an error, or a timeout) arrives after all
				synctest.Wait()
				time.Sleep(time.Hour) // fake time: no attempt and no second resolution may come

				assert.Len(t, target.resolvesSeen(), 1)
				assert.Empty(t, target.seen(), "a cancelled registration sends no attempt")
				assert.Equal(t, 0, h.attemptsSent(t))
				successes, _, rejections := h.outcome.get()
				assert.Empty(t, successes)
				assert.Empty(t, rejections)
				assert.Empty(t, logs.get(), "nothing is logged about the ignored resolution")
			})
		})
	}
}

func TestRetriesAreLoggedAsInFlink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logRecorder{}
		target := newFakeTarget(hang, fail, breakDown, succeed)
		target.resolveScript = []answer{breakDown, succeed}
		h := startRegistrationAt(t, registration.DefaultConfig(), slog.New(logs), target)
		h.target.waitForAttempt(t, 4)
		synctest.Wait()
		h.owner.Close(nil) // the main thread has stopped writing logs

		// Flink numbers the attempts from 1 again after every pause.
		want := []string{
			"INFO Could not resolve ResourceManager address " + targetAddress + ", retrying in 10000 ms: " +
				"Could not connect to rpc endpoint under address " + targetAddress + ".",
			"INFO Resolved ResourceManager address, beginning registration",
			"DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)",
			"DEBUG Registration at ResourceManager (" + targetAddress + ") attempt 1 timed out after 100 ms",
			"DEBUG Registration at ResourceManager attempt 2 (timeout=200ms)",
			`INFO Registration failure at ResourceManager occurred. cause="registration failure: the ResourceManager is not ready"`,
			"INFO Pausing and re-attempting registration in 30000 ms",
			"DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)",
			`ERROR Registration at ResourceManager failed due to an error cause="connection refused"`,
			"INFO Pausing and re-attempting registration in 10000 ms",
			"DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)",
		}
		got := logs.get()
		assert.Equal(t, want, got)
		// Attempts 1, 3 and 4 wait InitialTimeout; attempt 2 waits double.
		all := strings.Join(got, "\n")
		assert.Equal(t, 3, strings.Count(all, "(timeout=100ms)"))
		assert.Equal(t, 1, strings.Count(all, "(timeout=200ms)"))
	})
}
