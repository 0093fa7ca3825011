// Package typeutils turns records into bytes and back where they cross a
// task boundary. It mirrors Flink's org.apache.flink.api.common.typeutils:
//
//	Flink                                         here
//	TypeSerializer                                TypeSerializer
//	TypeInformation#createSerializer              CreateSerializer(reflect.Type)
//	StringSerializer                              the serializer of string
//	IntSerializer, LongSerializer                 the serializers of int and int64 (Go's int is 64 bits)
//	DoubleSerializer, BooleanSerializer           the serializers of float64 and bool
//	TupleSerializer (Tuple2)                      the serializers of streaming.Tuple2 of the above
//	KryoSerializer (the generic fallback)         the gob serializer of every other type
//
// # When records are serialized
//
// Only at a task boundary. Inside an operator chain a record is handed to
// the next operator by a function call, as a Go value; only an edge that
// leaves the chain (a ResultPartition) needs bytes. The producing task
// picks the serializer of the edge's source node's OutputType, the
// consuming task the serializer of the same type (both run the same
// program, so both get the same reflect.Type), and the bytes of one record
// travel as one record of the network buffer, which frames it with its
// length.
//
// # The formats
//
//	type       bytes
//	string     uvarint length, then the UTF-8 bytes
//	int        zig-zag varint (binary.AppendVarint): 1 byte for -64…63
//	int64      zig-zag varint
//	float64    8 bytes, little-endian IEEE 754 (NaN and -0 survive)
//	bool       1 byte, 0 or 1
//	Tuple2     F0's bytes, then F1's bytes
//	other      one self-describing gob stream per record
//
// Serialize appends to a slice the caller owns and reuses, so the fast
// paths allocate nothing; Deserialize allocates only what the value needs:
// the string's bytes (a copy: the record stays independent of the network
// buffer it came in, which a string kept as a key would otherwise pin) and
// the box that holds the value in an `any`.
//
// # The cost of the fallback
//
// Every other type (structs, slices, maps, nested tuples, …) is encoded
// with encoding/gob, one encoder per record, so every record carries its
// own type description. That keeps records independent of each other
// (records of one channel could share a stream, but records of different
// channels interleave at the consumer), and it costs: a two-field struct
// takes about 11 µs, 173 allocations and 55 bytes per record, where the
// same data as a Tuple2[string, int] takes about 50 ns, 2 allocations (the
// string and the box) and 7 bytes (BenchmarkSerializer, one core). Flink's
// Kryo fallback is expensive for the same reason. A hot edge should carry
// a string, a number or a Tuple2.
//
// gob encodes exported fields only, cannot encode funcs and channels, and
// needs gob.Register for concrete values held in interface fields:
// CreateSerializer rejects func, chan and unsafe pointer types at once, the
// rest fails on the first record that gob cannot handle.
//
// # Concurrency
//
// Serializers hold no state: one may be used by many goroutines at once.
package typeutils
