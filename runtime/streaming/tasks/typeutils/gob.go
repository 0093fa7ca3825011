package typeutils

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
)

// gobSerializer is the fallback for every type without a fast path, as
// Flink falls back to Kryo for types it cannot analyse. Each record is one
// complete gob stream, type description included: records stay
// independent of each other, at the price of time and bytes per record
// (see the package doc).
type gobSerializer struct {
	t reflect.Type
}

func (s *gobSerializer) Serialize(record any, target []byte) ([]byte, error) {
	v := reflect.ValueOf(record)
	if !v.IsValid() || v.Type() != s.t {
		return target, wrongType(s, record)
	}
	buf := bytes.NewBuffer(target)
	if err := gob.NewEncoder(buf).EncodeValue(v); err != nil {
		return target, fmt.Errorf("%v: %w", s, err)
	}
	return buf.Bytes(), nil
}

func (s *gobSerializer) Deserialize(source []byte) (any, error) {
	v := reflect.New(s.t)
	r := bytes.NewReader(source)
	if err := gob.NewDecoder(r).DecodeValue(v); err != nil {
		return nil, fmt.Errorf("%v: %w: %w", s, ErrCorruptRecord, err)
	}
	if r.Len() != 0 {
		return nil, corrupt(s, source)
	}
	return v.Elem().Interface(), nil
}

func (s *gobSerializer) Type() reflect.Type { return s.t }
func (s *gobSerializer) String() string     { return "GobSerializer[" + s.t.String() + "]" }
