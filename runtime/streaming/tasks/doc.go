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
//	TwoPhaseCommitSinkFunction, FileSink          transactionalFileSink
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
// # Checkpoints
//
// A task takes its part of a checkpoint on its own goroutine, between two
// records (checkpointing.go, Flink's SubtaskCheckpointCoordinatorImpl):
// it sends the barrier on every output first (BroadcastEvent), then each
// operator copies its state (snapshotState: the synchronous part), and a
// goroutine of the task writes the copies into the checkpoint's storage
// and acknowledges the checkpoint with their handles (the asynchronous
// part, Flink's AsyncCheckpointRunnable) while the records flow on.
//
//	source task (k3)                      task with inputs (k4)
//	triggerCheckpoint ─► mailbox          barrier on channel 0 ─► blocked
//	between two records:                  barrier on channel 1 ─► blocked
//	  barrier ─► every output               … on every open channel:
//	  snapshot: its position                barrier ─► every output
//	  write, acknowledge (k5)               snapshot: keyed state by key group
//	                                        write, acknowledge (k5)
//	                                        resume the blocked channels
//
// A source learns of a checkpoint from the TaskExecutor's goroutine, so
// the request goes through the task's mailbox (mailbox.go), which the
// source looks at after every record (sourceOutput) and, when rate
// limited, between two ticks. A task with inputs learns of it from the
// barriers in its input: the checkpointBarrierHandler sees them inside the
// gate's Next and takes the checkpoint once the barrier has come on every
// open channel. In EXACTLY_ONCE mode (the default) the channels that
// delivered the barrier are blocked until then (alignment): their
// records wait, and their producers back up. In AT_LEAST_ONCE mode
// nothing waits, so records behind an early barrier are processed before
// the snapshot and processed again after a restore.
//
// What is snapshotted: a keyed reduce's values, by key group (keyed
// state, restored at any parallelism by key group), and every source's
// position, the index of the next record it emits, as union list state
// (every new subtask gets every old position and works out which of its
// own records were emitted, so a source too can be restored at another
// parallelism). A task deployed with a JobManagerTaskRestore hands each
// operator its share before the operators open (initializeState). After
// the checkpoint completes, the operators that listen hear of it through
// the mailbox (notifyCheckpointComplete, k7).
//
// # Exactly once, end to end
//
// Restored state makes the counts right, but a sink that hands on every
// record at once (print, collect) shows again, after a failover, what it
// showed between the restored checkpoint and the failure. The
// transactional file sink (transactionalFileSink, made by
// SinkToTransactionalFiles) shows a record only once a checkpoint that
// covers it has completed. It commits in two phases, as Flink's
// TwoPhaseCommitSinkFunction does: the records since the last barrier
// wait in a hidden in-progress file; the barrier makes it pending
// (preCommit, in snapshotState), and its name goes into the checkpoint's
// state; notifyCheckpointComplete (k7) renames it into place. A restore
// commits the pending files its checkpoint names, which the failure may
// have kept from their commit, and deletes the rest:
//
//	record ─► .in-progress/part-1-after-7 ─barrier 8─► .pending/part-1-8 ─checkpoint 8 completes─► part-1-8
//	                      │                                   │
//	                      └────── failure, restore of 7 ──────┴──► deleted; the records come again
//
// Its doc comment has the file names, the protocol, restores at another
// parallelism, and where it differs from Flink.
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
// chain; nothing is locked per record. Other goroutines only hand work to
// it: the TaskExecutor puts checkpoint requests and notifications into the
// task's mailbox, and the asynchronous part of each checkpoint writes
// copies the task's goroutine made (the task waits for those writes
// before it ends). The other goroutine is the
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
//   - A small mailbox. Flink's StreamTask runs a MailboxProcessor whose
//     default action processes input and whose mails run timers,
//     checkpoints and the OutputFlusher's flush. Here Invoke is a plain
//     loop that runs the mails (checkpoints and their notifications)
//     between two records; the buffer-timeout flush is an atomic flag the
//     loop looks at after every record, plus a cancelled wait context for
//     a task idle on its input (which a new mail cancels too).
//   - No watermarks, timers or latency markers yet: the input carries
//     records, checkpoint barriers and EndOfPartition only.
//   - Checkpoints are aligned or at least once, never unaligned; a task
//     that finished takes no more checkpoints (Flink 1.14 and later go on
//     checkpointing with finished tasks, FLIP-147): while a task has
//     finished, a checkpoint cannot start ("Not all required tasks are
//     currently running."), and an input that ends during an alignment
//     declines the checkpoint (CHECKPOINT_DECLINED_INPUT_END_OF_STREAM),
//     as Flink did before.
//   - The mode comes with each barrier (its CheckpointOptions) rather
//     than from the task's configuration; one handler does both modes
//     (Flink has SingleCheckpointBarrierHandler and
//     CheckpointBarrierTracker).
//   - Sources keep their position as union list state, the way Flink's
//     legacy sources did; FLIP-27 sources keep splits, which the
//     SourceCoordinator hands out.
//   - Records are serialized only at task boundaries, and chained
//     operators share the Go value: there is no CopyingChainingOutput. A
//     Go record is usually a value (a copy on every assignment); a program
//     that emits pointers and mutates them downstream sees the change
//     upstream, as a Flink job with object reuse enabled would.
//   - The InputGate cuts records out of buffers, the task deserializes
//     them (Flink's StreamTaskNetworkInput does both).
//   - Operators have Open and Close but no finish. Only the file sink is
//     two-phase, and it commits its last transaction at the end of its
//     input, where Flink takes a final checkpoint (see
//     transactionalFileSink). RichFunction's Open takes no OpenContext. Today no user
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
