package rpc

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The wire format of TCPService. A connection carries frames: a 4-byte
// big-endian length, then that many bytes of JSON.
//
//	+--------------------+--------------------------------+
//	| length (uint32 BE) | body: length bytes, one JSON    |
//	+--------------------+--------------------------------+
//
// The side that dialled sends requests; the side that accepted answers
// with responses, each naming the request it answers by ID, in whatever
// order the calls finish. So one connection carries any number of
// concurrent calls.
//
//	→ {"id": 7, "sender": "pekko.tcp://flink@127.0.0.1:40531", "target": "resourcemanager_0",
//	   "method": "RegisterTaskExecutor", "timeoutMs": 10000, "args": ["5e0f…", {"resourceId": "tm-1", …}]}
//	← {"id": 7, "result": {"registrationId": "9a1c…", …}}
//	← {"id": 8, "error": {"message": "…", "causes": [{"code": "rpc.ErrFencingTokenMismatch"}]}}
//
// A request without a method is a handshake (Flink's
// RemoteHandshakeMessage): the answer lists the methods the target serves,
// or is an error if there is no such target.
//
// A frame longer than the limit (DefaultMaxFrameSize unless configured;
// Flink's pekko.framesize) closes the connection: a peer that sends one
// is broken or is not speaking this protocol, and nothing after it can be
// trusted to be a frame boundary. So does a body that is not a request.

// DefaultMaxFrameSize is the largest frame a TCPService sends or accepts
// unless TCPConfig.MaxFrameSize says otherwise.
const DefaultMaxFrameSize = 64 << 20

// frameHeaderSize is the size of a frame's length prefix.
const frameHeaderSize = 4

// request is one call, or a handshake when Method is empty.
type request struct {
	ID uint64 `json:"id"`
	// Sender is the address of the caller's RPC service, e.g.
	// "pekko.tcp://flink@127.0.0.1:6123", for the error a call that
	// cannot be delivered gets.
	Sender string `json:"sender,omitempty"`
	Target string `json:"target"`           // the endpoint's name, e.g. "resourcemanager_0"
	Method string `json:"method,omitempty"` // the gateway method, e.g. "RegisterTaskExecutor"
	// FencingToken is the token a fenced call carries in the message,
	// not as an argument (Flink's RemoteFencedMessage): the caller
	// connected with ConnectFenced, to a FencedGateway.
	FencingToken string `json:"fencingToken,omitempty"`
	// TimeoutMs is what was left of the caller's ctx deadline when it sent
	// the call: the receiver runs the call with a deadline that far ahead.
	// Zero means no deadline.
	TimeoutMs int64             `json:"timeoutMs,omitempty"`
	Args      []json.RawMessage `json:"args,omitempty"`
}

// response answers the request with the same ID: a result (absent for a
// method that returns only an error), or an error.
type response struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

// frameTooLargeError reports a frame over the limit.
type frameTooLargeError struct {
	size, limit int
}

func (e *frameTooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the limit of %d bytes", e.size, e.limit)
}

// readFrame reads one frame and returns its body. It returns io.EOF when
// the stream ends cleanly between frames, io.ErrUnexpectedEOF when it ends
// inside one, and a *frameTooLargeError, before reading the body, when the
// length is over limit.
//
// The body grows with the bytes that really arrive, never with the length
// the header promises: a peer that announces a frame of the largest size
// and sends a few bytes of it costs what it sent, not the limit (the
// server's read timeout then ends the wait for the rest). It starts at
// frameReadChunk and doubles each time it is full, never past the
// announced size, so the body returned is exactly the frame's size:
//
//	a 5 MiB frame:  64 KiB → 128 KiB → … → 4 MiB → 5 MiB
//
// While it grows, the buffer is at most twice what has arrived.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var header [frameHeaderSize]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err // io.EOF at a frame boundary, io.ErrUnexpectedEOF inside the header
	}
	size := int(binary.BigEndian.Uint32(header[:]))
	if uint64(size) > uint64(limit) {
		return nil, &frameTooLargeError{size: size, limit: limit}
	}
	body := make([]byte, 0, min(size, frameReadChunk))
	for {
		n, err := io.ReadFull(r, body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the header promised a body
			}
			return nil, err
		}
		if len(body) == size {
			return body, nil
		}
		grown := make([]byte, len(body), min(2*len(body), size))
		copy(grown, body)
		body = grown
	}
}

// frameReadChunk is how much room readFrame makes for a body before any of
// it has arrived; a larger body grows the buffer as it comes.
const frameReadChunk = 64 << 10

// appendFrame appends body as one frame to dst, refusing a body over limit.
func appendFrame(dst, body []byte, limit int) ([]byte, error) {
	if len(body) > limit {
		return dst, &frameTooLargeError{size: len(body), limit: limit}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...), nil
}

// decodeRequest parses a frame body sent to a server.
func decodeRequest(body []byte) (request, error) {
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return request{}, fmt.Errorf("not a request: %w", err)
	}
	return req, nil
}

// decodeResponse parses a frame body sent to a client.
func decodeResponse(body []byte) (response, error) {
	var resp response
	if err := json.Unmarshal(body, &resp); err != nil {
		return response{}, fmt.Errorf("not a response: %w", err)
	}
	return resp, nil
}
