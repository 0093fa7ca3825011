package network

import "fmt"

// DataType says what a Buffer carries. It mirrors Flink's Buffer.DataType,
// whose names String returns. The numbers are ours: they are written on
// the wire (a BufferResponse's data type) and into a blocking partition's
// files, so a new type gets a new number and the old ones never change.
//
//	DataBuffer                records                                        needs a credit
//	EndOfPartitionEvent       the producer finished the subpartition         no credit
//	EventBuffer               an event that blocks nothing: an at-least-once no credit
//	                          checkpoint barrier
//	AlignedCheckpointBarrier  a barrier of an exactly-once checkpoint: the   no credit
//	                          subpartition that hands it out is blocked
//	                          until its consumer resumes it
type DataType int

// The data types, data first as in Flink.
const (
	// DataBuffer holds serialized records, each prefixed by its length.
	DataBuffer DataType = iota
	// EndOfPartitionEvent says the producer finished its subpartition: no
	// buffer follows it. Flink: EndOfPartitionEvent in an EVENT_BUFFER.
	EndOfPartitionEvent
	// EventBuffer holds a serialized event that does not block its
	// subpartition: here a CheckpointBarrier whose options need no
	// alignment (AT_LEAST_ONCE). Flink: EVENT_BUFFER.
	EventBuffer
	// AlignedCheckpointBarrier holds a CheckpointBarrier whose options need
	// alignment (EXACTLY_ONCE). It blocks upstream: once its subpartition
	// has handed it out, the subpartition hands out nothing more, whatever
	// its reader's credit, until the consumer calls ResumeConsumption.
	// Flink: ALIGNED_CHECKPOINT_BARRIER, whose isBlockingUpstream is true.
	AlignedCheckpointBarrier
)

// String returns the name of the data type, e.g. "DATA_BUFFER".
func (t DataType) String() string {
	switch t {
	case DataBuffer:
		return "DATA_BUFFER"
	case EndOfPartitionEvent:
		return "END_OF_PARTITION"
	case EventBuffer:
		return "EVENT_BUFFER"
	case AlignedCheckpointBarrier:
		return "ALIGNED_CHECKPOINT_BARRIER"
	default:
		return fmt.Sprintf("DataType(%d)", int(t))
	}
}

// isBlockingUpstream reports whether handing out a buffer of this type
// blocks its subpartition until ResumeConsumption. Flink:
// Buffer.DataType.isBlockingUpstream.
func (t DataType) isBlockingUpstream() bool { return t == AlignedCheckpointBarrier }

// isCheckpointBarrier reports whether a buffer of this type holds a
// serialized CheckpointBarrier.
func (t DataType) isCheckpointBarrier() bool {
	return t == EventBuffer || t == AlignedCheckpointBarrier
}

// Buffer is the unit that travels from a producer to a consumer: a batch of
// serialized records, or an event. It mirrors Flink's Buffer (a
// NetworkBuffer around a 32 KiB MemorySegment).
//
// A data buffer holds whole records, each written as its length (a uvarint)
// followed by its bytes. Its memory is allocated for it alone and never
// reused, so record slices cut from it stay valid for as long as anyone
// holds them. An event buffer holds its serialized event (see
// newCheckpointBarrierBuffer); the EndOfPartition event holds nothing.
type Buffer struct {
	dataType DataType
	segment  []byte // the bytes written: records, or a serialized event; empty for EndOfPartition
}

// endOfPartition is the one event buffer a finished subpartition ends with.
var endOfPartition = Buffer{dataType: EndOfPartitionEvent}

// DataType says whether the buffer holds records or an event.
func (b Buffer) DataType() DataType { return b.dataType }

// IsBuffer reports whether the buffer holds records (Flink's isBuffer),
// as opposed to an event.
func (b Buffer) IsBuffer() bool { return b.dataType == DataBuffer }

// Size returns the number of bytes written into the buffer: records with
// their length prefixes, or a serialized event.
func (b Buffer) Size() int { return len(b.segment) }
