// Package regions works out a job's pipelined regions and what Flink's
// region failover restarts when one of its subtasks fails. It is the
// decision half of `go run ./tools/graphs -regions`; package dot draws what
// it decides and package explain prints it.
//
//	go run ./tools/graphs -regions -p 4 pipelines
//	go run ./tools/graphs -regions -fail "Source: file-input -> tokenizer (1/2)" -p 2 wordcount --execution-mode BATCH
//
// # Regions
//
// Of builds the job's ExecutionGraph as the JobMaster does
// (executiongraph.BuildGraph) and asks it for its pipelined regions
// (ExecutionGraph.PipelinedRegions, Flink's DefaultExecutionTopology): sets
// of subtasks joined by pipelined exchanges, which run at the same time
// and restart together. A PIPELINED_BOUNDED exchange joins the regions of
// its producer and consumer; a BLOCKING one (a BATCH job's) does not, so
// it cuts a job into regions that run one after the other:
//
//	streaming, keyBy (ALL_TO_ALL, pipelined)  one region of every subtask
//	streaming, forward only (POINTWISE)       one region per pipeline
//	BATCH, keyBy (ALL_TO_ALL, blocking)       one region per subtask
//
// # Failover
//
// Fail asks the runtime's RestartPipelinedRegionFailoverStrategy
// (jobmanager.execution.failover-strategy: region, the default) which
// subtasks restart when the named subtask fails (TasksNeedingRestart).
// The strategy needs to know which results can still be read: here every
// BLOCKING result is, as when its producer finished and its TaskManager
// still holds it, and a pipelined one never is. With that the strategy's
// three rules come down to two:
//
//  1. the failed subtask's region restarts;
//  2. so does every region that reads a result of a restarting region,
//     since that result will be produced again.
//
// The third rule, the producers of a lost input restart too, takes a
// BLOCKING result that is gone with its TaskManager, which is not drawn
// here (see package failover). The set of subtasks is the strategy's;
// which rule brought each region in (Region.Why) is read off the graph
// afterwards, for the reader.
//
// Subtasks are named as Flink's logs name them: the JobVertex's name, its
// subtask index from 1 and its parallelism, "work -> Sink: print-sink
// (2/4)". Everything is deterministic: regions are numbered 1, 2, … in the
// order of their first subtask, and no random ID reaches the output.
package regions
