package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// Key is the answer to a drill: the step that broke first, how it broke
// (the learner is not asked for the kind, but it says which lines prove
// the step), and the component to open, one of Components.
type Key struct {
	Step      trace.Step
	Kind      fault.Kind
	Component string
	// Scheduler is the drill's jobmanager.scheduler ("" or "Default",
	// "Adaptive"): under the AdaptiveScheduler some failures show in
	// lines of their own (fault.EvidenceUnder).
	Scheduler string
}

// NewKey returns the key of a drill whose fault is kind at step; an empty
// kind is the step's first, as in fault.Parse. The component is the
// step's, or the kind's where its evidence names another (a TaskManager
// that dies in a checkpoint, at k5, is the TaskExecutor's).
func NewKey(step trace.Step, kind fault.Kind) (Key, error) {
	f, err := fault.Parse(string(step) + ":" + string(kind))
	if err != nil {
		return Key{}, fmt.Errorf("diagnose: %w", err)
	}
	key := Key{Step: f.Step, Kind: f.Kind, Component: ComponentOf(f.Step)}
	if e, ok := fault.EvidenceFor(f.Step, f.Kind); ok && e.Component != "" {
		if c, ok := CanonicalComponent(f.Step, e.Component); ok {
			key.Component = c
		}
	}
	return key, nil
}

// Evidence returns what the logs show when the key's fault happens.
func (k Key) Evidence() (fault.Evidence, error) {
	e, ok := fault.EvidenceUnder(k.Scheduler, k.Step, k.Kind)
	if !ok {
		return fault.Evidence{}, fmt.Errorf("diagnose: %w for %s:%s", ErrNoEvidence, k.Step, k.Kind)
	}
	return e, nil
}

// The components a learner chooses from: the one that performs the step
// that broke, named as the course names it.
const (
	REST            = "REST"
	Dispatcher      = "Dispatcher"
	JobMaster       = "JobMaster"
	ResourceManager = "ResourceManager/SlotManager"
	TaskExecutor    = "TaskExecutor"
	Task            = "Task"
	Blob            = "BlobServer/BlobCache"
)

// Components lists the components, in the order the steps reach them.
func Components() []string {
	return []string{REST, Dispatcher, JobMaster, ResourceManager, TaskExecutor, Task, Blob}
}

// componentOf is the component that performs each step, the one to open
// when it breaks.
var componentOf = map[trace.Step]string{
	trace.M1:  REST,            // the jar upload
	trace.M2:  REST,            // the run request builds the JobGraph
	trace.M3:  Dispatcher,      // Dispatcher.submitJob
	trace.M4:  JobMaster,       // the JobManagerRunner starts the JobMaster
	trace.M5:  ResourceManager, // the ResourceManager registers the JobMaster
	trace.M6:  JobMaster,       // its slot pool declares the requirements
	trace.M7:  ResourceManager, // the SlotManager matches and requests slots
	trace.M8:  TaskExecutor,    // the TaskExecutor offers its slots
	trace.M9:  TaskExecutor,    // the TaskExecutor receives its tasks
	trace.M10: Blob,            // the BlobCache fetches the jar from the BlobServer
	trace.M11: Task,            // the Task opens its operators

	trace.K1: JobMaster, // its CheckpointCoordinator triggers the checkpoint
	trace.K2: Task,      // a source's Task takes the trigger, or declines it
	trace.K3: Task,      // a source's StreamTask snapshots and sends the barrier
	trace.K4: Task,      // a StreamTask's CheckpointBarrierHandler aligns the barriers
	trace.K5: Task,      // a task's asynchronous part writes its state and acknowledges
	trace.K6: JobMaster, // its CheckpointCoordinator completes the checkpoint
	trace.K7: Task,      // the tasks hear the checkpoint completed; a sink commits
}

// ComponentOf returns the component to open when step breaks, or "" for
// a step that is neither m1–m11 nor k1–k7.
func ComponentOf(step trace.Step) string { return componentOf[step] }

// checkpointSteps are the steps of a checkpoint, k1–k7, which a learner
// may name (package fault breaks five of them).
var checkpointSteps = []trace.Step{trace.K1, trace.K2, trace.K3, trace.K4, trace.K5, trace.K6, trace.K7}

// IsCheckpointStep reports whether step is one of a checkpoint, k1–k7.
func IsCheckpointStep(step trace.Step) bool { return slices.Contains(checkpointSteps, step) }

// StepRange names the steps a drill of step asks for: "m1–m11", or
// "k1–k7" in a drill of a checkpoint.
func StepRange(step trace.Step) string {
	if IsCheckpointStep(step) {
		return "k1–k7"
	}
	return "m1–m11"
}

// aliases are the other names a learner may give a component: the Flink
// classes that make it up, and the words the course uses.
var aliases = map[string][]string{
	REST:            {"rest", "rest endpoint", "DispatcherRestEndpoint", "WebMonitorEndpoint"},
	Dispatcher:      {"StandaloneDispatcher"},
	JobMaster:       {"JobManagerRunner", "JobMasterServiceLeadershipRunner"},
	ResourceManager: {"ResourceManager", "SlotManager", "StandaloneResourceManager", "FineGrainedSlotManager"},
	TaskExecutor:    {"TaskManager"},
	Task:            {"StreamTask", "operator"},
	Blob:            {"BlobServer", "BlobCache", "PermanentBlobCache", "BlobClient"},
}

// slotPoolAliases name the JobMaster at m6 only, where its slot pool is
// the part that declares the job's requirements.
var slotPoolAliases = []string{"SlotPool", "DeclarativeSlotPool"}

// checkpointAliases are the parts of a component that take part in a
// checkpoint, named for the steps k1–k7 only: the JobMaster's
// CheckpointCoordinator triggers and completes it, a Task's
// CheckpointBarrierHandler aligns its barriers and its asynchronous part
// writes its state to the checkpoint storage (package fault names that
// part "AsyncCheckpointRunnable/CheckpointStorage").
var checkpointAliases = map[string][]string{
	JobMaster: {"CheckpointCoordinator"},
	Task: {"CheckpointBarrierHandler", "SingleCheckpointBarrierHandler", "CheckpointBarrierTracker", "SourceStreamTask",
		"SubtaskCheckpointCoordinator", "AsyncCheckpointRunnable", "CheckpointStorage", "AsyncCheckpointRunnable/CheckpointStorage"},
}

// CanonicalComponent returns the component name names, or false for a
// name that is none. Case and spaces do not count; "SlotPool" names the
// JobMaster only when step is m6, "CheckpointCoordinator" only when step
// is one of a checkpoint, k1–k7, as "CheckpointBarrierHandler" names the
// Task.
func CanonicalComponent(step trace.Step, name string) (string, bool) {
	n := normalizeName(name)
	if n == "" {
		return "", false
	}
	is := func(a string) bool { return n == normalizeName(a) }
	for _, c := range Components() {
		if is(c) || slices.ContainsFunc(aliases[c], is) {
			return c, true
		}
	}
	if step == trace.M6 && slices.ContainsFunc(slotPoolAliases, is) {
		return JobMaster, true
	}
	if IsCheckpointStep(step) {
		for _, c := range Components() {
			if slices.ContainsFunc(checkpointAliases[c], is) {
				return c, true
			}
		}
	}
	return "", false
}

// normalizeName lowercases s and drops its spaces.
func normalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// ParseStep reads a step as a learner writes it: "m7", "M7", "7", "m07"
// for a step of a submission, "k4", "K4", "k04" for one of a checkpoint.
// A number alone is a step of a submission.
func ParseStep(s string) (trace.Step, error) {
	lower := strings.ToLower(strings.TrimSpace(s))
	prefix, last := "m", 11
	if strings.HasPrefix(lower, "k") {
		prefix, last = "k", len(checkpointSteps)
	}
	digits := strings.TrimPrefix(lower, prefix)
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > last || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		return "", fmt.Errorf("step %q: want one of m1 … m11, or k1 … k7 for a checkpoint", s)
	}
	return trace.Step(prefix + strconv.Itoa(n)), nil
}
