package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
)

// Errors cross the wire as their text plus the registered errors found in
// them, so that errors.Is and errors.As keep working at the caller:
//
//	{"message": "TaskSubmissionException: Could not submit task.",
//	 "causes": [{"code": "gateway.ErrTaskSubmission"}]}
//
//	{"message": "Heartbeat of TaskManager with id tm-1 timed out.",
//	 "causes": [{"code": "gateway.TimeoutException", "value": {"Message": "Heartbeat of TaskManager with id tm-1 timed out."}}]}
//
// A sentinel error callers test with errors.Is is registered once, under
// a stable code, with RegisterError; a typed error callers find with
// errors.As, with RegisterErrorType, and its exported fields travel as
// JSON. The runtime registers every error that may cross processes in one
// place, package gateway's errors.go, this package's own (ErrTimeout,
// ErrRecipientUnreachable, ErrFencingTokenMismatch) and the context
// package's among them: the list is what a caller may test for, and it
// belongs with the gateways, not with the transport.
//
// Encoding asks errors.Is (and errors.As) for every registered error, so
// an error that wraps two sentinels (rpc.ErrTimeout and
// context.DeadlineExceeded) carries both, and one that matches its kind
// through an Is method (taskexecutor's exceptions) is found too. The
// decoded error prints the original text and unwraps to the registered
// errors it carried; anything unregistered in the chain survives as text
// only.
//
// Differs from Flink: Flink serializes the Java exception with its whole
// cause chain (SerializedThrowable), and the caller's catch blocks match its
// class. Go errors are not serializable in general, so the codes stand in
// for the classes a caller may test for.

// wireError is an error as it travels in a response, or in an argument of
// type error.
type wireError struct {
	Message string      `json:"message"`
	Causes  []wireCause `json:"causes,omitempty"`
}

// wireCause is one registered error that errors.Is or errors.As finds in
// the original error. Value holds the fields of a registered error type.
type wireCause struct {
	Code  string          `json:"code"`
	Value json.RawMessage `json:"value,omitempty"`
}

// registeredError is one entry of the registry: a sentinel, or a typed
// error with its two directions.
type registeredError struct {
	code     string
	sentinel error                                      // set for a sentinel
	find     func(err error) (any, bool)                // set for a type: errors.As
	decode   func(value json.RawMessage) (error, error) // set for a type
}

var errorRegistry struct {
	mu      sync.RWMutex
	entries []registeredError // in registration order
	byCode  map[string]registeredError
}

// RegisterError registers a sentinel error under a code, so that a
// caller on the other side of a TCP connection still finds it with
// errors.Is. Call it from an init function (the runtime's is in package
// gateway). Registering a code twice is a programming error and panics.
func RegisterError(code string, sentinel error) {
	if sentinel == nil {
		panic("rpc: RegisterError(" + code + ", nil)")
	}
	addRegisteredError(registeredError{code: code, sentinel: sentinel})
}

// RegisterErrorType registers the error type E under a code, so that a
// caller on the other side of a TCP connection still finds it with
// errors.As. E's exported fields travel as JSON, so it should hold plain
// data (a message, IDs), not a cause of type error. Call it from an init
// function, as package gateway does:
//
//	rpc.RegisterErrorType[*TimeoutException]("gateway.TimeoutException")
func RegisterErrorType[E error](code string) {
	addRegisteredError(registeredError{
		code: code,
		find: func(err error) (any, bool) {
			var target E
			if errors.As(err, &target) {
				return target, true
			}
			return nil, false
		},
		decode: func(value json.RawMessage) (error, error) {
			var target E
			if err := json.Unmarshal(value, &target); err != nil {
				return nil, err
			}
			return target, nil
		},
	})
}

func addRegisteredError(e registeredError) {
	errorRegistry.mu.Lock()
	defer errorRegistry.mu.Unlock()
	if errorRegistry.byCode == nil {
		errorRegistry.byCode = make(map[string]registeredError)
	}
	if _, taken := errorRegistry.byCode[e.code]; taken {
		panic("rpc: error code " + e.code + " registered twice")
	}
	errorRegistry.byCode[e.code] = e
	errorRegistry.entries = append(errorRegistry.entries, e)
}

// MarshalError writes err in its wire form (JSON null for a nil error).
// Message types with a field of type error use it in their MarshalJSON;
// see gateway.TaskExecutionState.
func MarshalError(err error) ([]byte, error) {
	return json.Marshal(encodeError(err))
}

// UnmarshalError reads an error written by MarshalError. The result prints
// the original text, and errors.Is and errors.As find in it the registered
// errors the original held.
func UnmarshalError(data []byte) (error, error) {
	var w *wireError
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("could not decode an error: %w", err)
	}
	return decodeError(w), nil
}

// encodeError returns err's wire form, or nil for a nil error.
func encodeError(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error()}
	errorRegistry.mu.RLock()
	entries := errorRegistry.entries[:len(errorRegistry.entries):len(errorRegistry.entries)]
	errorRegistry.mu.RUnlock()
	for _, e := range entries { // without the lock: Is and As methods run arbitrary code
		switch {
		case e.sentinel != nil && errors.Is(err, e.sentinel):
			w.Causes = append(w.Causes, wireCause{Code: e.code})
		case e.find != nil:
			if found, ok := e.find(err); ok {
				// A type registered for the wire is plain data; one that
				// cannot be written travels as text only.
				if value, jerr := json.Marshal(found); jerr == nil {
					w.Causes = append(w.Causes, wireCause{Code: e.code, Value: value})
				}
			}
		}
	}
	return w
}

// decodeError turns a wire error back into an error, or nil for nil.
// Codes this process does not know are skipped: the text remains.
func decodeError(w *wireError) error {
	if w == nil {
		return nil
	}
	remote := &remoteError{message: w.Message}
	errorRegistry.mu.RLock()
	defer errorRegistry.mu.RUnlock()
	for _, c := range w.Causes {
		e, ok := errorRegistry.byCode[c.Code]
		switch {
		case !ok:
		case e.sentinel != nil:
			remote.causes = append(remote.causes, e.sentinel)
		default:
			if typed, err := e.decode(c.Value); err == nil && !isNilError(typed) {
				remote.causes = append(remote.causes, typed)
			}
		}
	}
	return remote
}

// isNilError reports whether err is nil or a nil pointer inside a non-nil
// interface (what decoding JSON null into a pointer type gives).
func isNilError(err error) bool {
	if err == nil {
		return true
	}
	v := reflect.ValueOf(err)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// remoteError is an error that came over the wire: the original text, and
// the registered errors it wrapped, which errors.Is and errors.As find.
type remoteError struct {
	message string
	causes  []error
}

func (e *remoteError) Error() string   { return e.message }
func (e *remoteError) Unwrap() []error { return e.causes }
