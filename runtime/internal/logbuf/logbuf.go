package logbuf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"
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

// Record is the part of a JSON log line (as slog.JSONHandler writes it) that
// tests look at.
type Record struct {
	Time   time.Time `json:"time"`
	Level  string    `json:"level"`
	Msg    string    `json:"msg"`
	Logger string    `json:"logger"`
}

// Records parses everything written so far as JSON log lines, one per line,
// and returns them in order. Lines that are not JSON objects are skipped.
func (b *Buffer) Records() []Record {
	b.mu.Lock()
	data := append([]byte(nil), b.buf.Bytes()...)
	b.mu.Unlock()
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// Messages returns, in order, the messages of the Records whose message
// starts with prefix.
func (b *Buffer) Messages(prefix string) []string {
	var out []string
	for _, r := range b.Records() {
		if strings.HasPrefix(r.Msg, prefix) {
			out = append(out, r.Msg)
		}
	}
	return out
}
