package failover

import (
	"errors"

	"flinklab/runtime/api"
)

// JobException is Flink's org.apache.flink.runtime.JobException: the error a
// job fails with when the ExecutionFailureHandler will not restart it,
// wrapping the failure that caused it, so errors.Is and errors.As reach it.
// It is api.JobException, which the ExecutionGraph also fails with.
type JobException = api.JobException

// suppressRestartsMessage is the message of Flink's
// SuppressRestartsException when it is given only a cause.
const suppressRestartsMessage = "Unrecoverable failure. This suppresses job restarts. " +
	"Please check the stack trace for the root cause."

// SuppressRestartsError is Flink's SuppressRestartsException: wrapped
// around a failure, it makes the ExecutionFailureHandler fail the job
// whatever the restart strategy says (the job fails with "JobException: The
// failure is not recoverable"). It may sit anywhere in the error's chain.
// An empty Message means Flink's default message.
type SuppressRestartsError struct {
	Message string
	Cause   error
}

func (e *SuppressRestartsError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = suppressRestartsMessage
	}
	if e.Cause == nil {
		return "SuppressRestartsException: " + msg
	}
	return "SuppressRestartsException: " + msg + ": " + e.Cause.Error()
}

func (e *SuppressRestartsError) Unwrap() error { return e.Cause }

// IsUnrecoverableError reports whether err's chain holds a
// *SuppressRestartsError (Flink: ExecutionFailureHandler.isUnrecoverableError,
// which looks for an exception annotated as a NonRecoverableError).
func IsUnrecoverableError(err error) bool {
	var suppress *SuppressRestartsError
	return errors.As(err, &suppress)
}
