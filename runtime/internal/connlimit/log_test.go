package connlimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/internal/logbuf"
)

// The tests run in a synctest bubble: time is fake, so minutes pass at
// once.

var timeouts = Timeouts{Read: 20 * time.Second, ReadKey: "pekko.tcp.read-timeout", Idle: 5 * time.Minute, IdleKey: "pekko.tcp.idle-timeout"}

// line is a log line as the tests look at it.
type line struct {
	Msg        string `json:"msg"`
	Suppressed int    `json:"suppressed"`
}

func lines(t *testing.T, logs *logbuf.Buffer) []line {
	t.Helper()
	var got []line
	for _, text := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if text == "" {
			continue
		}
		var l line
		require.NoError(t, json.Unmarshal([]byte(text), &l))
		got = append(got, l)
	}
	return got
}

func newTestLog() (*Log, *logbuf.Buffer) {
	logs := &logbuf.Buffer{}
	return NewLog(slog.New(slog.NewJSONHandler(logs, nil)), timeouts), logs
}

// A port scan: 1,000 connections a minute fail their TLS handshake, for
// three minutes. The log gets one line a minute, each after the first
// saying how many it left out.
func TestLogWritesOneLineOfAKindAMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, logs := newTestLog()
		for minute := range 3 {
			for i := range 1000 {
				log.HandshakeFailed(fmt.Sprintf("10.0.0.7:%d", 1000*minute+i), errors.New("tls: first record does not look like a TLS handshake"))
			}
			time.Sleep(LogInterval)
		}
		assert.Equal(t, []line{
			{Msg: "Closing connection from 10.0.0.7:0: the TLS handshake failed."},
			{Msg: "Closing connection from 10.0.0.7:1000: the TLS handshake failed.", Suppressed: 999},
			{Msg: "Closing connection from 10.0.0.7:2000: the TLS handshake failed.", Suppressed: 999},
		}, lines(t, logs))
	})
}

// Each kind has its minute of its own: a flood of one kind does not hide
// the first line of another.
func TestLogLimitsEachKindOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, logs := newTestLog()
		deadline := fmt.Errorf("read: %w", os.ErrDeadlineExceeded)
		for range 10 {
			assert.True(t, log.WaitTimedOut("pipe", deadline, 0))
			assert.True(t, log.WaitTimedOut("pipe", deadline, 3))
			log.FrameStalled("pipe", "a frame")
		}
		time.Sleep(LogInterval - time.Millisecond)
		log.FrameStalled("pipe", "a frame") // still within the minute
		assert.False(t, log.WaitTimedOut("pipe", errors.New("EOF"), 3), "not a deadline: nothing to say")

		assert.Equal(t, []line{
			{Msg: "Closing connection from pipe: no request arrived within 20s of connecting (pekko.tcp.read-timeout)."},
			{Msg: "Closing connection from pipe: it was idle for 5m0s (pekko.tcp.idle-timeout)."},
			{Msg: "Closing connection from pipe: a frame did not arrive whole within 20s (pekko.tcp.read-timeout)."},
		}, lines(t, logs))
	})
}
