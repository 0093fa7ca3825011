// Package network is flinklab's data plane: it carries records from the
// tasks that produce them to the tasks that consume them. It mirrors
// Flink's org.apache.flink.runtime.io.network.
//
//	ResultPartition         what one producer subtask writes      (Flink: ResultPartition)
//	pipelinedSubpartition   one bounded queue per consumer         (Flink: PipelinedSubpartition)
//	boundedBlockingSubpartition  one file per consumer, read after (Flink: BoundedBlockingSubpartition)
//	                        the producer finished, any number of times
//	fileChannelBoundedData  that file                              (Flink: FileChannelBoundedData)
//	Buffer                  a batch of records, or an event        (Flink: Buffer, NetworkBuffer)
//	CheckpointBarrier       the event that cuts a checkpoint into  (Flink: CheckpointBarrier)
//	                        the streams; an InputGate hands it to
//	                        the task's CheckpointBarrierHandler
//	ResultPartitionManager  the registry consumers find partitions in (Flink: ResultPartitionManager)
//	localInputChannel       reads one subpartition in-process      (Flink: LocalInputChannel)
//	remoteInputChannel      reads one subpartition of another process (Flink: RemoteInputChannel)
//	InputGate               all channels of one consumer input     (Flink: SingleInputGate)
//	UnionInputGate          several InputGates read as one         (Flink: UnionInputGate)
//	ShuffleEnvironment      one per TaskExecutor, creates the above (Flink: NettyShuffleEnvironment)
//	PartitionRequestServer  serves a process's partitions over TCP (Flink: NettyServer, PartitionRequestQueue)
//	partitionRequestClient  one TCP connection to such a server    (Flink: NettyPartitionRequestClient)
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
//	subpartition           and 16 B in the partition's table); its queue comes
//	                       with its first buffer (96 B)
//	RequestPartitions      the gate's input channels: a local one is 56 B (its
//	                       16-byte entry in the gate's list and 40 B in one
//	                       slice of all local channels); a remote one is
//	                       allocated on its own, with its queue of received
//	                       buffers
//
// A subpartition's first use is its first buffer, Finish, its consumer's
// request, or a checkpoint barrier (which goes to every subpartition),
// whichever comes first. A job whose tasks are deployed and never
// exchange a record, and take no checkpoint, costs nothing per pair. A local
// pipelined pair whose consumer has asked for its subpartition costs about
// 170 bytes; one that has carried a buffer about 290, plus the buffers in
// flight. A blocking pair costs a file on disk, made by its first buffer
// (or Finish), and a reader (72 B) per read.
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
// A blocking partition has no backpressure: nobody reads while it is
// written, so its producer writes each buffer to a file and goes on.
//
// # Pipelined and blocking partitions
//
// A partition has the type of the data set it belongs to
// (gateway.ResultPartitionDeploymentDescriptor.PartitionType, a
// jobgraph.ResultPartitionType), and CreateResultPartitionWriter makes its
// subpartitions accordingly:
//
//	                       PIPELINED_BOUNDED                  BLOCKING
//	subpartition           pipelinedSubpartition: a queue     boundedBlockingSubpartition: a file
//	consumers read         while the producer writes          after Finish
//	readers                one, once                          any number, each from the start,
//	                                                          at the same time if they like
//	producer waits         when a queue is full               never
//	released               when every subpartition is         only by ReleasePartitionsLocally,
//	                       consumed                           or Fail / Release before Finish
//	used by                streaming jobs: producer and       batch jobs: the consumer is deployed
//	                       consumer run at the same time      after its producer finished, and
//	                                                          may be restarted and read it again
//
// Pipelined (Flink's ResultPartitionType.PIPELINED_BOUNDED): each
// subpartition is read once, by one consumer, while it is written. Because
// producers and consumers are deployed together, a consumer may ask for a
// partition before its producer has registered it; a local request waits,
// a remote one is asked again after a backoff (see "A partition that is
// not there yet"). Either gives up after the same time, with
// ErrPartitionNotFound: a partition of a TaskExecutor that was lost is
// never registered again.
//
// Blocking (Flink's BLOCKING, the BoundedBlockingResultPartition): the
// producer writes its whole output first, each subpartition into a file of
// its own under Config.TmpDir (Flink's io.tmp.dirs), named after the
// partition and the subpartition plus a random part, so that no two
// collide, in this process or another:
//
//	<TmpDir>/flink-netty-shuffle-<data set>-<partition number>-<subpartition>-<random>.channel
//
// A file is a sequence of buffers, each behind its data type and size,
// ending with the EndOfPartition event (see fileChannelBoundedData).
// Finish completes the files, and only then may anyone read: every read
// request gets a reader of its own (boundedBlockingSubpartitionReader),
// which opens the file and reads it from its start. Reading to the end,
// or leaving early, consumes nothing: the partition stays registered, and
// its files on disk, until ShuffleEnvironment.ReleasePartitionsLocally
// releases it. The TaskExecutor does that when its JobMaster tells it
// that no consumer needs the partition any more (ReleasePartitions), or
// when it lets go of the job or stops (see package taskexecutor). A
// producer that fails or is cancelled before Finish releases its blocking
// partition at once, as it would a pipelined one.
//
// A consumer that asks for a blocking partition before Finish (its
// producer still runs) waits, as a pipelined local request waits for its
// producer to register: it gets its reader at once, but the reader has
// nothing to read until Finish, and then everything. Nothing holds a
// goroutine meanwhile, on either side of a TCP connection. (Flink refuses
// such a request instead, "writing of blocking partition not yet
// finished": its scheduler never deploys the consumer of a blocking
// partition before its producer finished. Waiting is the same rule as for
// every other request here, and so harmless.)
//
// # End of partition, and the life of a partition
//
// A pipelined partition:
//
//	CreateResultPartitionWriter  registers the partition in the ResultPartitionManager
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
// A blocking partition:
//
//	CreateResultPartitionWriter  registers the partition; no file yet
//	EmitRecord / Flush     write buffers to the subpartitions' files (each made by its first buffer)
//	Finish                 flushes, ends every file with an EndOfPartition event and
//	                       closes it: now readers may read
//	consumers read         each from the start of its file, to its EndOfPartition event,
//	                       as often as they like; the producing task has FINISHED and gone
//	ReleasePartitionsLocally  the partition is unregistered and its files are deleted
//
// The other ways out: a failing producer calls Fail(cause), and its
// consumers read an error wrapping ErrProducerFailed and the cause (Flink's
// ProducerFailedException). A cancelled producer calls Release, and its
// consumers read ErrPartitionReleased. A consumer that stops early closes
// its InputGate: its pipelined subpartitions count as consumed and the
// rest of their data is dropped, so the producer is never blocked by a
// consumer that has gone (its blocking subpartitions simply lose a
// reader). ShuffleEnvironment.ReleasePartitionsLocally releases partitions
// that no one will read, as the JobMaster asks after a failover; a reader
// in the middle of a blocking partition then reads ErrPartitionReleased,
// although its file handle would let it read on.
//
// # Who calls what
//
// A ResultPartition has one writer, the producing task's goroutine, which
// calls EmitRecord, BroadcastRecord, BroadcastEvent, Flush and Finish and
// fills the buffers without locks. An InputGate has one reader, the
// consuming task's goroutine, which calls Next, RequestPartitions and
// SetCheckpointBarrierHandler, and on which Next calls the
// CheckpointBarrierHandler. Fail, Release, Close, ResumeConsumption and the
// counters may be called from any goroutine. The only meeting point is
// the subpartition queue, guarded by a mutex taken once per buffer (and the
// partition's mutex, taken once per buffer to find the subpartition, or
// make it on first use).
//
// Between processes, each connection adds goroutines of its own: on the
// server, one reading requests (partitionRequestQueue.serve) and one
// writing buffers (writeLoop); on the client, one reading answers
// (partitionRequestClient.readLoop), which hands buffers to the remote
// channels' queues and never waits for a consumer. A partition request
// that is retried runs on a timer's goroutine.
//
// A blocking subpartition has one writer too, but no queue: its readers
// read their own file handles, each polled by one goroutine (a local
// channel's gate, or a connection's writeLoop), and meet the producer only
// in the subpartition's mutex, to learn whether it is finished or
// released.
//
// Five kinds of mutex, one lock order: a blocking subpartition's reader's
// mutex may be held while taking its subpartition's; a subpartition's
// mutex may be held while taking its ResultPartition's or its reader's
// InputGate's, never the other way round; the ResultPartitionManager's is
// taken with none held.
// So a partition or gate that must reach its subpartitions (release, Close,
// the counters) first collects them under its own mutex, lets go, and then
// locks them one by one. Between processes the same rule continues: a
// subpartition's mutex comes before the mutex of the server connection
// whose reader it notifies, and a remote channel's mutex before its gate's
// and its connection's; a connection calls its channels with none of its
// own locks held.
//
// # Between processes
//
// A TaskExecutor in a process of its own has its own ResultPartitionManager,
// and a PartitionRequestServer serving it on a TCP port (its data address).
// The TaskExecutor advertises that address when it registers at a JobMaster
// (gateway.TaskManagerLocation.DataAddress), the scheduler copies it into
// the shuffle descriptor of every partition produced in that TaskExecutor
// (gateway.ShuffleDescriptor.DataAddress, Flink's ConnectionID), and the
// consumer's InputGate picks the kind of each channel from it:
//
//	the descriptor's DataAddress   channel              reads through
//	"" (the embedded cluster)      localInputChannel    the shared ResultPartitionManager
//	Config.DataAddress (its own)   localInputChannel    the process's own manager
//	any other host:port            remoteInputChannel   TCP, to that PartitionRequestServer
//
// The path of a buffer between processes:
//
//	producer ─EmitRecord─► subpartition queue ─► creditBasedViewReader ─► writeLoop ══ TCP ══►
//	    read loop ─► remoteInputChannel.receivedBuffers ─► InputGate.Next ─► consumer
//	                                  └──────────── AddCredit ═══ TCP ═══► reader's credit
//
// A consumer process opens one connection per producer process, whatever
// its number of channels: every channel's messages carry its receiver ID,
// so they share the connection (Flink's default,
// taskmanager.network.max-num-tcp-connections 1). The last channel to
// finish closes it.
//
// # The protocol
//
// Frames, as Flink's NettyMessage: a 4-byte frame length (the whole frame),
// the magic number 0xBADC0FFE, a message ID, and the message's fields; see
// nettymessage.go for the layout of each.
//
//	client → server   PartitionRequest{partition ID, subpartition index, receiver ID, initial credit}
//	                  AddCredit{credit, receiver ID}
//	                  ResumeConsumption{receiver ID}
//	                  CancelPartitionRequest{receiver ID}
//	server → client   BufferResponse{receiver ID, sequence number, backlog, data type, the buffer's bytes}
//	                  ErrorResponse{receiver ID (0: the whole connection), kind, message}
//
// A conversation for one channel:
//
//	→ PartitionRequest{p, subpartition 2, receiver 7, credit 2}
//	← BufferResponse{7, #0, backlog 1, DATA_BUFFER, 32 KiB}
//	← BufferResponse{7, #1, backlog 0, DATA_BUFFER, 32 KiB}       credit spent: the server stops
//	→ AddCredit{1, 7}                                             the gate took a buffer
//	← BufferResponse{7, #2, backlog 0, END_OF_PARTITION}          an event needs no credit
//
// and one that carries an exactly-once checkpoint barrier (see
// "Checkpoint barriers"):
//
//	← BufferResponse{7, #3, backlog 1, DATA_BUFFER, 32 KiB}
//	← BufferResponse{7, #4, backlog 1, ALIGNED_CHECKPOINT_BARRIER, the barrier}
//	                                                              no credit needed; the subpartition blocks
//	→ AddCredit{1, 7}                                             credit, but the server sends nothing
//	→ ResumeConsumption{7}                                        the task has aligned
//	← BufferResponse{7, #5, backlog 0, DATA_BUFFER, 32 KiB}       sent again, on the credit announced
//
// and the ways it ends early:
//
//	← ErrorResponse{7, PartitionNotFound, "PartitionNotFoundException: Partition … not found."}  retried with backoff
//	← ErrorResponse{7, ProducerFailed, "partition …: the producer failed: …"} the producer called Fail
//	← ErrorResponse{7, PartitionReleased, "partition …: result partition released"}
//	→ CancelPartitionRequest{7}                                   the consumer closed its gate
//
// A blocking partition travels the same way: the server's reader for the
// channel reads the file, one buffer per credit, and announces as backlog
// the data buffers left in it. A request that comes before Finish gets no
// answer until Finish.
//
// A peer that sends anything else (a wrong magic number, an unknown
// message, a frame too long) gets an ErrorResponse for the whole
// connection, which is then closed. FuzzDecodeNettyMessage holds the
// decoder to that.
//
// # Credit-based flow control
//
// In-process, backpressure is the bounded subpartition queue. Across
// processes a second bound is needed, on the consumer's side, and it must
// not be the TCP connection itself: a connection carries many channels,
// and one consumer that stops reading would stop them all if the server
// simply wrote until the socket was full. So, as in Flink, the consumer
// announces credit: the number of buffers it has room for. A remote channel
// has room for BuffersPerSubpartition buffers (Flink's exclusive buffers,
// taskmanager.network.memory.buffers-per-channel), announces them all with
// its PartitionRequest, and one more credit each time its gate takes a data
// buffer out. The server's reader for the channel takes a data buffer from
// the subpartition only when it holds a credit, and spends it; an event
// needs none.
//
// So the server never sends what the consumer has no room for, and the
// connection's read loop never waits for any consumer. A consumer that
// stops reading stops announcing credit; its reader stops taking buffers;
// its subpartition's queue fills up; and its producer blocks in
// EmitRecord, exactly as in-process, while the other channels of the
// connection go on. Between a producer and its remote consumer there are
// at most BuffersPerSubpartition buffers in the producer's queue and as
// many in (or on the way to) the consumer's.
//
// # Checkpoint barriers
//
// A checkpoint (package checkpoint) is cut into the streams by barriers.
// The CheckpointCoordinator triggers checkpoint n at the sources; each
// snapshots its state and calls BroadcastEvent(ctx, barrier n) on its
// partitions. BroadcastEvent first hands over every partly filled buffer,
// then appends the barrier to every subpartition's queue: in each
// subpartition the barrier stands between the records emitted before it
// and those emitted after (Flink: BufferWritingResultPartition.broadcastEvent).
// A barrier is an event buffer, and travels as the EndOfPartition event
// does: in the same queue in-process, in a BufferResponse between
// processes, without credit, and without waiting for room in the queue.
//
//	producer:  EmitRecord r1, r2 · BroadcastEvent(barrier 1) · EmitRecord r3
//	queue:     [DATA_BUFFER r1 r2] [ALIGNED_CHECKPOINT_BARRIER 1] [DATA_BUFFER r3]
//	consumer:  Next → r1 · Next → r2 · Next: ProcessBarrier(1, channel), then waits
//	           ResumeConsumption(channel) · Next → r3
//
// The consumer's InputGate hands every barrier to the task's
// CheckpointBarrierHandler (SetCheckpointBarrierHandler) from inside Next,
// once Next has returned every record before it on its channel, and names
// the channel (InputChannelInfo). It hands over each channel's
// EndOfPartition event too: a channel that has ended will never send the
// barrier the task might wait for. A gate without a handler fails
// (ErrNoCheckpointBarrierHandler) rather than lose a barrier. In Flink the
// task's CheckpointedInputGate does this around the gate.
//
// The barrier's options choose its data type:
//
//	options                        data type                    once the subpartition has handed it out
//	exactly-once (ALIGNED)         ALIGNED_CHECKPOINT_BARRIER   the subpartition is blocked
//	at-least-once (AT_LEAST_ONCE)  EVENT_BUFFER                 nothing changes
//
// Blocking is what alignment needs. A task with several input channels
// takes its snapshot of checkpoint n when it has seen everything before
// barrier n on every channel and nothing after it on any, so a channel
// whose barrier came first must hold its later records back until the
// barrier has come on the others. As in Flink, the producer's subpartition
// does the holding: after an aligned barrier it hands out nothing more,
// whatever its reader's credit, until the consumer calls
// InputGate.ResumeConsumption for the channel. A local channel resumes the
// subpartition directly; a remote one sends ResumeConsumption to the
// producer's PartitionRequestServer, which resumes it there and sends
// again, on the credit the consumer announced meanwhile. The task resumes
// its blocked channels once it has the barrier on all of them (it
// snapshots, broadcasts the barrier on, and resumes), or when it gives the
// checkpoint up.
//
//	channel 0   r r B ┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄ r r r     ┄ blocked: its records wait at the producer
//	channel 1   r r r r r B ──► aligned: snapshot, BroadcastEvent, ResumeConsumption(0), (1)
//	                                                  └ r r r
//
// So alignment makes backpressure, with no machinery of its own: the
// records behind an early barrier stay in the producer's subpartition
// queue; the queue fills up to BuffersPerSubpartition; the producer blocks
// in EmitRecord, as behind a slow consumer, and so on up to the sources.
// The channels whose barrier has not come yet flow on, so the alignment
// ends. A blocked subpartition costs the server nothing while it waits:
// it is simply not available, so writeLoop takes its reader out of line
// and looks at it again only when new data, AddCredit or ResumeConsumption
// comes, once each. An at-least-once barrier blocks nothing: the records
// behind an early one are processed before the snapshot, and processed
// again after a restore from it.
//
// A barrier is serialized as its event type (4 bytes, Flink's
// EventSerializer.CHECKPOINT_BARRIER_EVENT, 1) and the barrier as JSON
// (see newCheckpointBarrierBuffer); the gate deserializes it, as it
// deserializes records. A BLOCKING partition takes no barrier
// (ErrPartitionNotPipelined): a batch job takes no checkpoints.
//
// # A partition that is not there yet
//
// Producer and consumer are deployed together, so a consumer may ask
// before its producer has registered. In-process the request waits (see
// "Pipelined and blocking partitions"). Across processes the server answers
// PartitionNotFound at once, and the channel asks again after
// taskmanager.network.request-backoff.initial (100 ms), doubling up to
// .max (10 s): 100, 200, 400, 800, 1600, 3200, 6400 and 10000 ms, then it
// fails with ErrPartitionNotFound (Flink's PartitionNotFoundException).
// Flink does exactly this. Waiting on the server instead would make its
// reading goroutine wait (or need a goroutine per waiting request) and
// would leave waiters behind a connection that dies; answering at once
// keeps the server's side free of state for partitions it does not have.
// A blocking partition that is registered but not finished is there: the
// request succeeds, and its reader sends nothing until Finish.
//
// # Failures between processes
//
//	producer calls Fail(cause)      ErrorResponse: the consumer reads ErrProducerFailed, with the
//	                                cause's text (the cause itself stays in the producer's process)
//	producer calls Release          ErrorResponse: the consumer reads ErrPartitionReleased
//	consumer closes its gate        CancelPartitionRequest: the server releases the subpartition,
//	                                its data is dropped and its producer unblocked
//	the connection breaks           every channel on it that has not ended reads ErrRemoteTransport:
//	                                "Lost connection to task manager '…'. This indicates that the
//	                                remote task manager was lost." (Flink's RemoteTransportException);
//	                                the server releases every subpartition the connection was reading
//	the producer cannot be reached  RequestPartitions fails with ErrRemoteTransport: "Connecting to
//	                                remote task manager '…' has failed."
//
// As in Flink, a channel's error comes before the buffers it has received
// and not yet handed out, as in-process a failed partition drops its queue.
//
// # Limits
//
// A PartitionRequestServer listens on a port any process on the network
// may reach, so what a client sends is bounded
// (PartitionRequestServerConfig, and Config for the client side; package
// entrypoint reads the options):
//
//	limit            key                                                default  what it bounds
//	read timeout     taskmanager.network.netty.server.read-timeout      20 s     a request: the first from the accept, each later one from its first byte (ours)
//	idle timeout     taskmanager.network.netty.server.idle-timeout      5 min    a connection that reads no subpartition and sends nothing (ours)
//	connections      taskmanager.network.netty.server.max-connections   1000     connections served at once (ours)
//	connect timeout  taskmanager.network.netty.client.connectTimeoutSec 120 s    dialling a server, TLS handshake included (Flink's)
//
// A connection that reads a subpartition is never idle: a consumer sends
// AddCredit only when it has read, and a producer with no data (a
// streaming source that waits) leaves both sides silent for as long as it
// likes. So the idle timeout counts only while the connection reads no
// subpartition (package internal/conndeadline). Over the bound the server
// stops accepting, and a new connection waits in the operating system's
// listen backlog until one closes. Each limit logs a line when it closes
// a connection, at most one of each kind a minute, the next one saying
// how many it left out ("suppressed"; package internal/connlimit, shared
// with the RPC service and the BlobServer): anyone who reaches the port
// can make such lines by the thousand.
//
// The RPC service has a race at its idle timeout: a call sent just as the
// server closes an idle connection is lost, so its client closes idle
// connections itself, at half the idle timeout (package rpc, "Limits").
// The data plane has no such race. Its client closes a connection as soon
// as no channel uses it (releaseClient; Flink's
// NettyPartitionRequestClient.close), so it never keeps an unused
// connection for the server to close. A connection its channels use is
// not idle at the server either: each channel either reads a
// subpartition there, which keeps the connection from being idle however
// silent it is, or waits to ask again for a partition that was not found,
// at most taskmanager.network.request-backoff.max (10 s) apart, far less
// than the idle timeout.
//
// With PartitionRequestServerConfig.TLS and Config.ClientTLS (Flink's
// security.ssl.internal.*, made by package security) every connection is
// mutual TLS; the handshake runs under the read timeout.
//
// # Differs from Flink
//
//   - The read timeout, the idle timeout and the bound on connections of
//     the PartitionRequestServer are ours: Flink's Netty server has none
//     of them. Flink's taskmanager.network.netty.server.backlog sizes the
//     listen backlog, which Go takes from the operating system.
//   - Blocking partitions are hash-style: Flink's BoundedBlockingSubpartition,
//     one file per subpartition, so an all-to-all edge of parallelism n
//     writes n² files. Since Flink 1.15 batch jobs use the sort-merge
//     blocking shuffle by default instead
//     (taskmanager.network.sort-shuffle.min-parallelism is 1): each
//     producer sorts its buffers by subpartition in memory, spills them
//     into one data file with an index, and its readers read their
//     regions of it (SortMergeResultPartition). That needs far fewer files
//     and reads the disk more sequentially; it is a different structure,
//     not a detail of this one.
//   - A blocking partition's files are plain files, written and read with
//     os.File, uncompressed. Flink's hash shuffle may also map them into
//     memory (taskmanager.network.blocking-shuffle.type mmap or auto), may
//     compress its buffers, and sends a file to a remote consumer with
//     sendfile (Netty's FileRegion) instead of copying it through user
//     space. Config.TmpDir is one directory; Flink's io.tmp.dirs may list
//     several, used in turn.
//   - A reader may attach to a blocking subpartition before Finish, and
//     then waits for it (see "Pipelined and blocking partitions"); Flink
//     refuses it. There are no BLOCKING_PERSISTENT (cluster) partitions,
//     and no HYBRID ones.
//   - In Flink, a producer blocks because its LocalBufferPool is empty
//     (taskmanager.network.memory.max-buffers-per-channel limits one
//     subpartition's share); here it blocks on its queue. Either way it
//     waits on one thing per partition: here the partition's
//     spaceAvailable, shared by its subpartitions.
//   - A remote channel has only its exclusive credit. Flink's also asks
//     for floating buffers from its gate's pool when the server's backlog
//     says more is waiting; here the backlog is carried and recorded, not
//     used.
//   - Subpartitions and input channels are made on first use (see "What a
//     producer/consumer pair costs" above). Flink's ResultPartitionFactory
//     creates every subpartition with its partition, and its
//     SingleInputGateFactory every input channel with its gate, from the
//     deployment descriptor; here the gate keeps the descriptor and makes
//     its channels in RequestPartitions.
//   - No network stack for local exchange, as in Flink. In the embedded
//     cluster every TaskExecutor shares one ResultPartitionManager, and
//     every channel is a local one; Flink's MiniCluster would connect its
//     TaskExecutors through Netty on the loopback interface.
//   - The wire format is Flink's in shape (frame length, magic number,
//     message IDs, field order) but not byte for byte: a receiver ID is 8
//     bytes unique on its connection (Flink's InputChannelID is 16 random
//     bytes), errors travel as a kind and a text instead of a serialized
//     Java exception, and there is no compression, TaskEventRequest or
//     CloseRequest (a client that is done closes its connection).
//   - Buffers are Go byte slices, allocated per buffer and collected by the
//     garbage collector, not pooled MemorySegments recycled by reference
//     counting. That lets a record returned by Next alias the buffer's
//     memory safely: it is never reused.
//   - A record never spans buffers: a record larger than a buffer gets a
//     buffer of its own. Flink's SpanningRecordSerializer splits it instead.
//   - The InputGate deserializes records itself; in Flink the gate returns
//     buffers and the task's StreamTaskNetworkInput deserializes them.
//   - A local consumer that asks for an unregistered partition waits for it,
//     as long as a remote consumer would retry (22.7 s with the defaults),
//     then fails with ErrPartitionNotFound. Flink answers
//     PartitionNotFoundException and the consumer retries with backoff
//     (taskmanager.network.request-backoff.*) before it fails; so does a
//     remote consumer here (see "A partition that is not there yet"). The
//     end is the same, only a registration comes through sooner.
//   - No OutputFlusher: the task calls Flush itself when latency matters.
//   - The events are EndOfPartition, a data type of its own here (Flink's
//     is an EVENT_BUFFER holding an EndOfPartitionEvent), and aligned and
//     at-least-once checkpoint barriers. There are no unaligned
//     checkpoints (no PRIORITIZED_EVENT_BUFFER, no
//     TIMEOUTABLE_ALIGNED_CHECKPOINT_BARRIER, no channel state), and no
//     CancelCheckpointMarker or EndOfData yet. A barrier's body is JSON
//     behind Flink's event type, not Flink's binary layout.
//   - The InputGate hands barriers to the CheckpointBarrierHandler itself;
//     in Flink the task's CheckpointedInputGate reads them from the gate
//     and does. Resuming a channel that is not blocked does nothing
//     (Flink's checkState fails), and a server drops a ResumeConsumption
//     for a receiver it no longer serves (Flink's throws).
package network
