package network

import (
	"encoding/binary"
	"fmt"
)

// The record format inside a data buffer:
//
//	┌──────────────┬──────────────┬──────────────┬──────────────┬───
//	│ len₁ uvarint │ record₁ bytes│ len₂ uvarint │ record₂ bytes│ ...
//	└──────────────┴──────────────┴──────────────┴──────────────┴───
//
// Records never span buffers: one that does not fit in the space left goes
// into the next buffer, and one larger than a whole buffer gets a buffer of
// its own, sized to fit. (Flink's SpanningRecordSerializer instead splits a
// long record across several buffers, because its buffers are fixed-size
// MemorySegments from a pool; ours are plain byte slices.)

// serializedSize returns how many bytes a record takes in a buffer.
func serializedSize(record []byte) int {
	var prefix [binary.MaxVarintLen64]byte
	return binary.PutUvarint(prefix[:], uint64(len(record))) + len(record)
}

// bufferBuilder fills one buffer with records. A ResultPartition keeps one
// per subpartition, used only by the producing goroutine. It mirrors Flink's
// BufferBuilder together with the record serializer that writes into it.
type bufferBuilder struct {
	segment []byte // nil until the first record; cap(segment) is the buffer size
}

// isEmpty reports whether no record was written since the last reset.
func (b *bufferBuilder) isEmpty() bool { return len(b.segment) == 0 }

// fits reports whether a record of the given serialized size fits in the
// space left. An empty builder has no space yet: it allocates on append.
func (b *bufferBuilder) fits(size int) bool { return size <= cap(b.segment)-len(b.segment) }

// append writes one record, allocating the buffer's memory on first use.
// The caller has checked that the record fits a buffer of bufferSize.
func (b *bufferBuilder) append(record []byte, bufferSize int) {
	if b.segment == nil {
		b.segment = make([]byte, 0, bufferSize)
	}
	b.segment = binary.AppendUvarint(b.segment, uint64(len(record)))
	b.segment = append(b.segment, record...)
}

// build returns the records written so far as a data buffer. The builder
// keeps them until reset, so a hand-over that fails can be retried.
func (b *bufferBuilder) build() Buffer { return Buffer{dataType: DataBuffer, segment: b.segment} }

// reset forgets the built buffer; the next append starts a new one. The old
// memory now belongs to the consumer and is never written again.
func (b *bufferBuilder) reset() { b.segment = nil }

// newSingleRecordBuffer returns a data buffer holding only the given
// record, for a record larger than a whole buffer.
func newSingleRecordBuffer(record []byte) Buffer {
	var b bufferBuilder
	b.append(record, serializedSize(record))
	return b.build()
}

// recordDeserializer cuts records out of one data buffer at a time. The
// InputGate owns one, used only by the consuming goroutine. It mirrors
// Flink's RecordDeserializer (SpillingAdaptiveSpanningRecordDeserializer),
// which the task's StreamTaskNetworkInput owns in Flink.
type recordDeserializer struct {
	segment  []byte // the current buffer's bytes
	position int    // where the next record's length prefix starts
}

// setNextBuffer starts reading a new data buffer.
func (d *recordDeserializer) setNextBuffer(buffer Buffer) {
	d.segment = buffer.segment
	d.position = 0
}

// nextRecord returns the next record of the current buffer, or false when
// the buffer is used up. The record aliases the buffer's memory, which is
// never reused; its capacity is cut to its length, so appending to it
// copies instead of overwriting the next record.
func (d *recordDeserializer) nextRecord() ([]byte, bool) {
	if d.position >= len(d.segment) {
		return nil, false
	}
	length, prefixSize := binary.Uvarint(d.segment[d.position:])
	start := d.position + prefixSize
	end := start + int(length)
	if prefixSize <= 0 || end > len(d.segment) || end < start {
		// Only this package writes buffers, so this is a bug, not bad input.
		panic(fmt.Sprintf("network: corrupt buffer: record at byte %d of %d", d.position, len(d.segment)))
	}
	d.position = end
	return d.segment[start:end:end], true
}
