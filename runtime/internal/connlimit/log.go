package connlimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// LogInterval is how often at most a Log writes a line of one kind.
const LogInterval = time.Minute

// Log writes the lines a server logs about single connections, rate
// limited: of each kind of line, the first in a minute (LogInterval) is
// written and the others are counted. The next line of that kind that is
// written carries the count as its "suppressed" attribute:
//
//	WARN Closing connection from 10.0.0.7:51234: the TLS handshake failed. cause=… suppressed=4127
//
// says that 4127 more connections failed their handshake since the last
// such line. A count is written with the next line of its kind, so the
// last count of a flood shows when the next one begins.
//
// Its methods are safe for concurrent use.
type Log struct {
	log      *slog.Logger
	timeouts Timeouts

	mu    sync.Mutex
	kinds map[string]*kindOfLine
}

// kindOfLine is what a Log remembers of one kind of line.
type kindOfLine struct {
	written    time.Time // when the last line of the kind was written
	suppressed int       // lines of the kind not written since then
}

// Timeouts are a server's read and idle timeouts, with the option keys
// that set them, for the lines that say a connection passed one.
type Timeouts struct {
	Read    time.Duration
	ReadKey string // e.g. "pekko.tcp.read-timeout"
	Idle    time.Duration
	IdleKey string // e.g. "pekko.tcp.idle-timeout"; empty for a server without an idle timeout
}

// The kinds of line the methods of Log write.
const (
	KindHandshakeFailed = "handshake failed"
	KindNoRequest       = "no request"
	KindIdle            = "idle"
	KindFrameStalled    = "frame stalled"
)

// NewLog returns a Log writing to logger, for a server with timeouts.
func NewLog(logger *slog.Logger, timeouts Timeouts) *Log {
	return &Log{log: logger, timeouts: timeouts, kinds: make(map[string]*kindOfLine)}
}

// Warn writes a warning of the given kind, unless one of that kind was
// written less than a minute ago.
func (l *Log) Warn(kind, msg string, args ...any) { l.write(slog.LevelWarn, kind, msg, args) }

// Info writes an informational line of the given kind, rate limited as
// Warn.
func (l *Log) Info(kind, msg string, args ...any) { l.write(slog.LevelInfo, kind, msg, args) }

// Error writes an error of the given kind, rate limited as Warn.
func (l *Log) Error(kind, msg string, args ...any) { l.write(slog.LevelError, kind, msg, args) }

func (l *Log) write(level slog.Level, kind, msg string, args []any) {
	suppressed, ok := l.admit(kind)
	if !ok {
		return
	}
	if suppressed > 0 {
		args = append(args, "suppressed", suppressed)
	}
	l.log.Log(context.Background(), level, msg, args...)
}

// admit reports whether a line of kind may be written now, and how many
// of its kind were not written since the last one.
func (l *Log) admit(kind string) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kinds[kind]
	if k == nil {
		k = &kindOfLine{}
		l.kinds[kind] = k
	}
	now := time.Now()
	if !k.written.IsZero() && now.Sub(k.written) < LogInterval {
		k.suppressed++
		return 0, false
	}
	suppressed, k.suppressed, k.written = k.suppressed, 0, now
	return suppressed, true
}

// HandshakeFailed logs that the connection from peer failed its TLS
// handshake: the peer has no certificate of the cluster, speaks
// plaintext, or sent nothing in time.
func (l *Log) HandshakeFailed(peer string, err error) {
	l.Warn(KindHandshakeFailed, fmt.Sprintf("Closing connection from %s: the TLS handshake failed.", peer), "cause", err.Error())
}

// WaitTimedOut logs why the connection from peer closed while its read
// loop waited for the first byte of a frame, when a deadline ended the
// wait (err wraps os.ErrDeadlineExceeded), and reports whether one did.
// Before the first frame (framesRead is 0) that is the read timeout,
// counted from the accept; after it, the idle timeout.
func (l *Log) WaitTimedOut(peer string, err error, framesRead int) bool {
	switch {
	case !errors.Is(err, os.ErrDeadlineExceeded):
		return false
	case framesRead == 0:
		l.Warn(KindNoRequest, fmt.Sprintf("Closing connection from %s: no request arrived within %s of connecting (%s).",
			peer, l.timeouts.Read, l.timeouts.ReadKey))
	default:
		l.Info(KindIdle, fmt.Sprintf("Closing connection from %s: it was idle for %s (%s).",
			peer, l.timeouts.Idle, l.timeouts.IdleKey))
	}
	return true
}

// FrameStalled logs that what, a frame whose first byte had arrived, did
// not arrive whole within the read timeout.
func (l *Log) FrameStalled(peer, what string) {
	l.Warn(KindFrameStalled, fmt.Sprintf("Closing connection from %s: %s did not arrive whole within %s (%s).",
		peer, what, l.timeouts.Read, l.timeouts.ReadKey))
}
