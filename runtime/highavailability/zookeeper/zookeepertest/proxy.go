package zookeepertest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy stands between a client and the ZooKeeper server, so that a test
// can cut one process off from ZooKeeper, as a network partition or a
// long pause would, while the others keep their connections.
type Proxy struct {
	listener net.Listener
	target   string

	mu      sync.Mutex
	blocked bool
	conns   []net.Conn
}

// NewProxy forwards a free loopback port to target until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{listener: l, target: target}
	go p.accept()
	t.Cleanup(func() {
		l.Close()
		p.Block()
	})
	return p
}

// Address is where a client connects instead of the server.
func (p *Proxy) Address() string { return p.listener.Addr().String() }

func (p *Proxy) accept() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		blocked := p.blocked
		p.mu.Unlock()
		if blocked {
			client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		go pipe(client, server)
		go pipe(server, client)
	}
}

func pipe(to, from net.Conn) {
	_, _ = io.Copy(to, from)
	to.Close()
	from.Close()
}

// Block cuts every connection through the proxy and refuses new ones
// until Unblock.
func (p *Proxy) Block() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Unblock lets connections through again.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = false
}
