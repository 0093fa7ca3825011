package conndeadline

import (
	"errors"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in a synctest bubble over a net.Pipe: time is fake, so a
// five-minute idle timeout passes at once, and a read that fails does so
// at exactly the moment its deadline names.

const (
	readTimeout = 20 * time.Second
	idleTimeout = 5 * time.Minute
)

// readFails reads from conn until a read fails, and returns when; the
// error must be a passed deadline.
func readFails(t *testing.T, conn net.Conn) time.Time {
	t.Helper()
	var buf [1]byte
	for {
		if _, err := conn.Read(buf[:]); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("read failed with %v, want a passed deadline", err)
			}
			return time.Now()
		}
	}
}

func TestDeadlines(t *testing.T) {
	for _, tc := range []struct {
		name string
		// story runs on the server's end with the deadlines, and the
		// client's end to write to, and returns when the clock starts.
		story func(d *Deadlines, client net.Conn) time.Time
		want  time.Duration
	}{
		{"a silent connection is closed at the read timeout", func(*Deadlines, net.Conn) time.Time {
			return time.Now()
		}, readTimeout},
		{"the first frame counts from the accept", func(d *Deadlines, client net.Conn) time.Time {
			start := time.Now()
			time.Sleep(15 * time.Second)
			write(client, "h") // the first byte, 15 s in
			d.FrameStarted()
			return start
		}, readTimeout},
		{"between frames the idle timeout counts", func(d *Deadlines, client net.Conn) time.Time {
			write(client, "frame")
			d.FrameStarted()
			d.AwaitFrame()
			return time.Now()
		}, idleTimeout},
		{"a later frame has the read timeout from its first byte", func(d *Deadlines, client net.Conn) time.Time {
			d.AwaitFrame()
			time.Sleep(time.Minute)
			write(client, "h")
			d.FrameStarted()
			return time.Now()
		}, readTimeout},
		{"work in flight keeps a quiet connection open; its end starts the idle timeout", func(d *Deadlines, client net.Conn) time.Time {
			d.BeginWork() // a call starts, from the frame just read
			d.AwaitFrame()
			time.Sleep(time.Hour) // the call runs for an hour; nothing arrives meanwhile
			d.EndWork()
			return time.Now()
		}, idleTimeout},
		{"work that begins between frames lifts the idle deadline", func(d *Deadlines, client net.Conn) time.Time {
			d.AwaitFrame()
			d.BeginWork()
			d.BeginWork()
			time.Sleep(time.Hour)
			d.EndWork() // one of two
			time.Sleep(time.Hour)
			d.EndWork()
			return time.Now()
		}, idleTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				server, client := net.Pipe()
				defer server.Close()
				defer client.Close()
				d := Start(server, readTimeout, idleTimeout)

				// The server reads in the background, as a read loop does,
				// while the story plays on the client's side.
				failedAt := make(chan time.Time, 1)
				go func() { failedAt <- readFails(t, server) }()
				start := tc.story(d, client)
				got := (<-failedAt).Sub(start)
				if got != tc.want {
					t.Errorf("the read failed %s after the clock started, want %s", got, tc.want)
				}
			})
		})
	}
}

// write writes s from the client's end; the server's reader takes it.
func write(client net.Conn, s string) { _, _ = client.Write([]byte(s)) }
