package rpc

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The functions of a small story, named so that the causal stack can be
// read back: a client asks a server, whose handler schedules a timer on
// its main thread, whose work hands a goroutine a job with Go.
var story struct {
	client, server *Endpoint
	wg             sync.WaitGroup
	reached        chan struct{}
}

func storyClientAsks() {
	Ask(story.client, time.Minute, func(ctx context.Context) (int, error) {
		return CallAsync(ctx, story.server, storyServerHandles)
	}, func(int, error) {})
}

func storyServerHandles() (int, error) {
	story.server.ScheduleRunAsync(storyTimerFires, time.Millisecond)
	return 1, nil
}

func storyTimerFires() { Go(&story.wg, storyWorkerRuns) }

func storyWorkerRuns() {
	story.server.RunAsync(func() { close(story.reached) })
}

// A recording joins the legs of a story that crosses four goroutines —
// the client's main thread, an Ask's goroutine, the server's main thread
// (twice: the call, then the timer's message) and a worker — into one
// stack per hand-over, outermost first, and marks where work moved.
func TestACausalStackJoinsEveryHandOverBackToWhereItBegan(t *testing.T) {
	var stacks []CausalStack
	synctest.Test(t, func(t *testing.T) {
		story.client, story.server = NewEndpoint("client"), NewEndpoint("server")
		story.reached = make(chan struct{})
		story.client.Start(nil)
		story.server.Start(nil)
		defer story.client.Close(nil)
		defer story.server.Close(nil)

		rec := RecordCauses()
		story.client.RunAsync(storyClientAsks)
		<-story.reached
		story.wg.Wait()
		stacks = rec.Stop()
	})

	// The last hand-over is the worker's RunAsync; its stack goes back
	// to the test, which posted storyClientAsks.
	var last CausalStack
	for _, s := range stacks {
		if hasFunction(s, "storyWorkerRuns") {
			last = s
		}
	}
	require.NotNil(t, last, "no hand-over was recorded from storyWorkerRuns")
	want := []string{
		"TestACausalStackJoinsEveryHandOverBackToWhereItBegan.func1",
		"storyClientAsks", "storyServerHandles", "storyTimerFires", "storyWorkerRuns",
	}
	assert.Equal(t, want, storyFunctions(last), "the story's functions in the stack, outermost first")

	// Each of the story's functions after the first runs where work was
	// handed over: some frame between it and the one before is marked.
	at := map[string]int{}
	for i, f := range last {
		at[shortName(f.Function)] = i
	}
	for i := 1; i < len(want); i++ {
		handedOver := false
		for _, f := range last[at[want[i-1]]+1 : at[want[i]]+1] {
			handedOver = handedOver || f.HandedOver
		}
		assert.True(t, handedOver, "no hand-over marked between %s and %s", want[i-1], want[i])
	}
}

// Without a recording nothing is kept, and a second recording cannot
// start while one runs.
func TestRecordingCausesIsOneAtATime(t *testing.T) {
	fn := func() {}
	assert.Equal(t, reflect.ValueOf(fn).Pointer(), reflect.ValueOf(withCause(fn)).Pointer(), "without a recording, withCause returns fn itself")

	rec := RecordCauses()
	assert.Panics(t, func() { RecordCauses() })
	rec.Stop()
	RecordCauses().Stop()
}

func hasFunction(s CausalStack, name string) bool {
	for _, f := range s {
		if shortName(f.Function) == name {
			return true
		}
	}
	return false
}

// storyFunctions lists the story's own functions in s, once each.
func storyFunctions(s CausalStack) []string {
	var names []string
	for _, f := range s {
		n := shortName(f.Function)
		if (strings.HasPrefix(n, "story") && !strings.Contains(n, ".") || strings.HasPrefix(n, "Test")) &&
			(len(names) == 0 || names[len(names)-1] != n) {
			names = append(names, n)
		}
	}
	return names
}

// shortName drops the package path: "flinklab/runtime/rpc.storyWorkerRuns"
// becomes "storyWorkerRuns".
func shortName(function string) string {
	if i := strings.LastIndexByte(function, '/'); i >= 0 {
		function = function[i+1:]
	}
	_, name, _ := strings.Cut(function, ".")
	return name
}

// BenchmarkCallAsync is one call through a mailbox, with and without a
// recording of causes: off, a hand-over costs an atomic load; on, a stack
// capture and a goroutine ID.
func BenchmarkCallAsync(b *testing.B) {
	for _, recording := range []bool{false, true} {
		name := "causes=off"
		if recording {
			name = "causes=on"
		}
		b.Run(name, func(b *testing.B) {
			e := NewEndpoint("bench")
			e.Start(nil)
			defer e.Close(nil)
			if recording {
				defer RecordCauses().Stop()
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CallAsync(ctx, e, func() (int, error) { return 1, nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A hand-over deep in a call stack keeps the stack's beginning: where
// the work came from matters most.
func TestADeepStackKeepsItsBeginning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewEndpoint("deep")
		e.Start(nil)
		defer e.Close(nil)
		done := make(chan struct{})
		rec := RecordCauses()
		var descend func(depth int)
		descend = func(depth int) {
			if depth == 0 {
				e.RunAsync(func() { close(done) })
				return
			}
			descend(depth - 1)
		}
		descend(3 * framesAtFirst)
		<-done
		stacks := rec.Stop()
		require.NotEmpty(t, stacks)
		assert.True(t, hasFunction(stacks[0], "TestADeepStackKeepsItsBeginning.func1"),
			"the stack of a hand-over %d calls deep goes back to the test", 3*framesAtFirst)
	})
}
