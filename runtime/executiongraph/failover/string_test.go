package failover_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph/failover"
)

// The toString() forms Flink prints in "Recovery is suppressed by ..." and
// "Using restart back off time strategy ...".
func TestStringIsFlinksToString(t *testing.T) {
	failureRate, err := failover.NewFailureRateRestartBackoffTimeStrategy(failover.FailureRateConfig{
		MaxFailuresPerInterval: 3, FailureRateInterval: 5 * time.Minute, Delay: 2 * time.Second})
	require.NoError(t, err)

	tests := []struct {
		strategy failover.RestartBackoffTimeStrategy
		want     string
	}{
		{failover.NoRestartBackoffTimeStrategy{}, "NoRestartBackoffTimeStrategy"},
		{mustFixedDelay(t, 3, 10*time.Second),
			"FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3, backoffTimeMS=10000)"},
		// Two opening parentheses, one closing: Flink prints it so.
		{failureRate,
			"FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy(failuresIntervalMS=300000,backoffTimeMS=2000,maxFailuresPerInterval=3)"},
		{mustExponentialDelay(t, failover.DefaultConfig().ExponentialDelay, nil),
			"ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=60000, backoffMultiplier=1.5, " +
				"resetBackoffThresholdMS=3600000, jitterFactor=0.1, attemptsBeforeResetBackoff=2147483647, " +
				"currentRestartAttempt=0, nextRestartTimestamp=-2147483648)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.strategy.String())
	}
}

func TestExponentialDelayStringShowsTheLastFailure(t *testing.T) {
	s := mustExponentialDelay(t, failover.DefaultConfig().ExponentialDelay, constRandom(0.5))
	s.NotifyFailure(errBoom, t0)
	s.NotifyFailure(errBoom, t0.Add(time.Minute))
	want := fmt.Sprintf("ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=60000, "+
		"backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.1, attemptsBeforeResetBackoff=2147483647, "+
		"currentRestartAttempt=2, nextRestartTimestamp=%d)", t0.Add(time.Minute+1500*ms).UnixMilli())
	assert.Equal(t, want, s.String())
}

// Doubles print as Java prints them.
func TestExponentialDelayStringPrintsDoublesAsJava(t *testing.T) {
	tests := []struct {
		multiplier, jitter float64
		want               string
	}{
		{2, 0, "backoffMultiplier=2.0, resetBackoffThresholdMS=3600000, jitterFactor=0.0,"},
		{1.25, 1, "backoffMultiplier=1.25, resetBackoffThresholdMS=3600000, jitterFactor=1.0,"},
		{1e7, 0.0001, "backoffMultiplier=1.0E7, resetBackoffThresholdMS=3600000, jitterFactor=1.0E-4,"},
		{1234567.5, 0.001, "backoffMultiplier=1234567.5, resetBackoffThresholdMS=3600000, jitterFactor=0.001,"},
		{2.5e10, 0.5, "backoffMultiplier=2.5E10, resetBackoffThresholdMS=3600000, jitterFactor=0.5,"},
	}
	for _, tt := range tests {
		c := failover.DefaultConfig().ExponentialDelay
		c.BackoffMultiplier, c.JitterFactor = tt.multiplier, tt.jitter
		assert.Contains(t, mustExponentialDelay(t, c, nil).String(), tt.want)
	}
}
