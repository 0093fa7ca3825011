package failover_test

import (
	"errors"
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
)

// The timeline of the package documentation: exponential-delay with
// Flink's defaults, without jitter so that the delays are exact.
func ExampleExecutionFailureHandler() {
	cfg := failover.DefaultConfig()
	cfg.Type = failover.TypeExponentialDelay
	cfg.ExponentialDelay.JitterFactor = 0
	restart, err := failover.NewRestartBackoffTimeStrategy(cfg, true, nil)
	if err != nil {
		panic(err)
	}
	source := api.ExecutionVertexID{JobVertexID: api.NewJobVertexID()}
	vertices := []api.ExecutionVertexID{source}
	handler := failover.NewExecutionFailureHandler(vertices, failover.NewRestartAllFailoverStrategy(vertices), restart)

	start := time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{
		0, 400 * time.Millisecond, 30 * time.Second, 40 * time.Second, 2 * time.Hour,
	} {
		r := handler.HandleFailure(&source, errors.New("broker unavailable"), start.Add(at))
		fmt.Printf("%s  new=%-5v  restart in %-6v  restarts=%d\n",
			r.Timestamp.Format("15:04:05.000"), r.IsRootCause, r.RestartDelay, r.NumberOfRestarts)
	}
	// Output:
	// 10:00:00.000  new=true   restart in 1s      restarts=1
	// 10:00:00.400  new=false  restart in 600ms   restarts=1
	// 10:00:30.000  new=true   restart in 1.5s    restarts=2
	// 10:00:40.000  new=true   restart in 2.25s   restarts=3
	// 12:00:00.000  new=true   restart in 1s      restarts=4
}

// Reading the options as a flink-conf.yaml would give them, and running
// out of attempts.
func ExampleFromMap() {
	cfg, err := failover.FromMap(map[string]string{
		"restart-strategy.type":                 "fixed-delay",
		"restart-strategy.fixed-delay.attempts": "2",
		"restart-strategy.fixed-delay.delay":    "10 s",
	})
	if err != nil {
		panic(err)
	}
	restart, err := failover.NewRestartBackoffTimeStrategy(cfg, true, nil)
	if err != nil {
		panic(err)
	}
	vertices := []api.ExecutionVertexID{{JobVertexID: api.NewJobVertexID()}}
	handler := failover.NewExecutionFailureHandler(vertices, failover.NewRestartAllFailoverStrategy(vertices), restart)

	now := time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)
	for range 3 {
		r := handler.HandleFailure(&vertices[0], errors.New("broker unavailable"), now)
		if r.CanRestart {
			fmt.Printf("restart %d in %v\n", r.NumberOfRestarts, r.RestartDelay)
		} else {
			fmt.Println(r.Error)
		}
		now = now.Add(time.Minute)
	}
	// Output:
	// restart 1 in 10s
	// restart 2 in 10s
	// JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=10000): broker unavailable
}
