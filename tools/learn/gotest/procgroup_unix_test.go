//go:build unix

package gotest

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A check that `learn watch` cancels must not leave its test binary
// running: a learner's body that blocks forever would go on burning a CPU
// until go test's -timeout, minutes later, once per save.
func TestCancelStopsTheTestBinary(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "started")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	writeFile(t, filepath.Join(root, "go.mod"), "module blocks\n\ngo 1.26\n")
	// The test opens the fifo for writing, which tells this test that it
	// runs, and then blocks forever, holding it open until it dies.
	writeFile(t, filepath.Join(root, "blocks_test.go"), `package blocks

import (
	"os"
	"testing"
)

func TestBlocks(t *testing.T) {
	f, err := os.OpenFile("started", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	select {}
}
`)

	ctx, cancel := context.WithCancel(t.Context())
	executed := make(chan error, 1)
	go func() {
		_, err := Execute(ctx, Run{Root: root, Package: "."})
		executed <- err
	}()

	started, err := os.Open(fifo) // returns once the test binary has opened it
	require.NoError(t, err)
	defer started.Close()
	cancel()
	assert.ErrorIs(t, <-executed, context.Canceled)

	// Read returns (io.EOF) only when every writer has closed the fifo:
	// when the test binary is gone.
	gone := make(chan struct{})
	go func() {
		_, _ = started.Read(make([]byte, 1))
		close(gone)
	}()
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("the test binary still runs a minute after its run was cancelled")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
