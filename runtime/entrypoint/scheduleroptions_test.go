package entrypoint

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/scheduler/adaptive"
)

func TestSchedulerOptions(t *testing.T) {
	typ, settings, err := schedulerOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, adaptive.SchedulerTypeDefault, typ)
	assert.Equal(t, adaptive.DefaultSettings(), settings)

	typ, settings, err = schedulerOptions(map[string]string{
		adaptive.KeyScheduler:                    "ADAPTIVE",
		adaptive.KeyResourceWaitTimeout:          "-1",
		adaptive.KeyResourceStabilizationTimeout: "2 s",
		adaptive.KeyMinParallelismIncrease:       "2",
		adaptive.KeyScalingIntervalMin:           "1s",
		adaptive.KeyScalingIntervalMax:           "1m",
	})
	require.NoError(t, err)
	assert.Equal(t, adaptive.SchedulerTypeAdaptive, typ)
	assert.Negative(t, settings.ResourceWaitTimeout, "negative: wait forever")
	assert.Equal(t, 2*time.Second, settings.ResourceStabilizationTimeout)
	assert.Equal(t, 2, settings.MinParallelismIncrease)
	assert.Equal(t, time.Second, settings.ScalingIntervalMin)
	assert.Equal(t, time.Minute, settings.ScalingIntervalMax)

	typ, settings, err = schedulerOptions(map[string]string{adaptive.KeySchedulerMode: "reactive"})
	require.NoError(t, err)
	assert.Equal(t, adaptive.SchedulerTypeAdaptive, typ, "reactive mode takes the AdaptiveScheduler")
	assert.Equal(t, adaptive.ReactiveSettings(), settings)
	_, settings, err = schedulerOptions(map[string]string{adaptive.KeySchedulerMode: "Reactive", adaptive.KeyResourceWaitTimeout: "1m"})
	require.NoError(t, err)
	assert.Equal(t, time.Minute, settings.ResourceWaitTimeout, "a set option beats reactive mode's default")
}

func TestSchedulerOptionsRefused(t *testing.T) {
	for conf, want := range map[[2]string]string{
		{adaptive.KeyScheduler, "fancy"}:                 "Could not parse value 'fancy' for key 'jobmanager.scheduler'.",
		{adaptive.KeyScheduler, "AdaptiveBatch"}:         "AdaptiveBatch is not supported here",
		{adaptive.KeySchedulerMode, "proactive"}:         "Could not parse value 'proactive' for key 'scheduler-mode'.",
		{adaptive.KeyMinParallelismIncrease, "0"}:        "the minimum parallelism increase must be at least 1",
		{adaptive.KeyResourceStabilizationTimeout, "-1"}: "a duration must not be negative",
		{adaptive.KeyResourceWaitTimeout, "-soon"}:       "Could not parse value '-soon' for key 'jobmanager.adaptive-scheduler.resource-wait-timeout'.",
	} {
		_, _, err := schedulerOptions(map[string]string{conf[0]: conf[1]})
		assert.ErrorContains(t, err, want, "%s=%s", conf[0], conf[1])
	}
	_, _, err := schedulerOptions(map[string]string{adaptive.KeyScalingIntervalMin: "1m", adaptive.KeyScalingIntervalMax: "30s"})
	assert.ErrorContains(t, err, "jobmanager.adaptive-scheduler.scaling-interval.max must be greater than jobmanager.adaptive-scheduler.scaling-interval.min")
}
