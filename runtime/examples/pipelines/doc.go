// Package pipelines is an unbounded, embarrassingly parallel streaming
// job: p pipelines side by side that never exchange a record. It is the
// job that shows what region failover buys.
//
//	Source: numbers (p) ─FORWARD─► work -> Sink: print-sink (p)
//
// Subtask i of the source feeds subtask i of "work" only (a forward
// exchange, POINTWISE in the JobGraph), so the job is p pipelined regions
// of two subtasks each, not one region of 2p. With Flink's default
// failover strategy, region, a failure restarts the region it happened in
// and nothing else: kill a TaskManager and only the subtasks that ran on
// it get new attempts, while the other pipelines keep their attempt 0 and
// go on printing. With jobmanager.execution.failover-strategy: full every
// subtask restarts.
//
// The map starts a new chain (StartNewChain), or source and map would be
// chained into one task and the job would have no exchange at all; it
// would still be p regions, of one subtask each.
//
// # How it maps to Flink
//
//	Flink                                                   here
//	env.fromSource(new DataGeneratorSource<>(…), …)         streaming.FromGenerator(env, Number, count, rate)
//	    .name("numbers")                                    .Name("numbers")
//	.forward()                                              .Forward()
//	.map(n -> n * 2).name("work").startNewChain()           streaming.Map(…, double).Name("work").StartNewChain()
//	.print().name("print-sink")                             .Print().Name("print-sink")
//
// Its arguments: --rate <records/s> over all source subtasks (default 10;
// 0: as fast as possible), --count <n> to stop after n numbers (default:
// never), --output print (the default) or collect (into Results).
package pipelines
