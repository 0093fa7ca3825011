package blob

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"flinklab/runtime/api"
)

// The BLOB protocol between a TCPSource and a BlobServer's listener. It
// mirrors the GET of Flink's BlobServerProtocol (BlobClient on one side,
// BlobServerConnection on the other), with its constants. Every
// connection carries one request and its response, then closes.
//
// The request, 51 bytes:
//
//	+---------------+--------------------------+------------+---------------+-------------------+
//	| operation (1) | mode (1)                 | JobID (16) | BLOB type (1) | key: SHA-256 (32) |
//	| GET = 1       | JOB_RELATED_CONTENT = 1  |            | PERMANENT = 1 |                   |
//	+---------------+--------------------------+------------+---------------+-------------------+
//
// The response, either the content:
//
//	+-----------------+-------------------------+----------------------+
//	| RETURN_OKAY = 0 | length (8, big-endian)  | length bytes of BLOB |
//	+-----------------+-------------------------+----------------------+
//
// or an error:
//
//	+------------------+----------------+------------------------+---------------------+
//	| RETURN_ERROR = 1 | error kind (1) | message length (4, BE) | message (UTF-8)     |
//	+------------------+----------------+------------------------+---------------------+
//
// The error kind says which sentinel the client wraps: 1 for a BLOB the
// server does not have (fs.ErrNotExist), 2 for a zero ID (ErrInvalidID),
// 0 for anything else. Flink sends the Java exception instead.
//
// Nothing on the way is trusted: the cache hashes what it receives and
// compares it with the key, so a transfer damaged anywhere between the
// server's disk and the cache's is caught and retried.

// The protocol's constants, with Flink's values (BlobServerProtocol).
const (
	getOperation      byte = 1 // Flink: GET_OPERATION
	jobRelatedContent byte = 1 // Flink: JOB_RELATED_CONTENT
	permanentBlob     byte = 1 // Flink: BlobKey.BlobType.PERMANENT_BLOB
	returnOkay        byte = 0 // Flink: RETURN_OKAY
	returnError       byte = 1 // Flink: RETURN_ERROR
)

// requestLength is the size of a GET request.
const requestLength = 1 + 1 + 16 + 1 + 32

// maxErrorMessageLength bounds an error message a client reads.
const maxErrorMessageLength = 64 << 10

// The error kinds of an error response.
const (
	errorKindOther    byte = 0
	errorKindNotFound byte = 1
	errorKindInvalid  byte = 2
)

// appendGetRequest appends the request for one BLOB.
func appendGetRequest(dst []byte, jobID api.JobID, key PermanentBlobKey) []byte {
	dst = append(dst, getOperation, jobRelatedContent)
	text, _ := jobID.MarshalText() // 32 hex characters; the api package keeps the bytes to itself
	var raw [16]byte
	_, _ = hex.Decode(raw[:], text)
	dst = append(dst, raw[:]...)
	dst = append(dst, permanentBlob)
	return append(dst, key.hash[:]...)
}

// parseGetRequest reads a request written by appendGetRequest. It refuses
// an operation other than GET of a permanent BLOB; zero IDs parse, and
// BlobServer.Open refuses them.
func parseGetRequest(request [requestLength]byte) (api.JobID, PermanentBlobKey, error) {
	switch {
	case request[0] != getOperation:
		return api.JobID{}, PermanentBlobKey{}, fmt.Errorf("unknown operation %d", request[0])
	case request[1] != jobRelatedContent:
		return api.JobID{}, PermanentBlobKey{}, fmt.Errorf("unknown mode %d", request[1])
	case request[18] != permanentBlob:
		return api.JobID{}, PermanentBlobKey{}, fmt.Errorf("unknown BLOB type %d", request[18])
	}
	var jobID api.JobID
	_ = jobID.UnmarshalText([]byte(hex.EncodeToString(request[2:18]))) // 32 hex characters always parse
	var key PermanentBlobKey
	copy(key.hash[:], request[19:])
	return jobID, key, nil
}

// appendOkayHeader appends the start of a response that carries a BLOB of
// the given length; the content follows.
func appendOkayHeader(dst []byte, length int64) []byte {
	dst = append(dst, returnOkay)
	return binary.BigEndian.AppendUint64(dst, uint64(length))
}

// appendErrorResponse appends an error response for err.
func appendErrorResponse(dst []byte, err error) []byte {
	kind := errorKindOther
	switch {
	case errors.Is(err, fs.ErrNotExist):
		kind = errorKindNotFound
	case errors.Is(err, ErrInvalidID):
		kind = errorKindInvalid
	}
	message := err.Error()
	if len(message) > maxErrorMessageLength {
		message = message[:maxErrorMessageLength]
	}
	dst = append(dst, returnError, kind)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(message)))
	return append(dst, message...)
}

// readResponseHeader reads the start of a response: the length of the
// BLOB that follows, or the error the server sent.
func readResponseHeader(r io.Reader) (int64, error) {
	var status [1]byte
	if _, err := io.ReadFull(r, status[:]); err != nil {
		return 0, err
	}
	switch status[0] {
	case returnOkay:
		var length [8]byte
		if _, err := io.ReadFull(r, length[:]); err != nil {
			return 0, unexpected(err)
		}
		size := int64(binary.BigEndian.Uint64(length[:]))
		if size < 0 {
			return 0, fmt.Errorf("the BLOB server announced a negative length %d", size)
		}
		return size, nil
	case returnError:
		var header [5]byte
		if _, err := io.ReadFull(r, header[:]); err != nil {
			return 0, unexpected(err)
		}
		size := binary.BigEndian.Uint32(header[1:])
		if size > maxErrorMessageLength {
			return 0, fmt.Errorf("the BLOB server sent an error message of %d bytes", size)
		}
		message := make([]byte, size)
		if _, err := io.ReadFull(r, message); err != nil {
			return 0, unexpected(err)
		}
		return 0, &serverError{kind: header[0], message: string(message)}
	default:
		return 0, fmt.Errorf("the BLOB server sent an unknown response code %d", status[0])
	}
}

// unexpected turns the end of the stream inside a response into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// serverError is an error the BlobServer sent: its text, and the sentinel
// its kind names, for errors.Is.
type serverError struct {
	kind    byte
	message string
}

func (e *serverError) Error() string { return e.message }

func (e *serverError) Unwrap() error {
	switch e.kind {
	case errorKindNotFound:
		return fs.ErrNotExist
	case errorKindInvalid:
		return ErrInvalidID
	default:
		return nil
	}
}
