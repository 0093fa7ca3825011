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
// kind is the step's first, as in fault.Parse.
func NewKey(step trace.Step, kind fault.Kind) (Key, error) {
	f, err := fault.Parse(string(step) + ":" + string(kind))
	if err != nil {
		return Key{}, fmt.Errorf("diagnose: %w", err)
	}
	return Key{Step: f.Step, Kind: f.Kind, Component: ComponentOf(f.Step)}, nil
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
}

// ComponentOf returns the component to open when step breaks, or "" for
// a step that is not m1–m11.
func ComponentOf(step trace.Step) string { return componentOf[step] }

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

// CanonicalComponent returns the component name names, or false for a
// name that is none. Case and spaces do not count; "SlotPool" names the
// JobMaster only when step is m6.
func CanonicalComponent(step trace.Step, name string) (string, bool) {
	n := normalizeName(name)
	if n == "" {
		return "", false
	}
	for _, c := range Components() {
		if n == normalizeName(c) || slices.ContainsFunc(aliases[c], func(a string) bool { return n == normalizeName(a) }) {
			return c, true
		}
	}
	if step == trace.M6 && slices.ContainsFunc(slotPoolAliases, func(a string) bool { return n == normalizeName(a) }) {
		return JobMaster, true
	}
	return "", false
}

// normalizeName lowercases s and drops its spaces.
func normalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// ParseStep reads a step as a learner writes it: "m7", "M7", "7", "m07".
func ParseStep(s string) (trace.Step, error) {
	digits := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "m")
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > 11 || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		return "", fmt.Errorf("step %q: want one of m1 … m11", s)
	}
	return trace.Step("m" + strconv.Itoa(n)), nil
}
