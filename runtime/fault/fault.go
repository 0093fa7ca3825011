package fault

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/trace"
)

// Kind is what goes wrong at a step.
type Kind string

// The kinds of fault, by step.
const (
	UploadRejected             Kind = "upload-rejected"              // m1
	MalformedRunRequest        Kind = "malformed-run-request"        // m2
	InvalidJobGraph            Kind = "invalid-jobgraph"             // m3
	DuplicateJobID             Kind = "duplicate-job-id"             // m3
	JobMasterStartFailure      Kind = "jobmaster-start-failure"      // m4
	MaxParallelismExceeded     Kind = "max-parallelism-exceeded"     // m4
	ResourceManagerUnreachable Kind = "resourcemanager-unreachable"  // m5
	RegistrationError          Kind = "registration-error"           // m5
	ResourceDeclarationLost    Kind = "resource-declaration-lost"    // m6
	NoMatchingSlot             Kind = "no-matching-slot"             // m7
	SlotSharingGroupTooLarge   Kind = "slot-sharing-group-too-large" // m7
	SlotOfferRejected          Kind = "slot-offer-rejected"          // m8
	SlotOfferTimeout           Kind = "slot-offer-timeout"           // m8
	TaskExecutorDies           Kind = "taskexecutor-dies"            // m9
	BlobUnavailable            Kind = "blob-unavailable"             // m10
	JarCorrupted               Kind = "jar-corrupted"                // m10
	OperatorOpenThrows         Kind = "operator-open-throws"         // m11

	CheckpointExpired                Kind = "checkpoint-expired"                  // k1
	TaskNotReady                     Kind = "task-not-ready"                      // k2
	BarrierLost                      Kind = "barrier-lost"                        // k4
	StorageWriteFails                Kind = "storage-write-fails"                 // k5
	TaskExecutorDiesDuringCheckpoint Kind = "taskexecutor-dies-during-checkpoint" // k5
	MetadataWriteFails               Kind = "metadata-write-fails"                // k6
)

// kinds lists the kinds of each step, the default first.
var kinds = map[trace.Step][]Kind{
	trace.M1:  {UploadRejected},
	trace.M2:  {MalformedRunRequest},
	trace.M3:  {InvalidJobGraph, DuplicateJobID},
	trace.M4:  {JobMasterStartFailure, MaxParallelismExceeded},
	trace.M5:  {ResourceManagerUnreachable, RegistrationError},
	trace.M6:  {ResourceDeclarationLost},
	trace.M7:  {NoMatchingSlot, SlotSharingGroupTooLarge},
	trace.M8:  {SlotOfferRejected, SlotOfferTimeout},
	trace.M9:  {TaskExecutorDies},
	trace.M10: {BlobUnavailable, JarCorrupted},
	trace.M11: {OperatorOpenThrows},

	trace.K1: {CheckpointExpired},
	trace.K2: {TaskNotReady},
	trace.K4: {BarrierLost},
	trace.K5: {StorageWriteFails, TaskExecutorDiesDuringCheckpoint},
	trace.K6: {MetadataWriteFails},
}

// Steps returns the steps of the submission that have injection points,
// m1 to m11. The checkpoint's are CheckpointSteps: a fault there breaks a
// checkpointed job only, so callers that run a job without checkpoints
// (the log-detective drills, the chaos test) ask for these alone.
func Steps() []trace.Step {
	return []trace.Step{trace.M1, trace.M2, trace.M3, trace.M4, trace.M5, trace.M6,
		trace.M7, trace.M8, trace.M9, trace.M10, trace.M11}
}

// CheckpointSteps returns the steps of a checkpoint that have injection
// points: k1, k2, k4, k5 and k6. A source's snapshot (k3) and the
// notification of the completed checkpoint (k7) have none: a failed
// snapshot shows as a decline at k5, and a failed k7 is a failed commit of
// a transactional sink, which is the sink's own story.
func CheckpointSteps() []trace.Step {
	return []trace.Step{trace.K1, trace.K2, trace.K4, trace.K5, trace.K6}
}

// Kinds returns the kinds of fault a step can be given, the default first,
// or nil for a step without an injection point.
func Kinds(step trace.Step) []Kind { return slices.Clone(kinds[step]) }

// Always is Fault.Times for a fault that fires on every pass.
const Always = -1

// Fault is one thing to break: a step, what goes wrong there, how often,
// and for which job.
type Fault struct {
	Step trace.Step
	// Kind is what goes wrong; empty means the step's first kind.
	Kind Kind
	// Times is how many passes the fault fires on: 0 means once, Always
	// every time.
	Times int
	// After is how many passes go by before the fault fires: 0 fires on
	// the first. A TaskManager that dies at m9 with After 4 dies at the
	// fifth deployment, once the job's first tasks are running (or, in a
	// BATCH job, finished).
	After int
	// JobID limits the fault to one job; the zero JobID matches any job.
	JobID api.JobID
}

// String prints the fault in the form Parse reads.
func (f Fault) String() string {
	s := string(f.Step) + ":" + string(f.Kind)
	switch {
	case f.Times == Always:
		s += ",times=always"
	case f.Times > 1:
		s += ",times=" + strconv.Itoa(f.Times)
	}
	if f.After > 0 {
		s += ",after=" + strconv.Itoa(f.After)
	}
	if !f.JobID.IsZero() {
		s += ",job=" + f.JobID.String()
	}
	return s
}

// normalized checks f and fills in its defaults.
func (f Fault) normalized() (Fault, error) {
	known, ok := kinds[f.Step]
	if !ok {
		return Fault{}, fmt.Errorf("fault: no injection point %q (want one of m1 … m11, k1, k2, k4, k5, k6)", f.Step)
	}
	if f.Kind == "" {
		f.Kind = known[0]
	}
	if !slices.Contains(known, f.Kind) {
		return Fault{}, fmt.Errorf("fault: step %s has no fault %q (want one of %s)", f.Step, f.Kind, joinKinds(known))
	}
	switch {
	case f.Times == 0:
		f.Times = 1
	case f.Times < Always:
		return Fault{}, fmt.Errorf("fault: times must be positive or always, got %d", f.Times)
	}
	if f.After < 0 {
		return Fault{}, fmt.Errorf("fault: after must not be negative, got %d", f.After)
	}
	return f, nil
}

func joinKinds(ks []Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// Parse reads a fault in the form
// STEP[:KIND][,times=N|always][,after=N][,job=JOBID], e.g. "m9",
// "m10:jar-corrupted", "m8:slot-offer-timeout,times=2", "m9,after=4".
func Parse(s string) (Fault, error) {
	fields := strings.Split(strings.TrimSpace(s), ",")
	step, kind, _ := strings.Cut(fields[0], ":")
	f := Fault{Step: trace.Step(strings.ToLower(strings.TrimSpace(step))), Kind: Kind(strings.TrimSpace(kind))}
	for _, field := range fields[1:] {
		key, value, _ := strings.Cut(strings.TrimSpace(field), "=")
		switch key {
		case "times":
			if value == "always" {
				f.Times = Always
				continue
			}
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return Fault{}, fmt.Errorf("fault %q: times=%q: want a positive number or always", s, value)
			}
			f.Times = n
		case "after":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return Fault{}, fmt.Errorf("fault %q: after=%q: want a number of passes, 0 or more", s, value)
			}
			f.After = n
		case "job":
			id, err := api.ParseJobID(value)
			if err != nil {
				return Fault{}, fmt.Errorf("fault %q: job=%q: %w", s, value, err)
			}
			f.JobID = id
		default:
			return Fault{}, fmt.Errorf("fault %q: unknown option %q (want times=N|always, after=N or job=JOBID)", s, key)
		}
	}
	return f.normalized()
}

// Firing is one pass on which a fault fired.
type Firing struct {
	Fault Fault
	JobID api.JobID
	Time  time.Time
}

// Injector holds the armed faults of one cluster. The components ask it at
// their steps whether to fail (Fire). It is safe for concurrent use, and a
// nil *Injector never fires, so components may run without one.
type Injector struct {
	log *slog.Logger // nil: fired faults are not logged

	mu    sync.Mutex
	armed []*armedFault
	fired []Firing
}

type armedFault struct {
	Fault
	skip int // passes to let go by before it fires
	left int // passes left; Always for ever
}

// NewInjector returns an injector with nothing armed. Each fault that
// fires is logged at WARN to logger (as logger "FaultInjector"), so a
// learner reading the log sees where the real trouble was made; a nil
// logger logs nothing.
func NewInjector(logger *slog.Logger) *Injector {
	if logger != nil {
		logger = logger.With("logger", "FaultInjector")
	}
	return &Injector{log: logger}
}

// Inject arms f. It fails for a step without an injection point, a kind
// the step does not have, or a bad Times.
func (in *Injector) Inject(f Fault) error {
	f, err := f.normalized()
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.armed = append(in.armed, &armedFault{Fault: f, skip: f.After, left: f.Times})
	return nil
}

// Clear disarms every fault; what has fired stays in Fired.
func (in *Injector) Clear() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.armed = nil
}

// Fire is asked by a component at step, for job: it reports the kind of
// the first armed fault of that step matching the job, and uses up one of
// its passes. The zero JobID (a step not tied to a job yet) matches only
// faults for any job. It never fires a kind that is asked for by name
// elsewhere (askedForByName).
func (in *Injector) Fire(step trace.Step, job api.JobID) (Kind, bool) {
	return in.fire(step, job, "")
}

// askedForByName are the kinds that break their step away from the place
// that asks Fire for the step: only FireKind, at their own place, fires
// them, so that the step's usual place never uses them up. At m7 the
// SlotManager asks Fire before it matches a job's requirements, and its
// no-matching-slot is what it fires; slot-sharing-group-too-large is the
// JobMaster's to apply, when it takes the JobGraph.
var askedForByName = map[Kind]bool{SlotSharingGroupTooLarge: true}

// FireKind is Fire for a step whose kinds break in different places: it
// fires only a fault of that step and kind, and reports whether it did.
// Each place asks for its own kind, so that a fault armed for one is never
// used up by another that the run passes first. At m4, the JobMaster's
// creation asks for max-parallelism-exceeded, and its start, later, for
// jobmaster-start-failure; the JobMaster's creation asks for m7's
// slot-sharing-group-too-large too, long before the SlotManager matches.
// At k5, a task's asynchronous part asks for storage-write-fails, and the
// TaskExecutor that sends the task's acknowledgement for
// taskexecutor-dies-during-checkpoint.
func (in *Injector) FireKind(step trace.Step, job api.JobID, kind Kind) bool {
	_, ok := in.fire(step, job, kind)
	return ok
}

// fire is Fire, for faults of the given kind only when kind is not empty.
func (in *Injector) fire(step trace.Step, job api.JobID, kind Kind) (Kind, bool) {
	if in == nil {
		return "", false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for i, a := range in.armed {
		if a.Step != step || (!a.JobID.IsZero() && a.JobID != job) || (kind != "" && a.Kind != kind) ||
			(kind == "" && askedForByName[a.Kind]) {
			continue
		}
		if a.skip > 0 {
			a.skip-- // a pass that goes by
			continue
		}
		if a.left != Always {
			a.left--
			if a.left == 0 {
				in.armed = slices.Delete(in.armed, i, i+1)
			}
		}
		in.fired = append(in.fired, Firing{Fault: a.Fault, JobID: job, Time: time.Now()})
		if in.log != nil {
			if job.IsZero() {
				in.log.Warn(fmt.Sprintf("Injecting fault %s at step %s.", a.Kind, step))
			} else {
				in.log.Warn(fmt.Sprintf("Injecting fault %s at step %s for job %s.", a.Kind, step, job))
			}
		}
		return a.Kind, true
	}
	return "", false
}

// Armed returns the faults still armed, in the order they were injected,
// each with the passes it has left as Times and those it still lets go by
// as After.
func (in *Injector) Armed() []Fault {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	faults := make([]Fault, len(in.armed))
	for i, a := range in.armed {
		faults[i] = a.Fault
		faults[i].Times = a.left
		faults[i].After = a.skip
	}
	return faults
}

// Fired returns every pass on which a fault fired, in order.
func (in *Injector) Fired() []Firing {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.fired)
}

// InjectedError is the cause a component puts under the error it fails
// with when a fault fires: the error itself is Flink's, and its chain ends
// in the honest reason, "fault injected at step m10 (jar-corrupted)".
type InjectedError struct {
	Step trace.Step
	Kind Kind
}

func (e *InjectedError) Error() string {
	return fmt.Sprintf("fault injected at step %s (%s)", e.Step, e.Kind)
}

// Injected returns the InjectedError of a fault that fired.
func Injected(step trace.Step, kind Kind) error { return &InjectedError{Step: step, Kind: kind} }
