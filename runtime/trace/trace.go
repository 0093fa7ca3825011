package trace

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"flinklab/runtime/api"
)

// Step names one step of the submission sequence.
type Step string

// The eleven steps of a submission.
const (
	M1  Step = "m1"
	M2  Step = "m2"
	M3  Step = "m3"
	M4  Step = "m4"
	M5  Step = "m5"
	M6  Step = "m6"
	M7  Step = "m7"
	M8  Step = "m8"
	M9  Step = "m9"
	M10 Step = "m10"
	M11 Step = "m11"
)

// The seven steps of a checkpoint (module 06), marked "// Step kN:" in the
// runtime.
const (
	// K1: the CheckpointCoordinator triggers a checkpoint: a
	// PendingCheckpoint with the next ID.
	K1 Step = "k1"
	// K2: the TaskExecutor of each source subtask receives triggerCheckpoint.
	K2 Step = "k2"
	// K3: a source subtask snapshots its state and sends the barrier
	// downstream, on every output channel.
	K3 Step = "k3"
	// K4: a task with inputs has the barrier from all of them (aligned),
	// snapshots its state and sends the barrier on.
	K4 Step = "k4"
	// K5: a task acknowledges the checkpoint with its state's handles.
	K5 Step = "k5"
	// K6: the last acknowledgement arrives: the coordinator writes the
	// checkpoint's _metadata and keeps it as a CompletedCheckpoint.
	K6 Step = "k6"
	// K7: the tasks hear notifyCheckpointComplete; a transactional sink
	// commits.
	K7 Step = "k7"
)

// Event is one step that happened: who asked whom for what, for which job,
// and when. An event with Failed set is a step that broke: From asked To,
// and To (or the way there) failed; Message says how, in Flink's words.
type Event struct {
	Step    Step      `json:"step"`
	From    string    `json:"from"`
	To      string    `json:"to"`
	Message string    `json:"message"`
	JobID   api.JobID `json:"jobId"`
	Time    time.Time `json:"time"`
	Failed  bool      `json:"failed,omitempty"`
}

func (e Event) String() string {
	if e.Failed {
		return fmt.Sprintf("%-3s %s ✗ %s: %s", e.Step, e.From, e.To, e.Message)
	}
	return fmt.Sprintf("%-3s %s → %s: %s", e.Step, e.From, e.To, e.Message)
}

// Recorder keeps the events of every job in time order, until Forget drops
// a job's. Events emitted now (Emit) are appended; an event emitted later
// about an earlier moment (EmitAt) is placed among them as of that moment:
// after what was recorded before it, before what was recorded since. (In a
// test's synctest bubble, where the clock stands still while goroutines
// run, a whole submission may happen at one instant, and the time alone
// would not tell.) It is safe for concurrent use; a nil *Recorder records
// nothing, so components may run without one.
type Recorder struct {
	mu       sync.Mutex
	recorded uint64 // how many events were ever recorded: the next one's seq
	events   []entry
	byJob    map[api.JobID][]entry
	changed  chan struct{} // made by Await, closed by the next Emit
}

// entry is a recorded event and where it stands among the others.
type entry struct {
	Event
	// seq is how many events had been recorded before: before it was
	// emitted, or, for a late one (EmitAt), before its moment.
	seq  uint64
	late bool
}

// A Moment is a point in a recorder's history: the time, and how many
// events had been recorded by then. Take one with Now where something
// happens whose event is emitted later (EmitAt).
type Moment struct {
	Time time.Time
	seq  uint64
}

// At is the moment of a time alone, for a time read from elsewhere (a
// file's modification time): its event comes before every event recorded
// at that very time.
func At(t time.Time) Moment { return Moment{Time: t.Round(0)} }

// Now returns the present moment.
func (r *Recorder) Now() Moment {
	if r == nil {
		return Moment{Time: wallNow()}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return Moment{Time: wallNow(), seq: r.recorded}
}

// wallNow is the time events are kept with: the wall clock alone, without
// the monotonic reading time.Now adds, so that every two times compare the
// same way (a time read from a file has no monotonic reading).
func wallNow() time.Time { return time.Now().Round(0) }

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Emit records that step happened now: from asked to for what the message
// says, on behalf of job.
func (r *Recorder) Emit(step Step, from, to string, job api.JobID, format string, args ...any) {
	if r == nil {
		return
	}
	r.record(entry{Event: Event{Step: step, From: from, To: to, JobID: job, Message: fmt.Sprintf(format, args...)}})
}

// EmitAt records that step happened at moment m, which may be in the past:
// the REST endpoint, for example, records a job's upload (step m1) only
// once the Dispatcher has accepted the job the jar was run as, at the
// moment the jar arrived. The event takes its place among the events
// before and after m, so a job's trace reads in the order things happened.
func (r *Recorder) EmitAt(m Moment, step Step, from, to string, job api.JobID, format string, args ...any) {
	if r == nil {
		return
	}
	r.record(entry{Event: Event{Step: step, From: from, To: to, JobID: job, Message: fmt.Sprintf(format, args...), Time: m.Time},
		seq: m.seq, late: true})
}

// EmitFailure records that step broke now: from asked to, and it failed as
// the message says. A job's trace may go on after a failure (a retry, a
// restart), so a failure is an event like the others, marked Failed.
func (r *Recorder) EmitFailure(step Step, from, to string, job api.JobID, format string, args ...any) {
	if r == nil {
		return
	}
	r.record(entry{Event: Event{Step: step, From: from, To: to, JobID: job, Message: fmt.Sprintf(format, args...),
		Failed: true}})
}

// record adds e in its place and wakes every Await. An event that is
// not late happens now: its time is read under the lock, so that the
// events recorded now are in the order of their times.
func (r *Recorder) record(e entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !e.late {
		e.Time, e.seq = wallNow(), r.recorded
	}
	r.recorded++
	r.events = insertInOrder(r.events, e)
	if r.byJob == nil {
		r.byJob = make(map[api.JobID][]entry)
	}
	r.byJob[e.JobID] = insertInOrder(r.byJob[e.JobID], e)
	r.notifyLocked()
}

// insertInOrder inserts e after the last event that does not come after
// it. It searches from the end, so appending an event that happens now
// costs nothing.
func insertInOrder(events []entry, e entry) []entry {
	i := len(events)
	for i > 0 && e.before(events[i-1]) {
		i--
	}
	return slices.Insert(events, i, e)
}

// before reports whether e happened before o: at an earlier time; at the
// same time, when fewer events had been recorded; or as a late event at
// the moment o was recorded, since o came after it.
func (e entry) before(o entry) bool {
	switch {
	case !e.Time.Equal(o.Time):
		return e.Time.Before(o.Time)
	case e.seq != o.seq:
		return e.seq < o.seq
	}
	return e.late && !o.late
}

// notifyLocked wakes every Await so that it looks at the events again. r.mu
// is held.
func (r *Recorder) notifyLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Forget drops the events of job, so that a long-running cluster does not
// keep every job it ever ran. Events the job emits later are recorded
// afresh. Forgetting a job the recorder does not know does nothing.
func (r *Recorder) Forget(job api.JobID) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byJob[job]; !ok {
		return
	}
	delete(r.byJob, job)
	r.events = slices.DeleteFunc(r.events, func(e entry) bool { return e.JobID == job })
	r.notifyLocked()
}

// Await blocks until done reports true for the events of job, or ctx ends,
// in which case it returns ctx.Err(). Tests and benchmarks use it to wait
// for a step without polling.
//
// A nil *Recorder never has any events: Await returns nil at once if done
// accepts none, and otherwise waits for ctx to end, because nothing will
// ever be recorded.
func (r *Recorder) Await(ctx context.Context, job api.JobID, done func([]Event) bool) error {
	if r == nil {
		if done(nil) {
			return nil
		}
		<-ctx.Done()
		return ctx.Err()
	}
	for {
		r.mu.Lock()
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		if done(r.JobEvents(job)) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Count returns how many of events are of the given step.
func Count(events []Event, step Step) int {
	n := 0
	for _, e := range events {
		if e.Step == step {
			n++
		}
	}
	return n
}

// Events returns every event recorded so far, in time order.
func (r *Recorder) Events() []Event {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return eventsOf(r.events)
}

// JobEvents returns the events of one job, in time order.
func (r *Recorder) JobEvents(job api.JobID) []Event {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return eventsOf(r.byJob[job])
}

func eventsOf(entries []entry) []Event {
	if entries == nil {
		return nil
	}
	events := make([]Event, len(entries))
	for i, e := range entries {
		events[i] = e.Event
	}
	return events
}

// Failures returns the events of events that are failures, in order.
func Failures(events []Event) []Event {
	var failures []Event
	for _, e := range events {
		if e.Failed {
			failures = append(failures, e)
		}
	}
	return failures
}

// Steps returns the step of each event, in order: handy in tests.
func Steps(events []Event) []Step {
	steps := make([]Step, len(events))
	for i, e := range events {
		steps[i] = e.Step
	}
	return steps
}

type callerKey struct{}

// WithCaller marks ctx as coming from the named component, so that the
// component receiving a call can record who asked: the REST endpoint
// submits jobs with WithCaller(ctx, "REST"), and the Dispatcher's step m3
// then reads "REST → Dispatcher".
func WithCaller(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, callerKey{}, name)
}

// Caller returns the name WithCaller put into ctx, or fallback.
func Caller(ctx context.Context, fallback string) string {
	if name, ok := ctx.Value(callerKey{}).(string); ok {
		return name
	}
	return fallback
}
