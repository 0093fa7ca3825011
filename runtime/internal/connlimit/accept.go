package connlimit

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// KindAcceptFailed is the kind of the line Accept logs when the listener
// fails to accept (see Log).
const KindAcceptFailed = "accept failed"

// The pauses between attempts of Accept after the listener failed: as
// net/http's Server, from 5 ms, doubling, up to 1 s.
const (
	firstAcceptPause = 5 * time.Millisecond
	maxAcceptPause   = time.Second
)

// Accept accepts the next connection of ln for the accept loop that holds
// a slot. A listener fails to accept for reasons that pass: the process
// is out of file descriptors (EMFILE, ENFILE), or a connection was reset
// before it was accepted. Then Accept logs why, at most once a minute
// (what names the server: "The RPC service at 127.0.0.1:6123"), pauses
// and tries again, so that a server that ran out of descriptors for a
// moment serves again once some are free, instead of never again. It
// returns an error only once the listener is closed, or once Close was
// called during a pause.
func (s *Slots) Accept(ln net.Listener, what string) (net.Conn, error) {
	pause := firstAcceptPause
	for {
		conn, err := ln.Accept()
		if err == nil || errors.Is(err, net.ErrClosed) {
			return conn, err
		}
		s.log.Warn(KindAcceptFailed, fmt.Sprintf("%s could not accept a connection; trying again in %v.", what, pause), "cause", err.Error())
		select {
		case <-time.After(pause):
		case <-s.closing:
			return nil, net.ErrClosed
		}
		pause = min(2*pause, maxAcceptPause)
	}
}
