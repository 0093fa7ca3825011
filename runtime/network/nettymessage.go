package network

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"flinklab/runtime/api"
)

// The wire format of the data plane between processes. It mirrors Flink's
// NettyMessage: every message is one frame, and a frame is a 9-byte header
// followed by the message's fields, all integers big-endian.
//
//	+------------------+------------------------+--------+----------------------+
//	| frame length (4) | magic number (4)       | ID (1) | the message's fields |
//	|                  | 0xBADC0FFE             |        |                      |
//	+------------------+------------------------+--------+----------------------+
//
// As in Flink, the frame length counts the whole frame, its own four bytes
// included. The magic number catches a peer that does not speak this
// protocol (an RPC client dialling the data port, say) before anything is
// allocated for it.
//
// The consumer's side (the client) sends four messages:
//
//	PartitionRequest        ID 2   partition ID (60) | subpartition index (4) | receiver ID (8) | credit (4)
//	CancelPartitionRequest  ID 4   receiver ID (8)
//	AddCredit               ID 6   credit (4) | receiver ID (8)
//	ResumeConsumption       ID 7   receiver ID (8)
//
// The producer's side (the PartitionRequestServer) answers with two:
//
//	BufferResponse          ID 0   receiver ID (8) | sequence number (4) | backlog (4) |
//	                               data type (1) | size (4) | size bytes of the buffer
//	ErrorResponse           ID 1   receiver ID (8) | error kind (1) | message (the rest, UTF-8)
//
// A BufferResponse's data type is a DataType: 0 DATA_BUFFER (records),
// 1 END_OF_PARTITION (no bytes), 2 EVENT_BUFFER and 3
// ALIGNED_CHECKPOINT_BARRIER (a serialized CheckpointBarrier: its event
// type, 4 bytes, then JSON; see newCheckpointBarrierBuffer). The frame
// carries an event's bytes as it carries records; the consumer's gate
// deserializes them, as it deserializes records.
//
// A partition ID is written as Flink writes a ResultPartitionID: the
// IntermediateResultPartitionID (data set ID (16), partition number (4)),
// then the ExecutionAttemptID (execution graph ID (16), job vertex ID (16),
// subtask index (4), attempt number (4)): 60 bytes.
//
// The receiver ID names one input channel on one connection (Flink's
// InputChannelID): the client picks it, the server stamps every answer
// with it, so one connection carries any number of channels. An
// ErrorResponse with receiver ID 0 concerns the whole connection (Flink's
// "fatal" error, whose receiverId is null).
//
// Every decoded message encodes back to exactly the bytes it came from:
// the decoder refuses anything the encoder would not write (a negative
// count, an unknown data type, an event with a body), so there is one
// spelling of each message. FuzzDecodeNettyMessage holds the decoder to
// that.

const (
	// frameHeaderLength is the frame length, the magic number and the
	// message ID. Flink: NettyMessage.FRAME_HEADER_LENGTH.
	frameHeaderLength = 4 + 4 + 1
	// magicNumber starts every frame after its length. Flink: NettyMessage.MAGIC_NUMBER.
	magicNumber uint32 = 0xBADC0FFE
	// maxRequestFrameLength bounds the frames a server reads: a client sends
	// only small, fixed-size requests.
	maxRequestFrameLength = 128
	// maxResponseFrameLength bounds the frames a client reads: a buffer may
	// be as large as the largest record (Flink: Integer.MAX_VALUE).
	maxResponseFrameLength = math.MaxInt32
)

// errCorruptStream is wrapped by every error about bytes that are not a
// valid frame or message. A connection that carries one is closed: nothing
// after it can be trusted to be a frame boundary.
var errCorruptStream = errors.New("network stream corrupted")

// messageID says which message a frame holds. The values are Flink's.
type messageID byte

const (
	bufferResponseID         messageID = 0
	errorResponseID          messageID = 1
	partitionRequestID       messageID = 2
	cancelPartitionRequestID messageID = 4
	addCreditID              messageID = 6
	resumeConsumptionID      messageID = 7
)

// inputChannelID names an input channel on one connection; the client
// numbers its channels from 1. Flink's InputChannelID is 16 random bytes,
// unique in the whole cluster; ours needs to be unique on its connection
// only, because the server keeps its readers per connection.
type inputChannelID uint64

// nettyMessage is one message of the protocol.
type nettyMessage interface {
	// id returns the message's ID, written in the frame header.
	id() messageID
	// appendFields appends the message's fields, everything after the
	// frame header.
	appendFields(dst []byte) []byte
}

// partitionRequest asks the server to send one subpartition of one
// partition to the channel receiverID, and gives it the channel's initial
// credit. Flink: NettyMessage.PartitionRequest.
type partitionRequest struct {
	partitionID       api.ResultPartitionID
	subpartitionIndex int
	receiverID        inputChannelID
	credit            int
}

// cancelPartitionRequest says the channel receiverID is gone: the server
// releases its view. Flink: NettyMessage.CancelPartitionRequest.
type cancelPartitionRequest struct {
	receiverID inputChannelID
}

// addCredit announces that the channel receiverID has room for credit more
// buffers. Flink: NettyMessage.AddCredit.
type addCredit struct {
	credit     int
	receiverID inputChannelID
}

// resumeConsumption asks the server to unblock the subpartition of the
// channel receiverID, which an aligned checkpoint barrier blocked, and
// send again. Flink: NettyMessage.ResumeConsumption.
type resumeConsumption struct {
	receiverID inputChannelID
}

// bufferResponse carries one buffer (data or an event) to the channel
// receiverID. The sequence number counts the channel's buffers from 0,
// so the client can tell a lost or reordered one; the backlog is how many
// data buffers wait behind it in the subpartition. Flink:
// NettyMessage.BufferResponse.
type bufferResponse struct {
	receiverID     inputChannelID
	sequenceNumber int
	backlog        int
	buffer         Buffer
}

// errorResponse tells the channel receiverID (or, for receiver 0, the whole
// connection) that its request failed. Flink sends the Java exception;
// here the kind says which sentinel error the client wraps, and the
// message is the error's text. Flink: NettyMessage.ErrorResponse.
type errorResponse struct {
	receiverID inputChannelID
	kind       errorKind
	message    string
}

// errorKind says which sentinel error an ErrorResponse stands for.
type errorKind byte

const (
	// errorKindOther is any other failure: a subpartition out of range,
	// one consumed twice, a broken request.
	errorKindOther errorKind = iota
	// errorKindPartitionNotFound: the partition is not registered (yet, or
	// any more). Flink: PartitionNotFoundException.
	errorKindPartitionNotFound
	// errorKindProducerFailed: the producer called Fail. Flink: ProducerFailedException.
	errorKindProducerFailed
	// errorKindPartitionReleased: the partition was released.
	errorKindPartitionReleased
	numberOfErrorKinds
)

// errorKindOf classifies an error for an ErrorResponse.
func errorKindOf(err error) errorKind {
	switch {
	case errors.Is(err, ErrPartitionNotFound):
		return errorKindPartitionNotFound
	case errors.Is(err, ErrProducerFailed):
		return errorKindProducerFailed
	case errors.Is(err, ErrPartitionReleased):
		return errorKindPartitionReleased
	default:
		return errorKindOther
	}
}

// sentinel returns the sentinel error of the kind, nil for errorKindOther.
func (k errorKind) sentinel() error {
	switch k {
	case errorKindPartitionNotFound:
		return ErrPartitionNotFound
	case errorKindProducerFailed:
		return ErrProducerFailed
	case errorKindPartitionReleased:
		return ErrPartitionReleased
	default:
		return nil
	}
}

func (partitionRequest) id() messageID       { return partitionRequestID }
func (cancelPartitionRequest) id() messageID { return cancelPartitionRequestID }
func (addCredit) id() messageID              { return addCreditID }
func (resumeConsumption) id() messageID      { return resumeConsumptionID }
func (bufferResponse) id() messageID         { return bufferResponseID }
func (errorResponse) id() messageID          { return errorResponseID }

// The sizes of the fixed-size parts.
const (
	resultPartitionIDLength      = 16 + 4 + 16 + 16 + 4 + 4
	partitionRequestLength       = resultPartitionIDLength + 4 + 8 + 4
	cancelPartitionRequestLength = 8
	addCreditLength              = 4 + 8
	resumeConsumptionLength      = 8
	bufferResponseFieldsLength   = 8 + 4 + 4 + 1 + 4 // without the buffer's bytes
	errorResponseFieldsLength    = 8 + 1             // without the message
)

func (m partitionRequest) appendFields(dst []byte) []byte {
	dst = appendResultPartitionID(dst, m.partitionID)
	dst = appendInt(dst, m.subpartitionIndex)
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
	return appendInt(dst, m.credit)
}

func (m cancelPartitionRequest) appendFields(dst []byte) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
}

func (m addCredit) appendFields(dst []byte) []byte {
	dst = appendInt(dst, m.credit)
	return binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
}

func (m resumeConsumption) appendFields(dst []byte) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
}

func (m bufferResponse) appendFields(dst []byte) []byte {
	dst = m.appendFieldsWithoutData(dst)
	return append(dst, m.buffer.segment...)
}

// appendFieldsWithoutData appends every field but the buffer's bytes,
// which the server writes straight from the buffer, without copying them
// into a frame first.
func (m bufferResponse) appendFieldsWithoutData(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
	dst = appendInt(dst, m.sequenceNumber)
	dst = appendInt(dst, m.backlog)
	dst = append(dst, byte(m.buffer.dataType))
	return appendInt(dst, m.buffer.Size())
}

func (m errorResponse) appendFields(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.receiverID))
	dst = append(dst, byte(m.kind))
	return append(dst, m.message...)
}

// appendFrame appends msg as one frame to dst.
func appendFrame(dst []byte, msg nettyMessage) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // the frame length, set below
	dst = binary.BigEndian.AppendUint32(dst, magicNumber)
	dst = append(dst, byte(msg.id()))
	dst = msg.appendFields(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// appendBufferResponseHeader appends the frame of m up to its buffer's
// bytes: the caller writes those next. Together they are exactly
// appendFrame(dst, m).
func appendBufferResponseHeader(dst []byte, m bufferResponse) []byte {
	length := frameHeaderLength + bufferResponseFieldsLength + m.buffer.Size()
	dst = binary.BigEndian.AppendUint32(dst, uint32(length))
	dst = binary.BigEndian.AppendUint32(dst, magicNumber)
	dst = append(dst, byte(bufferResponseID))
	return m.appendFieldsWithoutData(dst)
}

// appendInt appends a non-negative int as 4 bytes, as Java's writeInt.
func appendInt(dst []byte, v int) []byte { return binary.BigEndian.AppendUint32(dst, uint32(int32(v))) }

// appendAbstractID appends the 16 bytes of an api identifier. The api
// package keeps the bytes to itself; their text form (32 hex characters)
// is the public way in and out.
func appendAbstractID(dst []byte, id encoding.TextMarshaler) []byte {
	text, _ := id.MarshalText() // never fails: hex of 16 bytes
	var raw [16]byte
	_, _ = hex.Decode(raw[:], text)
	return append(dst, raw[:]...)
}

// appendResultPartitionID writes the 60 bytes of a ResultPartitionID.
func appendResultPartitionID(dst []byte, id api.ResultPartitionID) []byte {
	dst = appendAbstractID(dst, id.PartitionID.IntermediateDataSetID)
	dst = appendInt(dst, id.PartitionID.PartitionNum)
	dst = appendAbstractID(dst, id.ProducerID.ExecutionGraphID)
	dst = appendAbstractID(dst, id.ProducerID.ExecutionVertexID.JobVertexID)
	dst = appendInt(dst, id.ProducerID.ExecutionVertexID.SubtaskIndex)
	return appendInt(dst, id.ProducerID.AttemptNumber)
}

// readFrame reads one frame and returns its message ID and its fields
// (the bytes after the header). It returns io.EOF when the stream ends
// cleanly between frames, io.ErrUnexpectedEOF when it ends inside one, and
// an error wrapping errCorruptStream, before anything is allocated, when
// the header is wrong or the frame longer than limit.
func readFrame(r io.Reader, limit int) (messageID, []byte, error) {
	var header [frameHeaderLength]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return 0, nil, err // io.EOF at a frame boundary, io.ErrUnexpectedEOF inside the header
	}
	length := int64(binary.BigEndian.Uint32(header[0:4]))
	if magic := binary.BigEndian.Uint32(header[4:8]); magic != magicNumber {
		return 0, nil, fmt.Errorf("%w: received incorrect magic number %#x", errCorruptStream, magic)
	}
	if length < frameHeaderLength || length > int64(limit) {
		return 0, nil, fmt.Errorf("%w: frame length %d is outside [%d, %d]", errCorruptStream, length, frameHeaderLength, limit)
	}
	fields, err := readFields(r, length-frameHeaderLength)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the header promised more
		}
		return 0, nil, err
	}
	return messageID(header[8]), fields, nil
}

// fieldsReadAtOnce is the largest frame whose fields are read into a slice
// of their full length at once; readFields reads larger ones as they come.
const fieldsReadAtOnce = 1 << 20

// readFields reads the n bytes of a frame's fields. A frame may be as long
// as the largest record (up to 2 GiB), so the memory for a large one grows
// with the bytes that arrive, rather than being taken at once on the word
// of a header: a stream that ends early, or a peer that announces a frame
// it never sends, costs no more than what came.
func readFields(r io.Reader, n int64) ([]byte, error) {
	if n <= fieldsReadAtOnce {
		fields := make([]byte, n)
		_, err := io.ReadFull(r, fields)
		return fields, err
	}
	var fields bytes.Buffer
	fields.Grow(fieldsReadAtOnce)
	if _, err := io.CopyN(&fields, r, n); err != nil {
		return nil, err // io.EOF if the stream ended early
	}
	return fields.Bytes(), nil
}

// decodeMessage parses the fields of a frame with the given message ID.
// A bufferResponse's buffer aliases fields, which must not be reused.
func decodeMessage(id messageID, fields []byte) (nettyMessage, error) {
	d := fieldDecoder{fields: fields}
	var msg nettyMessage
	switch id {
	case partitionRequestID:
		msg = partitionRequest{
			partitionID:       d.resultPartitionID(),
			subpartitionIndex: d.nonNegativeInt("subpartition index"),
			receiverID:        d.receiverID(false),
			credit:            d.nonNegativeInt("credit"),
		}
	case cancelPartitionRequestID:
		msg = cancelPartitionRequest{receiverID: d.receiverID(false)}
	case addCreditID:
		m := addCredit{credit: d.nonNegativeInt("credit"), receiverID: d.receiverID(false)}
		if d.err == nil && m.credit == 0 {
			d.fail("an AddCredit of 0")
		}
		msg = m
	case resumeConsumptionID:
		msg = resumeConsumption{receiverID: d.receiverID(false)}
	case bufferResponseID:
		msg = d.bufferResponse()
	case errorResponseID:
		m := errorResponse{receiverID: d.receiverID(true), kind: errorKind(d.byte())}
		if d.err == nil && m.kind >= numberOfErrorKinds {
			d.fail(fmt.Sprintf("unknown error kind %d", m.kind))
		}
		m.message = string(d.rest())
		msg = m
	default:
		return nil, fmt.Errorf("%w: received unknown message ID %d", errCorruptStream, id)
	}
	if d.err == nil && len(d.fields) > 0 {
		d.fail(fmt.Sprintf("%d bytes after the message", len(d.fields)))
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: message ID %d: %s", errCorruptStream, id, d.err)
	}
	return msg, nil
}

// fieldDecoder reads the fields of one message in order. The first
// problem sticks in err, and every later read returns a zero value.
type fieldDecoder struct {
	fields []byte
	err    error
}

func (d *fieldDecoder) fail(problem string) {
	if d.err == nil {
		d.err = errors.New(problem)
	}
}

// next returns the next n bytes, or nil if there are fewer.
func (d *fieldDecoder) next(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.fields) < n {
		d.fail("the message is too short")
		return nil
	}
	b := d.fields[:n:n]
	d.fields = d.fields[n:]
	return b
}

func (d *fieldDecoder) byte() byte {
	if b := d.next(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *fieldDecoder) nonNegativeInt(name string) int {
	b := d.next(4)
	if b == nil {
		return 0
	}
	v := int(int32(binary.BigEndian.Uint32(b)))
	if v < 0 {
		d.fail(fmt.Sprintf("negative %s %d", name, v))
		return 0
	}
	return v
}

// receiverID reads a receiver ID; 0 is allowed only where it means "the
// whole connection".
func (d *fieldDecoder) receiverID(zeroAllowed bool) inputChannelID {
	b := d.next(8)
	if b == nil {
		return 0
	}
	id := inputChannelID(binary.BigEndian.Uint64(b))
	if id == 0 && !zeroAllowed {
		d.fail("receiver ID 0")
	}
	return id
}

func (d *fieldDecoder) rest() []byte {
	if d.err != nil {
		return nil
	}
	b := d.fields
	d.fields = nil
	return b
}

func (d *fieldDecoder) abstractID(id encoding.TextUnmarshaler) {
	if b := d.next(16); b != nil {
		_ = id.UnmarshalText([]byte(hex.EncodeToString(b))) // 32 hex characters always parse
	}
}

func (d *fieldDecoder) resultPartitionID() api.ResultPartitionID {
	var id api.ResultPartitionID
	d.abstractID(&id.PartitionID.IntermediateDataSetID)
	id.PartitionID.PartitionNum = d.nonNegativeInt("partition number")
	d.abstractID(&id.ProducerID.ExecutionGraphID)
	d.abstractID(&id.ProducerID.ExecutionVertexID.JobVertexID)
	id.ProducerID.ExecutionVertexID.SubtaskIndex = d.nonNegativeInt("subtask index")
	id.ProducerID.AttemptNumber = d.nonNegativeInt("attempt number")
	return id
}

func (d *fieldDecoder) bufferResponse() bufferResponse {
	m := bufferResponse{
		receiverID:     d.receiverID(false),
		sequenceNumber: d.nonNegativeInt("sequence number"),
		backlog:        d.nonNegativeInt("backlog"),
	}
	dataType := DataType(d.byte())
	size := d.nonNegativeInt("size")
	if d.err != nil {
		return m
	}
	switch {
	case dataType != DataBuffer && dataType != EndOfPartitionEvent && !dataType.isCheckpointBarrier():
		d.fail(fmt.Sprintf("unknown data type %d", dataType))
	case dataType == EndOfPartitionEvent && size != 0:
		d.fail(fmt.Sprintf("an END_OF_PARTITION event of %d bytes", size))
	case dataType.isCheckpointBarrier() && size == 0:
		d.fail(fmt.Sprintf("an %s without its event", dataType))
	case size != len(d.fields):
		d.fail(fmt.Sprintf("a buffer of %d bytes in %d bytes", size, len(d.fields)))
	}
	if dataType == EndOfPartitionEvent {
		m.buffer = endOfPartition
	} else {
		// Records or a serialized event: the gate reads either.
		m.buffer = Buffer{dataType: dataType, segment: d.next(size)}
	}
	return m
}
