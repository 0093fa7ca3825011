package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFrame(t *testing.T) {
	hello, err := appendFrame(nil, []byte(`{"id":1}`), 64)
	require.NoError(t, err)
	empty, err := appendFrame(nil, nil, 64)
	require.NoError(t, err)

	for _, tc := range []struct {
		name    string
		data    []byte
		want    []string
		wantErr error
	}{
		{"nothing", nil, nil, io.EOF},
		{"one frame", hello, []string{`{"id":1}`}, io.EOF},
		{"two frames", append(append([]byte{}, hello...), hello...), []string{`{"id":1}`, `{"id":1}`}, io.EOF},
		{"an empty body", empty, []string{""}, io.EOF},
		{"half a header", hello[:2], nil, io.ErrUnexpectedEOF},
		{"half a body", hello[:7], nil, io.ErrUnexpectedEOF},
		{"a frame over the limit", []byte{0, 0, 0, 65}, nil, &frameTooLargeError{size: 65, limit: 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bodies, err := readAll(tc.data, 64)
			var got []string
			for _, b := range bodies {
				got = append(got, string(b))
			}
			assert.Equal(t, tc.want, got)
			if tooLarge := (*frameTooLargeError)(nil); errors.As(tc.wantErr, &tooLarge) {
				assert.Equal(t, tc.wantErr, err)
				assert.EqualError(t, err, "frame of 65 bytes exceeds the limit of 64 bytes")
			} else {
				assert.ErrorIs(t, err, tc.wantErr)
			}
		})
	}

	_, err = appendFrame(nil, make([]byte, 65), 64)
	assert.Equal(t, &frameTooLargeError{size: 65, limit: 64}, err, "nothing over the limit is sent either")
}

// A frame's body grows in steps as it arrives, up to the size its header
// announced and no further: the body returned is exactly that size,
// whether the bytes come all at once or one at a time.
func TestReadFrameReturnsABodyOfExactlyTheFramesSize(t *testing.T) {
	for _, size := range []int{0, 1, frameReadChunk, frameReadChunk + 1, 3*frameReadChunk + 7, 5<<20 + 3} {
		body := bytes.Repeat([]byte{'x'}, size)
		frame, err := appendFrame(nil, body, DefaultMaxFrameSize)
		require.NoError(t, err)
		for name, r := range map[string]io.Reader{
			"at once":        bytes.NewReader(frame),
			"a byte a time":  iotest.OneByteReader(bytes.NewReader(frame)),
			"half at a time": iotest.HalfReader(bytes.NewReader(frame)),
		} {
			if name == "a byte a time" && size > 1<<20 {
				continue // slow, and says nothing the smaller sizes do not
			}
			got, err := readFrame(r, DefaultMaxFrameSize)
			require.NoError(t, err)
			assert.Equal(t, body, got, "%d bytes %s", size, name)
			assert.Equal(t, size, cap(got), "the buffer of %d bytes %s", size, name)
		}
	}
}

// While a large frame arrives, its buffer is never much more than twice
// what has arrived: a frame that stops after 1 MiB of a promised 64 MiB
// held at most 2 MiB.
func TestReadFrameGrowsWithWhatArrives(t *testing.T) {
	const sent = 1 << 20
	frame := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize)
	frame = append(frame, make([]byte, sent)...)
	r := &largestRead{r: bytes.NewReader(frame)}
	_, err := readFrame(r, DefaultMaxFrameSize)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.LessOrEqual(t, r.largest, frameHeaderSize+2*sent, "the most room there was, with what had arrived")
}

// largestRead remembers how much room there was at most: what it had
// read, and the room a Read was given to read more into.
type largestRead struct {
	r       io.Reader
	read    int
	largest int
}

func (l *largestRead) Read(p []byte) (int, error) {
	l.largest = max(l.largest, l.read+len(p))
	n, err := l.r.Read(p)
	l.read += n
	return n, err
}

// FuzzDecodeFrame feeds arbitrary bytes to the reading side of a
// connection, as a peer sending garbage would: the frames are cut out and
// decoded as requests and as responses. Nothing panics, no body is over
// the limit, a stream ends with one of the three documented errors, and
// every request that decodes survives a trip through a frame unchanged.
// The seeds, in testdata/fuzz/FuzzDecodeFrame, are a request, a handshake
// and its answer, an error response, an HTTP request, an oversize header,
// truncated frames, and bodies that are not requests.
func FuzzDecodeFrame(f *testing.F) {
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			body, err := readFrame(r, limit)
			if err != nil {
				var tooLarge *frameTooLargeError
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &tooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(body) > limit {
				t.Fatalf("a body of %d bytes passed the limit of %d", len(body), limit)
			}
			if resp, err := decodeResponse(body); err == nil && resp.Error != nil {
				_ = decodeError(resp.Error).Error()
			}
			req, err := decodeRequest(body)
			if err != nil {
				continue
			}
			again, err := json.Marshal(req)
			if err != nil {
				t.Fatalf("a decoded request cannot be encoded: %v", err)
			}
			frame, err := appendFrame(nil, again, len(again))
			if err != nil {
				t.Fatal(err)
			}
			body2, err := readFrame(bytes.NewReader(frame), len(again))
			if err != nil {
				t.Fatal(err)
			}
			req2, err := decodeRequest(body2)
			if err != nil {
				t.Fatalf("a request encoded by us does not decode: %v", err)
			}
			once, _ := json.Marshal(req2)
			if !bytes.Equal(again, once) {
				t.Fatalf("the request changed on its way:\n%s\n%s", again, once)
			}
		}
	})
}
