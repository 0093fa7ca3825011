package diagrams

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	"flinklab/runtime/streaming/tasks"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/slots"
)

// TestRunningSlotsOverREST runs the unbounded ticker at parallelism 2 on
// one TaskManager with 2 slots, through the REST endpoint, and asks REST
// where it runs once every subtask is RUNNING: both slots are the job's,
// and all four subtasks are on the TaskManager, which is as precise as
// Flink's REST gets.
func TestRunningSlotsOverREST(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	workDir := t.TempDir()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             workDir,
		REST:                   &rest.Config{UploadDir: filepath.Join(workDir, "web-upload")},
		Logger:                 slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	defer cluster.Close()
	defer tasks.SetStdout(io.Discard)()

	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, ticker.ProgramClass, nil))
	c := client.NewRestClusterClient(cluster.RESTAddress())
	jarID, err := c.UploadJar(ctx, "Ticker.jar", jar.Bytes())
	require.NoError(t, err)
	jobID, err := c.RunJar(ctx, jarID, client.JarRunRequest{Parallelism: 2})
	require.NoError(t, err)
	allRunning := func(events []trace.Event) bool { return trace.Count(events, trace.M11) >= 4 }
	require.NoError(t, cluster.Trace().Await(ctx, jobID, allRunning))

	// The tasks have reported RUNNING (m11); the JobMaster's
	// ExecutionGraph, which the REST endpoint shows, has it a moment
	// later: ask until it does, bounded by ctx.
	running := awaitRunningSlots(t, ctx, cluster.RESTAddress(), jobID.String(), 4)
	assert.Equal(t, ticker.JobName, running.JobName)
	require.Len(t, running.TaskManagers, 1)
	tm := running.TaskManagers[0]
	assert.True(t, tm.Registered)
	assert.Equal(t, 2, tm.SlotsNumber)
	assert.Equal(t, 2, tm.SlotsOf(jobID), "both slots are the job's")
	var subtasks []string
	for _, s := range tm.Subtasks {
		subtasks = append(subtasks, s.String())
	}
	assert.Equal(t, []string{
		"Source: sensor-events (1/2) #0 RUNNING",
		"Source: sensor-events (2/2) #0 RUNNING",
		"running-count -> Sink: print-sink (1/2) #0 RUNNING",
		"running-count -> Sink: print-sink (2/2) #0 RUNNING",
	}, subtasks)
	assert.Empty(t, running.Unassigned)
	assert.Contains(t, string(dot.RunningSlots(running)), "REST does not say which slot a subtask runs in")

	require.NoError(t, cluster.CancelJob(ctx, jobID))
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobCanceled, result.JobStatus)

	_, err = RunningSlots(ctx, cluster.RESTAddress(), api.NewJobID().String())
	assert.ErrorContains(t, err, "not found")
	_, err = RunningSlots(ctx, cluster.RESTAddress(), "not-a-job-id")
	assert.ErrorContains(t, err, `-job "not-a-job-id"`)
}

// A JobGraph file is planned as it is; it takes no program arguments or
// parallelism, which belong to planning a program.
func TestPlanSlotsOfAJobGraphFile(t *testing.T) {
	plan, err := PlanProgram(wordcount.ProgramClass, nil, 2)
	require.NoError(t, err)
	data, err := jobgraph.Encode(plan.JobGraph)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "flink-jobgraph.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	cluster := slots.Cluster{TaskManagers: 1, Configuration: map[string]string{"taskmanager.numberOfTaskSlots": "2"}}
	name, fromFile, err := PlanSlots(path, nil, 0, cluster)
	require.NoError(t, err)
	assert.Equal(t, "flink-jobgraph", name)
	_, fromProgram, err := PlanSlots(wordcount.ProgramClass, nil, 2, cluster)
	require.NoError(t, err)
	assert.Equal(t, dot.SlotPlan(fromProgram), dot.SlotPlan(fromFile))

	_, _, err = PlanSlots(path, nil, 4, cluster)
	assert.ErrorContains(t, err, "a JobGraph file is read as it is")
	_, _, err = PlanSlots(filepath.Join(t.TempDir(), "missing.json"), nil, 0, cluster)
	assert.Error(t, err)
}

// awaitRunningSlots asks for the job's running slots until n of its
// subtasks are RUNNING.
func awaitRunningSlots(t *testing.T, ctx context.Context, restAddress, jobID string, n int) *slots.Running {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		running, err := RunningSlots(ctx, restAddress, jobID)
		require.NoError(t, err)
		count := 0
		for _, tm := range running.TaskManagers {
			for _, s := range tm.Subtasks {
				if strings.HasSuffix(s.String(), " RUNNING") {
					count++
				}
			}
		}
		if count >= n {
			return running
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of the job's subtasks are RUNNING, want %d", count, n)
		case <-tick.C:
		}
	}
}
