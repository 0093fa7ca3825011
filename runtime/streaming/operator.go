package streaming

import "fmt"

// ChainingStrategy says whether an operator may be fused into one task with
// its neighbours. It mirrors Flink's
// org.apache.flink.streaming.api.operators.ChainingStrategy.
//
//	ALWAYS             chain to the upstream operator and let downstream ones chain to this one (Map, Filter, sinks, …)
//	NEVER              chain to nobody: DisableChaining()
//	HEAD               start a chain, but let downstream operators chain to this one: StartNewChain(), and every source
//	HEAD_WITH_SOURCES  like HEAD, but still chain to an upstream source
//
// The strategy is one of several chaining conditions; see IsChainable.
type ChainingStrategy int

// The chaining strategies. The zero value is ALWAYS, Flink's
// DEFAULT_CHAINING_STRATEGY.
const (
	Always ChainingStrategy = iota
	Never
	Head
	HeadWithSources
)

var chainingStrategyNames = [...]string{
	Always:          "ALWAYS",
	Never:           "NEVER",
	Head:            "HEAD",
	HeadWithSources: "HEAD_WITH_SOURCES",
}

// String returns Flink's name of the strategy, e.g. "HEAD_WITH_SOURCES".
func (s ChainingStrategy) String() string {
	if s < 0 || int(s) >= len(chainingStrategyNames) {
		return fmt.Sprintf("ChainingStrategy(%d)", int(s))
	}
	return chainingStrategyNames[s]
}

// OperatorKind says which of Flink's operators a StreamNode runs. Its
// String is the Flink class a learner can look up.
type OperatorKind int

// The operator kinds. Sources come first; IsSource tells them apart.
const (
	// CollectionSource emits the elements of FromElements and
	// FromCollection (Flink: StreamSource running a FromElementsFunction).
	CollectionSource OperatorKind = iota + 1
	// TextFileSource emits the lines of a text resource of the job jar
	// (Flink: the ContinuousFileMonitoringFunction and
	// ContinuousFileReaderOperator behind readTextFile).
	TextFileSource
	// SequenceSource emits the numbers From to To inclusive (Flink:
	// StatefulSequenceSource behind generateSequence).
	SequenceSource
	// GeneratorSource emits Generate(0), Generate(1), … at a limited rate
	// (Flink: DataGeneratorSource with a RateLimiterStrategy).
	GeneratorSource
	// MapOperator emits Map(record) for each record (Flink: StreamMap).
	MapOperator
	// FlatMapOperator emits what FlatMap collects for each record (Flink:
	// StreamFlatMap).
	FlatMapOperator
	// FilterOperator emits the records for which Filter is true (Flink:
	// StreamFilter).
	FilterOperator
	// ReduceOperator keeps one value per key and emits it after every
	// record: Reduce(previous, record) (Flink: StreamGroupedReduceOperator,
	// used by reduce and by the aggregations such as sum).
	ReduceOperator
	// BatchReduceOperator keeps one value per key like ReduceOperator, but
	// emits nothing until its input ends, and then the final value of each
	// key once (Flink: BatchGroupedReduceOperator). A keyed reduce or sum
	// becomes one in BATCH mode.
	BatchReduceOperator
	// PrintSink writes each record to standard output (Flink: StreamSink
	// running a PrintSinkFunction).
	PrintSink
	// FunctionSink hands each record to Invoke (Flink: StreamSink running
	// the user's SinkFunction). AddSink and CollectAsync create it.
	FunctionSink
	// TransactionalFileSink writes each record as a line into part files
	// under Path and makes them visible only when a checkpoint that
	// covers them completes: exactly once (Flink: a
	// TwoPhaseCommitSinkFunction, committing files the way FileSink
	// does). SinkToTransactionalFiles creates it.
	TransactionalFileSink
)

var operatorKindNames = map[OperatorKind]string{
	CollectionSource:      "FromElementsFunction",
	TextFileSource:        "ContinuousFileReaderOperator",
	SequenceSource:        "StatefulSequenceSource",
	GeneratorSource:       "DataGeneratorSource",
	MapOperator:           "StreamMap",
	FlatMapOperator:       "StreamFlatMap",
	FilterOperator:        "StreamFilter",
	ReduceOperator:        "StreamGroupedReduceOperator",
	BatchReduceOperator:   "BatchGroupedReduceOperator",
	PrintSink:             "PrintSinkFunction",
	FunctionSink:          "StreamSink",
	TransactionalFileSink: "TwoPhaseCommitSinkFunction",
}

// String returns the name of the Flink class the kind stands for.
func (k OperatorKind) String() string {
	if name, ok := operatorKindNames[k]; ok {
		return name
	}
	return fmt.Sprintf("OperatorKind(%d)", int(k))
}

// IsSource reports whether the operator reads no stream: it starts a
// dataflow and runs as the head of a SourceStreamTask.
func (k OperatorKind) IsSource() bool { return k >= CollectionSource && k <= GeneratorSource }

// IsSink reports whether the operator emits no stream.
func (k OperatorKind) IsSink() bool {
	return k == PrintSink || k == FunctionSink || k == TransactionalFileSink
}

// Operator is what a StreamNode does: its kind, the user function as the
// program wrote it, and the same function with its types erased, ready for
// the runtime to call. Which fields are set depends on Kind:
//
//	CollectionSource      Elements
//	TextFileSource        ResourceName
//	SequenceSource        From, To
//	GeneratorSource       Generate, Count, RecordsPerSecond
//	MapOperator           Map
//	FlatMapOperator       FlatMap
//	FilterOperator        Filter
//	ReduceOperator        Reduce (and the node's KeySelector)
//	BatchReduceOperator   Reduce (and the node's KeySelector)
//	PrintSink             nothing
//	FunctionSink          Invoke
//	TransactionalFileSink Path
//
// Records travel between operators as Go values in an `any`; each erased
// function asserts its input to the type the program declared, so a wrong
// type panics in the task, as a ClassCastException fails a Flink task.
//
// It plays the role of Flink's StreamOperatorFactory: one Operator is
// shared by all subtasks of a node and holds no per-subtask state. A
// subtask that needs state (a reduce's value per key, a source's
// position, the rate limiter) keeps it in the runtime.
//
// Sources are parallel: subtask s of p emits the elements, lines, numbers
// or generated indexes i with i % p == s, in order. A generator's
// RecordsPerSecond is for the whole source; each subtask emits at
// RecordsPerSecond / p (as Flink's RateLimiterStrategy.perSecond divides
// the rate by the parallelism).
type Operator struct {
	Kind OperatorKind
	// UserFunction is the function the program passed, exactly as written
	// (e.g. func(string) int). Sources without a function and Sum leave it
	// nil.
	UserFunction any

	// Elements are the records of a CollectionSource, copied when the
	// program built the stream.
	Elements []any
	// ResourceName names the text resource of the job jar a TextFileSource
	// reads, e.g. "hamlet.txt".
	ResourceName string
	// From and To bound a SequenceSource, both inclusive.
	From, To int64
	// Generate makes the record with the given index for a GeneratorSource.
	Generate func(index int64) any
	// Count is how many records a GeneratorSource emits; Unbounded means
	// it never ends.
	Count int64
	// RecordsPerSecond limits a GeneratorSource's rate, for all its
	// subtasks together; 0 means unlimited.
	RecordsPerSecond float64

	// Map returns the one record a MapOperator emits for record.
	Map func(record any) any
	// FlatMap calls out for each record a FlatMapOperator emits.
	FlatMap func(record any, out func(any))
	// Filter reports whether a FilterOperator keeps record.
	Filter func(record any) bool
	// Reduce combines the value kept for the record's key with the record.
	Reduce func(accumulator, record any) any

	// Invoke hands one record to a FunctionSink. An error fails the task.
	Invoke func(record any) error
	// Path is the directory a TransactionalFileSink writes its part files
	// into (Flink: the base path of FileSink.forRowFormat).
	Path string
}

// Unbounded is the Count of a generator source that never ends (Flink
// passes Long.MAX_VALUE to DataGeneratorSource for the same purpose).
const Unbounded int64 = 1<<63 - 1
