package tasks

import (
	"io"
	"os"
	"sync"
)

// stdout is where print sinks write: os.Stdout unless a test or a
// program runner redirected it with SetStdout.
var stdout = struct {
	sync.Mutex
	w io.Writer
}{w: os.Stdout}

// SetStdout makes print sinks opened from now on write to w instead of
// os.Stdout, as Flink's tests replace System.out, and returns a function
// that restores the previous writer. Every print subtask writes each line
// with one Write call, from its own goroutine: w must be safe for
// concurrent use.
func SetStdout(w io.Writer) (restore func()) {
	stdout.Lock()
	defer stdout.Unlock()
	previous := stdout.w
	stdout.w = w
	return func() {
		stdout.Lock()
		defer stdout.Unlock()
		stdout.w = previous
	}
}

func currentStdout() io.Writer {
	stdout.Lock()
	defer stdout.Unlock()
	return stdout.w
}
