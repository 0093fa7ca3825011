package streaming

import (
	"fmt"
	"reflect"
)

// Tuple2 is a record of two fields, Flink's
// org.apache.flink.api.java.tuple.Tuple2. WordCount emits (word, 1) as a
// Tuple2[string, int], keys by F0 and sums F1:
//
//	counts := streaming.KeyBy(words, func(t streaming.Tuple2[string, int]) string { return t.F0 }).Sum(1)
//
// Field positions count from 0, so Sum(1) sums F1, as Flink's sum(1) sums f1.
type Tuple2[T0, T1 any] struct {
	F0 T0
	F1 T1
}

// Tuple2Of returns the tuple (f0, f1), as Flink's Tuple2.of.
func Tuple2Of[T0, T1 any](f0 T0, f1 T1) Tuple2[T0, T1] {
	return Tuple2[T0, T1]{F0: f0, F1: f1}
}

// String prints the tuple as Flink does: "(hello,1)".
func (t Tuple2[T0, T1]) String() string { return fmt.Sprintf("(%v,%v)", t.F0, t.F1) }

// HashCode is Flink's Tuple2.hashCode: 31 * hash(f0) + hash(f1). It lets a
// whole tuple be a key. Both fields must be valid keys themselves (KeyBy
// checks this).
func (t Tuple2[T0, T1]) HashCode() int32 {
	return 31*HashCode(any(t.F0)) + HashCode(any(t.F1))
}

// fieldTypes lets checkKeyType look inside a tuple key.
func (t Tuple2[T0, T1]) fieldTypes() []reflect.Type {
	return []reflect.Type{reflect.TypeFor[T0](), reflect.TypeFor[T1]()}
}

// tuple is implemented by the tuple types, whose fields must be keys too
// when the tuple is a key.
type tuple interface{ fieldTypes() []reflect.Type }
