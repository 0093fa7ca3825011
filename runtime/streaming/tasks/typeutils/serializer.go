package typeutils

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"flinklab/runtime/streaming"
)

// TypeSerializer turns the records of one Go type into bytes and back. It
// mirrors Flink's TypeSerializer (serialize into a DataOutputView,
// deserialize from a DataInputView), with a byte slice for the views.
type TypeSerializer interface {
	// Serialize appends the bytes of record to target and returns the
	// extended slice. A record of another type than the serializer's is an
	// error.
	Serialize(record any, target []byte) ([]byte, error)
	// Deserialize returns the record whose bytes are source: exactly what
	// one Serialize appended. It does not keep source.
	Deserialize(source []byte) (any, error)
	// Type returns the Go type of the records.
	Type() reflect.Type
	// String names the serializer, e.g. "StringSerializer" or
	// "Tuple2Serializer[string,int]".
	String() string
}

// ErrCorruptRecord is wrapped by Deserialize when the bytes are not a
// record of the serializer's type.
var ErrCorruptRecord = errors.New("corrupt record")

// ErrWrongType is wrapped by Serialize when the record is not of the
// serializer's type (Flink: a ClassCastException in serialize).
var ErrWrongType = errors.New("record of the wrong type")

// ErrNotSerializable is wrapped by CreateSerializer for types no
// serializer can handle: funcs, channels and unsafe pointers.
var ErrNotSerializable = errors.New("type cannot be serialized")

// CreateSerializer returns the serializer of records of type t: a fast one
// for string, int, int64, float64, bool and streaming.Tuple2 of two of
// those, and the gob serializer for every other type. It mirrors Flink's
// TypeInformation#createSerializer. A nil type, and types holding funcs,
// channels or unsafe pointers, are an error wrapping ErrNotSerializable.
func CreateSerializer(t reflect.Type) (TypeSerializer, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: no type", ErrNotSerializable)
	}
	if s, ok := fastSerializers[t]; ok {
		return s, nil
	}
	if err := checkSerializable(t, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	return &gobSerializer{t: t}, nil
}

// checkSerializable rejects types that contain what gob cannot encode.
// Pointers, slices, arrays and maps are looked into; an interface may hold
// anything and is left to gob.
func checkSerializable(t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return fmt.Errorf("%w: %v", ErrNotSerializable, t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkSerializable(t.Elem(), seen)
	case reflect.Map:
		if err := checkSerializable(t.Key(), seen); err != nil {
			return err
		}
		return checkSerializable(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				if err := checkSerializable(f.Type, seen); err != nil {
					return fmt.Errorf("field %s of %v: %w", f.Name, t, err)
				}
			}
		}
	}
	return nil
}

// fieldCodec writes and reads values of one type inside a record: the
// building block of the fast serializers.
type fieldCodec[T any] struct {
	name string
	// put appends v to b.
	put func(b []byte, v T) []byte
	// get reads a value from the front of b and returns how many bytes it
	// took; n <= 0 means b holds no complete value.
	get func(b []byte) (v T, n int)
}

var (
	stringCodec = fieldCodec[string]{
		name: "string",
		put: func(b []byte, v string) []byte {
			b = binary.AppendUvarint(b, uint64(len(v)))
			return append(b, v...)
		},
		get: func(b []byte) (string, int) {
			length, n := binary.Uvarint(b)
			if n <= 0 || length > uint64(len(b)-n) {
				return "", 0
			}
			end := n + int(length)
			return string(b[n:end]), end
		},
	}
	intCodec = fieldCodec[int]{
		name: "int",
		put:  func(b []byte, v int) []byte { return binary.AppendVarint(b, int64(v)) },
		get: func(b []byte) (int, int) {
			v, n := binary.Varint(b)
			return int(v), n
		},
	}
	int64Codec = fieldCodec[int64]{
		name: "int64",
		put:  binary.AppendVarint,
		get:  binary.Varint,
	}
	float64Codec = fieldCodec[float64]{
		name: "float64",
		put: func(b []byte, v float64) []byte {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		},
		get: func(b []byte) (float64, int) {
			if len(b) < 8 {
				return 0, 0
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8
		},
	}
	boolCodec = fieldCodec[bool]{
		name: "bool",
		put: func(b []byte, v bool) []byte {
			if v {
				return append(b, 1)
			}
			return append(b, 0)
		},
		get: func(b []byte) (bool, int) {
			if len(b) < 1 || b[0] > 1 {
				return false, 0
			}
			return b[0] == 1, 1
		},
	}
)

// fastSerializers holds the serializer of every type with a fast path. It
// is filled once, by init, and only read afterwards.
var fastSerializers = map[reflect.Type]TypeSerializer{}

func init() {
	registerScalar(stringCodec, "StringSerializer")
	registerScalar(intCodec, "IntSerializer")
	registerScalar(int64Codec, "LongSerializer")
	registerScalar(float64Codec, "DoubleSerializer")
	registerScalar(boolCodec, "BooleanSerializer")

	// Tuple2 of any two of the scalar types: 25 instantiations.
	registerTuple2sWithF0(stringCodec)
	registerTuple2sWithF0(intCodec)
	registerTuple2sWithF0(int64Codec)
	registerTuple2sWithF0(float64Codec)
	registerTuple2sWithF0(boolCodec)
}

func registerScalar[T any](codec fieldCodec[T], name string) {
	fastSerializers[reflect.TypeFor[T]()] = &scalarSerializer[T]{codec: codec, name: name}
}

func registerTuple2sWithF0[A any](f0 fieldCodec[A]) {
	registerTuple2(f0, stringCodec)
	registerTuple2(f0, intCodec)
	registerTuple2(f0, int64Codec)
	registerTuple2(f0, float64Codec)
	registerTuple2(f0, boolCodec)
}

func registerTuple2[A, B any](f0 fieldCodec[A], f1 fieldCodec[B]) {
	fastSerializers[reflect.TypeFor[streaming.Tuple2[A, B]]()] = &tuple2Serializer[A, B]{f0: f0, f1: f1}
}

// scalarSerializer serializes records that are one value of a basic type.
type scalarSerializer[T any] struct {
	codec fieldCodec[T]
	name  string
}

func (s *scalarSerializer[T]) Serialize(record any, target []byte) ([]byte, error) {
	v, ok := record.(T)
	if !ok {
		return target, wrongType(s, record)
	}
	return s.codec.put(target, v), nil
}

func (s *scalarSerializer[T]) Deserialize(source []byte) (any, error) {
	v, n := s.codec.get(source)
	if n <= 0 || n != len(source) {
		return nil, corrupt(s, source)
	}
	return v, nil
}

func (s *scalarSerializer[T]) Type() reflect.Type { return reflect.TypeFor[T]() }
func (s *scalarSerializer[T]) String() string     { return s.name }

// tuple2Serializer serializes a streaming.Tuple2 field by field, as
// Flink's TupleSerializer does.
type tuple2Serializer[A, B any] struct {
	f0 fieldCodec[A]
	f1 fieldCodec[B]
}

func (s *tuple2Serializer[A, B]) Serialize(record any, target []byte) ([]byte, error) {
	t, ok := record.(streaming.Tuple2[A, B])
	if !ok {
		return target, wrongType(s, record)
	}
	return s.f1.put(s.f0.put(target, t.F0), t.F1), nil
}

func (s *tuple2Serializer[A, B]) Deserialize(source []byte) (any, error) {
	f0, n0 := s.f0.get(source)
	if n0 <= 0 {
		return nil, corrupt(s, source)
	}
	f1, n1 := s.f1.get(source[n0:])
	if n1 <= 0 || n0+n1 != len(source) {
		return nil, corrupt(s, source)
	}
	return streaming.Tuple2[A, B]{F0: f0, F1: f1}, nil
}

func (s *tuple2Serializer[A, B]) Type() reflect.Type {
	return reflect.TypeFor[streaming.Tuple2[A, B]]()
}

func (s *tuple2Serializer[A, B]) String() string {
	return "Tuple2Serializer[" + s.f0.name + "," + s.f1.name + "]"
}

func wrongType(s TypeSerializer, record any) error {
	return fmt.Errorf("%v: %w: want %v, got %T", s, ErrWrongType, s.Type(), record)
}

func corrupt(s TypeSerializer, source []byte) error {
	return fmt.Errorf("%v: %w of %d bytes", s, ErrCorruptRecord, len(source))
}
