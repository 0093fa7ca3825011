package typeutils

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/streaming"
)

type event struct {
	User   string
	Clicks []int
	Tags   map[string]bool
	Nested streaming.Tuple2[string, int]
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		record any
		want   string // the serializer's name
	}{
		{"", "StringSerializer"},
		{"hello", "StringSerializer"},
		{"grüße, 世界", "StringSerializer"},
		{0, "IntSerializer"},
		{-1, "IntSerializer"},
		{math.MaxInt, "IntSerializer"},
		{math.MinInt, "IntSerializer"},
		{int64(1) << 40, "LongSerializer"},
		{int64(math.MinInt64), "LongSerializer"},
		{3.25, "DoubleSerializer"},
		{math.Inf(-1), "DoubleSerializer"},
		{math.Copysign(0, -1), "DoubleSerializer"},
		{true, "BooleanSerializer"},
		{false, "BooleanSerializer"},
		{streaming.Tuple2Of("hello", 1), "Tuple2Serializer[string,int]"},
		{streaming.Tuple2Of("", 0), "Tuple2Serializer[string,int]"},
		{streaming.Tuple2Of(int64(-7), "x"), "Tuple2Serializer[int64,string]"},
		{streaming.Tuple2Of(1.5, true), "Tuple2Serializer[float64,bool]"},
		{streaming.Tuple2Of(false, int64(9)), "Tuple2Serializer[bool,int64]"},
		{streaming.Tuple2Of(42, 2.5), "Tuple2Serializer[int,float64]"},
		// The fallback: gob, one stream per record.
		{event{User: "ann", Clicks: []int{1, 2}, Tags: map[string]bool{"new": true}, Nested: streaming.Tuple2Of("a", 1)}, "GobSerializer[typeutils.event]"},
		{streaming.Tuple2Of(streaming.Tuple2Of("a", 1), 2), "GobSerializer[streaming.Tuple2[flinklab/runtime/streaming.Tuple2[string,int],int]]"},
		{[]string{"a", "b"}, "GobSerializer[[]string]"},
		{int32(5), "GobSerializer[int32]"},
		{&event{User: "bob"}, "GobSerializer[*typeutils.event]"},
	}
	for _, tt := range tests {
		s, err := CreateSerializer(reflect.TypeOf(tt.record))
		if err != nil {
			t.Fatalf("CreateSerializer(%T): %v", tt.record, err)
		}
		if got := s.String(); got != tt.want {
			t.Errorf("CreateSerializer(%T) = %s, want %s", tt.record, got, tt.want)
		}
		if s.Type() != reflect.TypeOf(tt.record) {
			t.Errorf("%s.Type() = %v, want %T", s, s.Type(), tt.record)
		}
		prefix := []byte("keep")
		data, err := s.Serialize(tt.record, prefix)
		if err != nil {
			t.Fatalf("%s.Serialize(%#v): %v", s, tt.record, err)
		}
		if string(data[:4]) != "keep" {
			t.Errorf("%s.Serialize overwrote the target's bytes", s)
		}
		got, err := s.Deserialize(data[4:])
		if err != nil {
			t.Fatalf("%s.Deserialize(Serialize(%#v)): %v", s, tt.record, err)
		}
		if diff := cmp.Diff(tt.record, got, cmp.AllowUnexported(event{})); diff != "" {
			t.Errorf("%s round trip of %#v (-want +got):\n%s", s, tt.record, diff)
		}
	}
}

func TestNaNSurvives(t *testing.T) {
	s, _ := CreateSerializer(reflect.TypeFor[float64]())
	data, err := s.Serialize(math.NaN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Deserialize(data)
	if err != nil || !math.IsNaN(got.(float64)) {
		t.Errorf("Deserialize(Serialize(NaN)) = %v, %v; want NaN", got, err)
	}
}

func TestCompactFormats(t *testing.T) {
	tests := []struct {
		record any
		want   []byte
	}{
		{"ab", []byte{2, 'a', 'b'}},
		{1, []byte{2}}, // zig-zag
		{-1, []byte{1}},
		{int64(63), []byte{126}},
		{true, []byte{1}},
		{streaming.Tuple2Of("to", 2), []byte{2, 't', 'o', 4}},
	}
	for _, tt := range tests {
		s, _ := CreateSerializer(reflect.TypeOf(tt.record))
		got, err := s.Serialize(tt.record, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s.Serialize(%#v) = %v, want %v", s, tt.record, got, tt.want)
		}
	}
}

func TestDeserializeRejectsCorruptBytes(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		data []byte
	}{
		{reflect.TypeFor[string](), nil},
		{reflect.TypeFor[string](), []byte{5, 'a'}},                              // shorter than its length
		{reflect.TypeFor[string](), []byte{1, 'a', 'b'}},                         // trailing byte
		{reflect.TypeFor[int](), []byte{0x80}},                                   // unfinished varint
		{reflect.TypeFor[float64](), []byte{1, 2, 3}},                            // too short
		{reflect.TypeFor[bool](), []byte{2}},                                     // neither 0 nor 1
		{reflect.TypeFor[streaming.Tuple2[string, int]](), []byte{1, 'a'}},       // F1 missing
		{reflect.TypeFor[streaming.Tuple2[string, int]](), []byte{1, 'a', 2, 9}}, // trailing byte
		{reflect.TypeFor[event](), []byte("not gob")},
	}
	for _, tt := range tests {
		s, _ := CreateSerializer(tt.typ)
		if got, err := s.Deserialize(tt.data); !errors.Is(err, ErrCorruptRecord) {
			t.Errorf("%s.Deserialize(%v) = %v, %v; want ErrCorruptRecord", s, tt.data, got, err)
		}
	}
}

func TestSerializeRejectsWrongType(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[string](),
		reflect.TypeFor[streaming.Tuple2[string, int]](),
		reflect.TypeFor[event](),
	} {
		s, _ := CreateSerializer(typ)
		if _, err := s.Serialize(42.0, nil); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s.Serialize(42.0) = %v, want ErrWrongType", s, err)
		}
		if _, err := s.Serialize(nil, nil); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s.Serialize(nil) = %v, want ErrWrongType", s, err)
		}
	}
}

func TestCreateSerializerRejectsUnserializableTypes(t *testing.T) {
	type withFunc struct {
		Name string
		Fn   func()
	}
	type onlyPrivateFunc struct {
		Name string
		fn   func() //nolint:unused // gob ignores unexported fields, so this is fine
	}
	for _, typ := range []reflect.Type{
		nil,
		reflect.TypeFor[func(int) int](),
		reflect.TypeFor[chan int](),
		reflect.TypeFor[withFunc](),
		reflect.TypeFor[[]map[string]chan int](),
	} {
		if s, err := CreateSerializer(typ); !errors.Is(err, ErrNotSerializable) {
			t.Errorf("CreateSerializer(%v) = %v, %v; want ErrNotSerializable", typ, s, err)
		}
	}
	if _, err := CreateSerializer(reflect.TypeFor[onlyPrivateFunc]()); err != nil {
		t.Errorf("CreateSerializer(onlyPrivateFunc): %v", err)
	}
}

// The fast paths allocate nothing to serialize into a reused buffer, and
// to deserialize only the value's box (and a string's bytes).
func TestFastPathsAllocateOnlyWhatTheValueNeeds(t *testing.T) {
	tests := []struct {
		record          any
		serializeAllocs float64
		maxDeserialize  float64
	}{
		{"hello", 0, 2}, // the bytes, the box
		{1 << 20, 0, 1}, // the box
		{streaming.Tuple2Of("hello", 1<<20), 0, 2}, // the bytes, the box
		{streaming.Tuple2Of(1.5, true), 0, 1},
	}
	for _, tt := range tests {
		s, _ := CreateSerializer(reflect.TypeOf(tt.record))
		buf := make([]byte, 0, 64)
		got := testing.AllocsPerRun(100, func() {
			buf, _ = s.Serialize(tt.record, buf[:0])
		})
		if got != tt.serializeAllocs {
			t.Errorf("%s.Serialize: %v allocations per record, want %v", s, got, tt.serializeAllocs)
		}
		got = testing.AllocsPerRun(100, func() { _, _ = s.Deserialize(buf) })
		if got > tt.maxDeserialize {
			t.Errorf("%s.Deserialize: %v allocations per record, want at most %v", s, got, tt.maxDeserialize)
		}
	}
}

// BenchmarkSerializer compares a fast path with the gob fallback:
//
//	go test -run '^$' -bench Serializer -benchmem ./runtime/streaming/tasks/typeutils/
func BenchmarkSerializer(b *testing.B) {
	type wordCount struct {
		Word  string
		Count int
	}
	for _, bench := range []struct {
		name   string
		record any
	}{
		{"Tuple2", streaming.Tuple2Of("hello", 42)},
		{"GobStruct", wordCount{"hello", 42}},
	} {
		s, err := CreateSerializer(reflect.TypeOf(bench.record))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 256)
			for b.Loop() {
				buf, err = s.Serialize(bench.record, buf[:0])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Deserialize(buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "bytes/record")
		})
	}
}
