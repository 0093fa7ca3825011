package checkpoints

import (
	"regexp"
	"strconv"
	"time"

	"flinklab/runtime/trace"
)

// parsedEvent is what one event says of a checkpoint.
type parsedEvent struct {
	step trace.Step
	id   int64
	time time.Time
	// task is the subtask the event is about ("NAME (i/p)#attempt"); ""
	// for k1 and k6, which are the coordinator's own.
	task string
	// number is the outputs of k3, the input channels of k4, the bytes
	// of k6.
	number    int64
	alignment time.Duration // k4
	location  string        // k5: the TaskManager
}

// The messages of the steps, as the runtime writes them (the package doc
// has an example of each). Each is anchored at both ends, so that a task
// name holding "checkpoint 5" cannot be taken for the ID.
var (
	triggered    = regexp.MustCompile(`^Triggering checkpoint (\d+) \(`)
	taskTrigger  = regexp.MustCompile(`^Trigger checkpoint (\d+)@\d+ for (.+)\.$`)
	barrierSent  = regexp.MustCompile(` sent checkpoint barrier (\d+) to (\d+) outputs\.$`)
	barrierAll   = regexp.MustCompile(` received barrier (\d+) on all (\d+) input channels \(aligned in (\d+) ms\)\.$`)
	acknowledged = regexp.MustCompile(`^Received acknowledge message for checkpoint (\d+) from task \S+ of job \S+ at (.+?)(?: @ \S+)?\.$`)
	completed    = regexp.MustCompile(`^Completed checkpoint (\d+) for job \S+ \((\d+) bytes`)
	notified     = regexp.MustCompile(`^notifyCheckpointComplete for checkpoint (\d+)$`)
)

// parse reads a successful event of a checkpoint step; false for any
// other event, and for a failed one.
func parse(e trace.Event) (parsedEvent, bool) {
	if e.Failed {
		return parsedEvent{}, false
	}
	p := parsedEvent{step: e.Step, time: e.Time}
	var m []string
	switch e.Step {
	case trace.K1:
		m = triggered.FindStringSubmatch(e.Message)
	case trace.K2:
		if m = taskTrigger.FindStringSubmatch(e.Message); m != nil {
			p.task = m[2]
		}
	case trace.K3:
		if m = barrierSent.FindStringSubmatch(e.Message); m != nil {
			p.task, p.number = e.From, atoi(m[2])
		}
	case trace.K4:
		if m = barrierAll.FindStringSubmatch(e.Message); m != nil {
			p.task, p.number = e.From, atoi(m[2])
			p.alignment = time.Duration(atoi(m[3])) * time.Millisecond
		}
	case trace.K5:
		if m = acknowledged.FindStringSubmatch(e.Message); m != nil {
			p.task, p.location = e.From, m[2]
		}
	case trace.K6:
		if m = completed.FindStringSubmatch(e.Message); m != nil {
			p.number = atoi(m[2])
		}
	case trace.K7:
		if m = notified.FindStringSubmatch(e.Message); m != nil {
			p.task = e.To
		}
	}
	if m == nil {
		return parsedEvent{}, false
	}
	p.id = atoi(m[1])
	return p, true
}

// atoi reads digits the regular expressions matched; they fit an int64
// unless the runtime wrote nonsense, which reads as 0.
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
