// Package failover decides what happens after a task fails: whether the job
// restarts, after how long, and which of its tasks restart. It mirrors
// Flink 1.20's org.apache.flink.runtime.executiongraph.failover package and
// the options of flink-core's RestartStrategyOptions:
//
//	RestartBackoffTimeStrategy              → RestartBackoffTimeStrategy           (whether, and when)
//	  NoRestartBackoffTimeStrategy          → NoRestartBackoffTimeStrategy
//	  FixedDelayRestartBackoffTimeStrategy  → FixedDelayRestartBackoffTimeStrategy
//	  FailureRateRestartBackoffTimeStrategy → FailureRateRestartBackoffTimeStrategy
//	  ExponentialDelayRestartBackoffTimeStrategy → ExponentialDelayRestartBackoffTimeStrategy
//	Config, FromMap                         → RestartStrategyOptions               (restart-strategy.*)
//	NewRestartBackoffTimeStrategy           → RestartBackoffTimeStrategyFactoryLoader
//	FailoverStrategy                        → FailoverStrategy                     (which tasks)
//	  RestartAllFailoverStrategy            → RestartAllFailoverStrategy
//	  RestartPipelinedRegionFailoverStrategy → RestartPipelinedRegionFailoverStrategy
//	ResultPartitionAvailabilityChecker      → ResultPartitionAvailabilityChecker
//	LoadFailoverStrategy                    → FailoverStrategyFactoryLoader        (jobmanager.execution.failover-strategy)
//	ExecutionFailureHandler                 → ExecutionFailureHandler              (asks both)
//	FailureHandlingResult                   → FailureHandlingResult
//	JobException, SuppressRestartsError     → JobException, SuppressRestartsException
//
// The package is pure: it reads no clock and starts no goroutine. Every
// failure comes with its time (now), so a test can replay a day of
// failures in a microsecond.
//
// # Two questions, two strategies
//
// When a task fails, the scheduler hands the failure to the
// ExecutionFailureHandler, which asks two strategies two different
// questions:
//
//	task fails ─► ExecutionFailureHandler.HandleFailure(vertex, cause, now)
//	                │
//	                ├─ RestartBackoffTimeStrategy: may the job restart, and after how long?
//	                │    no  ─► job RUNNING → FAILING → FAILED with
//	                │           "JobException: Recovery is suppressed by <strategy>"
//	                │
//	                └─ FailoverStrategy: which tasks restart?
//	                     ─► job RUNNING → RESTARTING; cancel those tasks,
//	                        wait the backoff, deploy them again; RESTARTING → RUNNING
//
// The restart strategy (restart-strategy.type) is about time and counting:
// it sees every failure and keeps the score. The failover strategy
// (jobmanager.execution.failover-strategy) is about the job's shape: full
// restarts every task (RestartAllFailoverStrategy), region, the default,
// restarts the failed task's pipelined region, the regions downstream of
// it, and the producers of inputs that cannot be read again
// (RestartPipelinedRegionFailoverStrategy). A region is a set of
// subtasks joined by pipelined exchanges: where the exchanges are
// all-to-all (keyBy, rebalance), all their subtasks form one region and
// both strategies restart everything; where they are forward only, each
// subtask's chain is a region of its own, and region failover restarts
// just the one that failed.
//
// A third rule overrides both: a failure whose cause holds a
// *SuppressRestartsError (Flink's SuppressRestartsException) fails the job
// at once with "JobException: The failure is not recoverable", and the
// restart strategy is not even told.
//
// # The defaults
//
// restart-strategy.type has no default value. Since Flink 1.19
// (FLINK-33738) a job without checkpointing does not restart at all
// (NoRestartBackoffTimeStrategy), and a job with checkpointing restarts
// with exponential-delay, using its defaults whatever the
// restart-strategy.exponential-delay.* options say. Before 1.19 the
// checkpointing default was fixed-delay with Integer.MAX_VALUE attempts, 1 s
// apart.
//
//	option                                                           default
//	restart-strategy.type            (disable|none|off, fixed-delay|fixeddelay,
//	                                  failure-rate|failurerate,
//	                                  exponential-delay|exponentialdelay)   —
//	restart-strategy.fixed-delay.attempts                            1
//	restart-strategy.fixed-delay.delay                               1 s
//	restart-strategy.failure-rate.max-failures-per-interval          1
//	restart-strategy.failure-rate.failure-rate-interval              1 min
//	restart-strategy.failure-rate.delay                              1 s
//	restart-strategy.exponential-delay.initial-backoff               1 s
//	restart-strategy.exponential-delay.max-backoff                   1 min  (5 min before 1.19)
//	restart-strategy.exponential-delay.backoff-multiplier            1.5    (2.0 before 1.19)
//	restart-strategy.exponential-delay.reset-backoff-threshold       1 h
//	restart-strategy.exponential-delay.jitter-factor                 0.1
//	restart-strategy.exponential-delay.attempts-before-reset-backoff infinite (Integer.MAX_VALUE)
//
// DefaultConfig holds these values; FromMap reads the options from a
// configuration on top of them; NewRestartBackoffTimeStrategy builds the
// strategy and refuses values Flink refuses, naming the option.
//
// # How each strategy counts failures
//
//   - fixed-delay counts every failure, for the job's whole life: with
//     attempts 3, the fourth failure fails the job, whether the first three
//     came in a minute or in a month.
//   - failure-rate counts failures in a sliding window: more than
//     max-failures-per-interval failures within any failure-rate-interval
//     fail the job. Old failures drop out of the window, so a job that
//     fails once a day never runs out.
//   - exponential-delay counts restarts since its last reset. A failure
//     that arrives before the pending restart is due joins that restart
//     instead of counting (NotifyFailure returns false), and a job that
//     ran for reset-backoff-threshold after its last restart starts over
//     from initial-backoff.
//
// Fixed-delay and failure-rate count every failure, even two that arrive
// within a millisecond: with region failover, a TaskManager that dies fails
// every region that had a task on it, and each of those failures uses up an
// attempt.
// The ExecutionFailureHandler's NumberOfRestarts (Flink's numberOfRestarts
// metric) counts only failures the strategy counted as new.
//
// # Why exponential delay, and why jitter
//
// Most failures worth restarting for come from outside the job: a broker
// that is down, a database that is overloaded, a TaskManager that is being
// replaced. Restarting at once then fails again at once. A fixed delay
// must choose between restarting too eagerly (hammering what is broken and
// burning attempts) and too slowly (a long outage after a one-off glitch).
// Exponential delay does both: the first restart comes after a second, and
// while the failures go on each wait is 1.5 times the last, up to a
// minute. After an hour without failing, the job is healthy again and the
// wait starts over at a second.
//
// Jitter spreads the restarts out. When one broker goes away, every job
// that reads from it fails in the same second; with the same delays they
// would all restart in the same second too, and hit the recovering broker
// together, failure after failure (a thundering herd). A jitter factor of
// 0.1 moves each wait by a random amount of up to ±10%.
//
// # A timeline
//
// exponential-delay with its defaults, but without jitter so that the
// numbers are exact (ExampleExecutionFailureHandler runs it):
//
//	time          what happens                       counted  restart in  restarts
//	10:00:00.000  a task fails                       yes      1 s         1
//	10:00:00.400  another task fails (same cause)    no       600 ms      1   (joins the restart due at 10:00:01)
//	10:00:01.000  the job restarts
//	10:00:30.000  a task fails                       yes      1.5 s       2
//	10:00:40.000  a task fails                       yes      2.25 s      3
//	              the job runs for almost two hours
//	12:00:00.000  a task fails                       yes      1 s         4   (more than 1 h since 10:00:42.25: reset)
//
// With fixed-delay, attempts 2 and delay 10 s instead, the first three
// failures give: restart in 10 s (1), restart in 10 s (2), and then
//
//	JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=10000): <cause>
//
// # Differs from Flink
//
//   - Time is an argument. Flink's strategies read a clock; here
//     NotifyFailure takes now, and CanRestart and BackoffTime answer as of
//     the last NotifyFailure (Flink reads its clock again in canRestart and
//     getBackoffTime, moments later).
//   - Exponential-delay's jitter comes from a func() float64 given at
//     construction instead of ThreadLocalRandom. Its BackoffTime before any
//     failure is 0; Flink throws "Please call notifyFailure first.".
//   - Flink computes initial × multiplier^n in a Java long: from about the
//     92nd restart without a reset the product saturates, adding a positive
//     jitter overflows, and the delay falls back to initial-backoff for
//     about half of the restarts. Here the delay stays at max-backoff.
//   - Config is a struct, and FromMap parses every restart-strategy option
//     it finds; Flink reads only the chosen strategy's options, so a bad
//     value for another strategy's option goes unnoticed there. A value out
//     of range is reported with its key; Flink's IllegalArgumentException
//     gives only the message. The deprecated RestartStrategies job API and
//     the precedence of job over cluster configuration are the caller's.
//   - Durations are read in Flink's syntax or Go's ("1m30s", "1.5s"); the
//     ISO-8601 form ("PT1S") that some Flink versions also read is not.
//   - The region strategy reads the ExecutionGraph and its regions instead
//     of a SchedulingTopology. It learns that a result is lost from its
//     ResultPartitionAvailabilityChecker (the scheduler's partition
//     tracker, which forgets the results of a TaskManager that is gone),
//     not from the failure: Flink also marks the partition named by a
//     PartitionException (a consumer that could not read it) as lost for
//     that one decision. Its two log lines are the ones Flink's strategy
//     wrote up to 1.16 ("Calculating tasks to restart …", "… tasks should
//     be restarted …"); newer Flink logs only the scheduler's "… tasks will
//     be restarted …". There is no RestartIndividualFailoverStrategy.
//   - The handler does not label failures (FailureEnricher) or report them
//     as metrics or spans. A failure is unrecoverable when its chain holds a
//     *SuppressRestartsError, not when an exception class is annotated
//     ThrowableType.NonRecoverableError. VerticesToRestart and RestartDelay
//     are zero when the job cannot restart; Flink's getters throw. Vertex
//     sets are slices in a stable order.
//   - Errors print Go-style, the cause after a colon:
//     "JobException: <message>: <cause>".
package failover
