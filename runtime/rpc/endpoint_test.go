package rpc

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMessagesRunInOrderOnOneGoroutine(t *testing.T) {
	e := NewEndpoint("test")
	e.Start(nil)
	defer e.Close(nil)

	// got is touched only on the main thread: -race proves there is one.
	var got []int
	var sent sync.WaitGroup
	for i := range 100 {
		sent.Go(func() { e.RunAsync(func() { got = append(got, i) }) })
	}
	sent.Wait()
	n, err := CallAsync(context.Background(), e, func() (int, error) { return len(got), nil })
	require.NoError(t, err)
	assert.Equal(t, 100, n)

	// Sequential sends from one goroutine keep their order.
	var order []int
	for i := range 10 {
		e.RunAsync(func() { order = append(order, i) })
	}
	gotOrder, err := CallAsync(context.Background(), e, func() ([]int, error) { return order, nil })
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, gotOrder)
}

func TestCallAsyncReturnsResultAndError(t *testing.T) {
	e := NewEndpoint("test")
	e.Start(nil)
	defer e.Close(nil)

	v, err := CallAsync(context.Background(), e, func() (string, error) { return "ack", nil })
	require.NoError(t, err)
	assert.Equal(t, "ack", v)

	boom := errors.New("boom")
	_, err = CallAsync(context.Background(), e, func() (string, error) { return "", boom })
	assert.ErrorIs(t, err, boom)
}

func TestAPanickingHandlerFailsItsCallerAndTheMainThreadGoesOn(t *testing.T) {
	e := NewEndpoint("test")
	e.Start(nil)
	defer e.Close(nil)

	e.RunAsync(func() { panic("a runnable failed") }) // logged, not fatal
	_, err := CallAsync(context.Background(), e, func() (int, error) { panic("TODO(m03): write it") })
	var panicked *PanicError
	require.ErrorAs(t, err, &panicked)
	assert.Equal(t, "TODO(m03): write it", err.Error())
	assert.Contains(t, panicked.Stack, "endpoint_test.go")

	got, err := CallAsync(context.Background(), e, func() (int, error) { return 7, nil })
	require.NoError(t, err)
	assert.Equal(t, 7, got, "the main thread must survive a panic and run the next message")
}

func TestCallAsyncTimesOutAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewEndpoint("slow")
		e.Start(nil)
		defer e.Close(nil)
		release := make(chan struct{})
		e.RunAsync(func() { <-release }) // the main thread is busy

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := CallAsync(ctx, e, func() (int, error) { return 1, nil })
		assert.ErrorIs(t, err, ErrTimeout)
		assert.Equal(t, 10*time.Second, time.Since(start))
		close(release)
	})
}

func TestStoppedEndpointIsUnreachable(t *testing.T) {
	e := NewEndpoint("gone")
	e.Start(nil)
	stopped := false
	e.Close(func() { stopped = true })
	assert.True(t, stopped, "onStop runs on the main thread before the end")

	_, err := CallAsync(context.Background(), e, func() (int, error) { return 1, nil })
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.False(t, e.RunAsync(func() {}))
	assert.Error(t, e.Context().Err(), "the endpoint's context ends with it")
}

func TestCloseBeforeStart(t *testing.T) {
	e := NewEndpoint("never-started")
	e.Close(nil)
	<-e.Terminated()
	_, err := CallAsync(context.Background(), e, func() (int, error) { return 1, nil })
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
}

func TestScheduleRunAsyncFiresAfterDelayUnlessCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewEndpoint("timers")
		e.Start(nil)
		defer e.Close(nil)

		fired := make(chan time.Duration, 1)
		start := time.Now()
		e.ScheduleRunAsync(func() { fired <- time.Since(start) }, 50*time.Millisecond)
		cancel := e.ScheduleRunAsync(func() { t.Error("a cancelled timer fired") }, 10*time.Millisecond)
		cancel()

		assert.Equal(t, 50*time.Millisecond, <-fired)
		time.Sleep(time.Second) // fake time: lets the cancelled timer prove it stays silent
	})
}

func TestAskDeliversTheAnswerOnTheMainThread(t *testing.T) {
	caller := NewEndpoint("caller")
	callee := NewEndpoint("callee")
	caller.Start(nil)
	callee.Start(nil)
	defer caller.Close(nil)
	defer callee.Close(nil)

	state := 0 // caller's state: main thread only
	answered := make(chan int, 1)
	caller.RunAsync(func() {
		Ask(caller, time.Second, func(ctx context.Context) (int, error) {
			return CallAsync(ctx, callee, func() (int, error) { return 41, nil })
		}, func(v int, err error) {
			require.NoError(t, err)
			state = v + 1
			answered <- state
		})
		state = -1 // runs before the answer: the handler did not block
	})
	assert.Equal(t, 42, <-answered)
}

func TestFencedCallRejectsAStaleToken(t *testing.T) {
	e := NewFencedEndpoint("fenced", "leader-1")
	e.Start(nil)
	defer e.Close(nil)

	v, err := CallFenced(context.Background(), e, "leader-1", func() (string, error) { return "ok", nil })
	require.NoError(t, err)
	assert.Equal(t, "ok", v)

	_, err = CallAsync(context.Background(), e.Endpoint, func() (struct{}, error) {
		e.SetFencingToken("leader-2")
		return struct{}{}, nil
	})
	require.NoError(t, err)

	_, err = CallFenced(context.Background(), e, "leader-1", func() (string, error) {
		t.Error("a call with a stale token ran")
		return "", nil
	})
	assert.ErrorIs(t, err, ErrFencingTokenMismatch)
}

func TestLocalServiceConnect(t *testing.T) {
	type greeter interface{ Greet() string }
	svc := NewLocalService()
	addr := svc.Address("greeter_0")
	assert.Equal(t, "pekko://flink/user/rpc/greeter_0", addr)
	require.NoError(t, svc.Register(addr, hello{}))
	assert.Error(t, svc.Register(addr, hello{}), "an address holds one endpoint")

	g, err := Connect[greeter](context.Background(), svc, addr)
	require.NoError(t, err)
	assert.Equal(t, "hello", g.Greet())

	_, err = Connect[interface{ Other() }](context.Background(), svc, addr)
	assert.Error(t, err, "wrong gateway type")

	svc.Unregister(addr)
	_, err = Connect[greeter](context.Background(), svc, addr)
	assert.ErrorIs(t, err, ErrRecipientUnreachable)
	assert.Contains(t, err.Error(), "Could not connect to rpc endpoint under address "+addr)
}

type hello struct{}

func (hello) Greet() string { return "hello" }

func TestAskInOrderKeepsTheOrderOfOneLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sender := NewEndpoint("sender")
		receiver := NewEndpoint("receiver")
		sender.Start(nil)
		receiver.Start(nil)
		defer sender.Close(nil)
		defer receiver.Close(nil)

		var received, answered []int // receiver's and sender's state
		send := func(i int) {
			AskInOrder(sender, "job-1", time.Second, func(ctx context.Context) (int, error) {
				if i == 0 {
					time.Sleep(time.Millisecond) // fake time: the first call is the slowest
				}
				return CallAsync(ctx, receiver, func() (int, error) { received = append(received, i); return i, nil })
			}, func(v int, err error) { answered = append(answered, v) })
		}
		sender.RunAsync(func() {
			for i := range 5 {
				send(i)
			}
		})
		time.Sleep(time.Second) // fake time: every call has had its turn
		synctest.Wait()
		got, err := CallAsync(context.Background(), receiver, func() ([]int, error) { return received, nil })
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2, 3, 4}, got)
		gotAnswers, err := CallAsync(context.Background(), sender, func() ([]int, error) { return answered, nil })
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2, 3, 4}, gotAnswers)
	})
}

func TestFencedCallBeforeATokenIsSetIsRejected(t *testing.T) {
	e := NewFencedEndpoint("fenced", "")
	e.Start(nil)
	defer e.Close(nil)
	_, err := CallFenced(context.Background(), e, "", func() (int, error) { return 1, nil })
	assert.ErrorIs(t, err, ErrFencingTokenMismatch)
	assert.ErrorContains(t, err, "Fencing token not set")
}

func TestOnStartRunsBeforeMessagesSentBeforeStart(t *testing.T) {
	e := NewEndpoint("test")
	defer e.Close(nil)

	var order []string                                     // main thread only
	e.RunAsync(func() { order = append(order, "cancel") }) // waits in the mailbox
	e.Start(func() { order = append(order, "onStart") })

	got, err := CallAsync(context.Background(), e, func() ([]string, error) { return order, nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"onStart", "cancel"}, got)
}

func TestStopAndCloseAreIdempotent(t *testing.T) {
	t.Run("never started", func(t *testing.T) {
		e := NewEndpoint("never-started")
		assert.NotPanics(t, func() {
			e.Stop(nil)
			e.Stop(nil)
			e.Close(nil)
		})
		<-e.Terminated()
		assert.False(t, e.RunAsync(func() {}))
	})
	t.Run("started", func(t *testing.T) {
		e := NewEndpoint("started")
		e.Start(nil)
		var onStops []string // main thread only; read after Close
		e.Stop(func() { onStops = append(onStops, "first") })
		e.Stop(func() { onStops = append(onStops, "second") })
		e.Close(func() { onStops = append(onStops, "third") })
		e.Close(nil)
		assert.Equal(t, []string{"first"}, onStops, "only the first Stop counts")
	})
}

func TestStartRacingStopEndsTheEndpointOnce(t *testing.T) {
	for range 1000 {
		e := NewEndpoint("racy")
		started := make(chan struct{})
		go func() {
			e.Start(nil)
			close(started)
		}()
		e.Close(nil) // panicked with "close of closed channel" when Start won halfway
		<-started
		assert.False(t, e.RunAsync(func() {}))
	}
}

// stackDepth returns how many frames are on the caller's stack.
func stackDepth() int {
	return runtime.Callers(2, make([]uintptr, 4096))
}

func TestAskInOrderDrainsABusyLaneWithoutGrowingTheStack(t *testing.T) {
	e := NewEndpoint("sender")
	e.Start(nil)
	defer e.Close(nil)

	const calls = 100
	release := make(chan struct{})
	answered := make(chan struct{})
	var depths []int // written by the calls, one at a time; read after the last answer
	for i := range calls {
		AskInOrder(e, "job-1", time.Minute, func(context.Context) (int, error) {
			if i == 0 {
				<-release // the lane is busy while the other calls queue up behind it
			}
			depths = append(depths, stackDepth())
			return i, nil
		}, func(v int, err error) {
			if v == calls-1 {
				close(answered)
			}
		})
	}
	close(release)
	<-answered

	require.Len(t, depths, calls)
	assert.Equal(t, depths[0], slices.Max(depths), "the last call on a lane runs as deep as the first")
}

func TestCancelStopsATimerThatHasAlreadyFired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewEndpoint("timers")
		e.Start(nil)
		defer e.Close(nil)

		e.RunAsync(func() {
			cancel := e.ScheduleRunAsync(func() { t.Error("a cancelled timer fired") }, time.Second)
			time.Sleep(2 * time.Second) // fake time: the timer fires and queues fn behind this handler
			cancel()
		})
		_, err := CallAsync(context.Background(), e, func() (struct{}, error) { return struct{}{}, nil })
		require.NoError(t, err) // fn, queued before this call, has had its turn
	})
}

// A timer that will not fire any more, because it was cancelled or its
// endpoint stopped, holds nothing of what it would have run. The Go
// runtime may keep a stopped timer until the time it was set for (here,
// in the test's bubble, it does), and a JobMaster's slot request timeout
// is minutes away when its job ends: the timer must not keep the
// JobMaster reachable until then.
func TestATimerThatWillNotFireHoldsNothingOfItsFunction(t *testing.T) {
	tests := []struct {
		name string
		end  func(e *Endpoint, cancel func())
	}{
		{"cancelled", func(_ *Endpoint, cancel func()) { cancel() }},
		{"its endpoint stopped", func(e *Endpoint, _ func()) { e.Close(nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := NewEndpoint("timers")
				e.Start(nil)
				defer e.Close(nil)

				owner, cancel := scheduleForAnOwner(e, 5*time.Minute)
				tt.end(e, cancel)
				synctest.Wait()

				assert.True(t, collected(owner), "the timer still holds what its function uses")
				runtime.KeepAlive(e)
			})
		})
	}
}

// timerOwner stands for the component whose function a timer runs, such
// as a JobMaster.
type timerOwner struct{ fired bool }

// scheduleForAnOwner schedules a function that uses an owner nobody else
// holds, and returns a weak pointer to the owner.
func scheduleForAnOwner(e *Endpoint, delay time.Duration) (weak.Pointer[timerOwner], func()) {
	owner := &timerOwner{}
	cancel := e.ScheduleRunAsync(func() { owner.fired = true }, delay)
	return weak.Make(owner), cancel
}

// collected reports whether the garbage collector has freed what p points
// to, after a few collections: an unreachable object goes at the first.
func collected[T any](p weak.Pointer[T]) bool {
	for range 5 {
		runtime.GC()
		if p.Value() == nil {
			return true
		}
	}
	return false
}

// A call answered just before the endpoint stops gets its answer, not
// ErrRecipientUnreachable: when the caller wakes up both are ready, and
// the answer wins. (A JobMaster that ends its job in Cancel and is closed
// at once answers its caller.)
func TestACallAnsweredJustBeforeTheStopGetsItsAnswer(t *testing.T) {
	for range 200 {
		e := NewEndpoint("test")
		e.Start(nil)
		got, err := CallAsync(context.Background(), e, func() (int, error) {
			e.Stop(nil) // queued behind this message: the answer comes first
			return 42, nil
		})
		<-e.Terminated()
		require.NoError(t, err)
		require.Equal(t, 42, got)
	}
}
