package entrypoint

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/scheduler/adaptive"
)

// schedulerOptions reads jobmanager.scheduler, scheduler-mode and the
// jobmanager.adaptive-scheduler.* options, on top of Flink's defaults
// (reactive mode's when scheduler-mode is reactive), and checks them.
func schedulerOptions(conf map[string]string) (string, adaptive.Settings, error) {
	schedulerType, err := adaptive.ParseSchedulerType(conf[adaptive.KeyScheduler])
	if err != nil {
		return "", adaptive.Settings{}, err
	}
	settings := adaptive.DefaultSettings()
	switch mode, set := conf[adaptive.KeySchedulerMode]; {
	case !set:
	case strings.EqualFold(mode, "reactive"):
		settings = adaptive.ReactiveSettings()
		schedulerType = adaptive.SchedulerTypeAdaptive
	default:
		return "", settings, optionError(adaptive.KeySchedulerMode, mode, errors.New(
			"Could not parse value for enum class org.apache.flink.configuration.SchedulerExecutionMode. Expected one of: [[REACTIVE]]"))
	}
	// A negative resource wait timeout waits forever.
	if settings.ResourceWaitTimeout, err = signedDurationOption(conf, adaptive.KeyResourceWaitTimeout, settings.ResourceWaitTimeout); err != nil {
		return "", settings, err
	}
	if settings.ResourceStabilizationTimeout, err = durationOption(conf, adaptive.KeyResourceStabilizationTimeout, settings.ResourceStabilizationTimeout); err != nil {
		return "", settings, err
	}
	if settings.ScalingIntervalMin, err = durationOption(conf, adaptive.KeyScalingIntervalMin, settings.ScalingIntervalMin); err != nil {
		return "", settings, err
	}
	if settings.ScalingIntervalMax, err = durationOption(conf, adaptive.KeyScalingIntervalMax, settings.ScalingIntervalMax); err != nil {
		return "", settings, err
	}
	if v, ok := conf[adaptive.KeyMinParallelismIncrease]; ok {
		n, convErr := strconv.Atoi(strings.TrimSpace(v))
		if convErr == nil && n < 1 {
			convErr = errors.New("the minimum parallelism increase must be at least 1")
		}
		if convErr != nil {
			return "", settings, optionError(adaptive.KeyMinParallelismIncrease, v, convErr)
		}
		settings.MinParallelismIncrease = n
	}
	if settings.ScalingIntervalMax > 0 && settings.ScalingIntervalMax <= settings.ScalingIntervalMin {
		// Flink's Executing: "%s(%d) must be greater than %s(%d)".
		return "", settings, optionError(adaptive.KeyScalingIntervalMax, conf[adaptive.KeyScalingIntervalMax],
			errors.New(adaptive.KeyScalingIntervalMax+" must be greater than "+adaptive.KeyScalingIntervalMin))
	}
	return schedulerType, settings, nil
}

// signedDurationOption is durationOption for an option that may be
// negative ("-1 ms", "-1"), which means "never".
func signedDurationOption(conf map[string]string, key string, def time.Duration) (time.Duration, error) {
	v, ok := conf[key]
	if !ok {
		return def, nil
	}
	if text := strings.TrimSpace(v); strings.HasPrefix(text, "-") {
		d, err := durationOption(map[string]string{key: text[1:]}, key, 0)
		if err != nil {
			return 0, optionError(key, v, errors.Unwrap(err))
		}
		return -max(d, time.Millisecond), nil
	}
	return durationOption(conf, key, def)
}
