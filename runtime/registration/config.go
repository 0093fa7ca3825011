package registration

import "time"

// Config holds the retry rules (Flink's RetryingRegistrationConfiguration,
// set by the cluster.registration.* options). Zero fields take Flink's
// defaults when a RetryingRegistration starts.
type Config struct {
	InitialTimeout time.Duration // cluster.registration.initial-timeout (100 ms)
	MaxTimeout     time.Duration // cluster.registration.max-timeout (30 s)
	ErrorDelay     time.Duration // cluster.registration.error-delay (10 s)
	RefusedDelay   time.Duration // cluster.registration.refused-registration-delay (30 s)
}

// DefaultConfig returns Flink's defaults.
func DefaultConfig() Config {
	return Config{
		InitialTimeout: 100 * time.Millisecond,
		MaxTimeout:     30 * time.Second,
		ErrorDelay:     10 * time.Second,
		RefusedDelay:   30 * time.Second,
	}
}

// withDefaults fills the zero fields of c with Flink's defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.InitialTimeout <= 0 {
		c.InitialTimeout = d.InitialTimeout
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = d.MaxTimeout
	}
	if c.ErrorDelay <= 0 {
		c.ErrorDelay = d.ErrorDelay
	}
	if c.RefusedDelay <= 0 {
		c.RefusedDelay = d.RefusedDelay
	}
	return c
}
