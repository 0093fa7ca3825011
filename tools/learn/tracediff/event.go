package tracediff

import (
	"fmt"
	"strings"
)

// Event is one row of a trace: a submission step, who asked whom, and
// whether it broke. It holds the fields of the runtime's trace.Event that a
// comparison needs, decoded on their own, so that this package does not
// import the runtime (see the package documentation).
type Event struct {
	Step    string // "m3"
	From    string // "REST"
	To      string // "Dispatcher"
	Message string // what happened, in Flink's words; in a prediction, the note after ':'
	JobID   string // the job's ID as the trace wrote it; empty in a prediction
	Failed  bool   // the step broke: From asked To and it failed
}

// String returns the event as a line of a prediction, "m3 REST → Dispatcher",
// with ✗ instead of → for a failed step. The message is left out.
func (e Event) String() string {
	return e.Step + " " + e.From + " " + e.arrow() + " " + e.To
}

// arrow is what stands between From and To: → for a step that happened,
// ✗ for one that broke, as the runtime's trace prints them.
func (e Event) arrow() string {
	if e.Failed {
		return "✗"
	}
	return "→"
}

// head is the event as the table shows it before its message: the step
// padded to three characters, so that the names line up.
func (e Event) head() string {
	return fmt.Sprintf("%-3s %s %s %s", e.Step, e.From, e.arrow(), e.To)
}

// Same reports whether a and b are the same step between the same
// components, both happened or both failed. Messages and job IDs are not
// compared. Names are compared without regard to case or spaces, so
// "Job Master" is the same component as "JobMaster", and "M3" the same step
// as "m3".
func Same(a, b Event) bool {
	return canonical(a.Step) == canonical(b.Step) &&
		canonical(a.From) == canonical(b.From) &&
		canonical(a.To) == canonical(b.To) &&
		a.Failed == b.Failed
}

// canonical is a name as Same compares it: lower case, without spaces.
func canonical(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), ""))
}

// FirstDifference returns the index of the first row at which a and b
// differ (see Same), or -1 if they have the same length and agree on every
// row. When one is the beginning of the other, the first difference is the
// row where the shorter one has ended: its length.
func FirstDifference(a, b []Event) int {
	for i := range min(len(a), len(b)) {
		if !Same(a[i], b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
