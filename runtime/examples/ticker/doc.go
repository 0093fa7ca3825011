// Package ticker is an unbounded streaming job for watching a job run,
// cancelling it and seeing it fail over: a generator ticks out sensor
// events at a fixed rate, forever, and a keyed running count per sensor
// prints after every event.
//
//	Source: sensor-events ─HASH(sensor)─► running-count → Sink: print-sink
//
//	(sensor-1,1) (sensor-2,1) … (sensor-5,1) (sensor-1,2) (sensor-2,2) …
//
// # How it maps to Flink
//
// Written in Flink, with its DataGeneratorSource, the same job reads:
//
//	Flink                                                     here
//	new DataGeneratorSource<>(generator, Long.MAX_VALUE,      streaming.FromGenerator(env, Event, streaming.Unbounded, rate)
//	    RateLimiterStrategy.perSecond(rate), …)
//	env.fromSource(source, noWatermarks(), "sensor-events")   .Name("sensor-events")
//	.keyBy(value -> value.f0)                                 streaming.KeyBy(events, sensor)
//	.reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))           .Reduce(addCounts).Name("running-count")
//	.name("running-count")
//	.print().name("print-sink")                               .Print().Name("print-sink")
//	.sinkTo(FileSink.forRowFormat(new Path(dir),              .SinkToTransactionalFiles(dir).Name("file-sink")
//	    new SimpleStringEncoder<>()).build()).name("file-sink")       (--output file --path dir)
//
// WordCount (runtime/examples/wordcount) counts with Sum; the ticker uses
// Reduce, the general form of a keyed running aggregate.
//
// At parallelism p the JobGraph has two vertices: "Source: sensor-events"
// (a source heads its chain, and the HASH edge ends it) and
// "running-count -> Sink: print-sink", p subtasks each, joined ALL_TO_ALL.
// The rate is a limit for the whole source: each subtask emits its share.
//
// # Demos
//
// Cancel: the job never finishes on its own, so it stays RUNNING until
// someone cancels it; its tasks go CANCELING → CANCELED and the job
// CANCELLING → CANCELED.
//
// Failover: kill a TaskExecutor while the job runs. Its tasks fail, the
// scheduler restarts them in other slots. Without checkpoints the counts
// start again from (sensor-1,1): keyed state is lost and the generator
// starts again from event 0, as in Flink with checkpointing disabled.
// With checkpoints (execution.checkpointing.interval) the job restores
// the latest completed checkpoint: the generator goes on from its
// position, each count from its value. Event depends only on its index,
// so the events after a restart are the same events as before.
//
// Exactly once: restored state is not enough. The print and collect
// sinks hand on every count at once, so the counts emitted between the
// checkpoint and the failure come out again after the restore. With
// --output file the counts go through a transactional sink
// (streaming.DataStream.SinkToTransactionalFiles, Flink's FileSink with
// a two-phase commit): each subtask's counts since the last checkpoint
// wait in a hidden in-progress file, become pending at the checkpoint's
// barrier, and appear in the directory as a part file when the
// checkpoint completes; a failover deletes what was not committed. So
// the part files hold every count exactly once: for 2,000 events, each
// sensor's counts 1 to 400, each on one line, in some part file:
//
//	<dir>/part-0-1    subtask 0's counts up to checkpoint 1's barrier, one a line: (sensor-2,17)
//	<dir>/part-1-1    subtask 1's
//	<dir>/part-0-2    subtask 0's between the barriers of checkpoints 1 and 2
//	…
//	<dir>/part-1-end  subtask 1's after its last checkpoint
//
// # How to run it
//
// Importing the package registers the program as "ticker" (ProgramClass).
// Jar builds the job jar (a manifest and no resources); upload it and run
// it through the REST endpoint:
//
//	POST /jars/upload          multipart field "jarfile": the bytes of Jar()
//	POST /jars/{jarid}/run     {"parallelism": 2, "programArgsList": ["--rate", "20"]}
//
// and cancel it with MiniCluster.CancelJob (in Flink's REST API, PATCH
// /jobs/{jobid}).
//
// The arguments are Flink's "--key value" pairs:
//
//	--rate <events/s>   over all source subtasks (default 10; 0: as fast as possible)
//	--count <n>         stop after n events, so the job can FINISH (default: never)
//	--output print      print every running count, "(sensor-3,42)" (the default)
//	--output collect    append every running count to Results
//	--output file       write every running count, exactly once, into part files under --path
//	--path <dir>        the directory of the part files (--output file only)
//
// # Differs from Flink
//
//   - The file sink commits its last part file when its input ends
//     (part-<subtask>-end); Flink 1.15+ takes a final checkpoint first.
//     See the streaming runtime's transactionalFileSink.
//   - The events carry no timestamps or watermarks.
package ticker
