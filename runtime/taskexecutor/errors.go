package taskexecutor

import (
	"errors"
	"fmt"
)

// exception is an error shaped like a Java exception in Flink's logs: an
// optional kind (one of the TaskExecutorGateway's sentinels, such as
// gateway.ErrTaskSubmission, matched by errors.Is), Flink's
// message, and an optional cause (reached by errors.Unwrap), printed as
// "Kind: message Caused by: cause".
type exception struct {
	kind  error
	msg   string
	cause error
}

// newException returns an exception of the given kind (may be nil) and
// cause (may be nil) with a formatted message.
func newException(kind, cause error, format string, args ...any) error {
	return &exception{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

func (e *exception) Error() string {
	s := e.msg
	if e.kind != nil {
		s = e.kind.Error() + ": " + s
	}
	if e.cause != nil {
		s += " Caused by: " + e.cause.Error()
	}
	return s
}

func (e *exception) Is(target error) bool { return e.kind != nil && target == e.kind }

func (e *exception) Unwrap() error { return e.cause }

// orUnknownCause returns cause, or an error saying the cause is unknown if
// the caller gave none.
func orUnknownCause(cause error) error {
	if cause == nil {
		return errors.New("unknown cause")
	}
	return cause
}
