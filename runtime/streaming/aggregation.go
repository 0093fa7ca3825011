package streaming

import (
	"fmt"
	"reflect"
)

// sumAggregator returns the reduce function behind KeyedStream.Sum: it
// adds the field at position of the new record to the same field of the
// accumulator and keeps the accumulator's other fields. It mirrors Flink's
// SumAggregator, which for a tuple copies the accumulated tuple and sets
// the summed field.
//
// The record type is inspected once, here; a position that does not name
// a number field is an error of the program. For a number type (int,
// float64, …) the record is the field, and position must be 0, as in Flink
// for basic types.
func sumAggregator[T any](position int) (func(accumulator, record T) T, error) {
	t := reflect.TypeFor[T]()
	if isNumberKind(t.Kind()) {
		if position != 0 {
			return nil, fmt.Errorf("Aggregation field position %d is out of range: a %v record has only position 0", position, t)
		}
		return func(accumulator, record T) T {
			sum := reflect.ValueOf(&accumulator).Elem()
			addNumber(sum, reflect.ValueOf(record))
			return accumulator
		}, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("Cannot sum records of type %v: Sum needs a number or a struct with a number field", t)
	}
	if position < 0 || position >= t.NumField() {
		return nil, fmt.Errorf("Aggregation field position %d is out of range: %v has %d fields", position, t, t.NumField())
	}
	field := t.Field(position)
	if !field.IsExported() {
		return nil, fmt.Errorf("Cannot sum field %s of %v: it is not exported", field.Name, t)
	}
	if !isNumberKind(field.Type.Kind()) {
		return nil, fmt.Errorf("Cannot sum field %s of %v: its type %v is not a number", field.Name, t, field.Type)
	}
	return func(accumulator, record T) T {
		sum := reflect.ValueOf(&accumulator).Elem().Field(position)
		addNumber(sum, reflect.ValueOf(record).Field(position))
		return accumulator
	}, nil
}

// isNumberKind reports whether Sum can add values of kind k.
func isNumberKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// addNumber adds v to the settable sum, wrapping on overflow like Java's
// int arithmetic.
func addNumber(sum, v reflect.Value) {
	switch sum.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sum.SetInt(sum.Int() + v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		sum.SetUint(sum.Uint() + v.Uint())
	case reflect.Float32, reflect.Float64:
		sum.SetFloat(sum.Float() + v.Float())
	}
}
