// Package taskexecutor holds the TaskExecutor, the RPC endpoint of a
// TaskManager, and the book it keeps of its slots. It mirrors Flink's
// org.apache.flink.runtime.taskexecutor:
//
//	TaskExecutor       → TaskExecutor           (the endpoint; implements gateway.TaskExecutorGateway)
//	TaskSlotTable      → TaskSlotTableImpl      (which slot is allocated to whom, and its tasks)
//	TaskSlotState      → TaskSlotState          (ALLOCATED, ACTIVE, RELEASING; a free slot is no entry)
//	jobTableEntry      → JobTable.Job           (a job we hold slots or partitions for, and its JobMaster connection)
//	jobLeaderService   → DefaultJobLeaderService (finds each job's leader and registers there)
//	partitionTracker   → TaskExecutorPartitionTrackerImpl (the BLOCKING partitions our tasks produced, per job)
//
// The tasks themselves are runtime/taskmanager's. The lesson "TaskManager
// and the slot model" teaches both packages. The registrations at the
// ResourceManager and at each JobManager are registration.RetryingRegistration.
//
// # Lifecycle
//
// New creates a TaskExecutor; Start makes it reachable at
// "taskmanager_<ResourceID>" in the rpc.Service, starts its main thread and
// starts looking for the ResourceManager leader. Close fails its tasks,
// tells the ResourceManager and the JobMaster of each job that it leaves
// ("The TaskExecutor is shutting down."), waits for its tasks (at most
// task.cancellation.timeout, 180 s), and stops. Kill, for tests and fault
// injection, is kill -9 instead: see below.
//
// # From registration to running tasks
//
// Before any job arrives:
//
//	leader retrieval ─► "Connecting to ResourceManager <addr>(<id>)."
//	RegisterTaskExecutor, retried ─► "Successful registration at resource manager <addr> under registration id <id>."
//	SendSlotReport: every slot and whom it is allocated to (nobody yet)
//
// The registration (gateway.TaskExecutorRegistration) carries, besides the
// slots, what the REST endpoint reports of the TaskManager: the total its
// slots share (Config.TotalResourceProfile), the size of each part of its
// memory (Config.MemoryConfiguration) and its hardware (Config.Hardware),
// which taskmanagerrunner.StartTaskManager computes from the TaskManager's
// configuration (package clusterframework).
//
// # Slots and their resources
//
// The TaskSlotTable (Flink's TaskSlotTableImpl) carves slots out of
// Config.TotalResourceProfile. The static slots, indexes 0 to
// NumberOfSlots-1, each take the default slot profile, the total divided
// by the number of slots; a slot request for UnknownResourceProfile, which
// is what jobs that configure no resources ask for, gets that profile. A
// request with a negative index asks for a dynamic slot of the profile it
// names, at the next index from NumberOfSlots up, and is refused ("Cannot
// allocate the requested resources. …") if what the other slots left of
// the total is too small. A free slot is not in the table; the slot
// report lists every static index, a free one with the default profile
// and no job, and every allocated dynamic slot.
//
// Registration retries as Flink's RetryingRegistration does (package
// registration): the address is resolved first; an attempt that gets no
// answer is retried at once with double the timeout (100 ms up to 30 s); a
// Failure answer pauses 30 s, any other error 10 s, and starts over; a
// Rejection stops. registration.NextAttempt is that rule as a pure function.
//
// Then, for each slot of a job:
//
//	m7  ResourceManager ─RequestSlot─► TaskExecutor   "Receive slot request <alloc> for job <job> from resource manager with leader id <rm>."
//	    the slot becomes ALLOCATED; a new job's leader is looked up and registered at:
//	    TaskExecutor ─RegisterTaskManager─► JobMaster "Try to register at job manager <addr> with leader id <jm>."
//	                                                  "Establish JobManager connection for job <job>."
//	m8  TaskExecutor ─OfferSlots─► JobMaster          "Offer reserved slots to the leader of job <job>."
//	    accepted slots become ACTIVE; rejected ones are freed and the ResourceManager told (NotifySlotAvailable)
//	m9  JobMaster ─SubmitTask─► TaskExecutor          "Received task <name> (<attempt>), deploy into slot with allocation id <alloc>."
//	m10 the Task fetches the job's jars through the BlobCache
//	m11 the Task opens its operators and reports RUNNING; the TaskExecutor
//	    forwards it ─UpdateTaskExecutionState─► JobMaster
//
// # Where its partitions are read
//
// The tasks write and read through Deps.Shuffle, a network.ShuffleEnvironment.
// In the embedded cluster every TaskExecutor's environment shares one
// ResultPartitionManager, and every exchange is in-process. A TaskExecutor
// in a process of its own serves its partitions to other processes with a
// network.PartitionRequestServer, and Config.DataAddress is that server's
// address. The TaskExecutor advertises it in the TaskManagerLocation it
// registers at each JobMaster with (RegisterTaskManager), the JobMaster
// keeps it with the slots the TaskExecutor offers, and the scheduler
// writes it into the shuffle descriptor of every partition produced in
// those slots, so that consumers elsewhere know where to connect (Flink:
// the TaskManagerLocation's dataPort, and the NettyShuffleDescriptor's
// ConnectionID). Empty means "read in-process", as in the embedded
// cluster.
//
// SubmitTask checks, in Flink's order, that the job has a JobManager
// connection, that the sender's JobMasterID is that connection's, and that
// the slot is allocated to the job; each refusal is a TaskSubmissionException
// (gateway.ErrTaskSubmission) with Flink's text.
//
// # Blocking partitions outlive their tasks
//
// A pipelined partition goes away by itself once its consumers have read
// it. A BLOCKING one (gateway.ResultPartitionDeploymentDescriptor's
// PartitionType, jobgraph.Blocking) is written to files by its producer
// and may be read any number of times after the producer FINISHED: by
// consumers deployed later, and again by consumers that are restarted.
// Only the JobMaster knows when nobody needs it any more, so the
// TaskExecutor keeps it until told, in its partitionTracker (Flink's
// TaskExecutorPartitionTrackerImpl):
//
//	SubmitTask                     the task's blocking partitions are tracked for its job
//	                               (Flink: setupResultPartitionBookkeeping)
//	the task ends FINISHED         they stay, registered and on disk
//	the task ends otherwise        it released them itself; they are no longer tracked
//	ReleasePartitions(job, ids)    DEBUG "Releasing Job Partitions [<ids>]": those of ids the job's
//	                               tasks produced here are released (files deleted); other IDs are ignored
//	the job's JobManager           DEBUG "Releasing Job Partitions [<ids>] for job <job>": all of the job's
//	connection closes              are released: DisconnectJobManager, its heartbeat timing out, its
//	                               leader lost or replaced
//	Close (and Kill)               every job's are released
//
// A job keeps its place in the job table, and its JobManager connection,
// while it has tracked partitions here, even after its last slot is
// freed: a batch job may give a producer's slot back as soon as the
// producer finished, long before its consumers read the partition. The
// job is closed ("TaskExecutor ... has no more allocated slots for job
// ...") once it has neither slots nor partitions here, which
// ReleasePartitions may bring about.
//
// # Messages handled
//
//	RequestSlot           from the ResourceManager (fenced by its ResourceManagerID, checked here)
//	SubmitTask, CancelTask, FreeSlot, DisconnectJobManager, ReleasePartitions   from a JobMaster
//	HeartbeatFromJobManager, HeartbeatFromResourceManager    heartbeat requests
//	leader news           from the HA services (ResourceManager and each job)
//	task states           from the tasks, through TaskManagerActions
//
// FreeSlot fails the slot's tasks; the slot is free once they have stopped
// (it is RELEASING meanwhile), and then the ResourceManager is told. When a
// job has no slot and no blocking partition left, its JobManager
// connection is closed, its leader is no longer watched and its cached
// jars are released.
//
// # Heartbeats
//
// The TaskExecutor answers heartbeats (heartbeats.go): its JobMasters and
// the ResourceManager ask every heartbeat.interval, and each request also
// tells it that the asker is alive. It watches each JobMaster from the
// moment its connection is established, and the ResourceManager from the
// moment the registration succeeded. When one stops asking for
// heartbeat.timeout:
//
//	JobMaster        INFO The heartbeat of JobManager with id jm-1 timed out.
//	                 its connection is closed as on DisconnectJobManager: the job's tasks fail
//	                 with "Disconnect from JobManager responsible for <jobId>.", the JobMaster
//	                 is told (DisconnectTaskManager), the job's slots are freed
//	ResourceManager  INFO The heartbeat of ResourceManager with id rm-1 timed out.
//	                 the connection is closed (DisconnectTaskManager), and once the
//	                 ResourceManager has answered, the TaskExecutor registers again
//
// # Kill
//
// Kill simulates a TaskManager process that dies without a word, as a hung
// JVM or a host that vanished from the network would. From then on every
// gateway method blocks until its caller's ctx ends and fails with
// rpc.ErrTimeout, so heartbeat requests go unanswered. The tasks stop
// without reporting anything, and nobody is told: the JobMasters and the
// ResourceManager find out through their heartbeat timeouts ("Heartbeat of
// TaskManager with id … timed out."). A process killed on a host that is
// still up is often noticed sooner in Flink (1.14 and later): its refused
// connections fail the heartbeat RPCs, and after
// heartbeat.rpc-failure-threshold of them the peer is "no longer
// reachable". Close after Kill releases what is left.
//
// # Who may call what
//
// One goroutine, the main thread of the embedded rpc.Endpoint, owns every
// field. Gateway methods enter it with rpc.CallAsync; calls to other
// components leave it with rpc.Ask, whose answers come back as mailbox
// messages, so a handler never waits for another component. Each Task runs
// on its own goroutine and reaches the TaskExecutor only through its
// mailbox. The TaskSlotTable is a plain data structure used on the main
// thread only.
//
// Task states travel to the JobMaster on one rpc.AskInOrder lane per
// connection: one at a time, so it sees them in order; Flink gets that
// order from Pekko.
//
// # Differs from Flink
//
//   - The heartbeats carry no payloads (see gateway.AllocatedSlotReport): the
//     TaskExecutor does not free slots the JobMaster no longer knows, and
//     does not report its slots and deployed tasks with its answers.
//   - The slot timeout (taskmanager.slot.timeout) guards only slots that
//     are allocated but not active: offered and rejected, or offered with
//     no answer. DisconnectJobManager, and a JobMaster whose heartbeat
//     timed out, free the job's slots at once, where Flink marks them
//     inactive, registers at the job's leader again, and lets the timeout
//     free them.
//   - No overall registration deadline (taskmanager.registration.timeout)
//     and no fatal-error handler: a rejected registration is logged at
//     ERROR and the TaskExecutor waits for the next leader.
//   - The JobMaster gateway has no failSlot: a slot that cannot be marked
//     active after an accepted offer is only logged.
//   - Dynamic slots are there, but nothing asks for them: our SlotManager
//     allocates static slots only (Flink's FineGrainedSlotManager cuts
//     dynamic slots for fine-grained requirements).
//   - The task states DEPLOYING and CANCELING are not forwarded to the
//     JobMaster, as Flink's Task never sends them.
//   - A task that has not stopped within task.cancellation.timeout when
//     the TaskExecutor closes is logged at ERROR ("Task did not exit
//     gracefully within 180 + seconds.") and left running; Flink's
//     TaskCancelerWatchDog logs the same and kills the TaskManager.
//   - A job's blocking partitions are released as soon as its JobManager
//     connection closes. Flink waits until the job's tasks have
//     terminated (scheduleResultPartitionCleanup), and keeps them when the
//     connection is lost with job recovery on; here a task that is still
//     running then fails anyway, and there is no job recovery.
//   - ReleasePartitions releases only partitions this TaskExecutor tracks
//     for the job; Flink's hands every given ID to its ShuffleEnvironment.
//     In the embedded cluster all TaskExecutors share one
//     ResultPartitionManager, and one must not release another's
//     partitions. There is no promotePartitions and no
//     releaseClusterPartitions: no cluster partitions.
//   - A killed TaskExecutor's blocking partitions are released (their
//     files deleted), as if they had vanished with the process; a real
//     kill -9 would leave the files on disk.
//   - There is no TaskManagerRunner: whoever builds a TaskExecutor (the
//     MiniCluster, or a TaskManager entrypoint) gives it its services, and
//     starts the PartitionRequestServer whose address it passes as
//     Config.DataAddress.
package taskexecutor
