package drill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProduce produces the drill that the environment names (Env): it is
// how `go run ./tools/learn start dNN` makes a drill's logs. Without a
// drill in the environment it has nothing to do.
func TestProduce(t *testing.T) {
	spec, dir, ok, err := fromEnv()
	require.NoError(t, err)
	if !ok {
		t.Skip("no drill named in " + EnvSpec + " and " + EnvDir)
	}
	if spec.Failover != "" {
		ProduceFailover(t, spec, dir)
		return
	}
	Produce(t, spec, dir)
}

// A drill's logs are a JobManager's and each TaskManager's, on the drill's
// clock, and say nothing of the fault that broke the run.
func TestADrillShowsOnlyWhatAnEngineerOnCallWouldHave(t *testing.T) {
	dir := t.TempDir()
	Produce(t, Spec{Fault: "m10:blob-unavailable", Seed: 42}, dir)

	files, err := filepath.Glob(filepath.Join(dir, "log", "*.log"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	assert.Equal(t, []string{
		"flink-flinklab-standalonesession-0-localhost.log",
		"flink-flinklab-taskexecutor-0-localhost.log",
		"flink-flinklab-taskexecutor-1-localhost.log",
	}, names)

	jobManager := read(t, filepath.Join(dir, "log", names[0]))
	assert.True(t, strings.HasPrefix(jobManager, "2026-11-30 08:42:17,204 INFO  MiniCluster [] - Starting Flink Mini Cluster\n"),
		"the seed picks the clock: %.80q", jobManager)
	assert.Contains(t, jobManager, "StandaloneDispatcher [] - Received JobGraph submission 'WordCount'")
	assert.NotContains(t, jobManager, "TaskExecutor [] -", "a TaskManager's lines are in its own log")
	taskManagers := read(t, filepath.Join(dir, "log", names[1])) + read(t, filepath.Join(dir, "log", names[2]))
	assert.Contains(t, taskManagers, "Failed to fetch BLOB")
	assert.Contains(t, taskManagers, "java.io.FileNotFoundException: /tmp/blobStore-5d1c/job_1/blob_p-1 (No such file or directory)",
		"the injected failure reads as the cause a real cluster would give")
	client := read(t, filepath.Join(dir, "client.txt"))
	for _, text := range []string{jobManager, taskManagers, client} {
		assert.NotRegexp(t, `(?i)\bfault|inject`, text) // DefaultScheduler may stay
	}
	assert.Contains(t, client, "GET /jobs/overview\n200 ")
	assert.Regexp(t, `GET /jobs/[0-9a-f]{32}/exceptions\n200 `, client)
	assert.Regexp(t, `\$ ./bin/flink list -a\nWaiting for response...\nNo running jobs.\nNo scheduled jobs.\n-+ Terminated Jobs -+\n`+
		`30\.11\.2026 08:42:17 : [0-9a-f]{32} : WordCount \(FINISHED\)\n`, client, "the job started on the drill's clock")
	assert.NotContains(t, client, `"start-time": 9466`, "no time is left on the bubble's clock")
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// A Spec names the scheduler and the execution mode as Flink's options
// do; a value the cluster would refuse is refused before anything runs.
func TestSpecPicksTheSchedulerAndTheExecutionMode(t *testing.T) {
	spec := Spec{Scheduler: "adaptive", ResourceWaitTimeout: "40s", ExecutionMode: "BATCH"}
	schedulerType, settings, err := spec.scheduler()
	require.NoError(t, err)
	assert.Equal(t, "Adaptive", schedulerType)
	assert.Equal(t, 40*time.Second, settings.ResourceWaitTimeout)
	assert.Equal(t, 10*time.Second, settings.ResourceStabilizationTimeout, "the rest are Flink's defaults")
	assert.Equal(t, []string{"--output", "collect", "--execution-mode", "BATCH"}, spec.programArgs())

	schedulerType, _, err = Spec{}.scheduler()
	require.NoError(t, err)
	assert.Equal(t, "Default", schedulerType)
	assert.Equal(t, []string{"--output", "collect"}, Spec{}.programArgs())

	for _, bad := range []Spec{{Scheduler: "adaptve"}, {Scheduler: "adaptive", ResourceWaitTimeout: "40"}} {
		_, _, err := bad.withDefaults()
		assert.Error(t, err, "%+v", bad)
	}
}

// A Spec breaks a step or a leader, never both, and names only the
// incidents the producer makes.
func TestSpecRefusesAFailoverItCannotMake(t *testing.T) {
	for _, bad := range []Spec{{Failover: "leader-stopped"}, {Failover: "killed"}, {Failover: "leader-killed", Fault: "m7"}} {
		_, _, err := bad.withDefaults()
		assert.Error(t, err, "%+v", bad)
	}
	_, faults, err := Spec{Failover: FailoverNone}.withDefaults()
	require.NoError(t, err)
	assert.Empty(t, faults)
}
