package streaming

import (
	"errors"
	"fmt"
	"strings"
)

// RuntimeExecutionMode says how a program's dataflow runs: as a stream
// that may never end, or as a batch job over bounded input. It mirrors
// Flink's org.apache.flink.api.common.RuntimeExecutionMode, the type of the
// option execution.runtime-mode (RuntimeModeKey):
//
//	STREAMING  the default. Every exchange between tasks is pipelined, every
//	           task runs from the start, and a keyed aggregation emits its
//	           running result after every record.
//	BATCH      for bounded input only. Every exchange between tasks is
//	           blocking, so the stages of the job run one after another,
//	           and a keyed aggregation emits only its final result per key.
//	AUTOMATIC  BATCH if every source is bounded, STREAMING otherwise.
//
// A program chooses with StreamExecutionEnvironment.SetRuntimeMode. The
// StreamGraph holds the mode it was built in (StreamGraph.RuntimeMode),
// which is never AUTOMATIC: the generator resolves it (see
// shouldExecuteInBatchMode). The package doc's "Runtime modes" tells what
// BATCH changes.
type RuntimeExecutionMode int

// The runtime execution modes. The zero value is STREAMING, Flink's
// default.
const (
	// Streaming runs the pipeline with streaming semantics: all tasks at
	// once, pipelined exchanges, rolling aggregations.
	Streaming RuntimeExecutionMode = iota
	// Batch runs the pipeline with batch semantics: stages one after
	// another over blocking exchanges, aggregations that emit only their
	// final result. Every source must be bounded.
	Batch
	// Automatic is Batch when every source is bounded, Streaming when at
	// least one is not.
	Automatic
)

var runtimeExecutionModeNames = [...]string{
	Streaming: "STREAMING",
	Batch:     "BATCH",
	Automatic: "AUTOMATIC",
}

// RuntimeModeKey is the key of the option that chooses the runtime mode:
// Flink's ExecutionOptions.RUNTIME_MODE, default STREAMING.
const RuntimeModeKey = "execution.runtime-mode"

// ErrUnknownRuntimeExecutionMode is wrapped by ParseRuntimeExecutionMode
// for a value that names no mode. Its text is the one Flink's
// ConfigurationUtils#convertToEnum gives, double brackets included.
var ErrUnknownRuntimeExecutionMode = errors.New("Could not parse value for enum class org.apache.flink.api.common.RuntimeExecutionMode. Expected one of: [[STREAMING, BATCH, AUTOMATIC]]")

// ErrUnboundedSourceInBatch is returned when a program in BATCH mode reads
// a source that never ends (FromGenerator with Unbounded records): a batch
// job must be able to finish each stage before the next one starts. The
// text is Flink's, from StreamGraphGenerator#shouldExecuteInBatchMode.
var ErrUnboundedSourceInBatch = errors.New("Detected an UNBOUNDED source with the '" + RuntimeModeKey + "' set to 'BATCH'. " +
	"This combination is not allowed, please set the '" + RuntimeModeKey + "' to STREAMING or AUTOMATIC")

// String returns Flink's name of the mode: "STREAMING", "BATCH" or
// "AUTOMATIC".
func (m RuntimeExecutionMode) String() string {
	if !m.isKnown() {
		return fmt.Sprintf("RuntimeExecutionMode(%d)", int(m))
	}
	return runtimeExecutionModeNames[m]
}

func (m RuntimeExecutionMode) isKnown() bool {
	return m >= 0 && int(m) < len(runtimeExecutionModeNames)
}

// ParseRuntimeExecutionMode reads a value of execution.runtime-mode the
// way Flink reads any enum option: it compares the value with each mode's
// name in upper case, so "batch", "Batch" and "BATCH" are all BATCH.
// Nothing is trimmed: " batch" is no mode. An unknown value is an error
// wrapping ErrUnknownRuntimeExecutionMode, with Flink's text:
//
//	Could not parse value 'bacth' for key 'execution.runtime-mode'. Caused by: Could not parse value for enum class org.apache.flink.api.common.RuntimeExecutionMode. Expected one of: [[STREAMING, BATCH, AUTOMATIC]]
func ParseRuntimeExecutionMode(text string) (RuntimeExecutionMode, error) {
	upper := strings.ToUpper(text) // Java: toUpperCase(Locale.ROOT)
	for mode, name := range runtimeExecutionModeNames {
		if upper == name {
			return RuntimeExecutionMode(mode), nil
		}
	}
	return Streaming, fmt.Errorf("Could not parse value '%s' for key '%s'. Caused by: %w", text, RuntimeModeKey, ErrUnknownRuntimeExecutionMode)
}

// shouldExecuteInBatchMode resolves the mode the program configured into
// the mode its StreamGraph is built in. It mirrors the method of that name
// in Flink's StreamGraphGenerator, which looks at the sources of the
// transformations that are translated (here: the needed ones):
//
//	configured  every source bounded  some source unbounded
//	STREAMING   STREAMING             STREAMING
//	BATCH       BATCH                 ErrUnboundedSourceInBatch
//	AUTOMATIC   BATCH                 STREAMING
func shouldExecuteInBatchMode(configured RuntimeExecutionMode, needed map[*transformation]bool) (bool, error) {
	existsUnboundedSource := false
	for t := range needed {
		if isUnboundedSource(t) {
			existsUnboundedSource = true
			break
		}
	}
	if configured == Batch && existsUnboundedSource {
		return false, ErrUnboundedSourceInBatch
	}
	if configured != Automatic {
		return configured == Batch, nil
	}
	return !existsUnboundedSource, nil
}

// isUnboundedSource reports whether t is a source that never ends. Every
// source here is bounded but a generator of Unbounded records (Flink asks
// the source for its Boundedness: BOUNDED or CONTINUOUS_UNBOUNDED).
func isUnboundedSource(t *transformation) bool {
	return t.kind == sourceTransformation && t.operator.Kind == GeneratorSource && t.operator.Count == Unbounded
}
