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

// A Spec checkpoints its job by Flink's keys and may run the ticker; a
// job the client cannot run, options it does not take and a fault of a
// checkpoint's step in a job without checkpoints, which would never fire,
// are refused before anything runs.
func TestSpecChecksTheJobAndItsCheckpointing(t *testing.T) {
	checkpointed := map[string]string{
		"execution.checkpointing.interval":                     "5 s",
		"execution.checkpointing.timeout":                      "15 s",
		"execution.checkpointing.tolerable-failed-checkpoints": "0",
	}
	spec := Spec{Fault: "k4,after=8", Times: -1, Job: JobTicker, Checkpointing: checkpointed}
	_, faults, err := spec.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, "k4:barrier-lost,times=always,after=8", faults[0].String())
	cfg, err := spec.checkpointing()
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, cfg.Interval)
	assert.Equal(t, 15*time.Second, cfg.Timeout)
	assert.Zero(t, cfg.TolerableFailures)
	assert.Equal(t, []string{"--output", "collect"}, spec.programArgs())
	name, jar, err := spec.jar()
	require.NoError(t, err)
	assert.Equal(t, "Ticker.jar", name)
	assert.NotEmpty(t, jar)

	cfg, err = Spec{}.checkpointing()
	require.NoError(t, err)
	assert.False(t, cfg.IsCheckpointingEnabled(), "no options, no checkpoints")

	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{Job: "tickr"}, `job "tickr": want "WordCount" or "ticker"`},
		{Spec{Job: JobTicker, ExecutionMode: "BATCH"}, "the ticker is unbounded"},
		{Spec{Fault: "k1", Job: JobTicker}, "fault k1:checkpoint-expired: a checkpoint's step breaks a checkpointed job only"},
		{Spec{Checkpointing: map[string]string{"execution.checkpointing.interval": "5"}}, "Checkpoint interval must be larger than or equal to 10 ms"},
		{Spec{Checkpointing: map[string]string{"execution.checkpointing.timeout": "never"}}, "Could not parse value 'never'"},
	} {
		_, _, err := tt.spec.withDefaults()
		assert.ErrorContains(t, err, tt.want, "%+v", tt.spec)
	}
}

// The checkpoints are shown as the web UI shows them: acknowledged
// subtasks as a share, times of day to the millisecond.
func TestTheWebUIsCheckpointFigures(t *testing.T) {
	for _, tt := range []struct {
		acks, subtasks int
		want           string
	}{
		{2, 4, "2/4 (50%)"}, {0, 2, "0/2 (0%)"}, {2, 2, "2/2 (100%)"}, {1, 3, "1/3 (33%)"}, {0, 0, "0/0 (0%)"},
	} {
		assert.Equal(t, tt.want, acknowledged(tt.acks, tt.subtasks))
	}
	at := time.Date(2026, time.November, 30, 8, 43, 35, 131_000_000, time.UTC)
	assert.Equal(t, "08:43:35.131", clock(at.UnixMilli()))
	assert.Equal(t, "-", clock(-1), "no acknowledgement yet")
}
