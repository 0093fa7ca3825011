// Package tasks is the runtime half of the DataStream API: the invokables
// a TaskExecutor runs for the JobVertices streaming.CreateJobGraph makes.
// Each runs one subtask of an operator chain: it finds the user's
// functions, opens the operators, pushes records through them, and writes
// the records that leave the chain into the network. It mirrors Flink's
// org.apache.flink.streaming.runtime.tasks and the operators it drives:
//
//	Flink                                          here
//	SourceStreamTask (SourceOperatorStreamTask)    SourceStreamTask
//	OneInputStreamTask                             OneInputStreamTask
//	StreamTask#restore, #invoke, #afterInvoke      buildChain + openOperators, Invoke, endOfInput
//	OperatorChain, RegularOperatorChain            operatorChain (unexported, as all below)
//	BoundedOneInput, OperatorChain#endInput        boundedOneInput, operatorChain.endInput
//	ChainingOutput, BroadcastingOutputCollector    chainingOutput, broadcastingOutput
//	RecordWriterOutput + RecordWriter              recordWriterOutput
//	RecordWriter.OutputFlusher                     outputFlusher
//	StreamSource + FromElementsFunction, …         collectionSource, textFileSource, sequenceSource, generatorSource
//	StreamMap, StreamFilter, StreamFlatMap         streamMap, streamFilter, streamFlatMap
//	StreamGroupedReduceOperator                    streamGroupedReduce
//	BatchGroupedReduceOperator                     batchGroupedReduce
//	HeapKeyedStateBackend, StateTable              heapKeyedStateBackend
//	PrintSinkFunction, StreamSink                  printSink, functionSink
//	AbstractUdfStreamOperator, RichFunction        abstractUdfStreamOperator, RichFunction
//	TypeSerializer                                 typeutils.TypeSerializer
//
// Importing the package registers SourceStreamTask and OneInputStreamTask
// with taskmanager.RegisterInvokable under the class names the generator
// writes (streaming.SourceStreamTaskClass, streaming.OneInputStreamTaskClass),
// the way a jar on the class path makes classes loadable. A binary that
// runs TaskExecutors imports it, usually with a blank import.
//
// # A task's life
//
// The Task (runtime/taskmanager) calls Restore while the task is
// INITIALIZING and Invoke while it is RUNNING, both on the task's
// goroutine. Take the second chain of WordCount at parallelism 2, the
// JobVertex "counter -> Sink: print-sink", subtask 1:
//
//	Restore (INITIALIZING)
//	  1. read the StreamConfig of the vertex: program "wordcount", nodes [4,5], no out edges
//	  2. open the job jar the TaskExecutor fetched (step m10); its manifest's
//	     Program-Class must be "wordcount", or the task fails with
//	     "Cannot load user class: ClassNotFoundException: wordcount"
//	  3. run the program's main again: streaming.PlanProgram rebuilds the
//	     StreamGraph, whose nodes 4 and 5 hold the user's functions
//	  4. build the chain from the head along the chained edges:
//	       streamGroupedReduce(sum) ─chainingOutput─► printSink("2> ")
//	  5. open the operators, tail first (printSink, then the reduce); a
//	     RichFunction's Open runs here, and an error fails the task
//	     INITIALIZING → FAILED (step m11's failure mode)
//	Invoke (RUNNING)
//	  6. read the input gate: each record is bytes, deserialized with the
//	     serializer of the upstream node's OutputType, and handed to the head
//	  7. the head calls the next operator, which calls the next: a record
//	     crosses the chain by function calls, as a Go value
//	  8. at io.EOF (every producer finished): end the operators' input head
//	     first (in BATCH the reduce emits its final sums now), flush the
//	     outputs, close the operators head first, return nil; the Task
//	     finishes the partitions and the task goes RUNNING → FINISHED
//
// A SourceStreamTask is the same, except that step 6 is the source's run:
// subtask s of p emits the elements, lines, numbers or generated records
// with index i % p == s; a bounded source returns when it is exhausted.
//
// # Records at a task boundary
//
// An edge that leaves the chain is a recordWriterOutput: it serializes the
// record (typeutils: fast paths for strings, numbers, bools and Tuple2 of
// those; gob for the rest), asks the edge's partitioner for the channel,
// and emits the bytes into the ResultPartition, which batches them into
// network buffers; BROADCAST edges write every channel. The partitioner is
// the StreamEdge's, copied per subtask:
//
//	FORWARD    channel 0: the one consumer of this producer
//	REBALANCE  round robin, starting behind the subtask's own index
//	RESCALE    round robin over the consumers of this producer
//	HASH       the consumer owning the key's key group: murmur(hash(key)) % maxParallelism → subtask
//	BROADCAST  every consumer
//
// A full downstream queue blocks EmitRecord (backpressure), but never past
// a cancelled ctx. Every task that writes to the network flushes its partly
// filled buffers every DefaultBufferTimeout (Flink's
// execution.buffer-timeout, 100 ms), busy or idle, so a Filter that keeps
// one record in a thousand still hands it on within about 100 ms; a
// rate-limited generator also flushes after every tick. In BATCH mode
// there is no buffer timeout: a consumer reads a BLOCKING result only
// once it is complete, so buffers go out when full and after the last
// record.
//
// # Keyed state
//
// Reduce and Sum keep one value per key in a heapKeyedStateBackend: one
// map per key group this subtask owns (its KeyGroupRange). The HASH edge
// before them sends every record of a key to the owner of the key's key
// group, so all the records of a key meet in one map; a key from another
// key group fails the task with Flink's "Key group … is not in
// KeyGroupRange{…}" message. The maps compare keys with ==, which is why
// KeyBy rejects float keys: under == NaN is never found again and 0.0
// finds -0.0, though HashCode sends them to different key groups.
//
// # BATCH mode
//
// A task plans its program in the runtime mode the client planned it in
// (the StreamConfig's ProgramRuntimeMode), so in a BATCH job it finds
// BatchReduceOperator nodes where a STREAMING job has ReduceOperator ones.
// It runs them as batchGroupedReduce: the same keyed state, but nothing is
// emitted per record; when the input ends (endInput, step 8) every key's
// final value is emitted once, in the order the keys first arrived. The
// chain ends its operators' input head first, so a reduce's results pass
// through the operators chained behind it before their own input ends.
//
// # Who calls what
//
// Restore and Invoke run on the task's goroutine and own everything in the
// chain; nothing is locked per record. The only other goroutine is the
// outputFlusher of a task that writes to the network: every buffer timeout
// it sets the chain's flushRequested flag, which the task (or, in a
// source's loop, sourceOutput) looks at after every record, and
// cancels the context an idle task waits for input with. It never touches
// a partition, and ends before Invoke returns. When ctx is cancelled, Invoke returns
// ctx.Err() promptly: sources look at ctx every 1024 records, and waits
// for input or for buffer space end with ctx.
//
// # Differs from Flink
//
//   - Functions are found by re-planning the program, not by
//     deserializing them. Flink serializes the operators (closures
//     included) into the StreamConfig with Java serialization and loads
//     their classes from the job jar; Go can do neither, so each task runs
//     the registered program's main again (streaming.PlanProgram) and
//     takes the functions from the StreamNodes by ID. A program unknown to
//     this process gives Flink's "Cannot load user class:
//     ClassNotFoundException: <name>" text.
//   - The jar names the program, it does not hold it: Program-Class must
//     equal the program of the task configuration, which is how "the class
//     is not in the jar" shows. Resources are read from the jar; a text
//     file name is looked up as given, then in the program's directory
//     ("counting-house.txt" of "wordcount" finds
//     "wordcount/counting-house.txt", the text runtime/examples/wordcount
//     bundles).
//   - No mailbox per task. Flink's StreamTask runs a MailboxProcessor whose
//     default action processes input and whose mails run timers,
//     checkpoints and the OutputFlusher's flush. Here Invoke is a plain
//     loop; the one piece of outside work, the buffer-timeout flush, is
//     an atomic flag the loop looks at after every record, plus a
//     cancelled wait context for a task idle on its input.
//   - No checkpoint barriers, watermarks, timers or latency markers yet:
//     the input carries records and EndOfPartition only, and state is not
//     snapshotted. Restore restores nothing; it only opens the operators.
//   - Records are serialized only at task boundaries, and chained
//     operators share the Go value: there is no CopyingChainingOutput. A
//     Go record is usually a value (a copy on every assignment); a program
//     that emits pointers and mutates them downstream sees the change
//     upstream, as a Flink job with object reuse enabled would.
//   - The InputGate cuts records out of buffers, the task deserializes
//     them (Flink's StreamTaskNetworkInput does both).
//   - Operators have Open and Close but no finish; sinks are not
//     two-phase. RichFunction's Open takes no OpenContext. Today no user
//     function is a RichFunction: Map, Filter, … take plain Go funcs,
//     which have no methods, and CollectSink has no Open; a sink or
//     function type with Open and Close gets them called as soon as the
//     API passes it as the StreamNode's UserFunction.
//   - REBALANCE starts behind the subtask index instead of at a random
//     channel, so runs are reproducible.
//   - Print writes with Go's fmt (%v) where Flink calls toString():
//     Tuple2 prints "(to,2)" as in Flink, floats print as Go prints them.
//   - A panic in user code fails the task (the Task recovers it) after the
//     operators are closed, as Flink catches every Throwable; in Restore
//     that is the operators opened before the one that panicked.
//   - BATCH mode runs keyed operators on their unsorted input, with the
//     heap state backend: Flink sorts a keyed operator's input by key
//     (execution.sorted-inputs.enabled) and keeps the state of one key at
//     a time (execution.batch-state-backend.enabled), so its
//     BatchGroupedReduceOperator emits each key as soon as the next key
//     begins, in key order. Here all keys stay in memory until the input
//     ends, and come out in the order they first arrived.
package tasks
