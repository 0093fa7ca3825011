package connlimit

import "sync"

// Slots bounds the connections a server serves at once. Only the accept
// loop calls Acquire; Release and Close may be called from any goroutine.
type Slots struct {
	slots     chan struct{} // a token for each connection being served
	closing   chan struct{} // closed by Close
	closeOnce sync.Once

	log       *Log
	atMaximum string // the warning that all slots are taken
}

// KindAtMaximum is the kind of the line Slots logs when all slots are
// taken (see Log).
const KindAtMaximum = "at maximum"

// NewSlots returns max slots. When the accept loop finds all of them
// taken, it logs atMaximum as a warning on log, at most once a minute:
// once at the start of a flood, not once for each connection.
func NewSlots(max int, log *Log, atMaximum string) *Slots {
	return &Slots{
		slots:     make(chan struct{}, max),
		closing:   make(chan struct{}),
		log:       log,
		atMaximum: atMaximum,
	}
}

// Acquire takes a slot for one more connection, waiting while all are
// taken. It returns false once Close was called.
func (s *Slots) Acquire() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	s.log.Warn(KindAtMaximum, s.atMaximum)
	select {
	case s.slots <- struct{}{}:
		return true
	case <-s.closing:
		return false
	}
}

// Release gives back the slot of a connection that is served.
func (s *Slots) Release() { <-s.slots }

// Close makes Acquire return false from now on, and ends the wait of one
// that waits. It may be called more than once.
func (s *Slots) Close() { s.closeOnce.Do(func() { close(s.closing) }) }
