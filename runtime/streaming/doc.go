// Package streaming is the client side of flinklab's DataStream API: the
// functions a job program calls to describe its dataflow, the StreamGraph
// that description becomes, and the StreamingJobGraphGenerator that fuses
// operators into chains and produces the JobGraph the client submits. It
// mirrors Flink's flink-streaming-java module:
//
//	Flink                                              here
//	StreamExecutionEnvironment                         StreamExecutionEnvironment
//	DataStream, SingleOutputStreamOperator             DataStream[T]
//	KeyedStream, DataStreamSink                        KeyedStream[T, K], DataStreamSink
//	Transformation (+ subclasses)                      transformation (unexported)
//	StreamGraphGenerator                               generateStreamGraph (GetStreamGraph)
//	StreamGraph, StreamNode, StreamEdge                StreamGraph, StreamNode, StreamEdge
//	StreamPartitioner and its subclasses               StreamPartitioner, ForwardPartitioner, …
//	KeyGroupRangeAssignment, MathUtils.murmurHash      AssignToKeyGroup, …, MurmurHash
//	ChainingStrategy                                   ChainingStrategy
//	StreamOperatorFactory (StreamMap, StreamFilter, …) Operator, OperatorKind
//	StreamingJobGraphGenerator                         CreateJobGraph, IsChainable
//	StreamConfig                                       StreamConfig
//	StreamPlanEnvironment, ProgramAbortException       PlanProgram, ErrProgramAbort
//	SlotSharingGroup, SlotSharingGroup.Builder         SlotSharingGroup, SlotSharingGroupBuilder
//	Transformation#setCoLocationGroupKey               DataStream.SetCoLocationGroupKey
//	RuntimeExecutionMode, env.setRuntimeMode           RuntimeExecutionMode, SetRuntimeMode
//	ExecutionOptions.RUNTIME_MODE                      RuntimeModeKey, ParseRuntimeExecutionMode
//	BatchGroupedReduceOperator                         BatchReduceOperator
//	sinkTo(FileSink.forRowFormat(…)), exactly once     DataStream.SinkToTransactionalFiles, TransactionalFileSink
//
// Lesson 02 ("Graph transformations") teaches it, together with
// runtime/jobgraph and runtime/executiongraph. Everything here is pure: no
// goroutines, no clock, no I/O. Running the chains (StreamTask, the
// operators' loops, the network) is the runtime's job; this package makes
// sure the runtime finds everything it needs.
//
// # A program
//
// A job program is a Go function registered under a name, the name its job
// jar's manifest gives as Program-Class. Here is WordCount:
//
//	func init() { streaming.RegisterProgram("wordcount", wordCount) }
//
//	func wordCount(env *streaming.StreamExecutionEnvironment, args []string) error {
//		text := env.ReadTextFile("hamlet.txt")                       // node 1
//		words := streaming.FlatMap(text, tokenize)                   // node 2
//		counts := streaming.KeyBy(words, func(t streaming.Tuple2[string, int]) string {
//			return t.F0                                              // id 3: an edge, not a node
//		}).Sum(1)                                                    // node 4
//		counts.Print()                                               // node 5
//		return env.Execute("WordCount")
//	}
//
//	func tokenize(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
//		for _, word := range regexp.MustCompile(`\W+`).Split(strings.ToLower(line), -1) {
//			if word != "" {
//				out.Collect(streaming.Tuple2Of(word, 1))
//			}
//		}
//	}
//
// Records are plain Go values. Operations that change the record type are
// package functions (Map, FlatMap, KeyBy), because Go methods cannot have
// type parameters; operations that keep it are methods (Filter, Reduce,
// Sum, Rebalance, Print, SetParallelism, …). A program's mistakes (a
// parallelism of 0, a nil function, a key type without a hash) are kept by
// the environment and returned by Execute, naming the operator.
//
// # Step 1: transformations
//
// Each call above records a transformation and gives it the next ID: 1, 2,
// 3, … in the order the program makes them. KeyBy, Rebalance, Rescale,
// Shuffle, Broadcast and Forward record partition transformations: they run
// nothing, they only say how records travel to the next operator. Union
// runs nothing either: the operator after it reads each of its streams.
//
// # Step 2: the StreamGraph
//
// GetStreamGraph (and Execute) turns the transformations into a
// StreamGraph: one StreamNode per source, operator and sink, with the ID of
// its transformation, and one StreamEdge per input. The partition
// transformations become the edges' partitioners, so WordCount's nodes are
// 1, 2, 4 and 5, and the edge 2 → 4 is HASH:
//
//	Source: Custom File Source-1 ─FORWARD─► Flat Map-2 ─HASH─► Keyed Aggregation-4 ─FORWARD─► Sink: Print to Std. Out-5
//
// An edge without a partitioning is FORWARD when both sides have the same
// parallelism and REBALANCE otherwise. Defaults are resolved here: the
// parallelism (the operator's, else the environment's, else 1), the max
// parallelism (the environment's, else jobgraph.DefaultMaxParallelism,
// which is 128 up to parallelism 85), the slot sharing group (the
// operator's, else its input's, else "default") and the chaining strategy
// (HEAD for sources, ALWAYS for the rest, NEVER after DisableChaining, HEAD
// after StartNewChain). The StreamGraph also keeps the resources of each
// slot sharing group the program gave some (see below).
//
// # Partitioners and key groups
//
// A partitioner picks the consumer subtask of each record: FORWARD the one
// with the same index, REBALANCE round robin over all, RESCALE round robin
// over a few, BROADCAST all of them, and HASH the owner of the record's key
// group. Key groups are Flink's unit of keyed state:
//
//	key group = MurmurHash(HashCode(key)) % maxParallelism
//	subtask   = keyGroup * parallelism / maxParallelism
//
// "hello" hashes to 99162322 (Java's String.hashCode), murmurs to
// 1715862179, so it sits in key group 35 of 128, owned by subtask 1 of 4
// (key groups 32–63). Changing the parallelism moves whole key groups
// between subtasks; the key group of a key never changes.
//
// # Step 3: chaining
//
// Sending a record through the network costs serialization and buffers;
// handing it to the next function in the same thread costs a call. So
// CreateJobGraph fuses neighbouring operators into chains. An edge is
// chainable (IsChainable) when all of these hold:
//
//  1. the downstream operator has exactly one input;
//  2. chaining is enabled (no env.DisableOperatorChaining());
//  3. both operators are in the same slot sharing group;
//  4. the upstream chaining strategy is not NEVER (DisableChaining);
//  5. the downstream strategy is ALWAYS, or HEAD_WITH_SOURCES right after a
//     source (HEAD, from StartNewChain, and NEVER start a new chain);
//  6. both operators have the same parallelism;
//  7. the partitioner is FORWARD.
//
// Starting from each source, CreateJobGraph walks the graph depth first:
// a chainable edge pulls its target into the current chain, any other edge
// leaves the chain and its target heads a new one. WordCount at parallelism
// 4 gives two chains, because the HASH edge breaks rule 7:
//
//	┌─ JobVertex "Source: Custom File Source -> Flat Map" ─┐              ┌─ JobVertex "Keyed Aggregation -> Sink: Print to Std. Out" ─┐
//	│  SourceStreamTask, nodes [1,2], parallelism 4        │ ─ALL_TO_ALL─►│  OneInputStreamTask, nodes [4,5], parallelism 4             │
//	└──────────────────────────────────────────────────────┘    HASH      └─────────────────────────────────────────────────────────────┘
//
// A chain's name joins its operators' names with " -> ", and puts
// parentheses around a fan-out: "Map -> (Filter, Sink: Print to Std. Out)".
//
// # Step 4: the JobGraph
//
// Each chain becomes one JobVertex with the head's parallelism, max
// parallelism and slot sharing group, and the invokable class
// SourceStreamTaskClass (head is a source) or OneInputStreamTaskClass. Each
// edge leaving a chain becomes a JobEdge: POINTWISE for FORWARD and
// RESCALE, ALL_TO_ALL for the rest, its ShipStrategyName the partitioner's
// name, its data set PIPELINED_BOUNDED (BLOCKING in BATCH mode, see
// "Runtime modes"). Then each slot sharing group a vertex is in gets its
// resources in the JobGraph, and the vertices get their co-location groups
// (see below). The vertex's Configuration is a StreamConfig:
//
//	streaming.program.name          the registered program             wordcount
//	streaming.program.args          its arguments (JSON)               ["--input","hamlet.txt"]
//	streaming.program.parallelism   the runner's parallelism, 0: none  4
//	streaming.program.runtime-mode  the runner's runtime mode          STREAMING
//	streaming.chain.node-ids        the chain's nodes, head first      [1,2]
//	streaming.chain.out-edges       one per produced data set (JSON)   [{"sourceNodeId":2,"targetNodeId":4,"partitioner":"HASH"}]
//
// # Slot sharing groups and their resources
//
// A slot holds one subtask of every vertex of its slot sharing group, so a
// job needs, per group, as many slots as the group's largest parallelism.
// By default those slots are requested with api.UnknownResourceProfile:
// any slot will do, and a TaskManager cuts one of its default slot
// profile. A program that knows better says how large each slot of a group
// must be (Flink's fine-grained resource management):
//
//	counting, err := streaming.NewSlotSharingGroupBuilder("counting").
//		SetCPUCores(0.25).SetTaskHeapMemoryMB(64).SetManagedMemoryMB(32).
//		Build()
//	if err != nil {
//		return err
//	}
//	counts := streaming.KeyBy(words, word).Sum(1).SetSlotSharingGroup(counting)
//
// or registers the group once and names it on the operators:
//
//	env.RegisterSlotSharingGroup(counting)
//	counts := streaming.KeyBy(words, word).Sum(1).SlotSharingGroup("counting")
//
// Build wants CPU cores and task heap memory, or no resources at all; task
// off-heap and managed memory are 0 unless set. All the places that give
// one group resources must give the same, or the program fails with "The
// slot sharing group counting has been configured with two different
// resource spec.". CreateJobGraph copies the resources of every group a
// vertex is in to the JobGraph (jobgraph.JobGraph.SlotSharingGroupResources,
// with no network memory), where the scheduler requests each shared slot
// of the group with them; a group without resources stays UNKNOWN.
//
// # Co-location
//
// A co-location group is stronger than a slot sharing group: subtask i of
// every JobVertex in it runs in the same slot, as Flink does for the head
// and tail of an iteration ("IterationCoLocationGroup-" + loopId). A
// program puts operators in one with SetCoLocationGroupKey (Flink's
// Transformation#setCoLocationGroupKey, reached through getTransformation()).
// The key of a chain's head decides for the whole JobVertex, and the
// vertices of one key must share a slot sharing group: CreateJobGraph fails
// with Flink's "Cannot co-locate operators from different slot sharing
// groups" otherwise. runtime/examples/sharing is a program that does both.
//
// # Runtime modes
//
// A program runs in one of Flink's runtime modes (RuntimeExecutionMode,
// the option execution.runtime-mode): STREAMING, the default, BATCH, or
// AUTOMATIC, which is BATCH when every source is bounded and STREAMING
// otherwise. The program chooses with env.SetRuntimeMode(streaming.Batch);
// a runner may start it in a mode (PlanProgramInRuntimeMode), which the
// program's own choice overrides. Values given as text ("batch", "Batch",
// "BATCH") are read by ParseRuntimeExecutionMode, ignoring case as Flink
// reads every enum option.
//
// The StreamGraph is built in the resolved mode (StreamGraph.RuntimeMode,
// STREAMING or BATCH). Every source here is bounded but FromGenerator with
// Unbounded records; BATCH with that one fails when the graph is built,
// with Flink's ErrUnboundedSourceInBatch: "Detected an UNBOUNDED source
// with the 'execution.runtime-mode' set to 'BATCH'. This combination is
// not allowed, please set the 'execution.runtime-mode' to STREAMING or
// AUTOMATIC".
//
// BATCH changes three things:
//
//  1. Every exchange between tasks is BLOCKING (Flink's default
//     execution.batch-shuffle-mode, ALL_EXCHANGES_BLOCKING): a JobEdge's
//     data set is complete before its consumer starts, so the scheduler
//     can run the stages of the job one after another, and restart only
//     the stage a failure hit. STREAMING keeps PIPELINED_BOUNDED.
//  2. Reduce and Sum are not rolling: they emit only the final result of
//     each key, at the end of their input (BatchReduceOperator, Flink's
//     BatchGroupedReduceOperator), so WordCount prints one count per word
//     instead of a running count per occurrence.
//  3. A job given no name is called DefaultBatchJobName, "Flink Batch Job".
//
// Chaining is the same in both modes: a FORWARD edge between equal
// parallelisms still fuses two operators into one task, and exchanges
// nothing. So WordCount in BATCH has the two vertices of STREAMING, and
// only its one exchange changes:
//
//	"Source: file-input -> tokenizer" ─ALL_TO_ALL, HASH, BLOCKING─► "counter -> Sink: print-sink"
//
// Tasks learn the mode by planning the program again: the runner's mode
// travels in the StreamConfig (streaming.program.runtime-mode), the
// program's own choice comes with its main, and both give the task the
// same BatchReduceOperator the client planned. The tasks of a BATCH job
// also flush their outputs only when a buffer is full and after their last
// record, without a buffer timeout.
//
// # How a task finds the user's functions
//
// The TaskExecutor reads the StreamConfig, runs the same program again
// with PlanProgramInRuntimeMode(name, args, parallelism, runtime mode),
// and looks up each node of its chain with StreamGraph.StreamNode(id). The
// node holds the Operator (its kind and the user's function, typed and
// type-erased), the KeySelector of a keyed operator, the parallelism, and
// the out edges with their partitioners. The node IDs match because the
// program builds the same transformations in the same order on every run:
// a program must not build its dataflow from randomness or the clock.
//
// # Concurrency
//
// An environment and the graphs it builds belong to one goroutine. The
// program registry is safe for concurrent use. The erased functions on an
// Operator may be called from many subtasks at once if the user's function
// allows it; partitioners are copied per producing subtask (Copy).
//
// # Differs from Flink
//
//   - No class loading. Flink ships the user's classes in the jar and
//     deserializes the operators from the JobVertex configuration. Go
//     cannot load code, so programs are compiled in and registered by name
//     (RegisterProgram); the configuration names the program and the node
//     IDs, and the TaskExecutor rebuilds the StreamGraph by running the
//     program again (PlanProgram) and finds each function by node ID. An
//     unknown program fails with "ClassNotFoundException: <name>".
//   - Transformation IDs count per environment. Flink uses a static
//     counter, so the same program gets the same IDs only in a fresh JVM;
//     here every run of a program numbers from 1.
//   - Every source is parallel. Flink's fromElements and fromCollection are
//     non-parallel (parallelism 1); here subtask s of p takes the elements i
//     with i % p == s, so WordCount chains its source at any parallelism.
//   - ReadTextFile reads a text resource of the job jar, as one source
//     node; Flink reads a file system path through a monitoring source and
//     a "Split Reader" operator.
//   - The max parallelism is resolved in the StreamGraph, and a HASH edge's
//     partitioner gets the consumer's max parallelism there; Flink leaves an
//     unset max parallelism to the ExecutionGraph and configures the
//     partitioner in the StreamTask.
//   - RebalancePartitioner does not pick its random start itself: the
//     runtime sets NextChannelToSendTo, so tests stay deterministic.
//   - JobVertex IDs are random; Flink derives them from hashes of the
//     StreamGraph (or from Uid). Uid is recorded and checked for
//     uniqueness only.
//   - Mistakes in a program are kept and returned by Execute (and
//     PlanProgram) instead of being thrown at the call.
//   - Keys are hashed as the Java value a Flink user would key by
//     (HashCode): strings by String.hashCode over UTF-16, Go ints as Java
//     ints, and so on; other key types need a HashCode method. Float keys
//     (and keys holding floats) are rejected, where Flink accepts Double:
//     keyed state compares keys with Go's ==, under which NaN != NaN and
//     0.0 == -0.0, against a hash that says the opposite.
//   - Sum takes a struct field position (Tuple2's F1 is 1), read by
//     reflection; Flink also accepts field names of POJOs.
//   - GetStreamGraph does not clear the transformations (Execute does), so
//     it can be called to inspect a program more than once.
//   - SlotSharingGroupBuilder keeps its first illegal argument and Build
//     returns it, where Flink's setters throw. It also refuses infinite CPU
//     cores, which Flink's CPUResource cannot hold, and a group without a
//     name, Go's null.
//   - SetCoLocationGroupKey is a DataStream method; Flink has it on the
//     Transformation only. The JobGraph holds a group's resources by name
//     and a vertex's co-location key, where Flink's JobVertex holds a
//     SlotSharingGroup and a CoLocationGroupImpl object.
//   - BATCH mode is smaller than Flink's. Keyed inputs are not sorted
//     (Flink: execution.sorted-inputs.enabled) and there is no batch state
//     backend (execution.batch-state-backend.enabled): a BATCH reduce keeps
//     every key in the heap state until its input ends, and emits the keys
//     in the order they first arrived instead of in key order. Every
//     exchange is BLOCKING; execution.batch-shuffle-mode cannot choose
//     pipelined or hybrid exchanges. Checkpointing, timers and watermarks,
//     which BATCH changes in Flink, do not exist here yet.
//   - In BATCH Flink puts each pipelined region's vertices of the default
//     slot sharing group into a slot sharing group of their own
//     (setAllVerticesInSameSlotSharingGroupByDefault(false)), so a stage's
//     slots are freed for the next. Here they stay in "default", as in
//     STREAMING.
//   - GenerateSequence is a bounded source, as it ends at its last number.
//     Flink's deprecated generateSequence goes through addSource, which
//     declares every legacy source CONTINUOUS_UNBOUNDED (its bounded
//     successor is fromSequence). And FromGenerator with Unbounded records
//     is unbounded, where Flink's DataGeneratorSource always says BOUNDED,
//     even for Long.MAX_VALUE records.
//   - SinkToTransactionalFiles is one method for one sink: rows written
//     with fmt.Sprint into files committed with a two-phase commit.
//     Flink builds a Sink (FileSink.forRowFormat(path, encoder), with
//     its bucket assigner, rolling policy and file names) and hands it to
//     sinkTo. How the runtime's sink differs from FileSink is told with
//     the runtime's transactionalFileSink.
//   - No runner sets execution.runtime-mode from a configuration yet: the
//     REST jar-run handler and the command line take no per-job Flink
//     options. A program chooses its mode itself, or reads it from its
//     arguments (WordCount's --execution-mode).
package streaming
