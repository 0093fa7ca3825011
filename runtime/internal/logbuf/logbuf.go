// Package logbuf holds the log sink the runtime's tests share: a buffer the
// cluster's goroutines write to while the test reads it.
package logbuf

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
