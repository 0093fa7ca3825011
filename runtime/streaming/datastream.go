package streaming

import (
	"errors"
	"fmt"
	"reflect"
)

// DataStream is a stream of records of type T: the result of a source or
// an operator, and the input of the next. It mirrors Flink's DataStream and
// SingleOutputStreamOperator in one type.
//
// # Methods and functions
//
// Go methods cannot have type parameters of their own, so the operations
// that change the record type are package functions taking the stream
// first, and those that keep it are methods:
//
//	words := streaming.FlatMap(lines, tokenize)   // DataStream[string] → DataStream[Tuple2[string, int]]
//	keyed := streaming.KeyBy(words, word)         // → KeyedStream[Tuple2[string, int], string]
//	counts := keyed.Sum(1)                        // method: the type stays
//	counts.Filter(frequent).Print()               // methods
//
// Map, FlatMap and KeyBy are the functions; Filter, the partitionings
// (Rebalance, Rescale, Broadcast, Forward), the sinks and the per-operator
// settings (SetParallelism, Name, Uid, SlotSharingGroup, DisableChaining,
// StartNewChain) are methods. The settings return the stream, so they
// chain: streaming.Map(ds, f).Name("Parse").SetParallelism(2).
type DataStream[T any] struct {
	env *StreamExecutionEnvironment
	t   *transformation
}

// Collector receives the records a FlatMap function emits (Flink's
// org.apache.flink.util.Collector).
type Collector[T any] interface {
	Collect(record T)
}

// collectorFunc adapts the runtime's erased output to a typed Collector.
// A func value fits in an interface without allocating.
type collectorFunc[T any] func(any)

func (f collectorFunc[T]) Collect(record T) { f(record) }

// Map applies mapper to every record (Flink: DataStream.map, operator name
// "Map").
func Map[T, R any](ds *DataStream[T], mapper func(T) R) *DataStream[R] {
	op := Operator{Kind: MapOperator, UserFunction: mapper}
	if mapper != nil {
		op.Map = func(record any) any { return mapper(record.(T)) }
	}
	return transform[R](ds.env, ds.t, "Map", op, mapper == nil)
}

// FlatMap calls flatMapper for every record; it emits zero or more records
// through its Collector (Flink: DataStream.flatMap, operator name
// "Flat Map").
func FlatMap[T, R any](ds *DataStream[T], flatMapper func(T, Collector[R])) *DataStream[R] {
	op := Operator{Kind: FlatMapOperator, UserFunction: flatMapper}
	if flatMapper != nil {
		op.FlatMap = func(record any, out func(any)) { flatMapper(record.(T), collectorFunc[R](out)) }
	}
	return transform[R](ds.env, ds.t, "Flat Map", op, flatMapper == nil)
}

// Filter keeps the records for which filter returns true (Flink:
// DataStream.filter, operator name "Filter").
func (ds *DataStream[T]) Filter(filter func(T) bool) *DataStream[T] {
	op := Operator{Kind: FilterOperator, UserFunction: filter}
	if filter != nil {
		op.Filter = func(record any) bool { return filter(record.(T)) }
	}
	return transform[T](ds.env, ds.t, "Filter", op, filter == nil)
}

// transform adds a one-input operator reading from input. It mirrors
// Flink's DataStream.transform.
func transform[R any](env *StreamExecutionEnvironment, input *transformation, name string, op Operator, nilFunction bool) *DataStream[R] {
	t := env.addTransformation(&transformation{
		kind:             oneInputTransformation,
		name:             name,
		input:            input,
		operator:         op,
		outputType:       reflect.TypeFor[R](),
		chainingStrategy: Always,
	})
	if nilFunction {
		env.fail(fmt.Errorf("%s: the %s function must not be nil", t.describe(), name))
	}
	return &DataStream[R]{env: env, t: t}
}

// KeyBy partitions the stream by key: all records whose key is equal go to
// the same subtask of the next operator, which may keep state per key. The
// edge is HASH: murmur hash of the key's HashCode → key group → subtask
// (see KeyGroupStreamPartitioner). It mirrors Flink's DataStream.keyBy.
//
// K must be a type HashCode accepts (strings, integers, bools, Tuple2 of
// those, or a HashCoder); other key types are a program error. Floats are
// not keys, nor is anything holding a float: Go's == disagrees with their
// hash, which would break keyed state (see checkKeyType). Key by a string
// or integer made from the float instead.
func KeyBy[T any, K comparable](ds *DataStream[T], key func(T) K) *KeyedStream[T, K] {
	var selector func(any) any
	if key != nil {
		selector = func(record any) any { return key(record.(T)) }
	}
	t := ds.env.addTransformation(&transformation{
		kind:        partitionTransformation,
		name:        "Partition",
		input:       ds.t,
		keySelector: selector,
		keyType:     reflect.TypeFor[K](),
		outputType:  ds.t.outputType,
		partitioner: &KeyGroupStreamPartitioner{KeySelector: selector},
	})
	if key == nil {
		ds.env.fail(fmt.Errorf("%s: the KeyBy function must not be nil", t.describe()))
	} else if err := checkKeyType(reflect.TypeFor[K]()); err != nil {
		ds.env.fail(fmt.Errorf("%s: KeyBy on the output of %s: %w", t.describe(), ds.t.describe(), err))
	}
	return &KeyedStream[T, K]{DataStream: DataStream[T]{env: ds.env, t: t}}
}

// Rebalance sends records round robin to all subtasks of the next
// operator (partitioner REBALANCE).
func (ds *DataStream[T]) Rebalance() *DataStream[T] {
	return ds.partition(&RebalancePartitioner{})
}

// Shuffle sends each record to a subtask of the next operator picked at
// random (partitioner SHUFFLE).
func (ds *DataStream[T]) Shuffle() *DataStream[T] {
	return ds.partition(&ShufflePartitioner{})
}

// Rescale sends records round robin to a subset of the next operator's
// subtasks, chosen by a POINTWISE connection (partitioner RESCALE).
func (ds *DataStream[T]) Rescale() *DataStream[T] {
	return ds.partition(&RescalePartitioner{})
}

// Broadcast sends every record to every subtask of the next operator
// (partitioner BROADCAST).
func (ds *DataStream[T]) Broadcast() *DataStream[T] {
	return ds.partition(&BroadcastPartitioner{})
}

// Forward sends each record to the subtask of the next operator with the
// same index (partitioner FORWARD). Both operators must have the same
// parallelism; GetStreamGraph reports an error otherwise.
func (ds *DataStream[T]) Forward() *DataStream[T] {
	return ds.partition(&ForwardPartitioner{})
}

// Union merges this stream with others of the same type into one, in no
// particular order between them (Flink: DataStream#union). It runs
// nothing: the next operator reads every input directly, through the
// network, so it never chains to them (IsChainable: it has several inputs).
func (ds *DataStream[T]) Union(others ...*DataStream[T]) *DataStream[T] {
	inputs := []*transformation{ds.t}
	for _, other := range others {
		if other == nil || other.env != ds.env {
			ds.env.fail(fmt.Errorf("Union of %s: every stream must come from the same StreamExecutionEnvironment", ds.t.describe()))
			return ds
		}
		inputs = append(inputs, other.t)
	}
	t := ds.env.addTransformation(&transformation{
		kind:       unionTransformation,
		name:       "Union",
		inputs:     inputs,
		outputType: ds.t.outputType,
	})
	return &DataStream[T]{env: ds.env, t: t}
}

// partition adds a partition transformation (Flink: DataStream.setConnectionType).
func (ds *DataStream[T]) partition(partitioner StreamPartitioner) *DataStream[T] {
	t := ds.env.addTransformation(&transformation{
		kind:        partitionTransformation,
		name:        "Partition",
		input:       ds.t,
		outputType:  ds.t.outputType,
		partitioner: partitioner,
	})
	return &DataStream[T]{env: ds.env, t: t}
}

// SetParallelism sets how many parallel subtasks run this operator.
func (ds *DataStream[T]) SetParallelism(parallelism int) *DataStream[T] {
	setParallelism(ds.env, ds.t, parallelism)
	return ds
}

// Name sets the operator's name, shown in plans, logs and the web UI.
// Sources and sinks are shown as "Source: <name>" and "Sink: <name>".
func (ds *DataStream[T]) Name(name string) *DataStream[T] {
	setName(ds.env, ds.t, name)
	return ds
}

// Uid sets the operator's stable, user-given ID. Flink matches savepoint
// state to operators by it; it must be unique in the job.
func (ds *DataStream[T]) Uid(uid string) *DataStream[T] {
	setUid(ds.env, ds.t, uid)
	return ds
}

// SlotSharingGroup puts the operator in the named slot sharing group.
// Operators that set none inherit their input's group; sources start in
// "default". Operators of different groups never share a slot, and are
// never chained.
func (ds *DataStream[T]) SlotSharingGroup(slotSharingGroup string) *DataStream[T] {
	setSlotSharingGroup(ds.env, ds.t, SlotSharingGroup{name: slotSharingGroup}, "SlotSharingGroup")
	return ds
}

// DisableChaining keeps the operator out of every chain: its chaining
// strategy becomes NEVER.
func (ds *DataStream[T]) DisableChaining() *DataStream[T] {
	setChainingStrategy(ds.env, ds.t, Never, "DisableChaining")
	return ds
}

// StartNewChain makes the operator start a new chain, which operators
// after it may join: its chaining strategy becomes HEAD.
func (ds *DataStream[T]) StartNewChain() *DataStream[T] {
	setChainingStrategy(ds.env, ds.t, Head, "StartNewChain")
	return ds
}

// SetSlotSharingGroup puts the operator in slotSharingGroup, as
// SlotSharingGroup(name) does, and gives the group the resources it
// carries, if any (Flink: DataStream#slotSharingGroup(SlotSharingGroup)).
// Every operator and RegisterSlotSharingGroup that give a group resources
// must give it the same; a group set by name alone takes them from the
// others. Make the group with NewSlotSharingGroupBuilder.
func (ds *DataStream[T]) SetSlotSharingGroup(slotSharingGroup SlotSharingGroup) *DataStream[T] {
	setSlotSharingGroup(ds.env, ds.t, slotSharingGroup, "SetSlotSharingGroup")
	return ds
}

// SetCoLocationGroupKey puts the operator in the co-location group key:
// subtask i of every operator with the same key runs in the same slot, so
// they must all be in one slot sharing group. "" takes the operator out
// again. Only the key of an operator that heads a chain counts, since a
// JobVertex is co-located as a whole.
//
// Flink has no DataStream method for it: a program calls
// Transformation#setCoLocationGroupKey on getTransformation(), and Flink
// itself co-locates the head and tail of an iteration
// ("IterationCoLocationGroup-" + loopId).
func (ds *DataStream[T]) SetCoLocationGroupKey(key string) *DataStream[T] {
	if checkIsOperator(ds.env, ds.t, "SetCoLocationGroupKey") {
		ds.t.coLocationGroupKey = key
	}
	return ds
}

// KeyedStream is a stream partitioned by key, made by KeyBy. Its
// operators (Reduce, Sum) keep one value per key. It mirrors Flink's
// KeyedStream; the embedded DataStream lets other operators read it too.
type KeyedStream[T any, K comparable] struct {
	DataStream[T]
}

// Reduce combines each record with the value kept for its key and emits
// the result, which becomes the new value: a running reduce (Flink:
// KeyedStream.reduce, operator name "Keyed Reduce"). In BATCH mode it is
// not rolling: it emits only the final value of each key, when its input
// ends (see the package doc's "Runtime modes").
func (ks *KeyedStream[T, K]) Reduce(reducer func(T, T) T) *DataStream[T] {
	op := Operator{Kind: ReduceOperator, UserFunction: reducer}
	if reducer != nil {
		op.Reduce = func(accumulator, record any) any { return reducer(accumulator.(T), record.(T)) }
	}
	return ks.keyed("Keyed Reduce", op, reducer == nil)
}

// Sum keeps a running sum per key of the field at position and emits it
// after every record (Flink: KeyedStream.sum, operator name
// "Keyed Aggregation"); in BATCH mode it emits only the final sum of each
// key, when its input ends. For a struct record, position counts the
// struct's fields from 0 (Tuple2's F1 is position 1); the other fields
// come from the first record of the key. For a number record, position
// must be 0.
func (ks *KeyedStream[T, K]) Sum(position int) *DataStream[T] {
	sum, err := sumAggregator[T](position)
	op := Operator{Kind: ReduceOperator}
	if err == nil {
		op.Reduce = func(accumulator, record any) any { return sum(accumulator.(T), record.(T)) }
	}
	ds := ks.keyed("Keyed Aggregation", op, false)
	if err != nil {
		ks.env.fail(fmt.Errorf("%s: %w", ds.t.describe(), err))
	}
	return ds
}

// keyed adds a keyed one-input operator: it reads through the KeyBy and
// keeps the key selector, which its runtime needs for per-key state.
func (ks *KeyedStream[T, K]) keyed(name string, op Operator, nilFunction bool) *DataStream[T] {
	ds := transform[T](ks.env, ks.t, name, op, nilFunction)
	ds.t.keySelector = ks.t.keySelector
	ds.t.keyType = ks.t.keyType
	return ds
}

// The per-operator settings, shared by DataStream and DataStreamSink.
// Calling one on a partitioned stream (after Rebalance, KeyBy, …) is a
// program error: such a stream is no operator. Flink's type system rules
// this out, because only SingleOutputStreamOperator has these methods.

func setParallelism(env *StreamExecutionEnvironment, t *transformation, parallelism int) {
	if !checkIsOperator(env, t, "SetParallelism") {
		return
	}
	if parallelism < 1 {
		env.fail(fmt.Errorf("%s: The parallelism of an operator must be at least 1, found %d.", t.describe(), parallelism))
		return
	}
	t.parallelism = parallelism
}

func setName(env *StreamExecutionEnvironment, t *transformation, name string) {
	if checkIsOperator(env, t, "Name") {
		t.name = name
	}
}

func setUid(env *StreamExecutionEnvironment, t *transformation, uid string) {
	if !checkIsOperator(env, t, "Uid") {
		return
	}
	if uid == "" {
		env.fail(fmt.Errorf("%s: the uid must not be empty", t.describe()))
		return
	}
	t.uid = uid
}

func setSlotSharingGroup(env *StreamExecutionEnvironment, t *transformation, group SlotSharingGroup, method string) {
	if !checkIsOperator(env, t, method) {
		return
	}
	if group.name == "" {
		env.fail(fmt.Errorf("%s: %w", t.describe(), errEmptySlotSharingGroupName))
		return
	}
	t.slotSharingGroup = group
}

func setChainingStrategy(env *StreamExecutionEnvironment, t *transformation, strategy ChainingStrategy, method string) {
	if checkIsOperator(env, t, method) {
		t.chainingStrategy = strategy
	}
}

// errNotAnOperator is wrapped when a setting is applied to a partitioned
// stream or a union.
var errNotAnOperator = errors.New("only operators have this setting, and a partitioned stream or a union is no operator")

func checkIsOperator(env *StreamExecutionEnvironment, t *transformation, method string) bool {
	if t.isOperator() {
		return true
	}
	env.fail(fmt.Errorf("%s() on %s: %w; call it on the operator before or after", method, t.describe(), errNotAnOperator))
	return false
}
