//go:build unix

package flinktest

import (
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
