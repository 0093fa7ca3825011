package watch

import (
	"context"
	"maps"
	"slices"
	"time"
)

// debouncer is the decision core of the package: it turns a stream of
// changed paths into runs. It knows nothing of inotify or polling; a
// source sends it paths on a channel, and a test can do the same.
//
// Its rules:
//
//   - A run starts when the trees have been quiet for debounce since the
//     last change, so a burst of events (one save can be a CREATE and five
//     WRITEs) becomes one run.
//   - A change that arrives while a run is in progress cancels that run
//     (its ctx ends with cause ErrNewerChange); the next run starts after
//     the debounce, and never before the cancelled run has returned, so two
//     runs never overlap.
//   - The paths of a cancelled run are handed to the next run again: that
//     run is the first to see them through.
//   - No run starts once ctx is done, and loop returns only after the last
//     run returned.
type debouncer struct {
	debounce time.Duration
	run      func(ctx context.Context, changed []string)
}

// runInProgress is one call of run on its own goroutine.
type runInProgress struct {
	changed   []string
	cancel    context.CancelCauseFunc
	cancelled bool          // by a newer change
	done      chan struct{} // closed when run returned
}

// loop receives changes until ctx is done and starts runs by the rules
// above. With runNow it starts a first run at once, with no changed paths.
// One goroutine, the caller's, owns all the state below.
func (d debouncer) loop(ctx context.Context, changes <-chan string, runNow bool) {
	var (
		pending = map[string]bool{}        // changed since the last run started
		due     = runNow                   // quiet for debounce: run as soon as no run is in progress
		quiet   = time.NewTimer(time.Hour) // fires debounce after the last change
		current *runInProgress             // nil: no run in progress
	)
	quiet.Stop()
	defer quiet.Stop()

	for {
		if due && current == nil && ctx.Err() == nil {
			current = d.start(ctx, slices.Sorted(maps.Keys(pending)))
			pending = map[string]bool{}
			due = false
		}
		var runReturned <-chan struct{} // nil, so never ready, when no run is in progress
		if current != nil {
			runReturned = current.done
		}

		select {
		case path, ok := <-changes:
			if !ok {
				changes = nil // the source ended; a nil channel is never ready
				continue
			}
			pending[path] = true
			due = false
			quiet.Reset(d.debounce) // the debounce starts again from this change
			if current != nil && !current.cancelled {
				// The run checks files that have changed since: its answer
				// would be stale. Its paths go to the next run.
				current.cancel(ErrNewerChange)
				current.cancelled = true
				for _, p := range current.changed {
					pending[p] = true
				}
			}

		case <-quiet.C:
			due = true

		case <-runReturned:
			current.cancel(nil) // releases the run's context
			current = nil

		case <-ctx.Done():
			if current != nil {
				current.cancel(context.Cause(ctx))
				<-current.done
			}
			return
		}
	}
}

// start calls run on a new goroutine with a context of its own.
func (d debouncer) start(ctx context.Context, changed []string) *runInProgress {
	runCtx, cancel := context.WithCancelCause(ctx)
	r := &runInProgress{changed: changed, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		d.run(runCtx, changed)
	}()
	return r
}
