package failover_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph/failover"
)

func TestDefaultConfigIsFlinks(t *testing.T) {
	want := failover.Config{
		FixedDelay: failover.FixedDelayConfig{
			Attempts: 1,           // restart-strategy.fixed-delay.attempts
			Delay:    time.Second, // restart-strategy.fixed-delay.delay
		},
		FailureRate: failover.FailureRateConfig{
			MaxFailuresPerInterval: 1,           // restart-strategy.failure-rate.max-failures-per-interval
			FailureRateInterval:    time.Minute, // restart-strategy.failure-rate.failure-rate-interval
			Delay:                  time.Second, // restart-strategy.failure-rate.delay
		},
		ExponentialDelay: failover.ExponentialDelayConfig{
			InitialBackoff:             time.Second,   // restart-strategy.exponential-delay.initial-backoff
			MaxBackoff:                 time.Minute,   // ...max-backoff (5 min before Flink 1.19)
			BackoffMultiplier:          1.5,           // ...backoff-multiplier (2.0 before Flink 1.19)
			ResetBackoffThreshold:      time.Hour,     // ...reset-backoff-threshold
			JitterFactor:               0.1,           // ...jitter-factor
			AttemptsBeforeResetBackoff: math.MaxInt32, // ...attempts-before-reset-backoff ("infinite")
		},
	}
	assert.Equal(t, want, failover.DefaultConfig())
}

const (
	noRestart               = "NoRestartBackoffTimeStrategy"
	defaultFixedDelay       = "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=1, backoffTimeMS=1000)"
	defaultFailureRate      = "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy(failuresIntervalMS=60000,backoffTimeMS=1000,maxFailuresPerInterval=1)"
	defaultExponentialDelay = "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=60000, backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.1, attemptsBeforeResetBackoff=2147483647, currentRestartAttempt=0, nextRestartTimestamp=-2147483648)"
)

func TestNewRestartBackoffTimeStrategy(t *testing.T) {
	custom := failover.DefaultConfig()
	custom.ExponentialDelay.InitialBackoff = 5 * time.Second

	tests := []struct {
		name          string
		typ           string
		cfg           failover.Config
		checkpointing bool
		want          string
	}{
		{"unset, no checkpointing: no restarts", "", failover.Config{}, false, noRestart},
		{"unset, checkpointing: exponential-delay", "", failover.Config{}, true, defaultExponentialDelay},
		{"unset: exponential-delay options are ignored", "", custom, true, defaultExponentialDelay},
		{"disable", "disable", failover.DefaultConfig(), true, noRestart},
		{"alias none", "none", failover.DefaultConfig(), true, noRestart},
		{"alias off", "off", failover.DefaultConfig(), true, noRestart},
		{"fixed-delay", "fixed-delay", failover.DefaultConfig(), false, defaultFixedDelay},
		{"alias fixeddelay", "fixeddelay", failover.DefaultConfig(), false, defaultFixedDelay},
		{"case does not matter", "Fixed-Delay", failover.DefaultConfig(), false, defaultFixedDelay},
		{"failure-rate", "failure-rate", failover.DefaultConfig(), false, defaultFailureRate},
		{"alias failurerate", "failurerate", failover.DefaultConfig(), false, defaultFailureRate},
		{"exponential-delay", "exponential-delay", failover.DefaultConfig(), false, defaultExponentialDelay},
		{"alias exponentialdelay", "EXPONENTIALDELAY", failover.DefaultConfig(), false, defaultExponentialDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Type = tt.typ
			s, err := failover.NewRestartBackoffTimeStrategy(tt.cfg, tt.checkpointing, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.String())
		})
	}
}

func TestNewRestartBackoffTimeStrategyRefusesBadValues(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		change  func(*failover.Config)
		wantErr string
	}{
		{"unknown type", "restart-always", nil,
			"Invalid value 'restart-always' for key 'restart-strategy.type': restart-always is an unknown value of RestartStrategyType."},
		{"unknown type, lower-cased as Flink does", "Never", nil,
			"Invalid value 'Never' for key 'restart-strategy.type': never is an unknown value of RestartStrategyType."},
		{"negative attempts", "fixed-delay", func(c *failover.Config) { c.FixedDelay.Attempts = -1 },
			"Invalid value '-1' for key 'restart-strategy.fixed-delay.attempts': Maximum number of restart attempts must be at least 0."},
		{"negative delay", "fixed-delay", func(c *failover.Config) { c.FixedDelay.Delay = -time.Second },
			"Invalid value '-1s' for key 'restart-strategy.fixed-delay.delay': Backoff time between restart attempts must be at least 0 ms."},
		{"no failures allowed", "failure-rate", func(c *failover.Config) { c.FailureRate.MaxFailuresPerInterval = 0 },
			"Invalid value '0' for key 'restart-strategy.failure-rate.max-failures-per-interval': Maximum number of restart attempts per time unit must be greater than 0."},
		{"interval under 1 ms", "failure-rate", func(c *failover.Config) { c.FailureRate.FailureRateInterval = 500 * time.Microsecond },
			"Invalid value '500µs' for key 'restart-strategy.failure-rate.failure-rate-interval': Failures interval must be greater than 0 ms."},
		{"negative failure-rate delay", "failure-rate", func(c *failover.Config) { c.FailureRate.Delay = -ms },
			"Invalid value '-1ms' for key 'restart-strategy.failure-rate.delay': Backoff time must be at least 0 ms."},
		{"initial backoff under 1 ms", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.InitialBackoff = 0 },
			"Invalid value '0s' for key 'restart-strategy.exponential-delay.initial-backoff': Initial backoff must be at least 1."},
		{"max backoff under 1 ms", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.MaxBackoff = 0 },
			"Invalid value '0s' for key 'restart-strategy.exponential-delay.max-backoff': Maximum backoff must be at least 1."},
		{"initial above max", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.InitialBackoff = 2 * time.Minute },
			"Invalid value '2m0s' for key 'restart-strategy.exponential-delay.initial-backoff': Initial backoff cannot be higher than maximum backoff."},
		{"multiplier 1", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.BackoffMultiplier = 1 },
			"Invalid value '1' for key 'restart-strategy.exponential-delay.backoff-multiplier': Backoff multiplier must be greater than 1."},
		{"multiplier NaN", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.BackoffMultiplier = math.NaN() },
			"Invalid value 'NaN' for key 'restart-strategy.exponential-delay.backoff-multiplier': Backoff multiplier must be greater than 1."},
		{"no reset threshold", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.ResetBackoffThreshold = 0 },
			"Invalid value '0s' for key 'restart-strategy.exponential-delay.reset-backoff-threshold': Threshold duration for exponential backoff reset must be at least 1."},
		{"negative jitter", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.JitterFactor = -0.1 },
			"Invalid value '-0.1' for key 'restart-strategy.exponential-delay.jitter-factor': Jitter factor must be >= 0 and <= 1."},
		{"jitter above 1", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.JitterFactor = 1.5 },
			"Invalid value '1.5' for key 'restart-strategy.exponential-delay.jitter-factor': Jitter factor must be >= 0 and <= 1."},
		{"no attempts", "exponential-delay", func(c *failover.Config) { c.ExponentialDelay.AttemptsBeforeResetBackoff = 0 },
			"Invalid value '0' for key 'restart-strategy.exponential-delay.attempts-before-reset-backoff': The attemptsBeforeResetBackoff must be at least 1."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := failover.DefaultConfig()
			cfg.Type = tt.typ
			if tt.change != nil {
				tt.change(&cfg)
			}
			s, err := failover.NewRestartBackoffTimeStrategy(cfg, true, nil)
			require.EqualError(t, err, tt.wantErr)
			assert.True(t, s == nil, "a nil interface, not a typed nil pointer")
			var configErr *failover.ConfigError
			require.True(t, errors.As(err, &configErr))
			assert.Contains(t, tt.wantErr, "'"+configErr.Key+"'")
		})
	}
}
