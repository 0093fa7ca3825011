package rpc

import (
	"context"
	"fmt"
)

// FencedEndpoint is Flink's FencedRpcEndpoint: an Endpoint whose fenced
// calls must carry its current fencing token. The token is the leader
// session of the component (api.JobMasterID for a JobMaster,
// api.ResourceManagerID for a ResourceManager). Read and set it only on the
// main thread.
type FencedEndpoint[F comparable] struct {
	*Endpoint
	fencingToken F
}

// NewFencedEndpoint returns a fenced endpoint with the given token.
func NewFencedEndpoint[F comparable](name string, token F) *FencedEndpoint[F] {
	return &FencedEndpoint[F]{Endpoint: NewEndpoint(name), fencingToken: token}
}

// FencingToken returns the current token. Main thread only.
func (e *FencedEndpoint[F]) FencingToken() F { return e.fencingToken }

// SetFencingToken changes the token, e.g. when leadership is granted anew.
// Main thread only.
func (e *FencedEndpoint[F]) SetFencingToken(token F) { e.fencingToken = token }

// CallFenced is CallAsync for fenced calls: on the main thread, before fn
// runs, it compares token with the endpoint's current token and rejects the
// call with an error wrapping ErrFencingTokenMismatch when they differ.
func CallFenced[F comparable, T any](ctx context.Context, e *FencedEndpoint[F], token F, fn func() (T, error)) (T, error) {
	return CallAsync(ctx, e.Endpoint, func() (T, error) {
		var unset F
		if e.fencingToken == unset {
			var zero T
			return zero, fmt.Errorf("%w: Fencing token not set: Ignoring message for %s because the fencing token is null.",
				ErrFencingTokenMismatch, e.name)
		}
		if token != e.fencingToken {
			var zero T
			return zero, fmt.Errorf("%w: Fencing token mismatch: Ignoring message for %s because the fencing token %v did not match the expected fencing token %v.",
				ErrFencingTokenMismatch, e.name, token, e.fencingToken)
		}
		return fn()
	})
}
