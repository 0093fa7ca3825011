//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// Region failover on a cluster of real processes. The pipelines example
// at parallelism 4 is four regions (a source subtask and the map subtask
// it feeds, forward); on two TaskManagers × 2 slots each TaskManager runs
// two of them. SIGKILL one TaskManager: only the two regions that ran on
// it restart, the other two keep their attempt 0 and run on; the
// restarted ones wait for slots until `flink taskmanager` starts a third
// TaskManager, and then run there in attempt 1.
func TestRegionFailoverOfAKilledTaskManagerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	heartbeats := []string{"-D", entrypoint.KeyHeartbeatInterval + "=200", "-D", entrypoint.KeyHeartbeatTimeout + "=1000"}
	cl := startTestCluster(t, bin, logDir, append(heartbeats,
		"-D", "restart-strategy.type=fixed-delay",
		"-D", "restart-strategy.fixed-delay.attempts=3",
		"-D", "restart-strategy.fixed-delay.delay=200 ms")...)
	// Where the JobManager serves RPC and BLOBs, which a TaskManager
	// started by hand must be told.
	jobManager := regexp.MustCompile(`daemon on host \S+ \(pid \d+\): RPC (\S+), REST endpoint \S+, BLOB server (\S+),`).FindStringSubmatch(cl.stdout())
	require.NotNil(t, jobManager, "no RPC and BLOB addresses in:\n%s", cl.stdout())
	jar := filepath.Join(t.TempDir(), "Pipelines.jar")
	flinktest.Run(t, bin, "jar", pipelines.ProgramClass, "-o", jar)

	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", cl.restAddress, "-p", "4", jar))
	details := flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING", flinktest.EveryTaskRunning)
	first := subtasksByName(t, cl.rc, details)
	require.Len(t, first, 8, "4 sources and 4 work -> print-sink tasks")
	resourceIDs := cl.taskManagerPIDs(t)
	victim := first["Source: numbers (1/4)"].TaskManagerID
	onVictim := map[string]bool{}
	for name, s := range first {
		if s.TaskManagerID == victim {
			onVictim[name] = true
		}
	}
	require.Len(t, onVictim, 4, "parallelism 4 fills both TaskManagers, two pipelines each: %v", first)

	require.NoError(t, syscall.Kill(resourceIDs[victim], syscall.SIGKILL))
	// A third TaskManager joins; the restarted regions take its slots.
	newcomer := startClusterProcess(t, bin, append([]string{"taskmanager", "-m", jobManager[1], "--slots", "2", "--log-dir", logDir,
		"--blob-server", jobManager[2]}, heartbeats...)...)
	t.Cleanup(func() { _ = newcomer.cmd.Process.Signal(syscall.SIGTERM); newcomer.awaitExit(t) })

	var again map[string]rest.SubtaskExecutionAttemptDetailsInfo
	flinktest.AwaitJob(t, cl.rc, jobID, "every task RUNNING, four of them again", func(d rest.JobDetailsInfo) bool {
		if !flinktest.EveryTaskRunning(d) {
			return false
		}
		again = subtasksByName(t, cl.rc, d)
		for _, s := range again {
			if s.TaskManagerID == victim {
				return false
			}
		}
		return true
	})
	for name, s := range again {
		if onVictim[name] {
			assert.Equal(t, 1, s.Attempt, "%s ran on the killed TaskManager: restarted once", name)
		} else {
			assert.Equal(t, 0, s.Attempt, "%s ran elsewhere: never restarted", name)
		}
	}

	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	assert.Contains(t, jmLog, "Using failover strategy RestartPipelinedRegionFailoverStrategy")
	assert.Contains(t, jmLog, "Calculating tasks to restart to recover the failed task ")
	assert.Regexp(t, `2 tasks should be restarted to recover the failed task \S+\. `, jmLog)
	assert.Regexp(t, `2 tasks will be restarted to recover the failed task [0-9a-f]+_\S+\.`, jmLog)
	cl.stop(t)
}

// subtasksByName returns the current attempt of every subtask of the job,
// by its name with subtask index, e.g. "Source: numbers (1/4)".
func subtasksByName(t testing.TB, rc *client.RestClusterClient, d rest.JobDetailsInfo) map[string]rest.SubtaskExecutionAttemptDetailsInfo {
	t.Helper()
	subtasks := map[string]rest.SubtaskExecutionAttemptDetailsInfo{}
	for _, v := range d.Vertices {
		var vertex rest.JobVertexDetailsInfo
		require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+d.JobID.String()+"/vertices/"+v.ID.String(), &vertex))
		for _, s := range vertex.Subtasks {
			subtasks[fmt.Sprintf("%s (%d/%d)", v.Name, s.Subtask+1, v.Parallelism)] = s
		}
	}
	return subtasks
}

// A BATCH job on real processes: WordCount at parallelism 8, 16 subtasks,
// on two TaskManagers with 4 slots in all. Its exchange is BLOCKING: the
// tokenizers run first, four at a time, and write their results to files;
// the counters then read them over TCP from both TaskManagers, and print
// one final count per word.
func TestBatchWordCountRunsStageAfterStageEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	cl := startTestCluster(t, bin, logDir)
	jar := filepath.Join(t.TempDir(), "WordCount.jar")
	flinktest.Run(t, bin, "jar", wordcount.ProgramClass, "-o", jar)

	out := flinktest.Run(t, bin, "run", "-m", cl.restAddress, "-p", "8", jar, "--execution-mode", "BATCH")
	assert.Contains(t, out, "Program execution finished")
	cl.stop(t)

	assert.Equal(t, wordCounts(), printedCounts(t, logDir))
	printed := 0
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, i)+".out"))
		require.NoError(t, err)
		printed += strings.Count(string(data), ")\n")
	}
	assert.Equal(t, len(wordCounts()), printed, "one final count per word, not a running count per record")
	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	assert.NotContains(t, jmLog, "Could not acquire the minimum required resources", "a BATCH job takes turns for its slots")
}
