package failover_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph/failover"
)

func TestFailureRateRestartBackoffTimeStrategy(t *testing.T) {
	const delay = 2 * time.Second
	tests := []struct {
		name     string
		max      int
		interval time.Duration
		failures []failure
	}{
		{"max 3 per 5 min: a 4th failure within 5 min fails the job", 3, 5 * time.Minute, append(
			restartEvery(delay, 0, time.Minute, 2*time.Minute),
			failure{at: 4 * time.Minute, wantNew: true, wantRestart: false, wantBackoff: delay},
		)},
		{"max 3 per 5 min: a 4th failure more than 5 min after the 1st restarts", 3, 5 * time.Minute,
			restartEvery(delay, 0, time.Minute, 2*time.Minute, 5*time.Minute+time.Second)},
		{"the window slides: each failure is measured against the 3rd before it", 3, 5 * time.Minute, append(
			// 6:01 is measured against 1:00 (5:01 back), 6:30 against 2:00 (4:30 back).
			restartEvery(delay, 0, time.Minute, 2*time.Minute, 5*time.Minute+time.Second, 6*time.Minute+time.Second),
			failure{at: 6*time.Minute + 30*time.Second, wantNew: true, wantRestart: false, wantBackoff: delay},
		)},
		{"the window is closed: exactly one interval apart is still inside", 1, time.Minute, []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: delay},
			{at: time.Minute, wantNew: true, wantRestart: false, wantBackoff: delay},
		}},
		{"one millisecond more is outside", 1, time.Minute,
			restartEvery(delay, 0, time.Minute+time.Millisecond)},
		{"Flink's default (1 per minute): two failures in a minute fail the job", 1, time.Minute, []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: delay},
			{at: 30 * time.Second, wantNew: true, wantRestart: false, wantBackoff: delay},
		}},
		{"simultaneous failures each count", 2, time.Minute, []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: delay},
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: delay},
			{at: 0, wantNew: true, wantRestart: false, wantBackoff: delay},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := failover.NewFailureRateRestartBackoffTimeStrategy(failover.FailureRateConfig{
				MaxFailuresPerInterval: tt.max,
				FailureRateInterval:    tt.interval,
				Delay:                  delay,
			})
			require.NoError(t, err)
			notifyAll(t, s, tt.failures)
		})
	}
}

func TestFailureRateCanRestartBeforeAnyFailure(t *testing.T) {
	s, err := failover.NewFailureRateRestartBackoffTimeStrategy(failover.DefaultConfig().FailureRate)
	require.NoError(t, err)
	require.True(t, s.CanRestart())
}
