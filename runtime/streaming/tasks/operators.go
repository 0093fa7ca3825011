package tasks

import (
	"fmt"
	"io"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/streaming"
)

// streamOperator is one operator of a chain, as the task drives it: Open
// before the first record (while the task is INITIALIZING), Close after
// the last. It mirrors Flink's StreamOperator (open, close; finish and
// the snapshot methods come with checkpoints).
type streamOperator interface {
	open() error
	close() error
}

// oneInputStreamOperator is an operator that reads one stream: the chain
// (or, for the head of a OneInputStreamTask, the input gate) hands it each
// record. It mirrors Flink's OneInputStreamOperator#processElement.
type oneInputStreamOperator interface {
	streamOperator
	processElement(record any) error
}

// boundedOneInput is an operator that wants to know when its input has
// ended: the task calls endInput once, after the last record and before
// it flushes the outputs and closes the operators, so what endInput emits
// still reaches the consumers. It mirrors Flink's BoundedOneInput.
type boundedOneInput interface {
	endInput() error
}

// output is where an operator emits its records: the next operator of the
// chain, or a record writer to another task. It mirrors Flink's Output
// (collect). An error is the next operator's failure, or the network's:
// the task stops with it.
type output interface {
	collect(record any) error
}

// RichFunction is a user function with a life of its own: Open is called
// before the first record, when the operator opens (in INITIALIZING),
// and Close after the last. It mirrors Flink's RichFunction (open(OpenContext),
// close()). An operator calls them when its user function, the value the
// program passed (StreamNode.Operator.UserFunction), implements this
// interface. An error from Open fails the task from INITIALIZING.
type RichFunction interface {
	Open() error
	Close() error
}

// abstractUdfStreamOperator is the part every operator with a user function
// shares: opening and closing that function if it is a RichFunction. It
// mirrors Flink's AbstractUdfStreamOperator, which calls
// FunctionUtils.openFunction and closeFunction.
type abstractUdfStreamOperator struct {
	userFunction any
}

func (o *abstractUdfStreamOperator) open() error {
	if rich, ok := o.userFunction.(RichFunction); ok {
		return rich.Open()
	}
	return nil
}

func (o *abstractUdfStreamOperator) close() error {
	if rich, ok := o.userFunction.(RichFunction); ok {
		return rich.Close()
	}
	return nil
}

// streamMap emits map(record) for every record (Flink: StreamMap).
type streamMap struct {
	abstractUdfStreamOperator
	mapper func(any) any
	out    output
}

func (o *streamMap) processElement(record any) error { return o.out.collect(o.mapper(record)) }

// streamFilter emits the records the filter keeps (Flink: StreamFilter).
type streamFilter struct {
	abstractUdfStreamOperator
	filter func(any) bool
	out    output
}

func (o *streamFilter) processElement(record any) error {
	if o.filter(record) {
		return o.out.collect(record)
	}
	return nil
}

// streamFlatMap emits what the user's function collects for every record
// (Flink: StreamFlatMap with a TimestampedCollector). The user's Collector
// cannot return an error, so the first error of the output is kept, the
// records collected after it are dropped, and processElement returns it.
type streamFlatMap struct {
	abstractUdfStreamOperator
	flatMapper func(any, func(any))
	out        output
	// collector is o.collectRecord, bound once so that no record
	// allocates a closure.
	collector func(any)
	err       error
}

func newStreamFlatMap(userFunction any, flatMapper func(any, func(any)), out output) *streamFlatMap {
	o := &streamFlatMap{abstractUdfStreamOperator: abstractUdfStreamOperator{userFunction}, flatMapper: flatMapper, out: out}
	o.collector = o.collectRecord
	return o
}

func (o *streamFlatMap) processElement(record any) error {
	o.err = nil
	o.flatMapper(record, o.collector)
	return o.err
}

func (o *streamFlatMap) collectRecord(record any) {
	if o.err == nil {
		o.err = o.out.collect(record)
	}
}

// streamGroupedReduce keeps one value per key and emits it after every
// record: the record itself for the key's first record, reduce(value,
// record) afterwards. KeyedStream.Reduce and Sum run it. It mirrors
// Flink's StreamGroupedReduceOperator, whose ValueState lives in the keyed
// state backend.
type streamGroupedReduce struct {
	abstractUdfStreamOperator
	reduce      func(accumulator, record any) any
	keySelector func(any) any
	state       *heapKeyedStateBackend
	out         output
}

// snapshotState copies the values of every key (Flink: the ValueState in
// the HeapKeyedStateBackend, snapshotted by key group).
func (o *streamGroupedReduce) snapshotState(int64) (operatorSnapshot, error) {
	keyed, err := o.state.snapshot()
	return operatorSnapshot{keyed: keyed}, err
}

// initializeState reads back the values of the keys of this subtask's
// key groups.
func (o *streamGroupedReduce) initializeState(_ int64, restored checkpoint.OperatorSubtaskState) error {
	return o.state.restore(restored.ManagedKeyedState)
}

func (o *streamGroupedReduce) processElement(record any) error {
	value, _, err := reduceIntoState(o.state, o.keySelector, o.reduce, record)
	if err != nil {
		return err
	}
	return o.out.collect(value)
}

// reduceIntoState is what both reduce operators do with a record: find its
// key's value in the keyed state (Flink: setCurrentKey), reduce the record
// into it, or start it with the record, and keep the result. It returns the
// new value, and whether it is the key's first.
func reduceIntoState(state *heapKeyedStateBackend, keySelector func(any) any, reduce func(accumulator, record any) any,
	record any) (value any, first bool, err error) {
	key := keySelector(record)
	values, err := state.stateMapForKey(key)
	if err != nil {
		return nil, false, err
	}
	value = record
	accumulator, seen := values[key]
	if seen {
		value = reduce(accumulator, record)
	}
	values[key] = value
	return value, !seen, nil
}

// batchGroupedReduce keeps one value per key, as streamGroupedReduce
// does, but emits nothing while records arrive: when its input ends it
// emits the final value of every key, once, and forgets it. KeyedStream's
// Reduce and Sum run it in BATCH mode ("In BATCH mode, these operations
// are not rolling. They emit only the final result"), so WordCount prints
// one count per word. It mirrors Flink's BatchGroupedReduceOperator, which
// registers a timer for the end of time on the first record of each key
// and emits the key's value when that timer fires, at the end of input.
//
// The keys are emitted in the order their first records arrived (keys
// holds that order, one entry per key, as Flink holds one timer per key).
type batchGroupedReduce struct {
	abstractUdfStreamOperator
	reduce      func(accumulator, record any) any
	keySelector func(any) any
	state       *heapKeyedStateBackend
	keys        []any
	out         output
}

func (o *batchGroupedReduce) processElement(record any) error {
	_, first, err := reduceIntoState(o.state, o.keySelector, o.reduce, record)
	if first {
		o.keys = append(o.keys, o.keySelector(record)) // Flink: registerEventTimeTimer(Long.MAX_VALUE)
	}
	return err
}

// endInput emits the final value of each key (Flink: endInput, which
// fires the end-of-time timers through onEventTime).
func (o *batchGroupedReduce) endInput() error {
	for _, key := range o.keys {
		values, err := o.state.stateMapForKey(key)
		if err != nil {
			return err
		}
		value := values[key]
		delete(values, key) // Flink: values.clear()
		if err := o.out.collect(value); err != nil {
			return err
		}
	}
	o.keys = nil
	return nil
}

// printSink writes each record on a line of its own, prefixed with the
// subtask's index + 1 when the sink runs in more than one subtask:
// "3> (to,2)". It mirrors Flink's PrintSinkFunction (PrintSinkOutputWriter).
type printSink struct {
	abstractUdfStreamOperator
	prefix string
	stdout io.Writer
	line   []byte // reused for every record
}

func newPrintSink(subtaskIndex, parallelism int) *printSink {
	s := &printSink{}
	if parallelism > 1 {
		s.prefix = fmt.Sprintf("%d> ", subtaskIndex+1)
	}
	return s
}

func (s *printSink) open() error {
	s.stdout = currentStdout()
	return nil
}

func (s *printSink) processElement(record any) error {
	s.line = append(s.line[:0], s.prefix...)
	s.line = fmt.Append(s.line, record)
	s.line = append(s.line, '\n')
	_, err := s.stdout.Write(s.line) // one Write per line: lines of subtasks do not mix
	return err
}

// functionSink hands each record to the user's sink function (Flink:
// StreamSink running a SinkFunction). AddSink and CollectAsync make it.
type functionSink struct {
	abstractUdfStreamOperator
	invoke func(any) error
}

func (s *functionSink) processElement(record any) error { return s.invoke(record) }

// discardingOutput drops every record. An operator whose output nobody
// reads gets it; the StreamGraph leaves such operators out, so it is only
// a safe default.
type discardingOutput struct{}

func (discardingOutput) collect(any) error { return nil }

// chainingOutput hands a record to the next operator of the chain: a
// function call, no copy, no serialization. It mirrors Flink's
// ChainingOutput (Flink's default CopyingChainingOutput also deep-copies
// each record; Go records are values, see the package doc).
type chainingOutput struct {
	operator oneInputStreamOperator
}

func (o chainingOutput) collect(record any) error { return o.operator.processElement(record) }

// broadcastingOutput hands each record to several outputs, in the order of
// the operator's out edges. It mirrors Flink's BroadcastingOutputCollector.
type broadcastingOutput []output

func (outputs broadcastingOutput) collect(record any) error {
	for _, out := range outputs {
		if err := out.collect(record); err != nil {
			return err
		}
	}
	return nil
}

// newOneInputOperator makes the operator of a non-source node.
func newOneInputOperator(node *streaming.StreamNode, out output, subtaskIndex, parallelism int) (oneInputStreamOperator, error) {
	op := node.Operator
	udf := abstractUdfStreamOperator{op.UserFunction}
	switch op.Kind {
	case streaming.MapOperator:
		if op.Map != nil {
			return &streamMap{udf, op.Map, out}, nil
		}
	case streaming.FilterOperator:
		if op.Filter != nil {
			return &streamFilter{udf, op.Filter, out}, nil
		}
	case streaming.FlatMapOperator:
		if op.FlatMap != nil {
			return newStreamFlatMap(op.UserFunction, op.FlatMap, out), nil
		}
	case streaming.ReduceOperator:
		if op.Reduce != nil && node.KeySelector != nil {
			state := newHeapKeyedStateBackend(node.MaxParallelism, parallelism, subtaskIndex)
			state.createSerializers(node.KeyType, node.OutputType)
			return &streamGroupedReduce{udf, op.Reduce, node.KeySelector, state, out}, nil
		}
	case streaming.BatchReduceOperator:
		if op.Reduce != nil && node.KeySelector != nil {
			state := newHeapKeyedStateBackend(node.MaxParallelism, parallelism, subtaskIndex)
			return &batchGroupedReduce{abstractUdfStreamOperator: udf, reduce: op.Reduce, keySelector: node.KeySelector, state: state, out: out}, nil
		}
	case streaming.PrintSink:
		return newPrintSink(subtaskIndex, parallelism), nil
	case streaming.FunctionSink:
		if op.Invoke != nil {
			return &functionSink{udf, op.Invoke}, nil
		}
	case streaming.TransactionalFileSink:
		return newTransactionalFileSink(op.Path, subtaskShare{subtaskIndex, parallelism}), nil
	default:
		return nil, fmt.Errorf("%v: a %v cannot run inside a chain", node, op.Kind)
	}
	return nil, fmt.Errorf("%v: the %v has no function", node, op.Kind)
}
