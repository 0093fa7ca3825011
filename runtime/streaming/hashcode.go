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
// built, so reaching here with one is a bug. KeyBy rejects float keys too
// (see checkKeyType); HashCode hashes them as Java does all the same.
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

// checkKeyType reports whether KeyBy accepts keys of type t. It mirrors
// Flink's check in KeyedStream ("This type ... cannot be used as key."):
// HashCode must accept the type, and so must keyed state, which finds a
// key's value in a Go map, by ==.
//
// That rules out floating-point keys, and keys that hold a float anywhere
// (a Tuple2 field, a field of a HashCoder struct). Java compares Double
// keys with Double.equals, which agrees with Double.hashCode; Go's ==
// does not agree with HashCode:
//
//	NaN         HashCode maps every NaN to one hash, but NaN != NaN: each
//	            record keyed by NaN would start a new state entry, forever
//	0.0, -0.0   0.0 == -0.0 share one state entry, but their bits differ,
//	            so they hash to different key groups, and to different
//	            subtasks
//
// A program keys by a string or integer made from the float instead, one
// that says which floats are the same key: strconv.FormatFloat(x, 'g', -1,
// 64), or int64(math.Round(x*100)) for cents.
func checkKeyType(t reflect.Type) error {
	if where, float, found := floatIn(t, "it"); found {
		return fmt.Errorf("This type (%v) cannot be used as key: %s is a floating-point number (%v), "+
			"and Go's == disagrees with its hash (NaN != NaN; 0.0 == -0.0 but they hash apart), "+
			"which breaks keyed state. Key by a string or an integer made from it, "+
			"e.g. strconv.FormatFloat(x, 'g', -1, 64) or int64(math.Round(x*100))", t, where, float)
	}
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
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// Only the predeclared types themselves: a named type such as
		// `type Word string` reaches HashCode as Word, not string.
		if t.PkgPath() == "" {
			return nil
		}
	}
	return fmt.Errorf("This type (%v) cannot be used as key: use a string, integer or bool key, or a type with a HashCode() int32 method", t)
}

// floatIn finds a floating-point (or complex) value inside a key of type
// t: t itself, or what == compares of it, its struct fields and array
// elements. where names it, starting from name ("it", then "its field
// F1.F0"). Pointers, channels and interfaces are not looked into: ==
// compares a pointer's address, not what it points to.
func floatIn(t reflect.Type, name string) (where string, float reflect.Type, found bool) {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return name, t, true
	case reflect.Array:
		if t.Len() > 0 {
			return floatIn(t.Elem(), elementName(name, "[0]"))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if where, float, found := floatIn(t.Field(i).Type, elementName(name, "."+t.Field(i).Name)); found {
				return where, float, true
			}
		}
	}
	return "", nil, false
}

// elementName names a part of a key: "it" + ".F1" is "its field F1",
// "its field F1" + ".F0" is "its field F1.F0", "it" + "[0]" is "its
// element [0]".
func elementName(name, part string) string {
	switch {
	case name != "it":
		return name + part
	case part[0] == '.':
		return "its field " + part[1:]
	default:
		return "its element " + part
	}
}
