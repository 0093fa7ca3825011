package configuration

import "errors"

// ErrIllegalConfiguration is Flink's IllegalConfigurationException: the
// values of a configuration are not valid, for instance memory sizes that
// do not add up. Every such error wraps it, so that
// errors.Is(err, ErrIllegalConfiguration) tells a bad configuration from
// other failures.
//
// Flink throws other exceptions too, and so do we: a value that does not
// parse as its option's type is an IllegalArgumentException in Flink
// ("Could not parse value 'abc' for key '...'."), which does not wrap
// ErrIllegalConfiguration unless Flink wraps it in one (memory sizes:
// "Cannot read memory size from config option '...'.").
var ErrIllegalConfiguration = errors.New("IllegalConfigurationException")

// NewIllegalConfigurationError returns an error that wraps
// ErrIllegalConfiguration, with Flink's message and the exception that
// caused it (nil if none). As with a Java exception's getMessage, Error
// returns the message alone; the cause is reached through errors.Unwrap,
// errors.Is and errors.As.
func NewIllegalConfigurationError(message string, cause error) error {
	return &exception{kind: ErrIllegalConfiguration, msg: message, cause: cause}
}

// exception is an error shaped like a Java exception: Flink's message, an
// optional kind (a sentinel such as ErrIllegalConfiguration, matched by
// errors.Is) and an optional cause.
type exception struct {
	kind  error
	msg   string
	cause error
}

// Error returns the message, as Java's Throwable#getMessage does.
func (e *exception) Error() string { return e.msg }

// Unwrap returns the kind and the cause, whichever are set.
func (e *exception) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}
