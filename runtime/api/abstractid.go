package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// abstractID is Flink's AbstractID: 16 random bytes, printed as 32 hex
// characters. It is embedded by the named identifier types below, which gives
// each of them String, MarshalText and UnmarshalText.
type abstractID [16]byte

func newAbstractID() abstractID {
	var id abstractID
	if _, err := rand.Read(id[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	return id
}

// String returns the 32 lower-case hex characters Flink prints.
func (id abstractID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether the identifier was never set.
func (id abstractID) IsZero() bool { return id == abstractID{} }

// MarshalText encodes the identifier as 32 hex characters (also in JSON).
func (id abstractID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func parseAbstractID(kind, s string) (abstractID, error) {
	var id abstractID
	if len(s) == 2*len(id) {
		if _, err := hex.Decode(id[:], []byte(s)); err == nil {
			return id, nil
		}
	}
	return abstractID{}, fmt.Errorf("Cannot parse %s from %q. The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.", kind, s)
}
