package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"time"

	"flinklab/runtime/internal/connlimit"
)

// TCPService is the Service that joins processes (Flink's PekkoRpcService
// with a remote actor system). It listens on a TCP port and serves the
// endpoints registered with it to other processes; it connects to the
// endpoints of other processes through stubs.
//
// Addresses have the shape of Flink's remote Pekko paths:
//
//	pekko.tcp://flink@127.0.0.1:6123/user/rpc/resourcemanager_0
//
// Connect returns the registered object itself for an address of this
// service, as LocalService does, and an *Invoker for an address of
// another one, after a handshake with it; rpc.Connect[G] wraps that
// Invoker in the stub registered for G (package gateway/remote holds the
// gateways' stubs).
//
// Each remote TCPService this one calls gets one connection, dialled on the
// first call and redialled on the first call after it broke (the peer
// restarted, say) or closed itself for being idle (half the
// IdleTimeout); every call to that peer goes over it, concurrently. A
// call that was on its way when the connection broke fails with
// ErrRecipientUnreachable, whether or not the peer ran it. The calls a
// connection brings in run on goroutines of their own, each with the
// caller's remaining timeout as its ctx deadline.
//
// Differs from Flink: no actor system and no Pekko remoting, but one
// frame format (tcpframe.go), JSON bodies, and reflection to find the
// method a request names.
type TCPService struct {
	cfg      TCPConfig
	log      *slog.Logger
	listener net.Listener
	hostPort string // where it listens, as in its addresses: "127.0.0.1:6123"
	dialer   net.Dialer

	// connections bounds the incoming connections served at once
	// (TCPConfig.MaxConnections): the accept loop takes a slot before it
	// accepts the next. connLog writes the lines about single incoming
	// connections, at most one of each kind a minute.
	connections *connlimit.Slots
	connLog     *connlimit.Log

	mu        sync.Mutex
	closed    bool
	endpoints map[string]*servedEndpoint // by name
	peers     map[string]*clientConn     // outgoing connections, by the peer's host:port
	incoming  map[*serverConn]struct{}
	wg        sync.WaitGroup // the accept loop and every connection's goroutines
}

var _ Service = (*TCPService)(nil)

// TCPConfig configures a TCPService.
type TCPConfig struct {
	// Address is the host:port to listen on; port 0 picks a free port.
	// Empty means "127.0.0.1:0". The addresses the service hands out name
	// the host given here and the port it got, so listen on an address
	// that other processes can reach.
	Address string
	// MaxFrameSize bounds every frame sent or received; zero means
	// DefaultMaxFrameSize.
	MaxFrameSize int
	// Logger receives the service's log lines; nil means slog.Default().
	Logger *slog.Logger

	// The limits of the service (doc.go, "Limits"). Zero means the
	// default.

	// ConnectTimeout bounds dialling a peer, TLS handshake included
	// (Flink's pekko.tcp.timeout; DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// ReadTimeout bounds the arrival of a frame: of the first one (and the
	// TLS handshake) from the moment a connection is accepted, of every
	// later one from its first byte. pekko.tcp.read-timeout, ours;
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// IdleTimeout closes an incoming connection that has brought no frame
	// for this long while none of its calls runs (pekko.tcp.idle-timeout,
	// ours; DefaultIdleTimeout). An outgoing connection closes itself
	// sooner, after half of it without a call in flight, so that the
	// peer's idle close never meets a call on its way (doc.go, "Limits").
	IdleTimeout time.Duration
	// MaxConnections bounds the incoming connections served at once; the
	// next ones wait in the listen backlog until one closes
	// (pekko.tcp.max-connections, ours; DefaultMaxConnections).
	MaxConnections int

	// ServerTLS, when set, makes every incoming connection TLS: the
	// listener hands out tls.Conns, whose handshake happens under the
	// read timeout. Set ClientAuth to tls.RequireAndVerifyClientCert for
	// mutual TLS, as Flink's internal SSL is. Nil means plaintext.
	ServerTLS *tls.Config
	// ClientTLS, when set, is what the service dials peers with (TLS
	// handshake within ConnectTimeout). Nil means plaintext.
	ClientTLS *tls.Config
}

// The defaults of TCPConfig's limits.
const (
	// DefaultConnectTimeout is Flink's default for pekko.tcp.timeout.
	DefaultConnectTimeout = 20 * time.Second
	// DefaultReadTimeout is our default for pekko.tcp.read-timeout: a
	// frame of the largest size (DefaultMaxFrameSize) arrives well within
	// it on any network a cluster runs on.
	DefaultReadTimeout = 20 * time.Second
	// DefaultIdleTimeout is our default for pekko.tcp.idle-timeout: thirty
	// heartbeat intervals (heartbeat.interval, 10 s), so that a connection
	// between a JobManager and a TaskManager, which carries heartbeats
	// both ways, is never idle that long.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxConnections is our default for pekko.tcp.max-connections:
	// a JobManager takes one connection from each TaskManager, so it also
	// bounds the TaskManagers a JobManager serves (doc.go, "Limits").
	DefaultMaxConnections = 1000
)

// servedEndpoint is an endpoint registered with a TCPService: the object
// and the gateway methods peers may call on it.
type servedEndpoint struct {
	gateway any
	methods map[string]reflect.Value
}

// NewTCPService starts listening and serving. Close stops it.
func NewTCPService(cfg TCPConfig) (*TCPService, error) {
	if cfg.Address == "" {
		cfg.Address = "127.0.0.1:0"
	}
	if cfg.MaxFrameSize <= 0 {
		cfg.MaxFrameSize = DefaultMaxFrameSize
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg = cfg.withDefaultLimits()
	host, _, err := net.SplitHostPort(cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("rpc: listen address %q: %w", cfg.Address, err)
	}
	ln, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("rpc: could not start the RPC service at %s: %w", cfg.Address, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if cfg.ServerTLS != nil {
		ln = tls.NewListener(ln, cfg.ServerTLS)
	}
	s := &TCPService{
		cfg:       cfg,
		log:       cfg.Logger.With("logger", "PekkoRpcService"),
		listener:  ln,
		hostPort:  net.JoinHostPort(host, port),
		dialer:    net.Dialer{Timeout: cfg.ConnectTimeout},
		endpoints: make(map[string]*servedEndpoint),
		peers:     make(map[string]*clientConn),
		incoming:  make(map[*serverConn]struct{}),
	}
	s.connLog = connlimit.NewLog(s.log, connlimit.Timeouts{
		Read: cfg.ReadTimeout, ReadKey: "pekko.tcp.read-timeout",
		Idle: cfg.IdleTimeout, IdleKey: "pekko.tcp.idle-timeout",
	})
	s.connections = connlimit.NewSlots(cfg.MaxConnections, s.connLog, fmt.Sprintf(
		"The RPC service at %s serves %d connections, its maximum: new connections wait in the listen backlog until one closes. "+
			"Each TaskManager takes one; raise pekko.tcp.max-connections to serve more at once.", s.hostPort, cfg.MaxConnections))
	// Flink's words, so the line is found where a learner looks for it in
	// a real log, though there is no actor system here.
	s.log.Info("Actor system started at " + s.actorSystemAddress())
	s.wg.Go(s.acceptLoop)
	return s, nil
}

// withDefaultLimits fills in the limits left zero.
func (cfg TCPConfig) withDefaultLimits() TCPConfig {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	return cfg
}

// tcpAddressPrefix and tcpAddressPath frame the host:port and the name in
// an address.
const (
	tcpAddressPrefix = "pekko.tcp://flink@"
	tcpAddressPath   = "/user/rpc/"
)

// Address returns the address of the endpoint name on this service, e.g.
// "pekko.tcp://flink@127.0.0.1:6123/user/rpc/dispatcher_0".
func (s *TCPService) Address(name string) string {
	return tcpAddressPrefix + s.hostPort + tcpAddressPath + name
}

// HostPort returns the host:port the service listens on, as it appears in
// its addresses.
func (s *TCPService) HostPort() string { return s.hostPort }

// actorSystemAddress returns the address of the service itself, as Flink
// names an actor system: "pekko.tcp://flink@127.0.0.1:6123".
func (s *TCPService) actorSystemAddress() string { return tcpAddressPrefix + s.hostPort }

// parseTCPAddress splits an address of the form
// pekko.tcp://flink@HOST:PORT/user/rpc/NAME.
func parseTCPAddress(address string) (hostPort, name string, err error) {
	rest, ok := strings.CutPrefix(address, tcpAddressPrefix)
	if ok {
		hostPort, name, ok = strings.Cut(rest, tcpAddressPath)
	}
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%q is not an address of the form %sHOST:PORT%sNAME", address, tcpAddressPrefix, tcpAddressPath)
	}
	if _, _, err := net.SplitHostPort(hostPort); err != nil {
		return "", "", fmt.Errorf("address %q: %w", address, err)
	}
	return hostPort, name, nil
}

// Register makes gateway reachable at address, which must be an address of
// this service (see Address). An address can hold only one endpoint. Peers
// may call the methods of the gateway interfaces registered with
// RegisterStub (by then: package gateway/remote does it in its init) that
// gateway implements, and nothing else.
func (s *TCPService) Register(address string, gateway any) error {
	hostPort, name, err := parseTCPAddress(address)
	if err != nil {
		return fmt.Errorf("rpc: register: %w", err)
	}
	if hostPort != s.hostPort {
		return fmt.Errorf("rpc: register: %s is not an address of the RPC service at %s", address, s.hostPort)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.endpoints[name]; taken {
		return fmt.Errorf("an rpc endpoint is already registered under address %s", address)
	}
	s.endpoints[name] = &servedEndpoint{gateway: gateway, methods: remoteMethods(gateway)}
	return nil
}

// Unregister removes the endpoint at address; later Connects, and calls
// from peers, fail with ErrRecipientUnreachable.
func (s *TCPService) Unregister(address string) {
	hostPort, name, err := parseTCPAddress(address)
	if err != nil || hostPort != s.hostPort {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.endpoints, name)
}

// endpoint returns the endpoint registered under name, or nil.
func (s *TCPService) endpoint(name string) *servedEndpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endpoints[name]
}

// Connect returns the gateway at address: the registered object for an
// address of this service, an *Invoker for a remote one. It fails with
// Flink's "Could not connect to rpc endpoint" error, wrapping
// ErrRecipientUnreachable, when there is no endpoint at address or its
// service cannot be reached before ctx ends.
func (s *TCPService) Connect(ctx context.Context, address string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hostPort, name, err := parseTCPAddress(address)
	if err != nil {
		return nil, couldNotConnect(address, err)
	}
	if hostPort == s.hostPort {
		if ep := s.endpoint(name); ep != nil {
			return ep.gateway, nil
		}
		return nil, couldNotConnect(address, nil)
	}

	// A remote endpoint: the handshake checks that it is there, and
	// learns which methods it serves (Flink's RemoteHandshakeMessage).
	inv := &Invoker{service: s, address: address, hostPort: hostPort, target: name}
	methods, err := CallRemote[[]string](ctx, inv, "")
	if errors.Is(err, ErrRecipientUnreachable) {
		return nil, err // it says so already
	}
	if err != nil {
		return nil, couldNotConnect(address, err)
	}
	inv.methods = make(map[string]bool, len(methods))
	for _, m := range methods {
		inv.methods[m] = true
	}
	return inv, nil
}

// Close stops listening, closes every connection, and waits for the calls
// that peers made to return: their ctx is cancelled, and every gateway
// method returns once its ctx ends. Calls made through this service fail
// with ErrRecipientUnreachable. Close may be called more than once.
func (s *TCPService) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	s.connections.Close()
	err := s.listener.Close()
	for _, c := range s.peers {
		c.close(errServiceClosed)
	}
	for c := range s.incoming {
		c.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

var errServiceClosed = errors.New("the RPC service is closed")

// couldNotConnect is Flink's error for a Connect that found no endpoint at
// address (RpcConnectionException), with the cause if there is one.
func couldNotConnect(address string, cause error) error {
	err := fmt.Errorf("%w: Could not connect to rpc endpoint under address %s.", ErrRecipientUnreachable, address)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// recipientUnreachable is Flink's error for a message that could not be
// delivered (RecipientUnreachableException): invocation, sent by the RPC
// service at sender, did not reach the endpoint at recipient, because
// there is no such endpoint or no connection to its service. The cause,
// if there is one, says why.
func recipientUnreachable(invocation, sender, recipient string, cause error) error {
	err := fmt.Errorf("%w: Could not send message [%s] from sender [%s] to recipient [%s], because the recipient is unreachable. "+
		"This can either mean that the recipient has been terminated or that the remote RpcService is currently not reachable.",
		ErrRecipientUnreachable, invocation, sender, recipient)
	if cause != nil {
		err = fmt.Errorf("%w Caused by: %v", err, cause)
	}
	return err
}

// acceptLoop takes incoming connections until the listener is closed, no
// more than MaxConnections at a time: while that many are served, the
// next ones wait in the listen backlog of the operating system, where
// they cost the process nothing, until one closes.
func (s *TCPService) acceptLoop() {
	for {
		if !s.connections.Acquire() {
			return // closed
		}
		nc, err := s.connections.Accept(s.listener, "The RPC service at "+s.hostPort)
		if err != nil {
			s.connections.Release()
			return // closed
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = nc.Close()
			s.connections.Release()
			return
		}
		c := newServerConn(s, nc)
		s.incoming[c] = struct{}{}
		s.wg.Go(func() {
			defer s.connections.Release()
			c.serve()
		})
		s.mu.Unlock()
	}
}

// connection returns the connection to the peer at hostPort, dialling it
// if there is none or the last one broke.
func (s *TCPService) connection(ctx context.Context, hostPort string) (*clientConn, error) {
	s.mu.Lock()
	c, closed := s.peers[hostPort], s.closed
	s.mu.Unlock()
	if closed {
		return nil, errServiceClosed
	}
	if c != nil && c.alive() {
		return c, nil
	}

	nc, err := s.dial(ctx, hostPort)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return nil, errServiceClosed
	}
	if c := s.peers[hostPort]; c != nil && c.alive() {
		_ = nc.Close() // another call dialled at the same time, and won
		return c, nil
	}
	c = newClientConn(s, hostPort, nc)
	s.peers[hostPort] = c
	s.wg.Go(c.readLoop)
	return c, nil
}

// forgetPeer drops c, a connection that closed itself for being idle,
// unless another has taken its place already.
func (s *TCPService) forgetPeer(c *clientConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers[c.hostPort] == c {
		delete(s.peers, c.hostPort)
	}
}

// dial opens a connection to the peer at hostPort, within ConnectTimeout
// and ctx: over TLS, handshake included, when ClientTLS is set.
func (s *TCPService) dial(ctx context.Context, hostPort string) (net.Conn, error) {
	if s.cfg.ClientTLS != nil {
		dialer := tls.Dialer{NetDialer: &s.dialer, Config: s.cfg.ClientTLS}
		return dialer.DialContext(ctx, "tcp", hostPort)
	}
	return s.dialer.DialContext(ctx, "tcp", hostPort)
}
