package trace

import (
	"fmt"
	"io"
	"time"
)

// Print writes events as a numbered list, one line per event, each with
// its time in milliseconds since start (a zero start means the first
// event's time) and ✗ instead of → for a step that broke. The demo
// prints a job's submission trace with it, timed from the moment it began
// the upload:
//
//	submission trace:
//	  1. m1     +1.636ms  Client → REST: POST /jars/upload
//	  2. m9    +50.237ms  JobMaster → TaskExecutor: Received task Source (1/2)#0
//	  3. m9  +1050.295ms  JobMaster ✗ TaskExecutor: Cannot deploy task Source (2/2)#0
//
// `flink run` prints it too, with the times since the first event.
func Print(w io.Writer, events []Event, start time.Time) {
	if start.IsZero() && len(events) > 0 {
		start = events[0].Time
	}
	for i, e := range events {
		arrow := "→"
		if e.Failed {
			arrow = "✗"
		}
		fmt.Fprintf(w, "%3d. %-3s %+9.3fms  %s %s %s: %s\n", i+1, e.Step,
			float64(e.Time.Sub(start).Microseconds())/1000, e.From, arrow, e.To, e.Message)
	}
}
