package streaming

import (
	"fmt"
	"math"
	"reflect"
	"unicode/utf16"
)

// HashCoder is implemented by key types that bring their own hash, the
// way a Java class overrides hashCode(). Keys equal by == must have equal
// hash codes, and the hash must not depend on the process (no pointers, no
// map iteration order): the producer and the consumer of a keyed exchange
// may run in different processes.
type HashCoder interface {
	HashCode() int32
}

// HashCode returns the Java hashCode() of a key, the first step of key-group
// assignment. Keys hash as the Java value a Flink user would have keyed by:
//
//	string                          String.hashCode: s[0]*31^(n-1) + … + s[n-1] over UTF-16 code units, int overflow
//	int, int8, int16, int32, uint8, uint16, uint32
//	                                Integer.hashCode: the value itself, as a 32-bit int (int and uint32 are truncated to 32 bits)
//	int64, uint64, uint             Long.hashCode: (int)(v ^ (v >>> 32))
//	bool                            Boolean.hashCode: 1231 for true, 1237 for false
//	float32                         Float.hashCode: floatToIntBits (all NaNs alike)
//	float64                         Double.hashCode: the Long.hashCode of doubleToLongBits
//	HashCoder (e.g. Tuple2)         its HashCode method
//
// Any other type panics: KeyBy rejects such key types when the program is
// built, so reaching here with one is a bug.
//
// Differs from Flink: Go's int is 64 bits wide but hashes like a Java int,
// because Flink programs key by Integer far more often than by Long; keys
// beyond the int32 range are truncated first, which only changes which
// key group they land in, not correctness.
func HashCode(key any) int32 {
	switch k := key.(type) {
	case string:
		return stringHashCode(k)
	case int:
		return int32(k)
	case int8:
		return int32(k)
	case int16:
		return int32(k)
	case int32:
		return k
	case uint8:
		return int32(k)
	case uint16:
		return int32(k)
	case uint32:
		return int32(k)
	case int64:
		return longHashCode(uint64(k))
	case uint64:
		return longHashCode(k)
	case uint:
		return longHashCode(uint64(k))
	case bool:
		if k {
			return 1231
		}
		return 1237
	case float32:
		return int32(math.Float32bits(canonicalFloat32(k)))
	case float64:
		return longHashCode(math.Float64bits(canonicalFloat64(k)))
	case HashCoder:
		return k.HashCode()
	default:
		panic(fmt.Sprintf("streaming: no hash code for key type %T", key))
	}
}

// stringHashCode is Java's String.hashCode. Java strings are UTF-16, so
// characters outside the Basic Multilingual Plane count as two code units
// (a surrogate pair), exactly as in Java.
func stringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' {
			h = 31*h + r1
			h = 31*h + r2
			continue
		}
		h = 31*h + r
	}
	return h
}

// longHashCode is Java's Long.hashCode: the two halves xor-ed.
func longHashCode(v uint64) int32 { return int32(uint32(v ^ v>>32)) }

// canonicalFloat32 and canonicalFloat64 map every NaN to Java's canonical
// NaN, as floatToIntBits and doubleToLongBits do.
func canonicalFloat32(f float32) float32 {
	if f != f {
		return math.Float32frombits(0x7fc00000)
	}
	return f
}

func canonicalFloat64(f float64) float64 {
	if math.IsNaN(f) {
		return math.Float64frombits(0x7ff8000000000000)
	}
	return f
}

var hashCoderType = reflect.TypeFor[HashCoder]()

// checkKeyType reports whether HashCode accepts keys of type t. It mirrors
// Flink's check in KeyedStream ("This type ... cannot be used as key.").
func checkKeyType(t reflect.Type) error {
	if t.Implements(hashCoderType) {
		if tup, ok := reflect.Zero(t).Interface().(tuple); ok {
			for _, field := range tup.fieldTypes() {
				if err := checkKeyType(field); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		// Only the predeclared types themselves: a named type such as
		// `type Word string` reaches HashCode as Word, not string.
		if t.PkgPath() == "" {
			return nil
		}
	}
	return fmt.Errorf("This type (%v) cannot be used as key: use a string, integer, float or bool key, or a type with a HashCode() int32 method", t)
}
