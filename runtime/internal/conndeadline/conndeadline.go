package conndeadline

import (
	"net"
	"sync"
	"time"
)

// Deadlines keeps the read deadline of one connection. Its methods are
// safe for concurrent use.
type Deadlines struct {
	conn        net.Conn
	readTimeout time.Duration // for the first frame after the accept, and for each frame from its first byte
	idleTimeout time.Duration // between frames, while no work is in flight

	mu      sync.Mutex
	inFrame bool // the read loop is reading a frame (or the connection has just been accepted)
	work    int  // work in flight: BeginWork calls not yet matched by EndWork
}

// Start returns the deadlines of a connection just accepted: its TLS
// handshake and its first frame must arrive within readTimeout from now.
// A zero timeout means no deadline of that kind.
func Start(conn net.Conn, readTimeout, idleTimeout time.Duration) *Deadlines {
	d := &Deadlines{conn: conn, readTimeout: readTimeout, idleTimeout: idleTimeout, inFrame: true}
	d.setLocked(readTimeout)
	return d
}

// FrameStarted tells that the first byte of a frame has arrived: the rest
// of it must arrive within the read timeout. For the first frame of the
// connection the deadline set by Start stays.
func (d *Deadlines) FrameStarted() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inFrame {
		return
	}
	d.inFrame = true
	d.setLocked(d.readTimeout)
}

// AwaitFrame tells that a frame has been read, and the read loop waits for
// the next one: the idle timeout counts from now, unless work is in
// flight.
func (d *Deadlines) AwaitFrame() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFrame = false
	d.setBetweenFramesLocked()
}

// BeginWork tells that work is in flight on the connection (a call
// running, a subpartition being read): the connection may stay silent
// until it ends.
func (d *Deadlines) BeginWork() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.work++
	if !d.inFrame {
		d.setBetweenFramesLocked()
	}
}

// EndWork tells that work BeginWork announced has ended. When it was the
// last, and the read loop waits between frames, the idle timeout counts
// from now.
func (d *Deadlines) EndWork() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.work--
	if !d.inFrame {
		d.setBetweenFramesLocked()
	}
}

func (d *Deadlines) setBetweenFramesLocked() {
	if d.work > 0 {
		d.setLocked(0)
		return
	}
	d.setLocked(d.idleTimeout)
}

// setLocked sets the read deadline timeout from now; zero clears it. The
// error of a connection already closed does not matter.
func (d *Deadlines) setLocked(timeout time.Duration) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	_ = d.conn.SetReadDeadline(deadline)
}
