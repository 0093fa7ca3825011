// Package executiongraph holds the ExecutionGraph: the JobMaster's model of
// a job at run time, with one node per parallel subtask and one object per
// attempt to run it. It mirrors Flink's
// org.apache.flink.runtime.executiongraph package (and two classes of
// org.apache.flink.runtime.scheduler.strategy):
//
//	ExecutionGraph              → DefaultExecutionGraph
//	BuildGraph                  → DefaultExecutionGraphBuilder.buildGraph + attachJobGraph
//	ExecutionJobVertex          → ExecutionJobVertex           (one per JobVertex)
//	ExecutionVertex             → ExecutionVertex              (one per subtask)
//	Execution                   → Execution                    (one per attempt)
//	IntermediateResult          → IntermediateResult           (one per IntermediateDataSet)
//	IntermediateResultPartition → IntermediateResultPartition  (one per producer subtask)
//	ConsumedPartitionGroup      → scheduler.strategy.ConsumedPartitionGroup
//	ConsumerVertexGroup         → scheduler.strategy.ConsumerVertexGroup
//	connectAllToAll, ...        → EdgeManagerBuildUtil
//	PipelinedRegions            → DefaultExecutionTopology's regions (LogicalPipelinedRegionComputeUtil,
//	                              SchedulingPipelinedRegionComputeUtil)
//
// Lesson 02 ("Graph transformations") walks through this package; the
// scheduler, failover and deployment build on it.
//
// # From JobGraph to ExecutionGraph
//
// At step m4 the JobMaster calls BuildGraph with the submitted
// jobgraph.JobGraph. Each JobVertex is expanded by its parallelism:
//
//	JobGraph:        Source (p=2) ──ALL_TO_ALL──► Map (p=3)
//
//	ExecutionGraph:  ExecutionJobVertex "Source"        ExecutionJobVertex "Map"
//	                   ExecutionVertex Source (1/2)       ExecutionVertex Map (1/3)
//	                     Execution #0, partition 0          Execution #0
//	                   ExecutionVertex Source (2/2)       ExecutionVertex Map (2/3)
//	                     Execution #0, partition 1          Execution #0
//	                                                      ExecutionVertex Map (3/3)
//	                                                        Execution #0
//
// The IntermediateDataSet between them becomes an IntermediateResult with
// one IntermediateResultPartition per Source subtask. At run time each
// partition is split into subpartitions, one per Map subtask that reads it;
// ExecutionVertex.ConsumedSubpartitionIndex says which one a reader takes.
//
// A JobGraph that jobgraph.Validate accepts can still fail here: a vertex
// whose parallelism is higher than its max parallelism (the number of key
// groups its keyed state is split into) cannot be expanded, and BuildGraph
// fails with Flink's JobException, "Vertex Map's parallelism (4) is higher
// than the max parallelism (2). Please lower the parallelism or increase
// the max parallelism." (failover.JobException). As in Flink, neither the client
// nor the Dispatcher checks it: the job is accepted, and its JobMaster
// fails to start at step m4.
//
// An ExecutionVertex stays for the life of the graph; an Execution is one
// attempt to run it. A restart calls ResetForNewExecution, which makes
// attempt #1, #2, ... with a new ExecutionAttemptID (graph ID, subtask,
// attempt number), so messages about an old attempt cannot be mistaken for
// the new one.
//
// # Why ALL_TO_ALL costs O(n), not O(n²)
//
// Up to Flink 1.12 every (producer, consumer) pair had an ExecutionEdge
// object. Two vertices of parallelism 10,000 joined ALL_TO_ALL — the job of
// Flink's scheduler benchmarks — make 100,000,000 edges: more than 4 GiB of
// heap, GC pauses of over 10 seconds, and 11.4 seconds just to initialize
// the job.
//
// FLINK-21326 (Flink 1.13) noticed that in an ALL_TO_ALL edge every consumer
// reads exactly the same partitions. So the edge is stored as two groups:
//
//	partitions p0 … p9999 ──► ConsumedPartitionGroup {p0 … p9999}
//	                              ▲ the same pointer in all 10,000 consumers
//	consumers  c0 … c9999 ──► ConsumerVertexGroup {c0 … c9999}
//	                              ▲ the same pointer in all 10,000 partitions
//
// That is two lists of 10,000 IDs and 20,000 pointers instead of 10^8
// objects. The Flink team's measurements for this job, Flink 1.12 → 1.14:
// job initialization 11,431 ms → 627 ms, task deployment 63,118 ms →
// 17,183 ms, computing the tasks to restart on failover 37,195 ms → 170 ms,
// memory for the edges from more than 4 GiB to about 12 MiB, and the
// JobManager heap needed from 30 GiB to 2 GiB. BenchmarkBuildExecutionGraph
// builds the same job here.
//
// POINTWISE edges get the same treatment on a small scale: each range of
// partitions read by the same consumers (see connectPointwise) gets one
// group pair. Whatever the pattern, ExecutionVertex.ConsumedPartitionGroups
// lists what a subtask reads, IntermediateResultPartition.ConsumerVertexGroups
// lists who reads a partition, and code that walks the graph (scheduling,
// failover regions, deployment descriptors) works group by group instead
// of edge by edge.
//
// # Pipelined regions
//
// A pipelined partition is read while it is written, so its producer and
// its consumers must run at the same time; a BLOCKING one is written in
// full first. PipelinedRegions groups the subtasks that pipelined results
// join: the unit Flink's PipelinedRegionSchedulingStrategy deploys and
// its region failover restarts. A streaming job with an ALL_TO_ALL edge is
// one region; a job of FORWARD edges only is one region per subtask index;
// BLOCKING results cut a batch job into regions that run one after the
// other. Flink computes them in two levels, job vertices first, so that an
// all-to-all job never walks its n² logical edges; so does this package
// (BenchmarkPipelinedRegions: 2 × 10,000 subtasks all-to-all in a few ms).
//
// # States
//
// The graph holds the job's api.JobStatus (CREATED after BuildGraph) and
// every Execution holds its api.ExecutionState. Both change only through
// TransitionState, which asks api.CheckJobTransition or
// api.CheckExecutionTransition and stamps the time of the move with the
// graph's clock (WithClock; time.Now by default). An illegal move returns an
// error wrapping api.ErrIllegalTransition and changes nothing.
//
// # Concurrency
//
// None. The package starts no goroutines, does no I/O and reads time only
// through the injected clock. An ExecutionGraph belongs to the JobMaster's
// main thread, as in Flink, and must not be shared.
//
// # Differs from Flink
//
//   - There is no EdgeManager: subtasks hold their ConsumedPartitionGroups
//     and partitions their ConsumerVertexGroups directly.
//   - A data set has at most one consumer (jobgraph.Validate checks it), so
//     a partition has at most one ConsumerVertexGroup.
//   - ConsumedSubpartitionIndex is the reader's position among a
//     partition's readers; Flink uses subtaskIndex % numberOfReaders, an
//     equally valid one-to-one choice that differs for uneven POINTWISE
//     fan-outs.
//   - Only the current attempt of a subtask is kept and registered; it is
//     unregistered when ResetForNewExecution replaces it, not when it
//     reaches a terminal state, and there is no prior-attempt history.
//   - TryAssignResource takes a plain AssignedSlot (allocation and
//     TaskManager location) instead of a LogicalSlot, accepts it only in
//     SCHEDULED and reports refusal as an error.
//   - No checkpointing, accumulators, metrics, input splits, archived
//     graphs, dynamic graphs or adaptive batch scheduling yet.
//   - Pipelined regions are computed when asked for, not kept in an
//     execution topology, and co-location constraints (which Flink checks
//     stay inside one region) do not exist yet.
//   - Transitions are not logged here; the JobMaster logs them with
//     Flink's wording ("Map (2/4) (<attempt id>) switched from X to Y.",
//     and with a cause "... switched from X to FAILED on
//     <Execution.LocationInformation>.").
package executiongraph
