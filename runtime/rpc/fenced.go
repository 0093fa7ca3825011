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
		if err := checkFencingToken("for "+e.name, tokenString(token), tokenString(e.fencingToken)); err != nil {
			var zero T
			return zero, err
		}
		return fn()
	})
}

// tokenString is a fencing token as checkFencingToken compares it: its
// String form, or "" for the zero token, which is Java's null.
func tokenString[F comparable](token F) string {
	var unset F
	if token == unset {
		return ""
	}
	return fmt.Sprint(token)
}

// FencedGateway is an endpoint whose calls carry its fencing token in the
// message instead of as an argument: Flink's FencedRpcEndpoint as the
// Dispatcher is one. A caller connects with ConnectFenced and the token
// of the leader it found (the leader session ZooKeeper published); every
// call it makes then carries that token (Flink's RemoteFencedMessage), and
// the serving TCPService refuses a call whose token is not the endpoint's
// before the method runs. So a REST endpoint that still knows an old
// leader is refused by a process that leads anew, and never reaches a
// Dispatcher of another leader session.
//
// A call through plain Connect carries no token and is refused as well.
type FencedGateway interface {
	// ExpectedFencingToken returns the token every call must carry, in
	// its String form. It is called on the serving goroutine of each call,
	// so it must be safe for concurrent use.
	ExpectedFencingToken() string
}

// ConnectFenced is Connect for a FencedGateway (Flink's
// RpcService.connect(address, fencingToken, Class<G>)): every call made
// through the gateway it returns carries token. An endpoint in this
// process is returned itself, once its token is found to be token: its
// token is fixed for its lifetime, as the Dispatcher's DispatcherID is.
func ConnectFenced[G any](ctx context.Context, s Service, address string, token fmt.Stringer) (G, error) {
	var zero G
	raw, err := s.Connect(ctx, address)
	if err != nil {
		return zero, err
	}
	if inv, ok := raw.(*Invoker); ok {
		fenced := *inv
		fenced.fencingToken = token.String()
		return newStubFor[G](&fenced)
	}
	if fenced, ok := raw.(FencedGateway); ok {
		if err := checkFencingToken("connect", token.String(), fenced.ExpectedFencingToken()); err != nil {
			return zero, err
		}
	}
	return asGateway[G](raw, address)
}

// checkFencingToken is the check of Flink's FencedPekkoRpcActor, which
// every fenced call passes before it reaches its endpoint: the token the
// message carries against the one the endpoint expects, both in their
// String form, "" standing for Java's null. message names the call in the
// error.
func checkFencingToken(message, token, expected string) error {
	// A leader's calls are fenced: an endpoint answers only the calls of
	// the leader session it runs under, so that a process that lost the
	// leadership (paused, cut off, not yet told) cannot act for it any
	// more. An endpoint with no token is not leading, and answers nobody.
	if expected == "" {
		return fmt.Errorf("%w: Fencing token not set: Ignoring message %s because the fencing token is null.",
			ErrFencingTokenMismatch, message)
	}
	if token != expected {
		if token == "" {
			token = "null"
		}
		return fmt.Errorf("%w: Fencing token mismatch: Ignoring message %s because the fencing token %s did not match the expected fencing token %s.",
			ErrFencingTokenMismatch, message, token, expected)
	}
	return nil
}
