package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// checkpointedJob makes the harness's Dispatcher run one checkpointed job
// (withCheckpointing), and returns its ID.
func checkpointedJob(t *testing.T, h *harness, stats *checkpoint.CheckpointStatsSnapshot) api.JobID {
	t.Helper()
	jobID := runSmallJob(t, h)
	withCheckpointing(t, h, jobID, stats)
	return jobID
}

// withCheckpointing makes jobID, a job the harness's Dispatcher knows, a
// checkpointed one: its graph names its checkpoint configuration, and its
// statistics are stats. The Dispatcher's other jobs stay as they are.
func withCheckpointing(t *testing.T, h *harness, jobID api.JobID, stats *checkpoint.CheckpointStatsSnapshot) {
	t.Helper()
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval, cfg.MinPause, cfg.TolerableFailures = 200*time.Millisecond, 50*time.Millisecond, 3
	cfg.Retention, cfg.CheckpointsDir = checkpoint.RetainOnCancellation, t.TempDir()
	requestJob := h.dispatcher.RequestJobFunc
	h.dispatcher.RequestJobFunc = func(ctx context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
		var graph *gateway.ArchivedExecutionGraph
		if requestJob != nil {
			g, err := requestJob(ctx, id)
			if err != nil {
				return nil, err
			}
			graph = g
		} else {
			for _, g := range h.dispatcher.Submitted() {
				if g.JobID == id {
					graph = runningGraph(g)
				}
			}
		}
		if graph == nil {
			return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, id)
		}
		if id == jobID {
			copied := *graph
			copied.CheckpointCoordinatorConfiguration, copied.CheckpointStatsSnapshot = &cfg, stats
			graph = &copied
		}
		return graph, nil
	}
	h.dispatcher.RequestCheckpointStatsFunc = func(ctx context.Context, id api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
		g, err := h.dispatcher.RequestJob(ctx, id)
		if err != nil {
			return nil, err
		}
		return g.CheckpointStatsSnapshot, nil
	}
}

// checkpointStats has a completed checkpoint with a task, a savepoint, a
// failed checkpoint, one in progress, and a restored savepoint.
func checkpointStats() *checkpoint.CheckpointStatsSnapshot {
	task := map[string]checkpoint.TaskCheckpointStatistics{"0a448493b4782967b150582570326227": {
		ID: 3, Status: checkpoint.StatusCompleted, LatestAckTimestamp: 1700000000040, CheckpointedSize: 512, StateSize: 512,
		EndToEndDuration: 40, NumSubtasks: 2, NumAcknowledgedSubtasks: 2,
	}}
	completed := checkpoint.CheckpointStatistics{ID: 3, Status: checkpoint.StatusCompleted,
		TriggerTimestamp: 1700000000000, LatestAckTimestamp: 1700000000040, CheckpointedSize: 512, StateSize: 512,
		EndToEndDuration: 40, NumSubtasks: 2, NumAcknowledgedSubtasks: 2, CheckpointType: "CHECKPOINT", Tasks: task,
		ExternalPath: "/checkpoints/job/chk-3"}
	savepoint := checkpoint.CheckpointStatistics{ID: 4, Status: checkpoint.StatusCompleted, IsSavepoint: true,
		TriggerTimestamp: 1700000001000, LatestAckTimestamp: 1700000001030, NumSubtasks: 2, NumAcknowledgedSubtasks: 2,
		CheckpointType: "SAVEPOINT", Tasks: map[string]checkpoint.TaskCheckpointStatistics{}, ExternalPath: "/savepoints/savepoint-8d4f2a-0123456789ab"}
	failed := checkpoint.CheckpointStatistics{ID: 5, Status: checkpoint.StatusFailed, TriggerTimestamp: 1700000002000,
		LatestAckTimestamp: -1, NumSubtasks: 2, CheckpointType: "CHECKPOINT", Tasks: map[string]checkpoint.TaskCheckpointStatistics{},
		FailureTimestamp: 1700000003000, FailureMessage: "Checkpoint expired before completing."}
	pending := checkpoint.CheckpointStatistics{ID: 6, Status: checkpoint.StatusInProgress,
		TriggerTimestamp: 1700000004000, LatestAckTimestamp: -1, NumSubtasks: 2, CheckpointType: "SYNC_SAVEPOINT", IsSavepoint: true,
		Tasks: map[string]checkpoint.TaskCheckpointStatistics{}}
	return &checkpoint.CheckpointStatsSnapshot{
		Counts: checkpoint.CheckpointStatsCounts{Restored: 1, Total: 4, InProgress: 1, Completed: 2, Failed: 1},
		Summary: checkpoint.CheckpointStatsSummary{
			StateSize: checkpoint.StatsSummaryDto{Min: 0, Max: 512, Avg: 256, P50: 256, P90: 512, P95: 512, P99: 512, P999: 512},
		},
		Latest: checkpoint.LatestCheckpoints{Completed: &completed, Savepoint: &savepoint, Failed: &failed,
			Restored: &checkpoint.RestoredCheckpointStatistics{ID: 2, RestoreTimestamp: 1699999999000, IsSavepoint: true,
				ExternalPath: "/savepoints/savepoint-8d4f2a-ba9876543210"}},
		History: []checkpoint.CheckpointStatistics{pending, failed, savepoint, completed},
	}
}

// GET /jobs/{jobid}/checkpoints writes the statistics as Flink's
// CheckpointingStatisticsHandler: each checkpoint named by its className,
// with the fields of its kind, a savepoint's format, and no tasks.
func TestCheckpointingStatistics(t *testing.T) {
	h := newHarness(t)
	jobID := checkpointedJob(t, h, checkpointStats())

	r := h.get("/jobs/" + jobID.String() + "/checkpoints")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var got map[string]any
	decode(t, r, &got)
	assert.Equal(t, map[string]any{"restored": 1.0, "total": 4.0, "in_progress": 1.0, "completed": 2.0, "failed": 1.0}, got["counts"])
	latest := got["latest"].(map[string]any)
	completed := latest["completed"].(map[string]any)
	assert.Equal(t, "completed", completed["className"])
	assert.Nil(t, completed["savepointFormat"], "a checkpoint has no savepoint format")
	assert.Equal(t, "/checkpoints/job/chk-3", completed["external_path"])
	assert.Equal(t, false, completed["discarded"])
	assert.Equal(t, map[string]any{}, completed["tasks"], "the overview leaves the tasks out")
	assert.Equal(t, "CANONICAL", latest["savepoint"].(map[string]any)["savepointFormat"])
	failed := latest["failed"].(map[string]any)
	assert.Equal(t, "failed", failed["className"])
	assert.Equal(t, "Checkpoint expired before completing.", failed["failure_message"])
	assert.NotContains(t, failed, "external_path")
	assert.Equal(t, map[string]any{"id": 2.0, "restore_timestamp": 1699999999000.0, "is_savepoint": true,
		"external_path": "/savepoints/savepoint-8d4f2a-ba9876543210"}, latest["restored"])

	history := got["history"].([]any)
	require.Len(t, history, 4)
	pending := history[0].(map[string]any)
	assert.Equal(t, "in_progress", pending["className"])
	assert.Equal(t, "SYNC_SAVEPOINT", pending["checkpoint_type"])
	assert.NotContains(t, pending, "external_path")
	assert.NotContains(t, pending, "failure_message")
}

// The details of a checkpoint have its tasks; the config is the job's
// CheckpointCoordinatorConfiguration in Flink's CheckpointConfigInfo.
func TestCheckpointDetailsAndConfig(t *testing.T) {
	h := newHarness(t)
	jobID := checkpointedJob(t, h, checkpointStats())
	job := "/jobs/" + jobID.String()

	r := h.get(job + "/checkpoints/details/3")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var details struct {
		ClassName string                                         `json:"className"`
		ID        int64                                          `json:"id"`
		Tasks     map[string]checkpoint.TaskCheckpointStatistics `json:"tasks"`
	}
	decode(t, r, &details)
	assert.Equal(t, "completed", details.ClassName)
	assert.Equal(t, int64(3), details.ID)
	assert.Equal(t, checkpointStats().Latest.Completed.Tasks, details.Tasks)
	r = h.get(job + "/checkpoints/details/6")
	require.Equal(t, http.StatusOK, r.status, "one in progress, from the history")

	r = h.get(job + "/checkpoints/config")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"mode": "exactly_once", "interval": 200, "timeout": 600000, "min_pause": 50, "max_concurrent": 1,
		"externalization": {"enabled": true, "delete_on_cancellation": false},
		"state_backend": "HashMapStateBackend", "checkpoint_storage": "FileSystemCheckpointStorage",
		"unaligned_checkpoints": false, "tolerable_failed_checkpoints": 3, "aligned_checkpoint_timeout": 0,
		"checkpoints_after_tasks_finish": false, "state_changelog_enabled": false}`, string(r.body))
}

// Every way a checkpoint endpoint refuses, with Flink's status and words.
func TestCheckpointEndpointErrors(t *testing.T) {
	h := newHarness(t)
	checkpointed := checkpointedJob(t, h, checkpointStats())
	notCheckpointed := runSmallJob(t, h)
	unknown := api.NewJobID()
	path := func(id api.JobID, rest string) string { return "/jobs/" + id.String() + rest }

	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantErrors []string
	}{
		{"statistics: unknown job", path(unknown, "/checkpoints"), 404, []string{"Job " + unknown.String() + " not found"}},
		{"statistics: not checkpointed", path(notCheckpointed, "/checkpoints"), 404, []string{"Checkpointing has not been enabled."}},
		{"config: unknown job", path(unknown, "/checkpoints/config"), 404, []string{"Job " + unknown.String() + " not found"}},
		{"config: not checkpointed", path(notCheckpointed, "/checkpoints/config"), 404,
			[]string{"Checkpointing is not enabled for this job (" + notCheckpointed.String() + ")."}},
		{"details: unknown job", path(unknown, "/checkpoints/details/3"), 404, []string{"Job " + unknown.String() + " not found"}},
		{"details: not checkpointed", path(notCheckpointed, "/checkpoints/details/3"), 404,
			[]string{"Checkpointing was not enabled for job " + notCheckpointed.String() + "."}},
		{"details: unknown checkpoint", path(checkpointed, "/checkpoints/details/99"), 404,
			[]string{"Could not find checkpointing statistics for checkpoint 99."}},
		{"details: malformed checkpoint ID", path(checkpointed, "/checkpoints/details/three"), 400,
			[]string{`Bad request, could not parse parameters: Cannot resolve path parameter (checkpointid) from value "three".`,
				`strconv.ParseInt: parsing "three": invalid syntax`}},
		{"statistics: malformed job ID", "/jobs/nope/checkpoints", 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.get(tt.path)
			assert.Equal(t, tt.wantStatus, r.status, "%s", r.body)
			if tt.wantErrors != nil {
				assert.Equal(t, tt.wantErrors, r.errors)
			}
		})
	}
}

// The statistics of a job that has ended are the ones its final graph
// kept, as the Dispatcher answers them from its job store: the REST
// endpoint shows whatever the Dispatcher has.
func TestCheckpointingStatisticsOfAnEndedJob(t *testing.T) {
	h := newHarness(t)
	jobID := api.NewJobID()
	stats := checkpointStats()
	h.dispatcher.RequestCheckpointStatsFunc = func(_ context.Context, id api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
		return stats, nil
	}
	r := h.get("/jobs/" + jobID.String() + "/checkpoints")
	require.Equal(t, http.StatusOK, r.status)
	var got checkpoint.CheckpointStatsSnapshot
	require.NoError(t, json.Unmarshal(r.body, &got))
	assert.Equal(t, stats.Counts, got.Counts)
	assert.Len(t, got.History, 4)
}
