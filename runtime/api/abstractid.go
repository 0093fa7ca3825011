package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// abstractID is Flink's AbstractID: 16 random bytes, printed as 32
// lower-case hex characters. It is embedded by the named identifier types,
// which gives each of them String, GoString, MarshalText and UnmarshalText.
//
// It holds the 32 characters themselves ("" for the zero ID), not the 16
// bytes: then every way an identifier gets printed shows what Flink's logs
// show, testify's diffs included, which dump a value's fields and ignore its
// methods. Bytes would print there as {0x26, 0xea, …}.
type abstractID string

// zeroHex is how the zero identifier prints.
const zeroHex = "00000000000000000000000000000000"

func newAbstractID() abstractID {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	if b == [16]byte{} {
		return "" // one chance in 2^128; the zero ID has one representation
	}
	return abstractID(hex.EncodeToString(b[:]))
}

// String returns the 32 lower-case hex characters Flink prints.
func (id abstractID) String() string {
	if id == "" {
		return zeroHex
	}
	return string(id)
}

// GoString is String: %#v, and so testify's "expected" and "actual", print
// an identifier as Flink does, not as the Go value it is kept in.
func (id abstractID) GoString() string { return id.String() }

// IsZero reports whether the identifier was never set.
func (id abstractID) IsZero() bool { return id == "" }

// MarshalText encodes the identifier as 32 hex characters (also in JSON).
func (id abstractID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func parseAbstractID(kind, s string) (abstractID, error) {
	var b [16]byte
	if len(s) == 2*len(b) {
		if _, err := hex.Decode(b[:], []byte(s)); err == nil {
			if b == [16]byte{} {
				return "", nil
			}
			return abstractID(strings.ToLower(s)), nil
		}
	}
	return "", fmt.Errorf("Cannot parse %s from %q. The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.", kind, s)
}
