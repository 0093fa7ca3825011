package dispatcher

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
)

// The Dispatcher hands a savepoint to the job's running JobMaster, with
// cancelJob or terminate as the mode asks (Flink's isTerminalMode).
func TestSavepointsGoToTheRunningJobMaster(t *testing.T) {
	h := newHarness(t)
	g := validJob()
	ctx := context.Background()
	require.NoError(t, h.d.SubmitJob(ctx, g))
	var got []any
	runner := h.runner(g.JobID)
	runner.mu.Lock()
	runner.jobMaster = &gatewaytest.JobMasterGateway{
		TriggerSavepointFunc: func(_ context.Context, dir string, cancelJob bool) (string, error) {
			got = append(got, "trigger", dir, cancelJob)
			return "/savepoints/savepoint-1", nil
		},
		StopWithSavepointFunc: func(_ context.Context, dir string, terminate bool) (string, error) {
			got = append(got, "stop", dir, terminate)
			return "/savepoints/savepoint-2", nil
		},
	}
	runner.mu.Unlock()

	tests := []struct {
		mode gateway.TriggerSavepointMode
		want []any
		path string
	}{
		{gateway.ModeSavepoint, []any{"trigger", "/savepoints", false}, "/savepoints/savepoint-1"},
		{gateway.ModeCancelWithSavepoint, []any{"trigger", "/savepoints", true}, "/savepoints/savepoint-1"},
		{gateway.ModeSuspendWithSavepoint, []any{"stop", "/savepoints", false}, "/savepoints/savepoint-2"},
		{gateway.ModeTerminateWithSavepoint, []any{"stop", "/savepoints", true}, "/savepoints/savepoint-2"},
	}
	for _, tt := range tests {
		got = nil
		var path string
		var err error
		if tt.mode == gateway.ModeSavepoint || tt.mode == gateway.ModeCancelWithSavepoint {
			path, err = h.d.TriggerSavepointAndGetLocation(ctx, g.JobID, "/savepoints", tt.mode)
		} else {
			path, err = h.d.StopWithSavepointAndGetLocation(ctx, g.JobID, "/savepoints", tt.mode)
		}
		require.NoError(t, err, tt.mode)
		assert.Equal(t, tt.path, path, tt.mode)
		assert.Equal(t, tt.want, got, tt.mode)
	}
}

// A job without a running JobMaster has nobody to take a savepoint: one
// initializing answers Flink's UnavailableDispatcherOperationException,
// one that has ended, or that the Dispatcher never ran, is not found.
func TestSavepointsOfJobsWithoutAJobMaster(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	initializing := validJob()
	require.NoError(t, h.d.SubmitJob(ctx, initializing))
	ended := validJob()
	require.NoError(t, h.d.SubmitJob(ctx, ended))
	h.runner(ended.JobID).finish(api.JobFinished)

	_, err := h.d.TriggerSavepointAndGetLocation(ctx, initializing.JobID, "", gateway.ModeSavepoint)
	assert.ErrorIs(t, err, gateway.ErrUnavailableDispatcherOperation)
	_, err = h.d.StopWithSavepointAndGetLocation(ctx, ended.JobID, "", gateway.ModeSuspendWithSavepoint)
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
	_, err = h.d.TriggerSavepointAndGetLocation(ctx, api.NewJobID(), "", gateway.ModeSavepoint)
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
}

// The statistics of a running job come from its JobMaster, those of a
// job that ended from its final graph in the job store (Flink:
// requestCheckpointStats, then getExecutionGraphInfoFromStore).
func TestCheckpointStatsOfRunningAndEndedJobs(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	running := validJob()
	require.NoError(t, h.d.SubmitJob(ctx, running))
	live := &checkpoint.CheckpointStatsSnapshot{Counts: checkpoint.CheckpointStatsCounts{Total: 3, Completed: 3}}
	runner := h.runner(running.JobID)
	runner.mu.Lock()
	runner.jobMaster = &gatewaytest.JobMasterGateway{
		RequestCheckpointStatsFunc: func(context.Context) (*checkpoint.CheckpointStatsSnapshot, error) { return live, nil },
	}
	runner.mu.Unlock()
	stats, err := h.d.RequestCheckpointStats(ctx, running.JobID)
	require.NoError(t, err)
	assert.Equal(t, live, stats)

	ended := validJob()
	require.NoError(t, h.d.SubmitJob(ctx, ended))
	final := &checkpoint.CheckpointStatsSnapshot{Counts: checkpoint.CheckpointStatsCounts{Total: 7, Completed: 6, Failed: 1}}
	h.runner(ended.JobID).finishWith(&gateway.ArchivedExecutionGraph{JobID: ended.JobID, State: api.JobFinished, CheckpointStatsSnapshot: final})
	stats, err = h.d.RequestCheckpointStats(ctx, ended.JobID)
	require.NoError(t, err)
	assert.Equal(t, final, stats)

	initializing := validJob()
	require.NoError(t, h.d.SubmitJob(ctx, initializing))
	_, err = h.d.RequestCheckpointStats(ctx, initializing.JobID)
	assert.ErrorIs(t, err, gateway.ErrUnavailableDispatcherOperation)
	_, err = h.d.RequestCheckpointStats(ctx, api.NewJobID())
	assert.ErrorIs(t, err, gateway.ErrJobNotFound)
}
