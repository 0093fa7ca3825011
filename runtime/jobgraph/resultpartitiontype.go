package jobgraph

import "fmt"

// ResultPartitionType says how the partitions of a data set are produced
// and consumed. It mirrors Flink's
// org.apache.flink.runtime.io.network.partition.ResultPartitionType, which
// has more kinds (PIPELINED, BLOCKING_PERSISTENT, HYBRID_*); two are enough
// to show the difference that matters to scheduling:
//
//   - PIPELINED_BOUNDED: records flow to the consumer while the producer
//     still runs, through a bounded number of network buffers. Producer
//     and consumer must run at the same time, so they end up in the same
//     pipelined region. Streaming jobs use it everywhere.
//   - BLOCKING: the producer writes its whole output first; the consumer
//     starts after the producer finished. Batch jobs use it to cut a job
//     into regions that can run (and restart) one after the other.
type ResultPartitionType int

// The result partition types. The zero value is PipelinedBounded, the type
// of every edge in a streaming job.
const (
	// PipelinedBounded streams records to a running consumer through a
	// bounded buffer pool.
	PipelinedBounded ResultPartitionType = iota
	// Blocking materialises the whole result before any consumer reads it.
	Blocking
)

var resultPartitionTypeNames = [...]string{
	PipelinedBounded: "PIPELINED_BOUNDED",
	Blocking:         "BLOCKING",
}

// String returns Flink's name of the type: "PIPELINED_BOUNDED" or "BLOCKING".
func (t ResultPartitionType) String() string {
	if !t.isKnown() {
		return fmt.Sprintf("ResultPartitionType(%d)", int(t))
	}
	return resultPartitionTypeNames[t]
}

func (t ResultPartitionType) isKnown() bool {
	return t >= 0 && int(t) < len(resultPartitionTypeNames)
}

// IsPipelined reports whether consumers read the partition while it is
// being produced.
func (t ResultPartitionType) IsPipelined() bool { return t == PipelinedBounded }

// IsBlocking reports whether consumers read the partition only after it is
// complete.
func (t ResultPartitionType) IsBlocking() bool { return t == Blocking }

// MarshalText encodes the type by its Flink name (also in JSON).
func (t ResultPartitionType) MarshalText() ([]byte, error) {
	if !t.isKnown() {
		return nil, fmt.Errorf("unknown ResultPartitionType %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText decodes a type from its Flink name.
func (t *ResultPartitionType) UnmarshalText(b []byte) error {
	for i, name := range resultPartitionTypeNames {
		if name == string(b) {
			*t = ResultPartitionType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown ResultPartitionType %q: want PIPELINED_BOUNDED or BLOCKING", b)
}
