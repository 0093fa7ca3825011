package diagrams

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/checkpoints"
)

// TestRunCheckpoint runs the ticker with checkpoints as -checkpoint does
// and checks what the trace says of its second completed checkpoint
// against what a checkpoint must be: every step there, in an order the
// barrier allows. In a synctest bubble, the checkpoints come at the same
// virtual times on any machine.
func TestRunCheckpoint(t *testing.T) {
	synctest.Test(t, testRunCheckpoint)
}

func testRunCheckpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer ticker.Results.Clear()
	plan, err := PlanProgram(CheckpointProgram, CheckpointArgs, CheckpointParallelism)
	require.NoError(t, err)
	run, err := plan.RunCheckpoint(ctx, CheckpointDrawn)
	require.NoError(t, err)

	c := run.Checkpoint
	assert.Equal(t, []int64{1, 2}, run.Completed, "the job is stopped once its second checkpoint is complete")
	assert.Equal(t, int64(2), c.ID)
	assert.True(t, c.Measured)
	require.Len(t, c.Tasks, 4)
	assert.Len(t, c.Events, 16, "k1, 2 × k2, 2 × k3, 2 × k4, 4 × k5, k6, 4 × k7")
	assert.Equal(t, 1, c.Trigger.Order)

	var ranks []int
	lastK3, firstK4, lastK5 := 0, len(c.Events), 0
	for _, task := range c.Tasks {
		if task.Source {
			assert.Less(t, task.Triggered.Order, task.SentBarrier.Order, "%s: triggered, then the barrier", task.Name)
			assert.Less(t, task.SentBarrier.Order, task.Acknowledged.Order, "%s: the barrier, then the acknowledgement", task.Name)
			lastK3 = max(lastK3, task.SentBarrier.Order)
		} else {
			assert.Equal(t, 2, task.Inputs, "%s: one channel from each source", task.Name)
			assert.Less(t, task.Aligned.Order, task.Acknowledged.Order, "%s: aligned, then the acknowledgement", task.Name)
			firstK4 = min(firstK4, task.Aligned.Order)
		}
		assert.Less(t, task.Acknowledged.Order, c.Completion.Order, task.Name)
		assert.Greater(t, task.Notified.Order, c.Completion.Order, task.Name)
		assert.Equal(t, "taskexecutor-0", task.TaskManager, task.Name)
		lastK5 = max(lastK5, task.Acknowledged.Order)
		ranks = append(ranks, task.AckRank)
	}
	assert.Less(t, lastK3, firstK4, "ALL_TO_ALL: every source sends its barrier before a subtask downstream has it on all inputs")
	assert.Equal(t, lastK5+1, c.Completion.Order, "the last acknowledgement completes the checkpoint")
	slices.Sort(ranks)
	assert.Equal(t, []int{1, 2, 3, 4}, ranks)

	// The committed form is the same whatever the order of the run.
	files := run.Canonical().Files()
	assert.ElementsMatch(t, []string{"ticker-checkpoint.dot", "ticker-checkpoint-sequence.dot", "ticker-checkpoint-sequence.mmd"}, keys(files))
	sequence := string(files["ticker-checkpoint-sequence.mmd"])
	assert.Contains(t, sequence, "    CheckpointCoordinator->>TaskExecutor: k2: Trigger checkpoint 2@#lt;timestamp> for Source: sensor-events (1/2)#35;0.\n")
	assert.NotRegexp(t, `\d+ ms|\d+ bytes|[0-9a-f]{16}`, sequence)
	graph := string(files["ticker-checkpoint.dot"])
	assert.Contains(t, graph, `<td align="right">8</td><td align="left">k5 acknowledged</td>`, "the first source acknowledges 8th in step order")
	assert.NotContains(t, graph, " ms<")
}

// A job that ends before its second checkpoint completes has none to draw.
func TestRunCheckpointOfAJobThatEndsTooSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		defer ticker.Results.Clear()
		plan, err := PlanProgram(CheckpointProgram, []string{"--count", "5", "--rate", "0", "--output", ticker.OutputCollect}, 1)
		require.NoError(t, err)
		_, err = plan.RunCheckpoint(ctx, CheckpointDrawn)
		assert.ErrorContains(t, err, "of the 2 completed checkpoints it takes: let it run longer")
	})
}

func TestSanitizeCheckpoint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Triggering checkpoint 2 (type=X) @ 1796232725913 for job 4627cb42ec11dbe87a32842358a446f5.",
			"Triggering checkpoint 2 (type=X) @ <timestamp> for job <id>."},
		{"Trigger checkpoint 2@1796232725913 for Source: sensor-events (1/2)#0.",
			"Trigger checkpoint 2@<timestamp> for Source: sensor-events (1/2)#0."},
		{"Completed checkpoint 2 for job 4627cb42ec11dbe87a32842358a446f5 (241 bytes, checkpointDuration=3 ms, finalizationTime=12 ms).",
			"Completed checkpoint 2 for job <id> (<n> bytes, checkpointDuration=<n> ms, finalizationTime=<n> ms)."},
		{"x (1/2)#0 received barrier 2 on all 2 input channels (aligned in 14 ms).",
			"x (1/2)#0 received barrier 2 on all 2 input channels (aligned in <n> ms)."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, SanitizeCheckpoint(tt.in), "SanitizeCheckpoint(%q)", tt.in)
	}
}

// TestDrawCheckpointOverREST runs the ticker with checkpoints through the
// REST endpoint of a MiniCluster and draws its second checkpoint from
// there, as -checkpoint -m does. The MiniCluster's TaskExecutors record
// into the JobManager's trace, so every step is in it.
func TestDrawCheckpointOverREST(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	workDir := t.TempDir()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             workDir,
		REST:                   &rest.Config{UploadDir: filepath.Join(workDir, "web-upload")},
		Checkpointing:          CheckpointSettings(),
		Logger:                 slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	defer cluster.Close()
	defer ticker.Results.Clear()

	plan, err := PlanProgram(CheckpointProgram, nil, 0)
	require.NoError(t, err)
	c := client.NewRestClusterClient(cluster.RESTAddress())
	jarID, err := c.UploadJar(ctx, "ticker.jar", plan.Jar)
	require.NoError(t, err)
	jobID, err := c.RunJar(ctx, jarID, client.JarRunRequest{Parallelism: 2, ProgramArgsList: []string{"--output", ticker.OutputCollect}})
	require.NoError(t, err)
	defer func() { _ = cluster.CancelJob(ctx, jobID) }()
	second := func(events []trace.Event) bool { _, ok := checkpoints.NthCompleted(events, 2); return ok }
	require.NoError(t, cluster.Trace().Await(ctx, jobID, second))

	run, err := DrawCheckpoint(ctx, cluster.RESTAddress(), jobID.String())
	require.NoError(t, err)
	assert.Equal(t, jobID.String(), run.Name)
	assert.Equal(t, int64(2), run.Checkpoint.ID)
	assert.Equal(t, []int64{1, 2}, run.Completed[:2])
	for _, task := range run.Checkpoint.Tasks {
		assert.True(t, task.Acknowledged.Happened() && task.Notified.Happened(), task.Name)
		assert.True(t, task.SentBarrier.Happened() || task.Aligned.Happened(), "%s: the TaskExecutors' steps are in the MiniCluster's trace", task.Name)
	}
	files := run.Files()
	graph := string(files[jobID.String()+"-checkpoint.dot"])
	assert.Equal(t, 4, strings.Count(graph, `[color="#e8710a", penwidth=2]`), "the barrier on each of the 4 channels")
	assert.Contains(t, graph, `label="running-count\nSink: collect-sink\nparallelism 2"`, "the chain, unescaped from the plan")
	assert.Contains(t, string(files[jobID.String()+"-checkpoint-sequence.mmd"]), "k4: +")

	_, err = DrawCheckpoint(ctx, cluster.RESTAddress(), "not-a-job-id")
	assert.ErrorContains(t, err, `-job "not-a-job-id"`)
}
