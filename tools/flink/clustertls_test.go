package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start-cluster killed with SIGKILL leaves its certificates behind; the
// next one removes them, and only those of clusters no longer running.
func TestCertificatesOfDeadClustersAreRemoved(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	exited := exec.Command(os.Args[0], "-test.run=^$") // a process that is gone once Run returns
	require.NoError(t, exited.Run())

	dead := filepath.Join(os.TempDir(), certificatesDirPrefix+strconv.Itoa(exited.Process.Pid))
	running := filepath.Join(os.TempDir(), certificatesDirPrefix+strconv.Itoa(os.Getpid()))
	other := filepath.Join(os.TempDir(), certificatesDirPrefix+"not-a-pid")
	for _, dir := range []string{dead, running, other} {
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "internal.keystore.pem"), []byte("key"), 0o600))
	}

	removeCertificatesOfDeadClusters()
	assert.NoDirExists(t, dead)
	assert.DirExists(t, running)
	assert.DirExists(t, other)
}
