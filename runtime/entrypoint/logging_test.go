package entrypoint

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLogFileBaseIsNamedAsFlinksScriptsNameIt(t *testing.T) {
	assert.Regexp(t, `^flink-[^/ ]+-taskexecutor-2-[^/ ]+$`, LogFileBase(DaemonTaskExecutor, 2))
	assert.Regexp(t, `^flink-[^/ ]+-standalonesession-0-[^/ ]+$`, LogFileBase(DaemonStandaloneSession, 0))
}

// A process logs every line to its log file and to stderr, in the shape
// of Flink's log4j pattern; the log of the run before is kept as .log.1.
func TestProcessLogWritesTheFileAndStderr(t *testing.T) {
	dir := t.TempDir()
	base := LogFileBase(DaemonStandaloneSession, 0)
	require.NoError(t, os.WriteFile(filepath.Join(dir, base+".log"), []byte("the run before\n"), 0o644))

	var stderr bytes.Buffer
	plog, err := OpenProcessLog(dir, base, &stderr)
	require.NoError(t, err)
	plog.Logger.With("logger", "StandaloneSessionClusterEntrypoint").Info("Starting StandaloneSessionClusterEntrypoint.")
	require.NoError(t, plog.Close())

	line := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO  StandaloneSessionClusterEntrypoint \[\] - Starting StandaloneSessionClusterEntrypoint\.\n$`)
	assert.Regexp(t, line, stderr.String())
	assert.Equal(t, filepath.Join(dir, base+".log"), plog.Path)
	data, err := os.ReadFile(plog.Path)
	require.NoError(t, err)
	assert.Equal(t, stderr.String(), string(data))
	previous, err := os.ReadFile(plog.Path + ".1")
	require.NoError(t, err)
	assert.Equal(t, "the run before\n", string(previous))
}

func TestProcessLogWithoutADirectoryWritesStderrOnly(t *testing.T) {
	var stderr bytes.Buffer
	plog, err := OpenProcessLog("", "ignored", &stderr)
	require.NoError(t, err)
	plog.Logger.Info("hello")
	assert.Empty(t, plog.Path)
	assert.Contains(t, stderr.String(), " INFO  flinklab [] - hello\n")
	assert.NoError(t, plog.Close())
}
