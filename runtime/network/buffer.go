package network

import "fmt"

// DataType says what a Buffer carries. It mirrors Flink's Buffer.DataType,
// which also lists checkpoint barriers and other events; flinklab adds those
// when checkpoints arrive.
type DataType int

// The data types, data first as in Flink.
const (
	// DataBuffer holds serialized records, each prefixed by its length.
	DataBuffer DataType = iota
	// EndOfPartitionEvent says the producer finished its subpartition: no
	// buffer follows it. Flink: EndOfPartitionEvent in an EVENT_BUFFER.
	EndOfPartitionEvent
)

// String returns the name of the data type, e.g. "DATA_BUFFER".
func (t DataType) String() string {
	switch t {
	case DataBuffer:
		return "DATA_BUFFER"
	case EndOfPartitionEvent:
		return "END_OF_PARTITION"
	default:
		return fmt.Sprintf("DataType(%d)", int(t))
	}
}

// Buffer is the unit that travels from a producer to a consumer: a batch of
// serialized records, or an event. It mirrors Flink's Buffer (a
// NetworkBuffer around a 32 KiB MemorySegment).
//
// A data buffer holds whole records, each written as its length (a uvarint)
// followed by its bytes. Its memory is allocated for it alone and never
// reused, so record slices cut from it stay valid for as long as anyone
// holds them.
type Buffer struct {
	dataType DataType
	segment  []byte // the bytes written; empty for events
}

// endOfPartition is the one event buffer a finished subpartition ends with.
var endOfPartition = Buffer{dataType: EndOfPartitionEvent}

// DataType says whether the buffer holds records or an event.
func (b Buffer) DataType() DataType { return b.dataType }

// IsBuffer reports whether the buffer holds records (Flink's isBuffer),
// as opposed to an event.
func (b Buffer) IsBuffer() bool { return b.dataType == DataBuffer }

// Size returns the number of bytes written into the buffer, length
// prefixes included.
func (b Buffer) Size() int { return len(b.segment) }
