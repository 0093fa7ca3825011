package states

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"sync"

	"flinklab/runtime/scheduler/adaptive"
)

// transitionLine is the AdaptiveScheduler's DEBUG line for a move (Flink:
// AdaptiveScheduler#transitionToState).
var transitionLine = regexp.MustCompile(`^Transition from state (\w+) to (\w+)\.$`)

// Recorder is a slog.Handler that keeps the moves of the AdaptiveScheduler
// from its DEBUG lines "Transition from state <from> to <to>." and drops
// every other record. Its loggers (WithAttrs, WithGroup) share what it
// keeps, so a MiniCluster given slog.New(recorder) as its Logger records
// the moves of every job it runs, in the order they were logged. It is
// safe for concurrent use.
type Recorder struct {
	shared *recorded
}

type recorded struct {
	mu          sync.Mutex
	transitions []adaptive.Transition
	// changed is closed, and replaced, at every new move.
	changed chan struct{}
}

var _ slog.Handler = (*Recorder)(nil)

// NewRecorder returns a Recorder that has seen nothing yet.
func NewRecorder() *Recorder {
	return &Recorder{shared: &recorded{changed: make(chan struct{})}}
}

// Enabled is true at DEBUG, the level of the transition lines.
func (r *Recorder) Enabled(_ context.Context, level slog.Level) bool {
	return level == slog.LevelDebug
}

// Handle keeps the record if it is a transition line.
func (r *Recorder) Handle(_ context.Context, record slog.Record) error {
	m := transitionLine.FindStringSubmatch(record.Message)
	if m == nil {
		return nil
	}
	s := r.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transitions = append(s.transitions, adaptive.Transition{From: m[1], To: m[2], At: record.Time})
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// WithAttrs returns r: the attributes do not matter to it.
func (r *Recorder) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup returns r: groups do not matter to it.
func (r *Recorder) WithGroup(string) slog.Handler { return r }

// Transitions returns the moves seen so far, in order.
func (r *Recorder) Transitions() []adaptive.Transition {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	return slices.Clone(r.shared.transitions)
}

// Await waits until done holds for the moves seen so far, or ctx ends.
func (r *Recorder) Await(ctx context.Context, done func([]adaptive.Transition) bool) error {
	for {
		r.shared.mu.Lock()
		transitions, changed := slices.Clone(r.shared.transitions), r.shared.changed
		r.shared.mu.Unlock()
		if done(transitions) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Entered counts the moves into state.
func Entered(transitions []adaptive.Transition, state string) int {
	n := 0
	for _, t := range transitions {
		if t.To == state {
			n++
		}
	}
	return n
}
