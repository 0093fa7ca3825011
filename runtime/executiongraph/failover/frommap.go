package failover

import (
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/configuration"
)

// FromMap reads the restart-strategy.* options from a Flink configuration
// given as key → value, on top of DefaultConfig. Keys it does not know are
// left alone: they belong to other options. The type is kept as written;
// NewRestartBackoffTimeStrategy checks it.
//
// Values are read as Flink reads them: integers and decimals after
// trimming spaces, durations in Flink's syntax ("1 s", "500 ms", "1min",
// "2 hours"; a bare number is milliseconds) or Go's ("1m30s"). The first
// value that does not parse gives a *ConfigError with Flink's message:
// "Could not parse value '<value>' for key '<key>'."
func FromMap(options map[string]string) (Config, error) {
	cfg := DefaultConfig()
	if v, ok := options[KeyType]; ok {
		cfg.Type = strings.TrimSpace(v)
	} else if v, ok := options[KeyTypeDeprecated]; ok {
		cfg.Type = strings.TrimSpace(v)
	}
	p := optionParser{options: options}
	p.int(KeyFixedDelayAttempts, &cfg.FixedDelay.Attempts)
	p.duration(KeyFixedDelayDelay, &cfg.FixedDelay.Delay)
	p.int(KeyFailureRateMaxFailuresPerInterval, &cfg.FailureRate.MaxFailuresPerInterval)
	p.duration(KeyFailureRateInterval, &cfg.FailureRate.FailureRateInterval)
	p.duration(KeyFailureRateDelay, &cfg.FailureRate.Delay)
	p.duration(KeyExponentialDelayInitialBackoff, &cfg.ExponentialDelay.InitialBackoff)
	p.duration(KeyExponentialDelayMaxBackoff, &cfg.ExponentialDelay.MaxBackoff)
	p.float(KeyExponentialDelayBackoffMultiplier, &cfg.ExponentialDelay.BackoffMultiplier)
	p.duration(KeyExponentialDelayResetBackoffThreshold, &cfg.ExponentialDelay.ResetBackoffThreshold)
	p.float(KeyExponentialDelayJitterFactor, &cfg.ExponentialDelay.JitterFactor)
	p.int(KeyExponentialDelayAttemptsBeforeResetBackoff, &cfg.ExponentialDelay.AttemptsBeforeResetBackoff)
	if p.err != nil {
		return Config{}, p.err
	}
	return cfg, nil
}

// optionParser reads typed options from a map and keeps the first error.
type optionParser struct {
	options map[string]string
	err     error
}

// parse sets nothing if the key is absent or an earlier option failed.
func (p *optionParser) parse(key string, convert func(string) error) {
	v, ok := p.options[key]
	if !ok || p.err != nil {
		return
	}
	if err := convert(strings.TrimSpace(v)); err != nil {
		p.err = &ConfigError{Key: key, Value: v, Err: err}
	}
}

// int reads a Java int: 32 bits.
func (p *optionParser) int(key string, dst *int) {
	p.parse(key, func(s string) error {
		n, err := strconv.ParseInt(s, 10, 32)
		if err == nil {
			*dst = int(n)
		}
		return err
	})
}

func (p *optionParser) float(key string, dst *float64) {
	p.parse(key, func(s string) error {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil {
			*dst = f
		}
		return err
	})
}

func (p *optionParser) duration(key string, dst *time.Duration) {
	p.parse(key, func(s string) error {
		d, err := configuration.ParseDuration(s)
		if err == nil {
			*dst = d
		}
		return err
	})
}
