package rpc

import (
	"context"
	"fmt"
	"sync"
)

// Service finds endpoints by address (Flink's RpcService). Components
// register the gateway they serve and connect to the gateways of others.
type Service interface {
	// Address returns the address under which an endpoint of this name is
	// reachable through this service.
	Address(name string) string
	// Register makes gateway reachable at address.
	Register(address string, gateway any) error
	// Unregister removes the endpoint at address.
	Unregister(address string)
	// Connect returns the gateway registered at address, or for a remote
	// address a handle that Connect[G] turns into a stub of G.
	Connect(ctx context.Context, address string) (any, error)
}

// Connect returns the gateway at address, typed as G (Flink's
// RpcService.connect(address, Class<G>)). For a remote endpoint, which a
// TCPService answers with an *Invoker, it returns the stub registered for G
// (see RegisterStub).
func Connect[G any](ctx context.Context, s Service, address string) (G, error) {
	var zero G
	raw, err := s.Connect(ctx, address)
	if err != nil {
		return zero, err
	}
	if inv, ok := raw.(*Invoker); ok {
		if g, ok := raw.(G); ok {
			return g, nil // the caller asked for the Invoker itself
		}
		return newStubFor[G](inv)
	}
	return asGateway[G](raw, address)
}

// asGateway returns the endpoint object raw, found at address in this
// process, as the gateway G.
func asGateway[G any](raw any, address string) (G, error) {
	var zero G
	g, ok := raw.(G)
	if !ok {
		return zero, fmt.Errorf("rpc endpoint under address %s is a %T, not the requested gateway %T", address, raw, &zero)
	}
	return g, nil
}

// LocalService connects endpoints that live in one process.
type LocalService struct {
	mu        sync.Mutex
	endpoints map[string]any
}

// NewLocalService returns an empty in-process service.
func NewLocalService() *LocalService {
	return &LocalService{endpoints: make(map[string]any)}
}

// Address returns a Pekko-style local path, e.g. "pekko://flink/user/rpc/dispatcher_0".
func (s *LocalService) Address(name string) string { return "pekko://flink/user/rpc/" + name }

// Register makes gateway reachable at address. An address can hold only one
// endpoint.
func (s *LocalService) Register(address string, gateway any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.endpoints[address]; taken {
		return fmt.Errorf("an rpc endpoint is already registered under address %s", address)
	}
	s.endpoints[address] = gateway
	return nil
}

// Unregister removes the endpoint at address; later Connects fail.
func (s *LocalService) Unregister(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.endpoints, address)
}

// Connect returns the gateway at address, or Flink's "Could not connect to
// rpc endpoint" error wrapping ErrRecipientUnreachable.
func (s *LocalService) Connect(ctx context.Context, address string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.endpoints[address]
	if !ok {
		return nil, fmt.Errorf("%w: Could not connect to rpc endpoint under address %s.", ErrRecipientUnreachable, address)
	}
	return g, nil
}
