package streaming

import (
	"fmt"
	"reflect"
)

// transformationKind tells the five kinds of transformation apart.
type transformationKind int

const (
	// sourceTransformation starts a stream (Flink: LegacySourceTransformation).
	sourceTransformation transformationKind = iota
	// oneInputTransformation applies an operator to one stream (Flink:
	// OneInputTransformation).
	oneInputTransformation
	// sinkTransformation ends a stream (Flink: LegacySinkTransformation).
	sinkTransformation
	// partitionTransformation changes how a stream is distributed to the
	// next operator, and runs nothing itself (Flink: PartitionTransformation).
	// It becomes no StreamNode, only the partitioner of the edges that read
	// through it.
	partitionTransformation
	// unionTransformation merges several streams of one type into one, and
	// runs nothing itself either (Flink: UnionTransformation). It becomes no
	// StreamNode: the operator that reads it gets an edge from each input.
	unionTransformation
)

// transformation is one step of the program, as the DataStream API records
// it: Flink's org.apache.flink.api.dag.Transformation. Every call that makes
// a new stream (a source, Map, KeyBy, Print, …) creates one and gives it the
// next ID: 1, 2, 3, … in the order the program runs. Setting methods such
// as SetParallelism change the transformation of the stream they are called
// on.
type transformation struct {
	id     int
	kind   transformationKind
	name   string            // without the "Source: " or "Sink: " prefix
	input  *transformation   // the one input; nil for sources and unions
	inputs []*transformation // union transformations only

	operator    Operator
	keySelector func(record any) any // keyed operators only
	keyType     reflect.Type         // the key selector's result type; keyed operators only
	outputType  reflect.Type         // nil for sinks

	partitioner StreamPartitioner // partition transformations only

	parallelism      int              // 0: the environment's parallelism
	slotSharingGroup SlotSharingGroup // no name: inherited from the input, or "default"
	uid              string
	chainingStrategy ChainingStrategy
	// coLocationGroupKey is Flink's Transformation#coLocationGroupKey; "": none.
	coLocationGroupKey string
}

// isOperator reports whether the transformation becomes a StreamNode, and so
// has the per-operator settings.
func (t *transformation) isOperator() bool {
	return t.kind != partitionTransformation && t.kind != unionTransformation
}

// upstream returns what the transformation reads: its input, or a union's
// inputs.
func (t *transformation) upstream() []*transformation {
	if t.kind == unionTransformation {
		return t.inputs
	}
	if t.input == nil {
		return nil
	}
	return []*transformation{t.input}
}

// describe names the transformation in error messages, e.g. "Map (id 3)".
func (t *transformation) describe() string { return fmt.Sprintf("%s (id %d)", t.name, t.id) }
