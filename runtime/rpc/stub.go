package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Stubs: how a gateway interface is called over TCP.
//
// In one process, the gateway a component holds is the other component
// itself. Between processes it is a stub: a small value whose methods
// send the call to the remote endpoint through an Invoker and wait for the
// answer. Go cannot make up an implementation of an interface at run time
// (Flink makes a java.lang.reflect.Proxy whose PekkoInvocationHandler
// turns each call into a RemoteRpcInvocation), so the stubs are written
// by hand, one short method each, in package gateway/remote, which
// registers them:
//
//	func init() {
//		rpc.RegisterStub(func(inv *rpc.Invoker) gateway.DispatcherGateway { return dispatcherStub{inv} })
//	}
//
//	func (s dispatcherStub) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
//		return rpc.CallRemote[api.JobStatus](ctx, s.inv, "RequestJobStatus", jobID)
//	}
//
// Connect[G] wraps the Invoker that a TCPService returns for a remote
// address in the stub registered for G. The receiving TCPService calls
// the method of the same name on the registered object, by reflection.
// Only the methods of registered gateway interfaces can be called that
// way, so a peer can ask of a component exactly what its gateways offer.

// Invoker sends calls to one endpoint of a remote TCPService: the client
// side of a connection, for one target. Connect returns one for a remote
// address; stubs are built on it.
type Invoker struct {
	service  *TCPService
	address  string          // the endpoint's full address
	hostPort string          // where its TCPService listens
	target   string          // the endpoint's name there
	methods  map[string]bool // what the endpoint serves, from the handshake
	// fencingToken goes with every call (ConnectFenced); "" for none.
	fencingToken string
}

// Address returns the address of the remote endpoint.
func (inv *Invoker) Address() string { return inv.address }

// Call invokes a remote method that answers only with an error.
func (inv *Invoker) Call(ctx context.Context, method string, args ...any) error {
	_, err := inv.service.invoke(ctx, inv, method, args)
	return err
}

// CallRemote invokes a remote method that answers with a value of type T
// and an error.
func CallRemote[T any](ctx context.Context, inv *Invoker, method string, args ...any) (T, error) {
	var zero T
	raw, err := inv.service.invoke(ctx, inv, method, args)
	if err != nil {
		return zero, err
	}
	v, err := decodeValue(raw, reflect.TypeFor[T]())
	if err != nil {
		return zero, fmt.Errorf("could not decode the answer of rpc method %s at %s: %w", method, inv.address, err)
	}
	result, _ := v.Interface().(T) // a nil interface value stays the zero T
	return result, nil
}

// stubRegistry maps gateway interfaces to the functions that make their stubs.
var stubRegistry struct {
	mu       sync.RWMutex
	gateways []reflect.Type // in registration order
	newStub  map[reflect.Type]func(*Invoker) any
}

// RegisterStub registers how to call a remote gateway of interface type G:
// newStub wraps an Invoker in a value of type G. It also makes G's methods
// callable over TCP on every registered endpoint that implements G. Every
// method of G must take a context.Context first, return an error last and
// at most one value before it, as every gateway method does; anything else
// is a programming error and panics, as does registering G twice.
func RegisterStub[G any](newStub func(*Invoker) G) {
	g := reflect.TypeFor[G]()
	if g.Kind() != reflect.Interface {
		panic(fmt.Sprintf("rpc: RegisterStub: %s is not an interface", g))
	}
	for i := range g.NumMethod() {
		if err := checkRemoteMethod(g.Method(i).Type); err != nil {
			panic(fmt.Sprintf("rpc: RegisterStub: %s.%s: %v", g, g.Method(i).Name, err))
		}
	}
	stubRegistry.mu.Lock()
	defer stubRegistry.mu.Unlock()
	if stubRegistry.newStub == nil {
		stubRegistry.newStub = make(map[reflect.Type]func(*Invoker) any)
	}
	if _, taken := stubRegistry.newStub[g]; taken {
		panic(fmt.Sprintf("rpc: RegisterStub: %s registered twice", g))
	}
	stubRegistry.newStub[g] = func(inv *Invoker) any { return newStub(inv) }
	stubRegistry.gateways = append(stubRegistry.gateways, g)
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// checkRemoteMethod checks the shape every gateway method has:
// (ctx, args...) error or (ctx, args...) (T, error).
func checkRemoteMethod(m reflect.Type) error {
	switch {
	case m.NumIn() == 0 || m.In(0) != contextType:
		return fmt.Errorf("the first parameter must be a context.Context")
	case m.IsVariadic():
		return fmt.Errorf("variadic methods cannot be called remotely")
	case m.NumOut() == 0 || m.NumOut() > 2 || m.Out(m.NumOut()-1) != errorType:
		return fmt.Errorf("the results must be (error) or (T, error)")
	}
	return nil
}

// newStubFor wraps inv in the stub for G: the one registered for G, or
// else the only registered stub that implements G (a component may
// connect through an interface of its own that combines two gateways, as
// the ResourceManager's jobMasterGateway does). It fails, as Flink's
// handshake does, when the remote endpoint lacks a method of G.
func newStubFor[G any](inv *Invoker) (G, error) {
	var zero G
	g := reflect.TypeFor[G]()
	newStub, err := findStub(g)
	if err != nil {
		return zero, err
	}
	if g.Kind() == reflect.Interface {
		for i := range g.NumMethod() {
			if !inv.methods[g.Method(i).Name] {
				return zero, fmt.Errorf("%w: The rpc endpoint under address %s does not support the gateway %s: it has no method %s.",
					ErrRecipientUnreachable, inv.address, g, g.Method(i).Name)
			}
		}
	}
	return newStub(inv).(G), nil
}

func findStub(g reflect.Type) (func(*Invoker) any, error) {
	stubRegistry.mu.RLock()
	defer stubRegistry.mu.RUnlock()
	if newStub, ok := stubRegistry.newStub[g]; ok {
		return newStub, nil
	}
	var matches []func(*Invoker) any
	var names []string
	seen := make(map[reflect.Type]bool) // two gateways may share one stub type
	for _, registered := range stubRegistry.gateways {
		newStub := stubRegistry.newStub[registered]
		stubType := reflect.TypeOf(newStub(&Invoker{}))
		if seen[stubType] || g.Kind() != reflect.Interface || !stubType.Implements(g) {
			continue
		}
		seen[stubType] = true
		matches = append(matches, newStub)
		names = append(names, registered.String())
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return nil, fmt.Errorf("no stub is registered for the gateway %s (a process that talks RPC over TCP imports flinklab/runtime/gateway/remote)", g)
	default:
		return nil, fmt.Errorf("the gateway %s is ambiguous: the stubs of %s all implement it", g, strings.Join(names, ", "))
	}
}

// remoteMethods returns the methods of gateway that peers may call: those
// of every registered gateway interface it implements, by name.
func remoteMethods(gateway any) map[string]reflect.Value {
	v := reflect.ValueOf(gateway)
	methods := make(map[string]reflect.Value)
	if !v.IsValid() {
		return methods
	}
	stubRegistry.mu.RLock()
	defer stubRegistry.mu.RUnlock()
	for _, g := range stubRegistry.gateways {
		if !v.Type().Implements(g) {
			continue
		}
		for i := range g.NumMethod() {
			name := g.Method(i).Name
			methods[name] = v.MethodByName(name)
		}
	}
	return methods
}

// sortedNames returns the keys of a method table, sorted: what a
// handshake answers.
func sortedNames(methods map[string]reflect.Value) []string {
	names := make([]string, 0, len(methods))
	for name := range methods {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Values on the wire are JSON. encoding/json handles every message type of
// the gateways but two kinds: errors (see wireerror.go) and types whose
// JSON form is written by their own functions rather than by their fields
// (the JobGraph's codec). Those are registered with RegisterCodec.

type codec struct {
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte) (any, error)
}

var codecRegistry struct {
	mu     sync.RWMutex
	byType map[reflect.Type]codec
}

// RegisterCodec tells the TCP transport how to write and read values of
// type T, for a type that encoding/json cannot round-trip by itself and
// whose package offers its own encoding (gateway/remote registers
// jobgraph.Encode and jobgraph.Decode for *jobgraph.JobGraph). Registering
// T twice is a programming error and panics.
func RegisterCodec[T any](marshal func(T) ([]byte, error), unmarshal func([]byte) (T, error)) {
	t := reflect.TypeFor[T]()
	codecRegistry.mu.Lock()
	defer codecRegistry.mu.Unlock()
	if codecRegistry.byType == nil {
		codecRegistry.byType = make(map[reflect.Type]codec)
	}
	if _, taken := codecRegistry.byType[t]; taken {
		panic(fmt.Sprintf("rpc: RegisterCodec: %s registered twice", t))
	}
	codecRegistry.byType[t] = codec{
		marshal:   func(v any) ([]byte, error) { return marshal(v.(T)) },
		unmarshal: func(data []byte) (any, error) { return unmarshal(data) },
	}
}

func codecFor(t reflect.Type) (codec, bool) {
	codecRegistry.mu.RLock()
	defer codecRegistry.mu.RUnlock()
	c, ok := codecRegistry.byType[t]
	return c, ok
}

// encodeValue writes one argument or result: with its registered codec,
// as an error if it is one, or else with encoding/json.
func encodeValue(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	if c, ok := codecFor(reflect.TypeOf(v)); ok {
		return c.marshal(v)
	}
	if err, ok := v.(error); ok {
		return MarshalError(err)
	}
	return json.Marshal(v)
}

// decodeValue reads a value of type t written by encodeValue.
func decodeValue(data json.RawMessage, t reflect.Type) (reflect.Value, error) {
	out := reflect.New(t).Elem()
	if c, ok := codecFor(t); ok {
		v, err := c.unmarshal(data)
		if err != nil {
			return reflect.Value{}, err
		}
		if v != nil {
			out.Set(reflect.ValueOf(v))
		}
		return out, nil
	}
	if t == errorType {
		err, derr := UnmarshalError(data)
		if derr != nil {
			return reflect.Value{}, derr
		}
		if err != nil {
			out.Set(reflect.ValueOf(err))
		}
		return out, nil
	}
	if err := json.Unmarshal(data, out.Addr().Interface()); err != nil {
		return reflect.Value{}, err
	}
	return out, nil
}
