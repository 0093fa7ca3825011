package watch

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// change is one step of a script: path changes at a time on the fake
// clock, counted from the start of the test.
type change struct {
	at   time.Duration
	path string
}

// call is one call of run as the fake runner saw it.
type call struct {
	started time.Duration
	changed []string
	ended   time.Duration
	cause   error // context.Cause of the run's ctx when it returned; nil if it finished
}

// fakeRunner stands in for the exercise check. A run lasts takes unless
// its ctx is cancelled first; a cancelled run returns cancelTakes later,
// as `go test` takes a moment to die.
type fakeRunner struct {
	start       time.Time
	takes       time.Duration
	cancelTakes time.Duration

	mu         sync.Mutex
	calls      []call
	running    int
	maxRunning int
}

func (f *fakeRunner) run(ctx context.Context, changed []string) {
	f.mu.Lock()
	f.running++
	f.maxRunning = max(f.maxRunning, f.running)
	f.mu.Unlock()

	c := call{started: time.Since(f.start), changed: changed}
	select {
	case <-time.After(f.takes):
	case <-ctx.Done():
		time.Sleep(f.cancelTakes) // fake time
		c.cause = context.Cause(ctx)
	}
	c.ended = time.Since(f.start)

	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.calls = append(f.calls, c)
}

// TestDebouncer plays scripts of changes into the debouncer through a
// channel, as a source would, and checks the runs it starts: when, with
// which paths, and how they ended. The debounce is 150 ms throughout.
func TestDebouncer(t *testing.T) {
	const debounce = 150 * time.Millisecond
	ms := time.Millisecond
	tests := []struct {
		name        string
		runAtStart  bool
		takes       time.Duration // how long a run lasts if not cancelled
		cancelTakes time.Duration // how long a cancelled run takes to return
		script      []change
		want        []call
	}{{
		name:   "no change, no run",
		takes:  time.Second,
		script: nil,
		want:   nil,
	}, {
		name:  "one save, a CREATE and five WRITEs, is one run 150 ms after the last event",
		takes: time.Second,
		script: []change{
			{0, "a.go"}, {1 * ms, "a.go"}, {2 * ms, "a.go"}, {3 * ms, "a.go"}, {4 * ms, "a.go"}, {5 * ms, "a.go"},
		},
		want: []call{{started: 155 * ms, changed: []string{"a.go"}, ended: 1155 * ms}},
	}, {
		name:   "events closer than the debounce keep postponing the run; paths are sorted and unique",
		takes:  time.Second,
		script: []change{{0, "b.go"}, {100 * ms, "a.go"}, {200 * ms, "b.go"}},
		want:   []call{{started: 350 * ms, changed: []string{"a.go", "b.go"}, ended: 1350 * ms}},
	}, {
		name:   "a change after a run finished makes a run of its own",
		takes:  100 * ms,
		script: []change{{0, "a.go"}, {time.Second, "b.go"}},
		want: []call{
			{started: 150 * ms, changed: []string{"a.go"}, ended: 250 * ms},
			{started: 1150 * ms, changed: []string{"b.go"}, ended: 1250 * ms},
		},
	}, {
		name:   "a change during a run cancels it; the next run gets both paths",
		takes:  10 * time.Second,
		script: []change{{0, "a.go"}, {time.Second, "b.go"}},
		want: []call{
			{started: 150 * ms, changed: []string{"a.go"}, ended: time.Second, cause: ErrNewerChange},
			{started: 1150 * ms, changed: []string{"a.go", "b.go"}, ended: 11150 * ms},
		},
	}, {
		name:        "a cancelled run that is slow to return delays the next run: runs never overlap",
		takes:       10 * time.Second,
		cancelTakes: time.Second,
		script:      []change{{0, "a.go"}, {time.Second, "b.go"}},
		want: []call{
			{started: 150 * ms, changed: []string{"a.go"}, ended: 2 * time.Second, cause: ErrNewerChange},
			{started: 2 * time.Second, changed: []string{"a.go", "b.go"}, ended: 12 * time.Second},
		},
	}, {
		name:        "a change while a cancelled run is returning starts the debounce again",
		takes:       10 * time.Second,
		cancelTakes: time.Second,
		script:      []change{{0, "a.go"}, {time.Second, "b.go"}, {1950 * ms, "c.go"}},
		want: []call{
			{started: 150 * ms, changed: []string{"a.go"}, ended: 2 * time.Second, cause: ErrNewerChange},
			{started: 2100 * ms, changed: []string{"a.go", "b.go", "c.go"}, ended: 12100 * ms},
		},
	}, {
		name:   "every change during a run is a newer change; the run is cancelled once",
		takes:  10 * time.Second,
		script: []change{{0, "a.go"}, {time.Second, "b.go"}, {1010 * ms, "c.go"}},
		want: []call{
			{started: 150 * ms, changed: []string{"a.go"}, ended: time.Second, cause: ErrNewerChange},
			{started: 1160 * ms, changed: []string{"a.go", "b.go", "c.go"}, ended: 11160 * ms},
		},
	}, {
		name:       "RunAtStart runs at once, with no paths",
		runAtStart: true,
		takes:      time.Second,
		want:       []call{{started: 0, changed: nil, ended: time.Second}},
	}, {
		name:       "a save cancels the run at start",
		runAtStart: true,
		takes:      10 * time.Second,
		script:     []change{{time.Second, "a.go"}},
		want: []call{
			{started: 0, changed: nil, ended: time.Second, cause: ErrNewerChange},
			{started: 1150 * ms, changed: []string{"a.go"}, ended: 11150 * ms},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				runner := &fakeRunner{start: time.Now(), takes: tt.takes, cancelTakes: tt.cancelTakes}
				ctx, cancel := context.WithCancel(t.Context())
				changes := make(chan string)
				loopReturned := make(chan struct{})
				go func() {
					defer close(loopReturned)
					debouncer{debounce: debounce, run: runner.run}.loop(ctx, changes, tt.runAtStart)
				}()

				for _, c := range tt.script {
					time.Sleep(c.at - time.Since(runner.start)) // fake time
					changes <- c.path
				}
				time.Sleep(time.Hour) // fake time: every run has ended, and no other may start
				cancel()
				<-loopReturned

				if diff := cmp.Diff(tt.want, runner.calls, cmp.AllowUnexported(call{}), cmpopts.EquateErrors()); diff != "" {
					t.Errorf("runs (-want +got):\n%s", diff)
				}
				if runner.maxRunning > 1 {
					t.Errorf("%d runs overlapped, want 1 at a time", runner.maxRunning)
				}
			})
		})
	}
}

// TestDebouncerStopsWithItsContext tells how the loop ends: a run in
// progress is cancelled with the context's cause and waited for, and a
// change whose debounce has not passed yet starts no run.
func TestDebouncerStopsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		runner := &fakeRunner{start: time.Now(), takes: 10 * time.Second, cancelTakes: time.Second}
		ctx, cancel := context.WithCancel(t.Context())
		changes := make(chan string)
		loopReturned := make(chan time.Duration)
		go func() {
			debouncer{debounce: 150 * time.Millisecond, run: runner.run}.loop(ctx, changes, false)
			loopReturned <- time.Since(runner.start)
		}()

		changes <- "a.go"                   // the run starts at 150 ms
		time.Sleep(time.Second)             // fake time
		changes <- "b.go"                   // cancels it; it returns at 2 s, and the second run starts
		time.Sleep(1500 * time.Millisecond) // fake time
		changes <- "c.go"                   // cancels the second run at 2.5 s; it returns at 3.5 s
		time.Sleep(100 * time.Millisecond)  // fake time: c.go's debounce has not passed
		cancel()                            // the caller stops watching at 2.6 s

		if got, want := <-loopReturned, 3500*time.Millisecond; got != want {
			t.Errorf("loop returned at %v, want %v: when the run in progress returned", got, want)
		}
		time.Sleep(time.Hour) // fake time: nothing else may run
		want := []call{
			{started: 150 * time.Millisecond, changed: []string{"a.go"}, ended: 2 * time.Second, cause: ErrNewerChange},
			{started: 2 * time.Second, changed: []string{"a.go", "b.go"}, ended: 3500 * time.Millisecond, cause: ErrNewerChange},
		}
		if diff := cmp.Diff(want, runner.calls, cmp.AllowUnexported(call{}), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}

// TestDebouncerCancelsWithTheCallersCause: a run cancelled because Run's
// ctx ended sees that ctx's cause, not ErrNewerChange.
func TestDebouncerCancelsWithTheCallersCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		runner := &fakeRunner{start: time.Now(), takes: 10 * time.Second}
		ctx, cancel := context.WithCancel(t.Context())
		loopReturned := make(chan struct{})
		go func() {
			defer close(loopReturned)
			debouncer{debounce: 150 * time.Millisecond, run: runner.run}.loop(ctx, make(chan string), true)
		}()

		time.Sleep(time.Second) // fake time: the run at start is in progress
		cancel()
		<-loopReturned

		want := []call{{started: 0, ended: time.Second, cause: context.Canceled}}
		if diff := cmp.Diff(want, runner.calls, cmp.AllowUnexported(call{}), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
}
