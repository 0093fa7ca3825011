package failover_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph/failover"
)

const ms = time.Millisecond

func TestExponentialDelayGrowsByTheMultiplierUpToTheMax(t *testing.T) {
	// Flink's defaults without jitter: 1 s × 1.5^n, in whole milliseconds,
	// at most 1 min. Each failure comes 2 min after the previous one, well
	// after its restart and well before the 1 h reset threshold.
	want := []time.Duration{1000 * ms, 1500 * ms, 2250 * ms, 3375 * ms, 5062 * ms, 7593 * ms,
		11390 * ms, 17085 * ms, 25628 * ms, 38443 * ms, 57665 * ms, time.Minute, time.Minute}
	var failures []failure
	for i, backoff := range want {
		failures = append(failures, failure{at: time.Duration(i) * 2 * time.Minute,
			wantNew: true, wantRestart: true, wantBackoff: backoff})
	}
	notifyAll(t, mustExponentialDelay(t, exponentialConfig(), nil), failures)
}

func TestExponentialDelayMergesFailuresBeforeThePendingRestart(t *testing.T) {
	notifyAll(t, mustExponentialDelay(t, exponentialConfig(), nil), []failure{
		{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second}, // restart due at +1 s
		{at: 400 * ms, wantNew: false, wantRestart: true, wantBackoff: 600 * ms},
		{at: time.Second, wantNew: false, wantRestart: true, wantBackoff: 0}, // "at or before": still merged
		{at: time.Second + ms, wantNew: true, wantRestart: true, wantBackoff: 1500 * ms},
	})
}

func TestExponentialDelayResetsAfterTheThresholdOfQuiet(t *testing.T) {
	c := exponentialConfig()
	c.ResetBackoffThreshold = 10 * time.Minute
	tests := []struct {
		name     string
		failures []failure
	}{
		{"quiet for the threshold after the restart: start over", []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second},
			{at: time.Minute, wantNew: true, wantRestart: true, wantBackoff: 1500 * ms}, // due at 1:01.5
			{at: 11*time.Minute + 1500*ms, wantNew: true, wantRestart: true, wantBackoff: time.Second},
		}},
		{"one millisecond less: keep growing", []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second},
			{at: time.Minute, wantNew: true, wantRestart: true, wantBackoff: 1500 * ms},
			{at: 11*time.Minute + 1499*ms, wantNew: true, wantRestart: true, wantBackoff: 2250 * ms},
		}},
		{"quiet is measured from the restart, not from the failure", []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second}, // due at 0:01
			// 10 min after the failure, but 1 s short of 10 min after the restart.
			{at: 10 * time.Minute, wantNew: true, wantRestart: true, wantBackoff: 1500 * ms},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notifyAll(t, mustExponentialDelay(t, c, nil), tt.failures)
		})
	}
}

func TestExponentialDelayAttemptsBeforeResetBackoff(t *testing.T) {
	c := exponentialConfig()
	c.AttemptsBeforeResetBackoff = 2
	c.ResetBackoffThreshold = 10 * time.Minute
	notifyAll(t, mustExponentialDelay(t, c, nil), []failure{
		{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second},
		{at: 500 * ms, wantNew: false, wantRestart: true, wantBackoff: 500 * ms}, // merged: not an attempt
		{at: time.Minute, wantNew: true, wantRestart: true, wantBackoff: 1500 * ms},
		{at: 2 * time.Minute, wantNew: true, wantRestart: false, wantBackoff: 2250 * ms}, // the 3rd attempt
		// The count starts over with the backoff, after the threshold of quiet.
		{at: time.Hour, wantNew: true, wantRestart: true, wantBackoff: time.Second},
	})
}

func TestExponentialDelayJitter(t *testing.T) {
	// Jitter 0.1: the n-th backoff b moves by a whole number of
	// milliseconds in [-b/10, +b/10], then stays within [initial, max].
	c := exponentialConfig()
	c.JitterFactor = 0.1
	tests := []struct {
		name   string
		random float64
		want   []time.Duration // backoffs of attempts 0, 1, 10, 11
	}{
		{"lowest draw", 0, []time.Duration{1000 * ms, 1350 * ms, 51899 * ms, time.Minute}},
		{"middle draw: no jitter", 0.5, []time.Duration{1000 * ms, 1500 * ms, 57665 * ms, time.Minute}},
		{"highest draw", 0.9999999, []time.Duration{1100 * ms, 1650 * ms, time.Minute, time.Minute}},
		{"a draw of 1 counts as the highest", 1, []time.Duration{1100 * ms, 1650 * ms, time.Minute, time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustExponentialDelay(t, c, constRandom(tt.random))
			var got []time.Duration
			for i := range 12 {
				s.NotifyFailure(errBoom, t0.Add(time.Duration(i)*2*time.Minute))
				if i <= 1 || i >= 10 {
					got = append(got, s.BackoffTime())
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExponentialDelayJitterStaysInBounds(t *testing.T) {
	c := exponentialConfig()
	c.JitterFactor = 0.25
	random := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		s := mustExponentialDelay(t, c, random.Float64)
		s.NotifyFailure(errBoom, t0)
		s.NotifyFailure(errBoom, t0.Add(time.Minute)) // b = 1500 ms, jitter within ±375 ms
		got := s.BackoffTime()
		require.GreaterOrEqual(t, got, 1125*ms)
		require.LessOrEqual(t, got, 1875*ms)
	}
}

func TestExponentialDelayStaysAtTheMaxAfterManyAttempts(t *testing.T) {
	// Flink computes 1 s × 1.5^n in a Java long; from the 92nd attempt on
	// it overflows with a positive jitter. Here the backoff stays at the max.
	c := failover.DefaultConfig().ExponentialDelay
	s := mustExponentialDelay(t, c, constRandom(0.75))
	for i := range 200 {
		s.NotifyFailure(errBoom, t0.Add(time.Duration(i)*2*time.Minute))
		if i >= 11 {
			require.Equal(t, time.Minute, s.BackoffTime(), "attempt %d", i)
		}
	}
}

func TestExponentialDelayBeforeAnyFailure(t *testing.T) {
	s := mustExponentialDelay(t, exponentialConfig(), nil)
	assert.True(t, s.CanRestart())
	assert.Zero(t, s.BackoffTime(), "Flink throws \"Please call notifyFailure first.\"")
}
