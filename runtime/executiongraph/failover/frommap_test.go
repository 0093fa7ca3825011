package failover_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph/failover"
)

func TestFromMapWithoutOptionsIsTheDefault(t *testing.T) {
	cfg, err := failover.FromMap(map[string]string{"jobmanager.execution.failover-strategy": "region"})
	require.NoError(t, err)
	assert.Equal(t, failover.DefaultConfig(), cfg)
}

func TestFromMapReadsEveryOption(t *testing.T) {
	cfg, err := failover.FromMap(map[string]string{
		"restart-strategy.type":                                            " failure-rate ",
		"restart-strategy.fixed-delay.attempts":                            "3",
		"restart-strategy.fixed-delay.delay":                               "10 s",
		"restart-strategy.failure-rate.max-failures-per-interval":          " 5 ",
		"restart-strategy.failure-rate.failure-rate-interval":              "10 min",
		"restart-strategy.failure-rate.delay":                              "500 ms",
		"restart-strategy.exponential-delay.initial-backoff":               "2 s",
		"restart-strategy.exponential-delay.max-backoff":                   "5 min",
		"restart-strategy.exponential-delay.backoff-multiplier":            "2.0",
		"restart-strategy.exponential-delay.reset-backoff-threshold":       "2 h",
		"restart-strategy.exponential-delay.jitter-factor":                 "0.25",
		"restart-strategy.exponential-delay.attempts-before-reset-backoff": "10",
	})
	require.NoError(t, err)
	assert.Equal(t, failover.Config{
		Type:        "failure-rate",
		FixedDelay:  failover.FixedDelayConfig{Attempts: 3, Delay: 10 * time.Second},
		FailureRate: failover.FailureRateConfig{MaxFailuresPerInterval: 5, FailureRateInterval: 10 * time.Minute, Delay: 500 * ms},
		ExponentialDelay: failover.ExponentialDelayConfig{
			InitialBackoff: 2 * time.Second, MaxBackoff: 5 * time.Minute, BackoffMultiplier: 2,
			ResetBackoffThreshold: 2 * time.Hour, JitterFactor: 0.25, AttemptsBeforeResetBackoff: 10,
		},
	}, cfg)
}

func TestFromMapReadsTheDeprecatedTypeKey(t *testing.T) {
	cfg, err := failover.FromMap(map[string]string{"restart-strategy": "fixeddelay"})
	require.NoError(t, err)
	assert.Equal(t, "fixeddelay", cfg.Type)

	cfg, err = failover.FromMap(map[string]string{"restart-strategy": "fixeddelay", "restart-strategy.type": "none"})
	require.NoError(t, err)
	assert.Equal(t, "none", cfg.Type, "the new key wins")
}

func TestFromMapReadsFlinkDurations(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"1 s", time.Second},
		{"500 ms", 500 * ms},
		{"1min", time.Minute},
		{"1m", time.Minute},
		{"2 minutes", 2 * time.Minute},
		{"1 h", time.Hour},
		{"2 hours", 2 * time.Hour},
		{"3d", 72 * time.Hour},
		{"1 day", 24 * time.Hour},
		{"5 SECONDS", 5 * time.Second},
		{"20 sec", 20 * time.Second},
		{"100 millis", 100 * ms},
		{"7 µs", 7 * time.Microsecond},
		{"9 nanos", 9 * time.Nanosecond},
		{"250", 250 * ms}, // a bare number is milliseconds
		{"  20 s  ", 20 * time.Second},
		{"1m30s", 90 * time.Second}, // Go's syntax
		{"1.5s", 1500 * ms},
		{"0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			cfg, err := failover.FromMap(map[string]string{failover.KeyFixedDelayDelay: tt.value})
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.FixedDelay.Delay)
		})
	}
}

func TestFromMapRefusesValuesThatDoNotParse(t *testing.T) {
	tests := []struct {
		key, value string
		wantCause  string // the parse error, after "Caused by: "
	}{
		{failover.KeyFixedDelayAttempts, "three", `strconv.ParseInt: parsing "three": invalid syntax`},
		{failover.KeyFixedDelayAttempts, "2147483648", `strconv.ParseInt: parsing "2147483648": value out of range`},
		{failover.KeyExponentialDelayBackoffMultiplier, "x1.5", `strconv.ParseFloat: parsing "x1.5": invalid syntax`},
		{failover.KeyFixedDelayDelay, "", "argument is an empty- or whitespace-only string"},
		{failover.KeyFixedDelayDelay, "s", "text does not start with a number"},
		{failover.KeyFixedDelayDelay, "-1s", "text does not start with a number"},
		{failover.KeyFailureRateDelay, "1 fortnight", "Time interval unit label 'fortnight' does not match any of the recognized units: " +
			"DAYS: (d | day | days), HOURS: (h | hour | hours), MINUTES: (min | m | minute | minutes), " +
			"SECONDS: (s | sec | secs | second | seconds), MILLISECONDS: (ms | milli | millis | millisecond | milliseconds), " +
			"MICROSECONDS: (µs | micro | micros | microsecond | microseconds), NANOSECONDS: (ns | nano | nanos | nanosecond | nanoseconds)"},
		{failover.KeyExponentialDelayMaxBackoff, "200000 d", "The value '200000' cannot be represented as a time.Duration (numeric overflow)."},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+strconv.Quote(tt.value), func(t *testing.T) {
			_, err := failover.FromMap(map[string]string{tt.key: tt.value})
			require.EqualError(t, err, "Could not parse value '"+tt.value+"' for key '"+tt.key+"'. Caused by: "+tt.wantCause)
			var configErr *failover.ConfigError
			require.True(t, errors.As(err, &configErr))
			assert.Equal(t, tt.key, configErr.Key)
			assert.NotNil(t, errors.Unwrap(err))
		})
	}
}

func TestFromMapThenNewRestartBackoffTimeStrategy(t *testing.T) {
	cfg, err := failover.FromMap(map[string]string{
		"restart-strategy.type":                 "fixed-delay",
		"restart-strategy.fixed-delay.attempts": "3",
		"restart-strategy.fixed-delay.delay":    "10 s",
	})
	require.NoError(t, err)
	s, err := failover.NewRestartBackoffTimeStrategy(cfg, true, nil)
	require.NoError(t, err)
	assert.Equal(t, "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3, backoffTimeMS=10000)", s.String())
}
