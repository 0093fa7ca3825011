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
//	SlotSharingGroup     → jobmanager.scheduler.SlotSharingGroup (a name here;
//	                       its resources in JobGraph.SlotSharingGroupResources)
//	CoLocationGroup      → jobmanager.scheduler.CoLocationGroupImpl (a key here)
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
// # Slot sharing and co-location
//
// A slot sharing group lets one slot run one subtask of each of its
// vertices, so a group needs as many slots as its largest parallelism
// (SlotsNeeded). By default every slot is requested with
// api.UnknownResourceProfile: any slot will do. A program may give a group
// resources (Flink's fine-grained resource management, the DataStream
// API's SlotSharingGroup builder); the JobGraph then carries them in
// SlotSharingGroupResources, and the scheduler asks for a slot of exactly
// that profile for each of the group's shared slots
// (SlotSharingGroupResourceProfile):
//
//	g.SlotSharingGroupResources = map[string]api.ResourceProfile{
//		"counting": api.NewResourceProfile(0.25, configuration.OfMebiBytes(64), 0, configuration.OfMebiBytes(32), 0),
//	}
//
// A co-location group is stricter: subtask i of every vertex with the same
// CoLocationGroup key runs in the same slot, whatever the producers of the
// subtasks. Flink uses it for the head and tail of an iteration
// ("IterationCoLocationGroup-" + loopId); a program reaches it through
// Transformation#setCoLocationGroupKey. Its vertices must all be in one slot
// sharing group, since a shared slot belongs to one group.
//
// # Validation and the JSON form
//
// Validate collects the checks Flink performs on the way from submission to
// ExecutionGraph (empty job, missing invokable class, bad parallelism,
// co-location across slot sharing groups, dangling edges, cycles) and
// reports the first failure, with Flink's wording, as an error wrapping
// ErrInvalidJobGraph. One check is left where Flink makes it: a
// parallelism higher than the max parallelism passes the client and the
// Dispatcher, and fails the building of the ExecutionGraph in the
// JobMaster (runtime/executiongraph).
//
// Encode and Decode turn a graph into readable, stable JSON and back.
// Decode is strict (unknown fields, unknown references and reused IDs are
// errors) because its input comes from the network.
//
// # Differs from Flink
//
//   - A slot sharing group is a name, and its resources are kept in the
//     JobGraph by name; Flink gives each JobVertex a SlotSharingGroup
//     object that holds its ResourceProfile. The empty name stands for
//     Flink's default, a fresh group for every vertex.
//   - A co-location group is a key on the vertex; Flink gives the vertices
//     one CoLocationGroupImpl object. Validate checks here what Flink's
//     StreamingJobGraphGenerator checks when it makes the object, since a
//     decoded graph may be built by hand.
//   - ResultPartitionType has two kinds, PIPELINED_BOUNDED and BLOCKING.
//   - A data set has at most one consumer, as in Flink up to 1.14; later
//     Flink versions let several vertices of equal parallelism read one
//     data set.
//   - There are no input split sources, and no checkpoint settings: the
//     cluster's configuration checkpoints every job alike. Of Flink's
//     SavepointRestoreSettings the JobGraph holds the path and
//     allowNonRestoredState; the claim mode is always NO_CLAIM.
//   - AddVertex accepts a duplicate ID and Validate reports it, where Flink
//     throws at once. The JSON form replaces Java serialization.
//
// A JobGraph is plain data with no goroutines and no locks: build it on one
// goroutine, then hand it over.
package jobgraph
