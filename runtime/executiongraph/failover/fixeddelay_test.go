package failover_test

import (
	"testing"
	"time"

	"flinklab/runtime/executiongraph/failover"
)

func TestNoRestartBackoffTimeStrategyNeverRestarts(t *testing.T) {
	notifyAll(t, failover.NoRestartBackoffTimeStrategy{}, []failure{
		{at: 0, wantNew: true, wantRestart: false, wantBackoff: 0},
		{at: time.Hour, wantNew: true, wantRestart: false, wantBackoff: 0},
	})
}

func TestFixedDelayRestartBackoffTimeStrategy(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		delay    time.Duration
		failures []failure
	}{
		{"three attempts: the fourth failure fails the job", 3, 10 * time.Second, append(
			restartEvery(10*time.Second, 0, time.Minute, 2*time.Minute),
			failure{at: 3 * time.Minute, wantNew: true, wantRestart: false, wantBackoff: 10 * time.Second},
		)},
		{"failures are counted for the job's whole life, never reset", 2, time.Second, append(
			restartEvery(time.Second, 0, 24*time.Hour),
			failure{at: 30 * 24 * time.Hour, wantNew: true, wantRestart: false, wantBackoff: time.Second},
		)},
		{"failures at the same instant count one by one", 1, time.Second, []failure{
			{at: 0, wantNew: true, wantRestart: true, wantBackoff: time.Second},
			{at: 0, wantNew: true, wantRestart: false, wantBackoff: time.Second},
		}},
		{"zero attempts: the first failure fails the job", 0, time.Second, []failure{
			{at: 0, wantNew: true, wantRestart: false, wantBackoff: time.Second},
		}},
		{"zero delay restarts at once", 1, 0, restartEvery(0, 0)},
		{"the delay is kept in whole milliseconds", 1, 1500 * time.Microsecond, restartEvery(time.Millisecond, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notifyAll(t, mustFixedDelay(t, tt.attempts, tt.delay), tt.failures)
		})
	}
}
