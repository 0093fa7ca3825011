package streaming

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// The sources. Each adds a source transformation whose node is shown as
// "Source: <name>", has chaining strategy HEAD (a source always heads its
// chain) and runs in a SourceStreamTask. All of them are parallel: see
// Operator for how subtasks share the work.

// FromElements creates a stream of the given elements, in order (Flink:
// StreamExecutionEnvironment.fromElements, source name "Collection Source").
// At least one element is required.
func FromElements[T any](env *StreamExecutionEnvironment, elements ...T) *DataStream[T] {
	ds := addSource[T](env, "Collection Source", Operator{Kind: CollectionSource, Elements: toAny(elements)})
	if len(elements) == 0 {
		env.fail(fmt.Errorf("%s: fromElements needs at least one element as argument", ds.t.describe()))
	}
	return ds
}

// FromCollection creates a stream of the collection's elements, in order
// (Flink: StreamExecutionEnvironment.fromCollection, source name
// "Collection Source"). The elements are copied now, so later changes to
// the slice do not show. The collection must not be empty.
func FromCollection[T any](env *StreamExecutionEnvironment, collection []T) *DataStream[T] {
	ds := addSource[T](env, "Collection Source", Operator{Kind: CollectionSource, Elements: toAny(collection)})
	if len(collection) == 0 {
		env.fail(fmt.Errorf("%s: %w", ds.t.describe(), errors.New("Collection must not be empty")))
	}
	return ds
}

// ReadTextFile creates a stream of the lines of a text resource inside the
// job jar, e.g. "hamlet.txt" (Flink: StreamExecutionEnvironment.readTextFile,
// source name "Custom File Source"). Only the resource name is recorded
// here; the task reads the jar it downloaded at deployment (step m10).
//
// Differs from Flink: Flink reads a file system path, and its plan shows a
// monitoring source and a "Split Reader" operator; here one source reads a
// resource of the job jar, so the input travels with the job.
func (env *StreamExecutionEnvironment) ReadTextFile(resourceName string) *DataStream[string] {
	ds := addSource[string](env, "Custom File Source", Operator{Kind: TextFileSource, ResourceName: resourceName})
	if strings.TrimSpace(resourceName) == "" {
		env.fail(fmt.Errorf("%s: The file path must not be null or blank.", ds.t.describe()))
	}
	return ds
}

// GenerateSequence creates the stream from, from+1, …, to (Flink:
// StreamExecutionEnvironment.generateSequence, source name "Sequence Source").
func (env *StreamExecutionEnvironment) GenerateSequence(from, to int64) *DataStream[int64] {
	ds := addSource[int64](env, "Sequence Source", Operator{Kind: SequenceSource, From: from, To: to})
	if from > to {
		env.fail(fmt.Errorf("%s: Start of sequence must not be greater than the end", ds.t.describe()))
	}
	return ds
}

// FromGenerator creates a stream of generatorFunction(0), generatorFunction(1),
// … up to count records (Unbounded for a stream that never ends), at most
// recordsPerSecond records per second over all subtasks (0: as fast as
// possible). It mirrors Flink's DataGeneratorSource with
// RateLimiterStrategy.perSecond; the source name is "Generator Source".
// Only the rate is recorded here: the task limits it with its own clock.
func FromGenerator[T any](env *StreamExecutionEnvironment, generatorFunction func(index int64) T, count int64, recordsPerSecond float64) *DataStream[T] {
	op := Operator{
		Kind:             GeneratorSource,
		UserFunction:     generatorFunction,
		Count:            count,
		RecordsPerSecond: recordsPerSecond,
	}
	if generatorFunction != nil {
		op.Generate = func(index int64) any { return generatorFunction(index) }
	}
	ds := addSource[T](env, "Generator Source", op)
	switch {
	case generatorFunction == nil:
		env.fail(fmt.Errorf("%s: the generator function must not be nil", ds.t.describe()))
	case count < 0:
		env.fail(fmt.Errorf("%s: the count must not be negative, found %d", ds.t.describe(), count))
	case recordsPerSecond < 0:
		env.fail(fmt.Errorf("%s: the rate must not be negative, found %v records per second", ds.t.describe(), recordsPerSecond))
	}
	return ds
}

// addSource adds a source transformation (Flink: StreamExecutionEnvironment.addSource).
func addSource[T any](env *StreamExecutionEnvironment, name string, op Operator) *DataStream[T] {
	t := env.addTransformation(&transformation{
		kind:             sourceTransformation,
		name:             name,
		operator:         op,
		outputType:       reflect.TypeFor[T](),
		chainingStrategy: Head,
	})
	return &DataStream[T]{env: env, t: t}
}

// toAny copies typed records into the erased form the runtime handles.
func toAny[T any](records []T) []any {
	erased := make([]any, len(records))
	for i, r := range records {
		erased[i] = r
	}
	return erased
}
