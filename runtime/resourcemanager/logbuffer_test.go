package resourcemanager

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
)

// logBuffer collects JSON log lines from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// logRecord is the part of a JSON log line the tests look at.
type logRecord struct {
	Level  string `json:"level"`
	Msg    string `json:"msg"`
	Logger string `json:"logger"`
}

func (b *logBuffer) records() []logRecord {
	b.mu.Lock()
	data := append([]byte(nil), b.buf.Bytes()...)
	b.mu.Unlock()
	var out []logRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// messages returns the messages that start with prefix.
func (b *logBuffer) messages(prefix string) []string {
	var out []string
	for _, r := range b.records() {
		if strings.HasPrefix(r.Msg, prefix) {
			out = append(out, r.Msg)
		}
	}
	return out
}
