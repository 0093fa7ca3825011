package fault

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/trace"
)

// Diagnosis says which component to open when a step broke: what happened,
// in the words the cluster used, and where to look. Explained from the
// cluster's log, it also names the cause the log shows and quotes the
// lines that prove it.
type Diagnosis struct {
	Step trace.Step
	// Component is the one to dig into (its code and its log lines).
	Component string
	// What is the message of the step that broke, from the trace.
	What string
	// WhereToLook says which log lines tell the story, and what to check.
	WhereToLook string

	// Kind is the kind of failure the log shows; "" until Explain found
	// the lines of one.
	Kind Kind
	// Cause is what went wrong, in the words of the log lines that show
	// it; "" until Explain found them.
	Cause string
	// Proof is those lines, in log order.
	Proof []ProvingLine
}

// String prints the diagnosis: the step, the component and the cause (or,
// before Explain, the broken step's message), where to look, and the lines
// that prove it, each labelled with the log it is in:
//
//	diagnosis: step m10 — BlobServer/BlobCache: the jar reached the TaskManager damaged: …
//	  where to look: the TaskManager log: …
//	  the log lines that prove it:
//	    TaskManager  10:16:02,475 ERROR BlobClient [] - Failed to fetch BLOB … No retries left.
//	                 Detected data corruption during transfer …
func (d Diagnosis) String() string {
	what := d.What
	if d.Cause != "" {
		what = d.Cause
	}
	var b strings.Builder
	b.WriteString(wrap(fmt.Sprintf("diagnosis: step %s — %s: %s", d.Step, d.Component, what), "  "))
	b.WriteString("\n" + wrap("  where to look: "+d.WhereToLook, "    "))
	if len(d.Proof) > 0 {
		b.WriteString("\n  the log lines that prove it:")
		for _, line := range d.Proof {
			b.WriteString("\n    " + strings.ReplaceAll(line.String(), "\n", "\n    "))
		}
	}
	return b.String()
}

// wrapWidth is where String breaks the lines of its prose.
const wrapWidth = 100

// wrap breaks s into lines of at most wrapWidth characters at spaces, the
// lines after the first indented by indent.
func wrap(s, indent string) string {
	var b strings.Builder
	width := 0
	for i, word := range strings.Split(s, " ") {
		n := len([]rune(word))
		if i > 0 && width+1+n > wrapWidth {
			b.WriteString("\n" + indent)
			width = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			width++
		}
		b.WriteString(word)
		width += n
	}
	return b.String()
}

// guide is, per step, the component to open and where to look before the
// log says which kind of failure it was.
var guide = map[trace.Step]struct{ component, whereToLook string }{
	trace.M1: {"REST",
		"the jar was not stored and no job exists; read the REST answer's errors and the JobManager log around the upload (web.upload.dir)"},
	trace.M2: {"REST",
		"the run request was refused before a job existed; the HTTP 400 answer names what JarRunHandler could not parse"},
	trace.M3: {"Dispatcher",
		"Dispatcher.submitJob refused the JobGraph and persisted nothing; look for \"Received JobGraph submission\" and the JobSubmissionException after it"},
	trace.M4: {"JobMaster",
		"the job failed during initialization; look for \"Could not start the JobMaster.\" and its cause (ExecutionGraph or scheduler creation)"},
	trace.M5: {"ResourceManager",
		"the JobMaster could not register; look for \"Connecting to ResourceManager\" without \"JobManager successfully registered at ResourceManager\" after it, and check that the ResourceManager is up and leader"},
	trace.M6: {"SlotPool",
		"the JobMaster's resource requirements did not reach the ResourceManager; look for \"Failed to declare resource requirements\" and the SlotManager's \"Received resource requirements\""},
	trace.M7: {"SlotManager",
		"the SlotManager gave the job no slot; compare the job's requirement under \"Missing resources\" with the TaskManagers under \"Current resources\" in its \"Matching resource requirements\" block, then look for \"Could not acquire the minimum required resources\""},
	trace.M8: {"TaskExecutor",
		"the slot offer did not complete; look in the TaskManager log for the offer and what became of the slot, then in the JobManager log for the slot pool's answer"},
	trace.M9: {"TaskExecutor",
		"the TaskManager was lost between offering its slots and receiving the task; look for \"Cannot deploy task\" and \"Heartbeat of TaskManager with id … timed out.\" in the JobManager log, then at that TaskManager"},
	trace.M10: {"BlobServer/BlobCache",
		"the task could not get the job's jar; look for \"Failed to fetch BLOB … No retries left.\" in the TaskManager log and read the cause under it: it says whether the jar was missing or damaged"},
	trace.M11: {"Task",
		"user code failed while the task started (an operator's open()); look for \"switched from INITIALIZING to FAILED with failure cause\" in the TaskManager log: the cause is the operator's"},

	trace.K1: {"CheckpointCoordinator",
		"a checkpoint the JobMaster's CheckpointCoordinator triggered never got past its trigger; look for \"Triggering checkpoint\" and, execution.checkpointing.timeout later, \"expired before completing\" in the JobManager log, then at the failed checkpoint in GET /jobs/<jobid>/checkpoints: no subtask acknowledged it"},
	trace.K2: {"Task",
		"a source's Task refused the checkpoint's trigger; look for \"Decline checkpoint\" and the reason under \"Failed to trigger or complete checkpoint\" in the JobManager log"},
	trace.K4: {"CheckpointBarrierHandler",
		"a task with several inputs never had the barrier on all of them, so it never took the checkpoint; look for \"expired before completing\" in the JobManager log, then at the failed checkpoint in GET /jobs/<jobid>/checkpoints: which vertex has subtasks that did not acknowledge"},
	trace.K5: {"AsyncCheckpointRunnable/CheckpointStorage",
		"a task's asynchronous part could not finish its snapshot; look for \"asynchronous part of checkpoint … could not be completed\" in the TaskManager log and \"Decline checkpoint\" in the JobManager log, and read the cause under them"},
	trace.K6: {"CheckpointCoordinator",
		"every task acknowledged, but the CheckpointCoordinator could not complete the checkpoint; look for \"Failed to trigger or complete checkpoint\" in the JobManager log and read its cause: the _metadata under state.checkpoints.dir"},
}

// Diagnose reads a job's trace as an engineer reads its logs: the first
// step that broke is where the trouble began, whatever failed after it.
// It reports false when nothing in events broke. Explain then tells from
// the log what kind of failure it was.
func Diagnose(events []trace.Event) (Diagnosis, bool) {
	for _, e := range events {
		if !e.Failed {
			continue
		}
		g, ok := guide[e.Step]
		if !ok {
			return Diagnosis{Step: e.Step, Component: e.To, What: e.Message,
				WhereToLook: "read the log of " + e.To}, true
		}
		return Diagnosis{Step: e.Step, Component: g.component, What: e.Message, WhereToLook: g.whereToLook}, true
	}
	return Diagnosis{}, false
}

// Explain completes d from the cluster's log: the first kind of failure of
// d's step (in the order Kinds lists them, a kind whose lines others write
// too after them, see explainRank) whose proving lines are all in records
// gives the diagnosis its Kind, Cause, WhereToLook and Proof. When
// the log proves no kind, what it shows of any kind of the step (see
// EvidenceFor) explains d, with Kind left empty; a log that proves neither
// leaves d as it is.
func Explain(d Diagnosis, records []LogRecord) Diagnosis {
	kinds := Kinds(d.Step)
	// A kind whose lines every run writes is told only by their timing,
	// so it is the explanation only when no other kind's lines are there;
	// a kind whose lines another kind's failure writes too, only when that
	// kind's own lines are not.
	slices.SortStableFunc(kinds, func(a, b Kind) int { return cmp.Compare(explainRank(a), explainRank(b)) })
	for _, kind := range append(kinds, "") {
		e, ok := EvidenceFor(d.Step, kind)
		if !ok {
			continue
		}
		lines, ok := e.Find(records)
		if !ok {
			continue
		}
		d.Kind, d.Cause, d.WhereToLook, d.Proof = kind, e.Cause, e.WhereToLook, lines
		if e.Component != "" {
			d.Component = e.Component
		}
		return d
	}
	return d
}

// Component returns the component to dig into when step breaks, or "" for
// a step without an injection point. A kind of failure whose component is
// another (a TaskManager that dies while a checkpoint is in flight, k5)
// says so in its Evidence, and Explain names it.
func Component(step trace.Step) string { return guide[step].component }

// shownOnlyByTiming are the kinds whose lines a healthy run writes too,
// only closer together: at INFO, a ResourceManager that answers a
// registration late looks like one that answers at once, only later
// (Flink logs the timed-out attempts at DEBUG). Whatever else delays the
// registration (an error, and the pause after it) shows the same delay.
var shownOnlyByTiming = map[Kind]bool{ResourceManagerUnreachable: true}

// shownByOtherKindsToo are the kinds whose lines another kind of the same
// step writes too, with lines of its own that say why: every slot request
// that no TaskManager fulfils ends as no-matching-slot's does, and a slot
// sharing group larger than any TaskManager (slot-sharing-group-too-large)
// shows, besides, the requirement that no TaskManager fits.
var shownByOtherKindsToo = map[Kind]bool{NoMatchingSlot: true}

// explainRank orders the kinds Explain tries: the kinds with lines of
// their own first, then those whose lines other kinds write too, then
// those told only by timing.
func explainRank(k Kind) int {
	switch {
	case shownOnlyByTiming[k]:
		return 2
	case shownByOtherKindsToo[k]:
		return 1
	}
	return 0
}
