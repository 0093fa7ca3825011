package main

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The processes' log lines reach start-cluster's stderr whole, each
// behind the name of its process, however the writes cut them; the last
// line of a process that died in the middle of it is not lost.
func TestLineWriterPrefixesWholeLines(t *testing.T) {
	var out strings.Builder
	w := &lineWriter{mu: &sync.Mutex{}, w: &out, prefix: "taskexecutor-0 | "}
	for _, write := range []string{"Starting Task", "Manager\nRECEIVED SIG", "NAL 15\n", "panic: boom"} {
		n, err := w.Write([]byte(write))
		assert.NoError(t, err)
		assert.Equal(t, len(write), n)
	}
	assert.Equal(t, "taskexecutor-0 | Starting TaskManager\ntaskexecutor-0 | RECEIVED SIGNAL 15\n", out.String())

	w.flush()
	assert.Equal(t, "taskexecutor-0 | Starting TaskManager\ntaskexecutor-0 | RECEIVED SIGNAL 15\ntaskexecutor-0 | panic: boom\n", out.String())
	w.flush()
	assert.Equal(t, 3, strings.Count(out.String(), "\n"), "flushed once")
}
