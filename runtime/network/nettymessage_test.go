package network

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/checkpoint"
)

// sampleMessages returns one message of every kind, as the protocol
// carries them.
func sampleMessages() []nettyMessage {
	id := newPartitionID(3)
	id.ProducerID.AttemptNumber = 2
	aligned, err := newCheckpointBarrierBuffer(newBarrier(5, checkpoint.Aligned))
	if err != nil {
		panic(err)
	}
	atLeastOnce, err := newCheckpointBarrierBuffer(newBarrier(6, checkpoint.AtLeastOnceAlignment))
	if err != nil {
		panic(err)
	}
	return []nettyMessage{
		partitionRequest{partitionID: id, subpartitionIndex: 5, receiverID: 7, credit: 2},
		cancelPartitionRequest{receiverID: 7},
		addCredit{credit: 1, receiverID: 7},
		resumeConsumption{receiverID: 7},
		bufferResponse{receiverID: 7, sequenceNumber: 41, backlog: 1, buffer: newSingleRecordBuffer([]byte("a record"))},
		bufferResponse{receiverID: 7, sequenceNumber: 42, backlog: 1, buffer: aligned},
		bufferResponse{receiverID: 7, sequenceNumber: 43, backlog: 1, buffer: atLeastOnce},
		bufferResponse{receiverID: 7, sequenceNumber: 44, buffer: endOfPartition},
		errorResponse{receiverID: 7, kind: errorKindProducerFailed, message: "partition x: the producer failed: boom"},
		errorResponse{kind: errorKindOther, message: "a fatal error: no receiver"},
	}
}

func TestMessagesSurviveAFrame(t *testing.T) {
	for _, msg := range sampleMessages() {
		frame := appendFrame(nil, msg)
		assert.Equal(t, uint32(len(frame)), binary.BigEndian.Uint32(frame), "%T: the frame length counts the whole frame", msg)

		id, fields, err := readFrame(bytes.NewReader(frame), len(frame))
		require.NoError(t, err)
		got, err := decodeMessage(id, fields)
		require.NoError(t, err, "%T", msg)
		assert.Equal(t, msg, got)
		assert.Equal(t, frame, appendFrame(nil, got), "%T encodes back to the same bytes", msg)
	}
}

// A buffer may be as large as the largest record, so a client accepts
// frames of up to 2 GiB. A header that announces such a frame and is
// followed by a few bytes only (the server died, or something that is not
// a server answered) must not cost 2 GiB: the memory grows with what
// arrives.
func TestAFrameThatEndsEarlyCostsWhatArrived(t *testing.T) {
	// The header of a buffer of 2 GiB.
	frame := appendBufferResponseHeader(nil, bufferResponse{receiverID: 1, buffer: Buffer{dataType: DataBuffer}})
	binary.BigEndian.PutUint32(frame[0:], math.MaxInt32)
	binary.BigEndian.PutUint32(frame[len(frame)-4:], math.MaxInt32-frameHeaderLength-bufferResponseFieldsLength)
	frame = append(frame, "only this much"...)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := readFrame(bytes.NewReader(frame), maxResponseFrameLength)
	runtime.ReadMemStats(&after)

	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "bytes allocated to read a frame that never came")

	// A large frame that does arrive is read whole.
	big := appendFrame(nil, bufferResponse{receiverID: 1, buffer: newSingleRecordBuffer(bytes.Repeat([]byte("x"), 3*fieldsReadAtOnce))})
	id, fields, err := readFrame(bytes.NewReader(big), maxResponseFrameLength)
	require.NoError(t, err)
	got, err := decodeMessage(id, fields)
	require.NoError(t, err)
	assert.Equal(t, big, appendFrame(nil, got))
}

func TestFixedSizeMessagesHaveFlinksLayout(t *testing.T) {
	for _, tc := range []struct {
		msg    nettyMessage
		length int
	}{
		{partitionRequest{partitionID: newPartitionID(0), receiverID: 1, credit: 2}, frameHeaderLength + 60 + 4 + 8 + 4},
		{cancelPartitionRequest{receiverID: 1}, frameHeaderLength + 8},
		{addCredit{credit: 1, receiverID: 1}, frameHeaderLength + 4 + 8},
		{resumeConsumption{receiverID: 1}, frameHeaderLength + 8},
		{bufferResponse{receiverID: 1, buffer: endOfPartition}, frameHeaderLength + 8 + 4 + 4 + 1 + 4},
	} {
		frame := appendFrame(nil, tc.msg)
		assert.Len(t, frame, tc.length, "%T", tc.msg)
		assert.LessOrEqual(t, len(frame), maxRequestFrameLength)
		assert.Equal(t, []byte{0xBA, 0xDC, 0x0F, 0xFE}, frame[4:8], "the magic number")
		assert.Equal(t, byte(tc.msg.id()), frame[8])
	}
}

// The server writes a buffer's header and its bytes separately, so that
// the bytes are not copied; together they are the frame.
func TestBufferResponseHeaderAndDataMakeTheFrame(t *testing.T) {
	m := bufferResponse{receiverID: 3, sequenceNumber: 9, backlog: 2, buffer: newSingleRecordBuffer(bytes.Repeat([]byte("x"), 1000))}
	header := appendBufferResponseHeader(nil, m)
	assert.Equal(t, appendFrame(nil, m), append(header, m.buffer.segment...))
}

func TestReadFrameRefusesBrokenFrames(t *testing.T) {
	frame := appendFrame(nil, addCredit{credit: 1, receiverID: 1})
	badMagic := bytes.Clone(frame)
	badMagic[4] ^= 0xFF
	shortLength := bytes.Clone(frame)
	binary.BigEndian.PutUint32(shortLength, frameHeaderLength-1)

	for _, tc := range []struct {
		name    string
		data    []byte
		limit   int
		wantErr error
	}{
		{"nothing", nil, 64, io.EOF},
		{"half a header", frame[:5], 64, io.ErrUnexpectedEOF},
		{"half a message", frame[:len(frame)-1], 64, io.ErrUnexpectedEOF},
		{"a wrong magic number", badMagic, 64, errCorruptStream},
		{"a length shorter than the header", shortLength, 64, errCorruptStream},
		{"a frame over the limit", frame, len(frame) - 1, errCorruptStream},
		{"an HTTP request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 64, errCorruptStream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readFrame(bytes.NewReader(tc.data), tc.limit)
			assert.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestDecodeMessageRefusesWhatNoEncoderWrites(t *testing.T) {
	fields := func(msg nettyMessage) []byte { return msg.appendFields(nil) }
	withTrailingByte := append(fields(addCredit{credit: 1, receiverID: 1}), 0)
	negativeCredit := fields(addCredit{credit: 1, receiverID: 1})
	binary.BigEndian.PutUint32(negativeCredit, 0xFFFFFFFF)
	eventWithBody := fields(bufferResponse{receiverID: 1, buffer: Buffer{dataType: EndOfPartitionEvent, segment: []byte("x")}})
	unknownDataType := fields(bufferResponse{receiverID: 1, buffer: Buffer{dataType: 9}})
	emptyBarrier := fields(bufferResponse{receiverID: 1, buffer: Buffer{dataType: AlignedCheckpointBarrier}})
	wrongSize := fields(bufferResponse{receiverID: 1, buffer: newSingleRecordBuffer([]byte("abc"))})
	wrongSize = wrongSize[:len(wrongSize)-1]

	for _, tc := range []struct {
		name   string
		id     messageID
		fields []byte
	}{
		{"an unknown message ID", 3, nil},
		{"a truncated message", partitionRequestID, fields(partitionRequest{receiverID: 1})[:10]},
		{"bytes after the message", addCreditID, withTrailingByte},
		{"a negative credit", addCreditID, negativeCredit},
		{"a credit of 0", addCreditID, fields(addCredit{credit: 0, receiverID: 1})},
		{"receiver 0 in a request", cancelPartitionRequestID, fields(cancelPartitionRequest{})},
		{"an event with a body", bufferResponseID, eventWithBody},
		{"an unknown data type", bufferResponseID, unknownDataType},
		{"a checkpoint barrier without its event", bufferResponseID, emptyBarrier},
		{"receiver 0 in a ResumeConsumption", resumeConsumptionID, fields(resumeConsumption{})},
		{"a size that is not the buffer's", bufferResponseID, wrongSize},
		{"an unknown error kind", errorResponseID, fields(errorResponse{receiverID: 1, kind: numberOfErrorKinds})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeMessage(tc.id, tc.fields)
			assert.ErrorIs(t, err, errCorruptStream)
		})
	}
}

// FuzzDecodeNettyMessage feeds arbitrary bytes to the reading side of a
// data connection, as a broken or hostile peer would: frames are cut out
// and decoded until the stream ends. Nothing panics, no frame passes the
// limit, a stream ends with io.EOF, io.ErrUnexpectedEOF or a corrupt-stream
// error, and every message that decodes encodes back to exactly the frame
// it came from. The seeds in testdata/fuzz/FuzzDecodeNettyMessage are one
// frame of each message (a checkpoint barrier among them), two frames in
// a row, a truncated frame, a frame with a wrong magic number, an
// oversize length, a buffer whose size lies, and an RPC frame sent to the
// data port.
func FuzzDecodeNettyMessage(f *testing.F) {
	const limit = 1 << 16
	for _, msg := range sampleMessages() {
		f.Add(appendFrame(nil, msg))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			id, fields, err := readFrame(r, limit)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errCorruptStream) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(fields)+frameHeaderLength > limit {
				t.Fatalf("a frame of %d bytes passed the limit of %d", len(fields)+frameHeaderLength, limit)
			}
			msg, err := decodeMessage(id, fields)
			if err != nil {
				if !errors.Is(err, errCorruptStream) {
					t.Fatalf("unexpected error %v", err)
				}
				continue
			}
			frame := appendFrame(nil, msg)
			if wantLength := len(fields) + frameHeaderLength; len(frame) != wantLength ||
				!bytes.Equal(frame[frameHeaderLength:], fields) || frame[8] != byte(id) {
				t.Fatalf("%T does not encode back to its frame:\n got %x\nwant fields %x", msg, frame, fields)
			}
		}
	})
}
