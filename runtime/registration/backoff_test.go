package registration_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/gateway"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

func TestDefaultConfigIsFlinks(t *testing.T) {
	got := registration.DefaultConfig()
	want := registration.Config{
		InitialTimeout: 100 * time.Millisecond, // cluster.registration.initial-timeout
		MaxTimeout:     30 * time.Second,       // cluster.registration.max-timeout
		ErrorDelay:     10 * time.Second,       // cluster.registration.error-delay
		RefusedDelay:   30 * time.Second,       // cluster.registration.refused-registration-delay
	}
	assert.Equal(t, want, got)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want registration.Outcome
	}{
		{nil, registration.Succeeded},
		{rpc.ErrTimeout, registration.TimedOut},
		{fmt.Errorf("%w: invocation at recipient [ResourceManager] timed out", rpc.ErrTimeout), registration.TimedOut},
		{context.DeadlineExceeded, registration.TimedOut},
		{fmt.Errorf("ask: %w", context.DeadlineExceeded), registration.TimedOut},
		{gateway.RegistrationFailure("not now"), registration.Failed},
		{gateway.RegistrationRejected("never"), registration.Rejected},
		{errors.New("connection refused"), registration.Errored},
		{rpc.ErrRecipientUnreachable, registration.Errored},
		{context.Canceled, registration.Errored},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			got := registration.Classify(tt.err)
			assert.Equal(t, tt.want, got, "got %v, want %v", got, tt.want)
		})
	}
}

func TestNextAttempt(t *testing.T) {
	cfg := registration.DefaultConfig()
	type attempt = registration.Attempt
	tests := []struct {
		name      string
		prev      attempt
		err       error
		wantNext  attempt
		wantDelay time.Duration
		wantRetry bool
	}{
		{"a timeout doubles the timeout at once", attempt{1, 100 * time.Millisecond},
			rpc.ErrTimeout, attempt{2, 200 * time.Millisecond}, 0, true},
		{"the timeout stops growing at the max", attempt{9, 20 * time.Second},
			context.DeadlineExceeded, attempt{10, 30 * time.Second}, 0, true},
		{"at the max it stays there", attempt{10, 30 * time.Second},
			rpc.ErrTimeout, attempt{11, 30 * time.Second}, 0, true},
		{"a failure pauses for the refused delay", attempt{3, 400 * time.Millisecond},
			gateway.RegistrationFailure("not now"), attempt{1, 100 * time.Millisecond}, 30 * time.Second, true},
		{"an error pauses for the error delay", attempt{2, 200 * time.Millisecond},
			errors.New("connection refused"), attempt{1, 100 * time.Millisecond}, 10 * time.Second, true},
		{"a rejection stops", attempt{1, 100 * time.Millisecond},
			gateway.RegistrationRejected("never"), attempt{}, 0, false},
		{"a success stops", attempt{4, 800 * time.Millisecond},
			nil, attempt{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, delay, retry := registration.NextAttempt(cfg, tt.prev, registration.Classify(tt.err))
			assert.Equal(t, tt.wantNext, next)
			assert.Equal(t, tt.wantDelay, delay)
			assert.Equal(t, tt.wantRetry, retry)
		})
	}
}

func TestFirstAttempt(t *testing.T) {
	got := registration.FirstAttempt(registration.Config{InitialTimeout: 250 * time.Millisecond})
	want := registration.Attempt{Number: 1, Timeout: 250 * time.Millisecond}
	assert.Equal(t, want, got)
}
