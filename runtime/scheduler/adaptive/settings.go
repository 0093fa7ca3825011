package adaptive

import (
	"fmt"
	"strings"
	"time"
)

// The options of the AdaptiveScheduler (Flink's JobManagerOptions, 1.19).
const (
	// KeyScheduler is jobmanager.scheduler: "Default" (the
	// DefaultScheduler) or "Adaptive" (this one), any case.
	KeyScheduler = "jobmanager.scheduler"
	// KeySchedulerMode is scheduler-mode: "reactive" turns on reactive
	// mode, which takes the AdaptiveScheduler.
	KeySchedulerMode = "scheduler-mode"

	KeyResourceWaitTimeout          = "jobmanager.adaptive-scheduler.resource-wait-timeout"
	KeyResourceStabilizationTimeout = "jobmanager.adaptive-scheduler.resource-stabilization-timeout"
	KeyMinParallelismIncrease       = "jobmanager.adaptive-scheduler.min-parallelism-increase"
	KeyScalingIntervalMin           = "jobmanager.adaptive-scheduler.scaling-interval.min"
	KeyScalingIntervalMax           = "jobmanager.adaptive-scheduler.scaling-interval.max"
)

// Settings are the AdaptiveScheduler's options (Flink's
// AdaptiveScheduler.Settings). Start from DefaultSettings: the zero value
// of a field is not its default.
type Settings struct {
	// ResourceWaitTimeout is how long the job waits in WaitingForResources
	// for enough slots before it tries with what it has, and fails if that
	// is less than its minimum; negative waits forever (5 min; reactive
	// mode: forever).
	ResourceWaitTimeout time.Duration
	// ResourceStabilizationTimeout is how long the set of slots must stay
	// sufficient, though short of the desired, before the job starts with
	// it (10 s; reactive mode: 0).
	ResourceStabilizationTimeout time.Duration
	// MinParallelismIncrease is how much a vertex's parallelism must grow
	// for new slots to be worth a restart (1).
	MinParallelismIncrease int
	// ScalingIntervalMin is how long a running job runs before it rescales
	// again (30 s); ScalingIntervalMax, if positive, how long until an
	// increase below MinParallelismIncrease is taken anyway (none).
	ScalingIntervalMin time.Duration
	ScalingIntervalMax time.Duration
	// Reactive is scheduler-mode: reactive: every vertex runs as wide as
	// its max parallelism allows and the slots there are.
	Reactive bool
}

// Validate refuses settings Flink would refuse, or that would make no
// sense: a minimum parallelism increase below 1, a negative stabilization
// timeout or scaling interval (Flink: "Resource stabilization timeout must
// not be negative"). A negative ResourceWaitTimeout is fine: it waits
// forever.
func (s Settings) Validate() error {
	switch {
	case s.MinParallelismIncrease < 1:
		return fmt.Errorf("%s must be at least 1, got %d", KeyMinParallelismIncrease, s.MinParallelismIncrease)
	case s.ResourceStabilizationTimeout < 0:
		return fmt.Errorf("Resource stabilization timeout must not be negative")
	case s.ScalingIntervalMin < 0 || s.ScalingIntervalMax < 0:
		return fmt.Errorf("%s and %s must not be negative", KeyScalingIntervalMin, KeyScalingIntervalMax)
	}
	return nil
}

// DefaultSettings returns Flink 1.19's defaults.
func DefaultSettings() Settings {
	return Settings{
		ResourceWaitTimeout:          5 * time.Minute,
		ResourceStabilizationTimeout: 10 * time.Second,
		MinParallelismIncrease:       1,
		ScalingIntervalMin:           30 * time.Second,
	}
}

// ReactiveSettings returns the defaults of reactive mode: wait for
// resources forever, and start as soon as there are enough for the
// minimum (Flink: AdaptiveSchedulerFactory, when scheduler-mode is
// reactive and the two timeouts are not set).
func ReactiveSettings() Settings {
	s := DefaultSettings()
	s.Reactive = true
	s.ResourceWaitTimeout = -1
	s.ResourceStabilizationTimeout = 0
	return s
}

// The values of jobmanager.scheduler (Flink's JobManagerOptions.SchedulerType).
const (
	SchedulerTypeDefault  = "Default"
	SchedulerTypeAdaptive = "Adaptive"
)

// ParseSchedulerType reads a value of jobmanager.scheduler, in any case;
// empty means Default. AdaptiveBatch, Flink's default for BATCH jobs,
// is not here: see the package documentation.
func ParseSchedulerType(value string) (string, error) {
	switch strings.ToLower(value) {
	case "", "default":
		return SchedulerTypeDefault, nil
	case "adaptive":
		return SchedulerTypeAdaptive, nil
	case "adaptivebatch":
		return "", fmt.Errorf("%s: AdaptiveBatch is not supported here: BATCH jobs run on the DefaultScheduler, with the parallelism they were given", KeyScheduler)
	}
	return "", fmt.Errorf("Could not parse value '%s' for key '%s'. Caused by: Could not parse value for enum class "+
		"org.apache.flink.configuration.JobManagerOptions$SchedulerType. Expected one of: [[Default, Adaptive, AdaptiveBatch]]",
		value, KeyScheduler)
}
