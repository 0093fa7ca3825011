package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// PermanentBlobKey names a permanent BLOB (a job's jar or artifact) by the
// SHA-256 of its content, so the key is also the checksum a BlobCache
// verifies after every download. It prints as "p-" and 64 hex characters.
//
// Differs from Flink: Flink's PermanentBlobKey is a SHA-1 hash plus a random
// part; content addressing with SHA-256 makes the key and the checksum one.
type PermanentBlobKey struct{ hash [sha256.Size]byte }

// KeyOf returns the key of the given content.
func KeyOf(content []byte) PermanentBlobKey { return PermanentBlobKey{sha256.Sum256(content)} }

// String returns "p-" followed by the 64 hex characters of the SHA-256.
func (k PermanentBlobKey) String() string { return "p-" + hex.EncodeToString(k.hash[:]) }

// IsZero reports whether the key was never set.
func (k PermanentBlobKey) IsZero() bool { return k == PermanentBlobKey{} }

// MarshalText encodes the key as its String form (also in JSON).
func (k PermanentBlobKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a key from its String form.
func (k *PermanentBlobKey) UnmarshalText(b []byte) error {
	parsed, err := ParsePermanentBlobKey(string(b))
	if err != nil {
		return err
	}
	*k = parsed
	return nil
}

// ParsePermanentBlobKey parses the String form of a key.
func ParsePermanentBlobKey(s string) (PermanentBlobKey, error) {
	var k PermanentBlobKey
	hexPart, ok := strings.CutPrefix(s, "p-")
	if ok && len(hexPart) == 2*sha256.Size {
		if _, err := hex.Decode(k.hash[:], []byte(hexPart)); err == nil {
			return k, nil
		}
	}
	return PermanentBlobKey{}, fmt.Errorf("invalid permanent BLOB key %q: want \"p-\" and 64 hex characters", s)
}
