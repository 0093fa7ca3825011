package minicluster

import (
	"time"

	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/heartbeat"
)

// WithQuickRecovery returns cfg with the short timings of `make run` and of
// the log-detective drills, so that a failure is noticed and recovered
// from in about a second rather than after Flink's 10 s RPC timeout and
// 50 s heartbeat timeout: heartbeats every 200 ms, a peer lost after 1 s
// of silence, a 1 s RPC timeout, a 500 ms start-up period for the
// ResourceManager, and fixed-delay restarts, 3 attempts 100 ms apart.
func (cfg Config) WithQuickRecovery() Config {
	cfg.Heartbeat = heartbeat.HeartbeatServices{Interval: 200 * time.Millisecond, Timeout: time.Second}
	cfg.RPCTimeout = time.Second
	cfg.StartUpPeriod = 500 * time.Millisecond
	cfg.RestartStrategy = failover.Config{Type: failover.TypeFixedDelay,
		FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 100 * time.Millisecond}}
	return cfg
}
