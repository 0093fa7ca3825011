package fault

import (
	"fmt"

	"flinklab/runtime/trace"
)

// Diagnosis says which component to open when a step broke: what happened,
// in the words the cluster used, and where to look.
type Diagnosis struct {
	Step trace.Step
	// Component is the one to dig into (its code and its log lines).
	Component string
	// What is the message of the step that broke.
	What string
	// WhereToLook says which log lines tell the story, and what to check.
	WhereToLook string
}

// String prints the diagnosis on one line:
// "diagnosis: step m7 — SlotManager: <what> — <where to look>".
func (d Diagnosis) String() string {
	return fmt.Sprintf("diagnosis: step %s — %s: %s — %s", d.Step, d.Component, d.What, d.WhereToLook)
}

// guide is, per step, the component to open and where to look.
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
		"the JobMaster could not register; look for \"Registration at ResourceManager\" attempts in the JobManager log and check the ResourceManager is up and leader"},
	trace.M6: {"SlotPool",
		"the JobMaster's resource requirements did not reach the ResourceManager; look for the SlotPool's declared requirements and the retries of declareRequiredResources"},
	trace.M7: {"SlotManager",
		"no free slot matched the job's requirements; look for \"Could not acquire the minimum required resources\" and the SlotManager's \"Matching resource requirements\" lines, and count the free slots"},
	trace.M8: {"TaskExecutor",
		"the slot offer did not complete; look in the TaskManager log for the offer and the freed slot, then in the JobManager log for the SlotPool's answer"},
	trace.M9: {"TaskExecutor",
		"the TaskManager was lost between offering its slots and receiving the task; look for \"Cannot deploy task\" and \"Heartbeat of TaskManager with id … timed out.\" in the JobManager log, then at that TaskManager"},
	trace.M10: {"BlobServer/BlobCache",
		"the task could not get the job's jar; look for \"Failed to fetch BLOB\" in the TaskManager log and check the BlobServer's storage directory"},
	trace.M11: {"Task",
		"user code failed while the task started (an operator's open()); look for \"switched from INITIALIZING to FAILED with failure cause\" in the TaskManager log: the cause is the operator's"},
}

// Diagnose reads a job's trace as an engineer reads its logs: the first
// step that broke is where the trouble began, whatever failed after it.
// It reports false when nothing in events broke.
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

// Component returns the component to dig into when step breaks, or "" for
// a step without an injection point.
func Component(step trace.Step) string { return guide[step].component }
