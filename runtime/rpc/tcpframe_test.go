package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

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
