// Package jobgraph holds the JobGraph: the dataflow program a client submits
// to the JobManager. It mirrors Flink's org.apache.flink.runtime.jobgraph
// package:
//
//	JobGraph             → JobGraph             (this package's root type)
//	JobVertex            → JobVertex            (one operator chain, run as one task)
//	IntermediateDataSet  → IntermediateDataSet  (what a vertex produces)
//	JobEdge              → JobEdge              (a data set read by a vertex)
//	DistributionPattern  → DistributionPattern  (POINTWISE or ALL_TO_ALL)
//	ResultPartitionType  → io.network.partition.ResultPartitionType
//	SlotSharingGroup     → jobmanager.scheduler.SlotSharingGroup (a name here)
//
// Lesson 02 ("Graph transformations") teaches this package together with
// runtime/streaming (which builds JobGraphs) and runtime/executiongraph
// (which expands them).
//
// # Three graphs
//
// A Flink program passes through three graphs on its way to running tasks:
//
//	StreamGraph       one node per operator               (client, runtime/streaming)
//	    │  chaining: operators that can run in one thread are fused
//	    ▼
//	JobGraph          one JobVertex per operator chain   (client → JobManager, this package)
//	    │  expansion: each vertex becomes Parallelism subtasks
//	    ▼
//	ExecutionGraph    one ExecutionVertex per subtask    (JobMaster, runtime/executiongraph)
//
// The JobGraph is the one that crosses the wire: the client builds it and
// sends it to the Dispatcher (steps m2 and m3), the Dispatcher validates it
// and stores it in the JobGraphStore, and the JobMaster builds an
// ExecutionGraph from it (step m4).
//
// # How the pieces fit
//
// Vertices are connected through data sets, never directly. A vertex
// produces IntermediateDataSets; a JobEdge carries a data set to the vertex
// that reads it, and says how subtasks are wired:
//
//	 Source ──produces──► IntermediateDataSet ──JobEdge──► Map
//	(JobVertex)            (ResultType:           (DistributionPattern:
//	                        PIPELINED_BOUNDED)     ALL_TO_ALL, "HASH")
//
// One call makes such a connection, as in Flink:
//
//	source := jobgraph.NewJobVertex("Source: Words", "SourceStreamTask", 4)
//	count := jobgraph.NewJobVertex("Count", "OneInputStreamTask", 4)
//	edge := count.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
//	edge.ShipStrategyName = "HASH"
//
//	g := jobgraph.New("WordCount")
//	g.AddVertex(source)
//	g.AddVertex(count)
//	if err := g.Validate(); err != nil { ... }
//
// The data set sits between the two vertices because that is where the
// ExecutionGraph splits the data: the data set becomes an
// IntermediateResult with one partition per producer subtask, and the
// DistributionPattern decides which consumer subtasks read which
// partitions (see runtime/executiongraph for why ALL_TO_ALL is stored in
// O(n), not O(n²)).
//
// # Order and determinism
//
// Vertices keep their insertion order, and
// VerticesSortedTopologicallyFromSources follows Flink's algorithm step by
// step, so the same program always yields the same order, the same
// ExecutionGraph and the same log lines. DefaultMaxParallelism is Flink's
// formula for the number of key groups when a vertex sets none.
//
// # Validation and the JSON form
//
// Validate collects the checks Flink performs on the way from submission to
// ExecutionGraph (empty job, missing invokable class, bad parallelism,
// dangling edges, cycles) and reports the first failure, with Flink's
// wording, as an error wrapping ErrInvalidJobGraph. One check is left where
// Flink makes it: a parallelism higher than the max parallelism passes the
// client and the Dispatcher, and fails the building of the ExecutionGraph
// in the JobMaster (runtime/executiongraph).
//
// Encode and Decode turn a graph into readable, stable JSON and back.
// Decode is strict (unknown fields, unknown references and reused IDs are
// errors) because its input comes from the network.
//
// # Differs from Flink
//
//   - A slot sharing group is a name. The empty name stands for Flink's
//     default, a fresh group for every vertex.
//   - ResultPartitionType has two kinds, PIPELINED_BOUNDED and BLOCKING.
//   - A data set has at most one consumer, as in Flink up to 1.14; later
//     Flink versions let several vertices of equal parallelism read one
//     data set.
//   - There are no operator IDs, input split sources, co-location groups or
//     checkpoint settings yet; the JobGraph holds what submission and
//     scheduling need.
//   - AddVertex accepts a duplicate ID and Validate reports it, where Flink
//     throws at once. The JSON form replaces Java serialization.
//
// A JobGraph is plain data with no goroutines and no locks: build it on one
// goroutine, then hand it over.
package jobgraph
