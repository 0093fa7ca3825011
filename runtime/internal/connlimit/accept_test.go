package connlimit

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingListener fails its first failures Accepts with err, then hands
// out one end of a pipe; once closed, it answers net.ErrClosed.
type failingListener struct {
	failures int
	err      error
	accepts  []time.Time // when each Accept was called
	closed   bool
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.accepts = append(l.accepts, time.Now())
	switch {
	case l.closed:
		return nil, net.ErrClosed
	case len(l.accepts) <= l.failures:
		return nil, l.err
	}
	server, client := net.Pipe()
	_ = client.Close()
	return server, nil
}

func (l *failingListener) Close() error   { l.closed = true; return nil }
func (l *failingListener) Addr() net.Addr { return &net.TCPAddr{} }

// A process out of file descriptors fails to accept for a while: Accept
// tries again after 5, 10, 20, … ms, logs it once, and hands out the
// next connection once one can be accepted, rather than leaving the
// server deaf for good.
func TestAcceptTriesAgainAfterAFailureThatPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, logs := newTestLog()
		slots := NewSlots(1, log, "at maximum")
		ln := &failingListener{failures: 4, err: &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}}
		start := time.Now()

		conn, err := slots.Accept(ln, "The RPC service at 127.0.0.1:6123")
		require.NoError(t, err)
		_ = conn.Close()
		require.Len(t, ln.accepts, 5)
		var pauses []time.Duration
		for i := 1; i < len(ln.accepts); i++ {
			pauses = append(pauses, ln.accepts[i].Sub(ln.accepts[i-1]))
		}
		assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, pauses)
		assert.Equal(t, 75*time.Millisecond, time.Since(start))
		assert.Equal(t, []line{{Msg: "The RPC service at 127.0.0.1:6123 could not accept a connection; trying again in 5ms."}}, lines(t, logs),
			"one line, not one per attempt")
	})
}

// The pauses grow to a second and no further.
func TestAcceptPausesAtMostASecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, _ := newTestLog()
		ln := &failingListener{failures: 12, err: errors.New("accept: too many open files")}
		_, err := NewSlots(1, log, "at maximum").Accept(ln, "A server")
		require.NoError(t, err)
		last := ln.accepts[len(ln.accepts)-1].Sub(ln.accepts[len(ln.accepts)-2])
		assert.Equal(t, time.Second, last)
	})
}

// A closed listener ends Accept at once, and so does Close during a
// pause: the server is shutting down.
func TestAcceptEndsWhenTheServerCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, _ := newTestLog()
		slots := NewSlots(1, log, "at maximum")
		closed := &failingListener{closed: true}
		_, err := slots.Accept(closed, "A server")
		assert.ErrorIs(t, err, net.ErrClosed)
		assert.Len(t, closed.accepts, 1, "no retry of a closed listener")

		failing := &failingListener{failures: 1000, err: errors.New("accept: too many open files")}
		result := make(chan error)
		go func() {
			_, err := slots.Accept(failing, "A server")
			result <- err
		}()
		time.Sleep(time.Second)
		slots.Close()
		assert.ErrorIs(t, <-result, net.ErrClosed)
	})
}
