package trace_test

import (
	"os"
	"time"

	"flinklab/runtime/trace"
)

// ExamplePrint prints a trace with times since the upload began; a zero
// start would measure them from the first event.
func ExamplePrint() {
	uploaded := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	events := []trace.Event{
		{Step: trace.M1, From: "Client", To: "REST", Message: "POST /jars/upload", Time: uploaded.Add(1636 * time.Microsecond)},
		{Step: trace.M9, From: "JobMaster", To: "TaskExecutor", Message: "Received task Source (1/2)#0", Time: uploaded.Add(50237 * time.Microsecond)},
		{Step: trace.M9, From: "JobMaster", To: "TaskExecutor", Message: "Cannot deploy task Source (2/2)#0", Time: uploaded.Add(1050295 * time.Microsecond), Failed: true},
	}
	trace.Print(os.Stdout, events, uploaded)
	trace.Print(os.Stdout, events[:1], time.Time{})
	// Output:
	//   1. m1     +1.636ms  Client → REST: POST /jars/upload
	//   2. m9    +50.237ms  JobMaster → TaskExecutor: Received task Source (1/2)#0
	//   3. m9  +1050.295ms  JobMaster ✗ TaskExecutor: Cannot deploy task Source (2/2)#0
	//   1. m1     +0.000ms  Client → REST: POST /jars/upload
}
