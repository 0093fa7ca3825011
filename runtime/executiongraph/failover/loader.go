package failover

import (
	"strings"

	"flinklab/runtime/configuration"
)

// KeyFailoverStrategy is jobmanager.execution.failover-strategy: which
// tasks the DefaultScheduler restarts when one fails (Flink:
// JobManagerOptions.EXECUTION_FAILOVER_STRATEGY).
const KeyFailoverStrategy = "jobmanager.execution.failover-strategy"

// The values of jobmanager.execution.failover-strategy.
const (
	// FailoverStrategyFull restarts all tasks to recover the job
	// (RestartAllFailoverStrategy).
	FailoverStrategyFull = "full"
	// FailoverStrategyRegion restarts all tasks that could be affected by
	// the task failure (RestartPipelinedRegionFailoverStrategy). It is the
	// default.
	FailoverStrategyRegion = "region"
)

// LoadFailoverStrategy returns which strategy a value of
// jobmanager.execution.failover-strategy names, FailoverStrategyFull or
// FailoverStrategyRegion (Flink:
// FailoverStrategyFactoryLoader.loadFailoverStrategyFactory). Case does not
// matter; empty means the default, region. Any other value is Flink's
// IllegalConfigurationException "Unknown failover strategy: <value>".
func LoadFailoverStrategy(value string) (string, error) {
	switch strings.ToLower(value) {
	case "", FailoverStrategyRegion:
		return FailoverStrategyRegion, nil
	case FailoverStrategyFull:
		return FailoverStrategyFull, nil
	}
	return "", configuration.NewIllegalConfigurationError("Unknown failover strategy: "+value, nil)
}
