// Package network is flinklab's data plane: it carries records from the
// tasks that produce them to the tasks that consume them. It mirrors
// Flink's org.apache.flink.runtime.io.network.
//
//	ResultPartition         what one producer subtask writes      (Flink: ResultPartition)
//	pipelinedSubpartition   one bounded queue per consumer         (Flink: PipelinedSubpartition)
//	Buffer                  a batch of records, or an event        (Flink: Buffer, NetworkBuffer)
//	ResultPartitionManager  the registry consumers find partitions in (Flink: ResultPartitionManager)
//	localInputChannel       reads one subpartition in-process      (Flink: LocalInputChannel)
//	InputGate               all channels of one consumer input     (Flink: SingleInputGate)
//	ShuffleEnvironment      one per TaskExecutor, creates the above (Flink: NettyShuffleEnvironment)
//
// # The path of a record
//
// Take a keyed exchange between a map at parallelism 2 and a reduce at
// parallelism 3. Each map subtask writes one ResultPartition with three
// subpartitions, one per reduce subtask; the partitioner picks the
// subpartition of each record (hash of the key, modulo 3). Each reduce
// subtask reads, through one InputGate, its own subpartition index from
// both partitions: one input channel per producer. That is all-to-all.
//
//	map 0 ── ResultPartition ─┬─ subpartition 0 ──────────────┐
//	                          ├─ subpartition 1 ────────┐     │
//	                          └─ subpartition 2 ──┐     │     │
//	map 1 ── ResultPartition ─┬─ subpartition 0 ──┼─────┼─────┤
//	                          ├─ subpartition 1 ──┼─────┤     │
//	                          └─ subpartition 2 ──┤     │     │
//	                                              ▼     ▼     ▼
//	                         InputGate of reduce  2     1     0
//	                         (one input channel per map subtask)
//
// The producer calls EmitRecord(ctx, record, subpartition) with a record it
// has already serialized. The record is appended to that subpartition's
// current buffer, behind its length (a uvarint). A buffer that is full is
// handed to the subpartition's queue; the consumer's input channel takes it
// from there, and InputGate.Next cuts the records out of it again, one per
// call.
//
// # Why records travel in buffers
//
// A record is often a few bytes: a word and a count. Handing each one over
// on its own would cost a lock, a wake-up of the consumer and, between
// processes, a network packet per record; the cost of the hand-over would
// dwarf the work. So records are batched into buffers of 32 KiB (Flink's
// memory segment size, taskmanager.memory.segment-size) and only buffers
// are handed over: for 8-byte records, one hand-over per ~3,600 records.
// The per-record work is a copy and a few comparisons on each side, with no
// lock, no channel operation and no allocation.
//
// Batching trades latency for throughput: a record waits until its buffer
// is full. Flush hands over partly filled buffers. Flink flushes from an
// OutputFlusher thread every execution.buffer-timeout (100 ms by default),
// and at once when a record or event must not wait.
//
// # What a producer/consumer pair costs
//
// An all-to-all edge of parallelism n has n² pairs of a producer subtask
// and a consumer subtask: at parallelism 10,000, 10⁸ subpartitions and as
// many input channels. Even 100 bytes a pair would be 10 GB, so nothing is
// made for a pair until the pair is used:
//
//	CreateResultPartition  the partition alone, whatever its number of subpartitions
//	CreateInputGate        the gate alone: it keeps the deployment descriptor's
//	                       list of partitions, shared by all their consumers
//	first EmitRecord       a buffer builder per subpartition (24 B each)
//	first use of a         the subpartition (96 B, its reader's view inside it,
//	subpartition           and 8 B in the partition's table); its queue comes
//	                       with its first buffer (96 B)
//	RequestPartitions      the gate's input channels, in one slice (32 B each)
//
// A subpartition's first use is its first buffer, Finish, or its
// consumer's request, whichever comes first. A job whose tasks are
// deployed and never exchange a record costs nothing per pair. A pair
// whose consumer has asked for its subpartition costs about 140 bytes; one
// that has carried a buffer about 260, plus the buffers in flight.
//
// # Backpressure
//
// Each subpartition queue holds at most BuffersPerSubpartition buffers (2
// by default). When a consumer is slower than its producer, the queue fills
// up, and the producer's next hand-over blocks until the consumer takes a
// buffer. The producer's task stops in EmitRecord, so it stops reading its
// own input, so its own producers' queues fill up, and so on up to the
// sources: the whole pipeline slows to the pace of its slowest task, with a
// bounded amount of data in flight at every edge. That is backpressure,
// and it needs no messages at all: it is the bounded queue.
//
// ResultPartition.BuffersInFlight and MaxBuffersInFlight count the queued
// buffers, so a test (or, later, a metrics page) can see the bound hold.
// A blocked producer still honours its ctx: a cancelled task never hangs in
// EmitRecord, Flush or Finish.
//
// # Pipelined partitions
//
// All partitions here are pipelined (Flink's ResultPartitionType.PIPELINED):
// the consumer reads while the producer writes, and each subpartition is
// read once, by one consumer. (Flink also has BLOCKING partitions, written
// completely to disk before anyone reads them, for batch jobs.) Because
// producers and consumers are deployed together, a consumer may ask for a
// partition before its producer has registered it; the request waits.
//
// # End of partition, and the life of a partition
//
//	CreateResultPartition  registers the partition in the ResultPartitionManager
//	EmitRecord / Flush     hand buffers to the queues
//	Finish                 flushes and puts an EndOfPartition event on every subpartition
//	consumers read         each channel ends at its EndOfPartition event;
//	                       Next returns io.EOF once every channel has ended
//	all consumed           the partition releases itself and is unregistered
//
// So a bounded job ends on its own: sources finish their partitions, the
// consumers see io.EOF, finish theirs, and so on down to the sinks, and every
// task reaches FINISHED. A producer must not Release its partition after
// Finish, or its consumers lose what they have not read yet.
//
// The other ways out: a failing producer calls Fail(cause), and its
// consumers read an error wrapping ErrProducerFailed and the cause (Flink's
// ProducerFailedException). A cancelled producer calls Release, and its
// consumers read ErrPartitionReleased. A consumer that stops early closes
// its InputGate: its subpartitions count as consumed and the rest of their
// data is dropped, so the producer is never blocked by a consumer that has
// gone. ShuffleEnvironment.ReleasePartitionsLocally releases partitions that
// no one will read, as the JobMaster asks after a failover.
//
// # Who calls what
//
// A ResultPartition has one writer, the producing task's goroutine, which
// calls EmitRecord, BroadcastRecord, Flush and Finish and fills the buffers
// without locks. An InputGate has one reader, the consuming task's
// goroutine, which calls Next and RequestPartitions. Fail, Release, Close and
// the counters may be called from any goroutine. The only meeting point is
// the subpartition queue, guarded by a mutex taken once per buffer (and the
// partition's mutex, taken once per buffer to find the subpartition, or
// make it on first use).
//
// Four kinds of mutex, one lock order: a subpartition's mutex may be held
// while taking its ResultPartition's or its reader's InputGate's, never the
// other way round; the ResultPartitionManager's is taken with none held.
// So a partition or gate that must reach its subpartitions (release, Close,
// the counters) first collects them under its own mutex, lets go, and then
// locks them one by one.
//
// # Differs from Flink
//
//   - No credit-based flow control yet. Flink's consumer announces credit
//     (free buffers it can receive into) and the producer sends only as many
//     buffers as it has credit for; that keeps one slow channel from
//     blocking a whole TCP connection shared with others. Here the bounded
//     queue per subpartition gives the same backpressure for local channels.
//     In Flink, a producer blocks because its LocalBufferPool is empty
//     (taskmanager.network.memory.max-buffers-per-channel limits one
//     subpartition's share); here it blocks on its queue. Either way it
//     waits on one thing per partition: here the partition's
//     spaceAvailable, shared by its subpartitions.
//   - Subpartitions and input channels are made on first use (see "What a
//     producer/consumer pair costs" above). Flink's ResultPartitionFactory
//     creates every subpartition with its partition, and its
//     SingleInputGateFactory every input channel with its gate, from the
//     deployment descriptor; here the gate keeps the descriptor and makes
//     its channels in RequestPartitions.
//   - No network stack for local exchange, as in Flink, but also none yet
//     for remote exchange: every TaskExecutor of the embedded cluster shares
//     one ResultPartitionManager, and every channel is a local one. A TCP
//     server reading from the manager will come later.
//   - Buffers are Go byte slices, allocated per buffer and collected by the
//     garbage collector, not pooled MemorySegments recycled by reference
//     counting. That lets a record returned by Next alias the buffer's
//     memory safely: it is never reused.
//   - A record never spans buffers: a record larger than a buffer gets a
//     buffer of its own. Flink's SpanningRecordSerializer splits it instead.
//   - The InputGate deserializes records itself; in Flink the gate returns
//     buffers and the task's StreamTaskNetworkInput deserializes them.
//   - A consumer that asks for an unregistered partition waits for it
//     (bounded by its ctx). Flink answers PartitionNotFoundException and the
//     consumer retries with backoff (taskmanager.network.request-backoff.*)
//     before it fails.
//   - No OutputFlusher: the task calls Flush itself when latency matters.
//   - The only event is EndOfPartition. Checkpoint barriers will travel the
//     same way, as event buffers between data buffers.
package network
