//go:build unix

package flinktest

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// AwaitLog waits until the process's log file has a line that contains
// want, and returns the whole log (AwaitLogFile).
func (p *Process) AwaitLog(t testing.TB, want string) string {
	t.Helper()
	return AwaitLogFile(t, p.LogPath(), want)
}

// AwaitLogFile waits until the log file at path has a line that contains
// want, and returns the whole log. A process writes its log as it goes,
// and only reading the file again tells when a line has come: it is read
// every 10 ms, for Timeout at most.
func AwaitLogFile(t testing.TB, path, want string) string {
	t.Helper()
	deadline := time.After(Timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), want) {
			return string(data)
		}
		select {
		case <-deadline:
			t.Fatalf("no line %q in %s within %v (error: %v)", want, path, Timeout, err)
		case <-tick.C:
		}
	}
}

// WholeLines reads a log file that its process may still be writing, up
// to the end of its last whole line: a line the process is writing at
// that moment is left out.
func WholeLines(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(data[:bytes.LastIndexByte(data, '\n')+1]), nil
}
