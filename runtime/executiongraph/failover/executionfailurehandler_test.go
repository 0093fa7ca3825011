package failover_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
)

func TestExecutionFailureHandlerRestartsUntilTheStrategyRefuses(t *testing.T) {
	all := subtasks(3)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all), mustFixedDelay(t, 2, 10*time.Second))

	for i := range 2 {
		now := t0.Add(time.Duration(i) * time.Minute)
		got := h.HandleFailure(&all[1], errBoom, now)
		assert.Equal(t, failover.FailureHandlingResult{
			CanRestart:        true,
			VerticesToRestart: all,
			RestartDelay:      10 * time.Second,
			Error:             errBoom,
			FailingVertex:     &all[1],
			Timestamp:         now,
			IsRootCause:       true,
			NumberOfRestarts:  int64(i + 1),
		}, got)
	}

	got := h.HandleFailure(&all[2], errBoom, t0.Add(2*time.Minute))
	assert.False(t, got.CanRestart)
	assert.Nil(t, got.VerticesToRestart)
	assert.Zero(t, got.RestartDelay)
	assert.EqualError(t, got.Error,
		"JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=10000): boom")
	assert.ErrorIs(t, got.Error, errBoom, "the cause stays reachable")
	var jobException *failover.JobException
	require.ErrorAs(t, got.Error, &jobException)
	assert.Equal(t, errBoom, jobException.Cause)
	assert.True(t, got.IsRootCause)
	assert.Equal(t, int64(2), got.NumberOfRestarts, "a refused restart is not counted")
	assert.Equal(t, int64(2), h.NumberOfRestarts())
}

func TestExecutionFailureHandlerWithoutRestarts(t *testing.T) {
	all := subtasks(1)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all), failover.NoRestartBackoffTimeStrategy{})
	cause := fmt.Errorf("Operator open() failed: %w", errBoom)
	got := h.HandleFailure(&all[0], cause, t0)
	assert.False(t, got.CanRestart)
	assert.EqualError(t, got.Error, "JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy: Operator open() failed: boom")
	assert.ErrorIs(t, got.Error, errBoom)
	assert.Zero(t, got.NumberOfRestarts)
}

func TestExecutionFailureHandlerNonRecoverable(t *testing.T) {
	all := subtasks(2)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all), mustFixedDelay(t, 1, time.Second))

	cause := fmt.Errorf("deploying: %w", &failover.SuppressRestartsError{Cause: errBoom})
	got := h.HandleFailure(&all[0], cause, t0)
	assert.False(t, got.CanRestart, "whatever the strategy says")
	assert.EqualError(t, got.Error, "JobException: The failure is not recoverable: deploying: SuppressRestartsException: "+
		"Unrecoverable failure. This suppresses job restarts. Please check the stack trace for the root cause.: boom")
	assert.ErrorIs(t, got.Error, errBoom)
	var suppress *failover.SuppressRestartsError
	assert.ErrorAs(t, got.Error, &suppress)
	assert.True(t, got.IsRootCause)
	assert.Zero(t, got.NumberOfRestarts)

	// The strategy was not told: its one restart is still there.
	assert.True(t, h.HandleFailure(&all[0], errBoom, t0.Add(time.Second)).CanRestart)
}

func TestSuppressRestartsErrorWithMessage(t *testing.T) {
	err := &failover.SuppressRestartsError{Message: "Job vertex has no invokable class."}
	assert.EqualError(t, err, "SuppressRestartsException: Job vertex has no invokable class.")
	assert.True(t, failover.IsUnrecoverableError(fmt.Errorf("wrapped: %w", err)))
	assert.True(t, failover.IsUnrecoverableError(errors.Join(errBoom, err)))
	assert.False(t, failover.IsUnrecoverableError(errBoom))
	assert.False(t, failover.IsUnrecoverableError(nil))
}

func TestExecutionFailureHandlerGlobalFailureRestartsEverything(t *testing.T) {
	j := newRegionJob(t)
	all := j.all()
	regions := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.regions, j.producedBy(j.a, j.b), nil)
	h := failover.NewExecutionFailureHandler(all, regions, mustFixedDelay(t, 5, time.Second))

	global := h.HandleFailure(nil, errBoom, t0)
	assert.True(t, global.CanRestart)
	assert.True(t, global.GlobalFailure)
	assert.Nil(t, global.FailingVertex)
	assert.Equal(t, all, global.VerticesToRestart, "a global failure ignores the regions")

	task := h.HandleFailure(&j.b[1], errBoom, t0.Add(time.Minute))
	assert.False(t, task.GlobalFailure)
	assert.Equal(t, slices.Concat(j.b[1:], j.c), task.VerticesToRestart)
	assert.Equal(t, int64(2), task.NumberOfRestarts)
}

func TestExecutionFailureHandlerMergesConcurrentFailures(t *testing.T) {
	// A TaskManager dies and takes three tasks with it: with exponential-delay
	// the three failures make one restart.
	all := subtasks(3)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all),
		mustExponentialDelay(t, exponentialConfig(), nil))

	type outcome struct {
		delay       time.Duration
		isRootCause bool
		restarts    int64
	}
	var got []outcome
	for _, f := range []struct {
		vertex api.ExecutionVertexID
		at     time.Duration
	}{{all[0], 0}, {all[1], 10 * ms}, {all[2], 20 * ms}, {all[0], time.Minute}} {
		r := h.HandleFailure(&f.vertex, errBoom, t0.Add(f.at))
		require.True(t, r.CanRestart)
		got = append(got, outcome{r.RestartDelay, r.IsRootCause, r.NumberOfRestarts})
	}
	assert.Equal(t, []outcome{
		{time.Second, true, 1},
		{990 * ms, false, 1}, // joins the restart due at +1 s
		{980 * ms, false, 1},
		{1500 * ms, true, 2},
	}, got)
}

func TestExecutionFailureHandlerPrintsTheStrategyAfterTheFailure(t *testing.T) {
	c := exponentialConfig()
	c.AttemptsBeforeResetBackoff = 1
	all := subtasks(1)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all), mustExponentialDelay(t, c, nil))

	require.True(t, h.HandleFailure(&all[0], errBoom, t0).CanRestart)
	got := h.HandleFailure(&all[0], errBoom, t0.Add(10*time.Second))
	require.False(t, got.CanRestart)
	assert.EqualError(t, got.Error, fmt.Sprintf("JobException: Recovery is suppressed by "+
		"ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=1000, maxBackoffMS=60000, backoffMultiplier=1.5, "+
		"resetBackoffThresholdMS=3600000, jitterFactor=0.0, attemptsBeforeResetBackoff=1, "+
		"currentRestartAttempt=2, nextRestartTimestamp=%d): boom", t0.Add(11500*ms).UnixMilli()))
}

func TestExecutionFailureHandlerCopiesTheFailingVertex(t *testing.T) {
	all := subtasks(2)
	h := failover.NewExecutionFailureHandler(all, failover.NewRestartAllFailoverStrategy(all), mustFixedDelay(t, 1, 0))
	failing := all[0]
	got := h.HandleFailure(&failing, errBoom, t0)
	failing = all[1]
	assert.Equal(t, all[0], *got.FailingVertex)
}
