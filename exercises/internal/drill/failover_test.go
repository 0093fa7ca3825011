//go:build unix

package drill

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/hatrace"
)

// A failover drill's logs are the four processes', named as Flink names
// them on a host called localhost, on the drill's clock; they tell the
// incident as hatrace reads it, and nothing of the machine that ran it or
// of how the incident was made.
func TestAFailoverDrillShowsFourProcessLogsAndNothingOfTheMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	dir := t.TempDir()
	ProduceFailover(t, Spec{Failover: string(hatrace.LeaderKilled), Seed: 42}, dir)

	var logs []hatrace.Log
	for _, name := range []string{
		"flink-flinklab-standalonesession-0-localhost.log", "flink-flinklab-standalonesession-1-localhost.log",
		"flink-flinklab-taskexecutor-0-localhost.log", "flink-flinklab-taskexecutor-1-localhost.log",
	} {
		text := read(t, filepath.Join(dir, "log", name))
		assert.True(t, strings.HasPrefix(text, "2026-11-30 08:42:"), "%s: the seed picks the clock: %.40q", name, text)
		assert.NotRegexp(t, `(?i)\b(?:fault|inject|drill|sig(?:kill|stop|cont))|/e2e-|/Test`, text, name)
		if host, err := os.Hostname(); err == nil && host != "localhost" {
			assert.NotRegexp(t, `\b`+regexp.QuoteMeta(host)+`\b`, text, name)
		}
		process := strings.TrimSuffix(strings.TrimPrefix(name, "flink-flinklab-"), "-localhost.log")
		l, err := hatrace.ReadLog(process, strings.NewReader(text))
		require.NoError(t, err)
		logs = append(logs, l)
	}
	jobManager := read(t, filepath.Join(dir, "log", "flink-flinklab-standalonesession-0-localhost.log"))
	assert.True(t, strings.HasPrefix(jobManager, "2026-11-30 08:42:17,204 INFO  StandaloneSessionClusterEntrypoint [] - "),
		"the drill's clock begins with the first line: %.80q", jobManager)
	assert.Contains(t, jobManager, " OS current user: flink\n")
	assert.Contains(t, jobManager, " Working directory: /opt/flink\n")
	assert.Contains(t, jobManager, "high-availability.cluster-id=/default\n")
	assert.Contains(t, jobManager, "high-availability.storageDir=/mnt/nfs/flink/ha\n")

	cause, ok := hatrace.Explain(logs)
	require.True(t, ok)
	assert.Equal(t, hatrace.LeaderKilled, cause.Kind)
	assert.Equal(t, "standalonesession-0", cause.Process)
}
