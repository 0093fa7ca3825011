package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Errors registered by this test file, as package gateway registers the
// runtime's.
var errBoom = errors.New("BoomException")

// quotaError is a typed error that callers find with errors.As.
type quotaError struct {
	Resource string
	Limit    int
}

func (e *quotaError) Error() string {
	return fmt.Sprintf("quota of %s exceeded (%d)", e.Resource, e.Limit)
}

// kindError matches its kind through an Is method rather than Unwrap, as
// taskexecutor's exceptions do.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.kind.Error() + ": " + e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

func init() {
	// The transport's own errors and the context package's, under the
	// codes package gateway registers them with for the runtime: this
	// package's tests cross TCP without package gateway.
	RegisterError("rpc.ErrRecipientUnreachable", ErrRecipientUnreachable)
	RegisterError("rpc.ErrTimeout", ErrTimeout)
	RegisterError("rpc.ErrFencingTokenMismatch", ErrFencingTokenMismatch)
	RegisterError("context.Canceled", context.Canceled)
	RegisterError("context.DeadlineExceeded", context.DeadlineExceeded)

	RegisterError("rpc_test.errBoom", errBoom)
	RegisterErrorType[*quotaError]("rpc_test.quotaError")
}

func roundTripError(t *testing.T, err error) error {
	t.Helper()
	data, merr := MarshalError(err)
	require.NoError(t, merr)
	got, uerr := UnmarshalError(data)
	require.NoError(t, uerr)
	return got
}

func TestErrorsKeepTheirTextAndRegisteredCausesOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		is      []error
		isNot   []error
		asQuota *quotaError
	}{
		{
			name:  "a wrapped sentinel",
			err:   fmt.Errorf("submit job 42: %w", errBoom),
			is:    []error{errBoom},
			isNot: []error{ErrTimeout},
		},
		{
			name: "two sentinels in one chain",
			err:  fmt.Errorf("%w: invocation at recipient [x] timed out: %w", ErrTimeout, context.DeadlineExceeded),
			is:   []error{ErrTimeout, context.DeadlineExceeded},
		},
		{
			name: "a sentinel matched through an Is method",
			err:  fmt.Errorf("deploy: %w", &kindError{kind: ErrFencingTokenMismatch, msg: "stale"}),
			is:   []error{ErrFencingTokenMismatch},
		},
		{
			name:    "a typed error",
			err:     fmt.Errorf("allocate: %w", &quotaError{Resource: "slots", Limit: 4}),
			asQuota: &quotaError{Resource: "slots", Limit: 4},
		},
		{
			name:  "nothing registered",
			err:   errors.New("plain failure"),
			isNot: []error{errBoom, ErrTimeout, ErrRecipientUnreachable},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTripError(t, tc.err)
			assert.EqualError(t, got, tc.err.Error())
			for _, want := range tc.is {
				assert.ErrorIs(t, got, want)
			}
			for _, not := range tc.isNot {
				assert.NotErrorIs(t, got, not)
			}
			var quota *quotaError
			if tc.asQuota != nil {
				require.ErrorAs(t, got, &quota)
				assert.Equal(t, tc.asQuota, quota)
			} else {
				assert.False(t, errors.As(got, &quota))
			}
		})
	}
}

func TestNilErrorIsNullOnTheWire(t *testing.T) {
	data, err := MarshalError(nil)
	require.NoError(t, err)
	assert.Equal(t, "null", string(data))
	assert.NoError(t, roundTripError(t, nil))
}

func TestUnknownCodesKeepTheText(t *testing.T) {
	// A peer built with a sentinel this process does not know.
	data := `{"message":"SomethingNewException: details","causes":[{"code":"future.ErrSomethingNew"},{"code":"rpc.ErrTimeout"}]}`
	got, err := UnmarshalError([]byte(data))
	require.NoError(t, err)
	assert.EqualError(t, got, "SomethingNewException: details")
	assert.ErrorIs(t, got, ErrTimeout)

	_, err = UnmarshalError([]byte(`{"message": 7}`))
	assert.Error(t, err)
}

func TestWireErrorFormat(t *testing.T) {
	data, err := MarshalError(fmt.Errorf("%w: no", errBoom))
	require.NoError(t, err)
	assert.JSONEq(t, `{"message":"BoomException: no","causes":[{"code":"rpc_test.errBoom"}]}`, string(data))

	data, err = MarshalError(&quotaError{Resource: "cpu", Limit: 2})
	require.NoError(t, err)
	var w wireError
	require.NoError(t, json.Unmarshal(data, &w))
	require.Len(t, w.Causes, 1)
	assert.Equal(t, "rpc_test.quotaError", w.Causes[0].Code)
	assert.JSONEq(t, `{"Resource":"cpu","Limit":2}`, string(w.Causes[0].Value))
}

func TestRegisteringACodeTwicePanics(t *testing.T) {
	assert.Panics(t, func() { RegisterError("rpc.ErrTimeout", errors.New("another")) })
	assert.Panics(t, func() { RegisterError("rpc_test.nil", nil) })
}
