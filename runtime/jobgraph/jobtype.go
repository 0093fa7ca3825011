package jobgraph

import "fmt"

// JobType says how the job's data flows, which decides how it is
// scheduled (Flink's org.apache.flink.runtime.jobgraph.JobType). The
// DataStream API sets it from execution.runtime-mode.
//
//   - STREAMING: every task runs for the job's whole life; its slots are
//     occupied indefinitely, and the job needs all of them at once.
//   - BATCH: tasks run stage after stage, each freeing its slot when it
//     finishes; the job can make progress with fewer slots than its tasks,
//     so its slot requests do not fail just because not all of them can be
//     served at once.
type JobType int

const (
	// Streaming is the zero value: a JobGraph that says nothing is one.
	Streaming JobType = iota
	Batch
)

// String returns Flink's name: "STREAMING" or "BATCH".
func (t JobType) String() string {
	switch t {
	case Streaming:
		return "STREAMING"
	case Batch:
		return "BATCH"
	}
	return fmt.Sprintf("JobType(%d)", int(t))
}

// MarshalText writes Flink's name.
func (t JobType) MarshalText() ([]byte, error) {
	if t != Streaming && t != Batch {
		return nil, fmt.Errorf("unknown JobType %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads Flink's name.
func (t *JobType) UnmarshalText(b []byte) error {
	switch string(b) {
	case "STREAMING":
		*t = Streaming
	case "BATCH":
		*t = Batch
	default:
		return fmt.Errorf("unknown JobType %q: want STREAMING or BATCH", b)
	}
	return nil
}
