package connlimit

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// With all slots taken, Acquire waits until one is released, and logs
// that once a minute at most, however often the accept loop finds them
// taken.
func TestSlotsWaitAtTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, logs := newTestLog()
		slots := NewSlots(2, log, "The server serves 2 connections, its maximum.")
		assert.True(t, slots.Acquire())
		assert.True(t, slots.Acquire())

		for range 5 { // five connections wait in turn for a slot
			acquired := make(chan bool)
			go func() { acquired <- slots.Acquire() }()
			synctest.Wait()
			select {
			case <-acquired:
				t.Fatal("a third connection was served while two are")
			default:
			}
			slots.Release() // a connection closes
			assert.True(t, <-acquired, "the waiting one takes its slot")
		}
		assert.Equal(t, []line{{Msg: "The server serves 2 connections, its maximum."}}, lines(t, logs),
			"one line for the flood, though the bound was met five times")

		// A minute later the bound is met again: a line again, with the
		// count of the four left out.
		time.Sleep(LogInterval)
		acquired := make(chan bool)
		go func() { acquired <- slots.Acquire() }()
		synctest.Wait()
		slots.Release()
		assert.True(t, <-acquired)
		assert.Equal(t, []line{
			{Msg: "The server serves 2 connections, its maximum."},
			{Msg: "The server serves 2 connections, its maximum.", Suppressed: 4},
		}, lines(t, logs))
	})
}

func TestSlotsCloseEndsAWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, _ := newTestLog()
		slots := NewSlots(1, log, "at maximum")
		assert.True(t, slots.Acquire())
		acquired := make(chan bool)
		go func() { acquired <- slots.Acquire() }()
		synctest.Wait()
		slots.Close()
		slots.Close() // twice is fine
		assert.False(t, <-acquired, "the accept loop stops")
		assert.False(t, slots.Acquire(), "and stays stopped")
	})
}
