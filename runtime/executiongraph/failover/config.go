package failover

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The restart-strategy options (Flink: RestartStrategyOptions).
const (
	KeyType = "restart-strategy.type"
	// KeyTypeDeprecated is the older key of restart-strategy.type, still
	// read when the new key is absent.
	KeyTypeDeprecated = "restart-strategy"

	KeyFixedDelayAttempts = "restart-strategy.fixed-delay.attempts"
	KeyFixedDelayDelay    = "restart-strategy.fixed-delay.delay"

	KeyFailureRateMaxFailuresPerInterval = "restart-strategy.failure-rate.max-failures-per-interval"
	KeyFailureRateInterval               = "restart-strategy.failure-rate.failure-rate-interval"
	KeyFailureRateDelay                  = "restart-strategy.failure-rate.delay"

	KeyExponentialDelayInitialBackoff             = "restart-strategy.exponential-delay.initial-backoff"
	KeyExponentialDelayMaxBackoff                 = "restart-strategy.exponential-delay.max-backoff"
	KeyExponentialDelayBackoffMultiplier          = "restart-strategy.exponential-delay.backoff-multiplier"
	KeyExponentialDelayResetBackoffThreshold      = "restart-strategy.exponential-delay.reset-backoff-threshold"
	KeyExponentialDelayJitterFactor               = "restart-strategy.exponential-delay.jitter-factor"
	KeyExponentialDelayAttemptsBeforeResetBackoff = "restart-strategy.exponential-delay.attempts-before-reset-backoff"
)

// The values of restart-strategy.type (Flink: RestartStrategyType). Each
// has aliases, and case does not matter: "none" and "off" mean
// TypeNoRestart, "fixeddelay" TypeFixedDelay, "failurerate"
// TypeFailureRate, "exponentialdelay" TypeExponentialDelay.
const (
	TypeNoRestart        = "disable"
	TypeFixedDelay       = "fixed-delay"
	TypeFailureRate      = "failure-rate"
	TypeExponentialDelay = "exponential-delay"
)

var restartStrategyTypes = map[string]string{
	"disable": TypeNoRestart, "none": TypeNoRestart, "off": TypeNoRestart,
	"fixed-delay": TypeFixedDelay, "fixeddelay": TypeFixedDelay,
	"failure-rate": TypeFailureRate, "failurerate": TypeFailureRate,
	"exponential-delay": TypeExponentialDelay, "exponentialdelay": TypeExponentialDelay,
}

// InfiniteAttempts is Integer.MAX_VALUE, the default of
// attempts-before-reset-backoff, which Flink documents as "infinite".
const InfiniteAttempts = math.MaxInt32

// Config holds the restart-strategy.* options. Zero is not "default" here
// (0 attempts and a jitter of 0 are meaningful): start from DefaultConfig,
// or read the options with FromMap, which does.
type Config struct {
	// Type is restart-strategy.type, one of the Type constants or their
	// aliases. Empty means the option is not set: see
	// NewRestartBackoffTimeStrategy.
	Type             string
	FixedDelay       FixedDelayConfig
	FailureRate      FailureRateConfig
	ExponentialDelay ExponentialDelayConfig
}

// FixedDelayConfig holds the restart-strategy.fixed-delay.* options.
type FixedDelayConfig struct {
	Attempts int           // attempts (1)
	Delay    time.Duration // delay (1 s)
}

// FailureRateConfig holds the restart-strategy.failure-rate.* options.
type FailureRateConfig struct {
	MaxFailuresPerInterval int           // max-failures-per-interval (1)
	FailureRateInterval    time.Duration // failure-rate-interval (1 min)
	Delay                  time.Duration // delay (1 s)
}

// ExponentialDelayConfig holds the restart-strategy.exponential-delay.*
// options.
type ExponentialDelayConfig struct {
	InitialBackoff             time.Duration // initial-backoff (1 s)
	MaxBackoff                 time.Duration // max-backoff (1 min)
	BackoffMultiplier          float64       // backoff-multiplier (1.5)
	ResetBackoffThreshold      time.Duration // reset-backoff-threshold (1 h)
	JitterFactor               float64       // jitter-factor (0.1)
	AttemptsBeforeResetBackoff int           // attempts-before-reset-backoff (InfiniteAttempts)
}

// DefaultConfig returns Flink 1.20's defaults, with Type unset.
func DefaultConfig() Config {
	return Config{
		FixedDelay: FixedDelayConfig{Attempts: 1, Delay: time.Second},
		FailureRate: FailureRateConfig{
			MaxFailuresPerInterval: 1,
			FailureRateInterval:    time.Minute,
			Delay:                  time.Second,
		},
		ExponentialDelay: ExponentialDelayConfig{
			InitialBackoff:             time.Second,
			MaxBackoff:                 time.Minute,
			BackoffMultiplier:          1.5,
			ResetBackoffThreshold:      time.Hour,
			JitterFactor:               0.1,
			AttemptsBeforeResetBackoff: InfiniteAttempts,
		},
	}
}

// NewRestartBackoffTimeStrategy builds the strategy cfg asks for (Flink:
// RestartBackoffTimeStrategyFactoryLoader). When cfg.Type is empty, Flink's
// default applies: NoRestartBackoffTimeStrategy without checkpointing, and
// with checkpointing exponential-delay with its default values. In that
// case cfg's exponential-delay values are ignored, as Flink ignores
// restart-strategy.exponential-delay.* when restart-strategy.type is not
// set.
//
// random draws exponential-delay's jitter (see
// NewExponentialDelayRestartBackoffTimeStrategy); nil uses math/rand/v2.
// A type or value Flink would refuse gives a *ConfigError naming the option.
func NewRestartBackoffTimeStrategy(cfg Config, checkpointingEnabled bool, random func() float64) (RestartBackoffTimeStrategy, error) {
	if cfg.Type == "" {
		if !checkpointingEnabled {
			return NoRestartBackoffTimeStrategy{}, nil
		}
		cfg = DefaultConfig()
		cfg.Type = TypeExponentialDelay
	}
	typ, ok := restartStrategyTypes[strings.ToLower(cfg.Type)]
	if !ok {
		return nil, invalid(KeyType, cfg.Type,
			fmt.Sprintf("%s is an unknown value of RestartStrategyType.", strings.ToLower(cfg.Type)))
	}
	switch typ {
	case TypeFixedDelay:
		return strategyOrError(NewFixedDelayRestartBackoffTimeStrategy(cfg.FixedDelay))
	case TypeFailureRate:
		return strategyOrError(NewFailureRateRestartBackoffTimeStrategy(cfg.FailureRate))
	case TypeExponentialDelay:
		return strategyOrError(NewExponentialDelayRestartBackoffTimeStrategy(cfg.ExponentialDelay, random))
	default:
		return NoRestartBackoffTimeStrategy{}, nil
	}
}

// strategyOrError returns a nil interface, not a typed nil pointer, on error.
func strategyOrError[S RestartBackoffTimeStrategy](s S, err error) (RestartBackoffTimeStrategy, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ConfigError is a restart-strategy option value Flink would refuse. Err is
// set when the value does not parse; otherwise Message says which check it
// fails, in the words of Flink's check.
type ConfigError struct {
	Key     string // the option, e.g. "restart-strategy.fixed-delay.attempts"
	Value   string // the value as given
	Message string
	Err     error
}

func (e *ConfigError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("Could not parse value '%s' for key '%s'. Caused by: %v", e.Value, e.Key, e.Err)
	}
	return fmt.Sprintf("Invalid value '%s' for key '%s': %s", e.Value, e.Key, e.Message)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// invalid returns the ConfigError of a value that fails a check.
func invalid(key string, value any, message string) error {
	return &ConfigError{Key: key, Value: fmt.Sprint(value), Message: message}
}
