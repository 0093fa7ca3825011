// Package scheduler decides when each task of a job runs and where: it asks
// the slot pool for slots, deploys tasks into them, follows their state
// reports, and moves the job through its lifecycle.
//
// It mirrors Flink's SchedulerNG and DefaultScheduler
// (org.apache.flink.runtime.scheduler), with the parts the DefaultScheduler
// delegates to: PipelinedRegionSchedulingStrategy (when each region
// starts), SlotSharingExecutionSlotAllocator (slot sharing),
// DefaultExecutionDeployer (allocateSlotsAndDeploy),
// TaskDeploymentDescriptorFactory, and the JobMasterPartitionTracker.
//
// # Regions: what is scheduled together
//
// The scheduler works in pipelined regions (executiongraph.PipelinedRegion):
// sets of subtasks joined by pipelined exchanges, which must run at the
// same time. StartScheduling moves the job CREATED → RUNNING and hands the
// regions to the PipelinedRegionSchedulingStrategy, which schedules a
// region when its BLOCKING inputs are consumable, every partition of them
// finished by its producer:
//
//	streaming job (all pipelined)   every region at once: one region for
//	                                keyBy/rebalance jobs, p side by side for
//	                                forward-only ones
//	batch job (BLOCKING exchanges)  the source regions; a consumer region as
//	                                soon as the last producer of its input
//	                                has FINISHED
//
// A finished producer's BLOCKING partitions stay on its TaskExecutor, and
// the partition tracker remembers where. They are released when every
// region that reads them has finished (Flink's
// RegionPartitionGroupReleaseStrategy), when their producer restarts, and
// when the job ends; they are forgotten when their TaskExecutor is lost.
//
// The AdaptiveScheduler (package adaptive) runs each ExecutionGraph it
// builds through a DefaultScheduler: it takes the task failures itself
// (Deps.OnTaskFailure) and cancels or fails the graph (Cancel, FailJob).
//
// # From a scheduled region to deployed tasks
//
// For each task (an Execution) of a scheduled region:
//
//  1. CREATED → SCHEDULED, and a slot is requested. With slot sharing,
//     a slot holds one subtask of every vertex of a slot sharing group,
//     so a job needs as many slots as its largest parallelism per group,
//     not the sum of all parallelisms. Which subtasks share a slot was
//     decided once, when the scheduler was created (slotsharing.go,
//     Flink's LocalInputPreferredSlotSharingStrategy: co-location first,
//     then a producer's slot, so that inputs stay local), and each slot is
//     requested with its group's resources, or as any slot.
//     A shared slot lives while a task holds it: a region scheduled while
//     another region of its group runs joins the slot that is there, and
//     the slot goes back to the pool when its last task has finished,
//     failed or been cancelled (Flink's SharedSlot and its logical slots).
//  2. When every slot of the region has arrived (the slot pool declares
//     the requirements to the ResourceManager, step m6, and TaskExecutors
//     offer slots, step m8), each Execution gets its slot and moves
//     SCHEDULED → DEPLOYING. Slots that do not arrive in time fail the
//     tasks that wait for them (see below).
//  3. A TaskDeploymentDescriptor goes to the TaskExecutor with submitTask
//     (step m9). Its answer comes back on the JobMaster's main thread; an
//     error fails the task.
//
// From there the TaskExecutor reports each state change through
// updateTaskExecutionState: INITIALIZING, RUNNING (step m11), and finally
// FINISHED, FAILED or CANCELED. When every task has FINISHED the job is
// FINISHED; cancelling takes the job through CANCELLING to CANCELED, also
// when it comes while the job is FAILING (Flink's
// DefaultExecutionGraph#cancel).
//
// # Slots that do not come: slot.request.timeout
//
// The slot requests of one scheduling round (one allocateSlotsAndDeploy:
// a region's start, or its restart) are one bulk, which the slot pool's
// PhysicalSlotRequestBulkChecker watches on the main thread (Flink:
// SlotSharingExecutionSlotAllocator hands a SharingPhysicalSlotRequestBulk
// to the PhysicalSlotRequestBulkCheckerImpl). Every slot.request.timeout
// (Config.SlotRequestTimeout, 5 min) it looks at the bulk: done when no
// request waits any more, given more time while the slots the pool holds
// could serve the waiting requests, and, once it has been unfulfillable
// for a whole timeout, cancelled. Then every task that waited for a
// missing slot fails with
//
//	NoResourceAvailableException: Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout
//
// and the failover below takes over. This is how a job whose JobMaster
// never reaches the ResourceManager (step m5), or whose requirements never
// arrive there (m6), ends. A round the scheduler gave up (the job was
// cancelled, failed or restarted) has no waiting requests left, so its
// check does nothing (sharingPhysicalSlotRequestBulk).
//
// # When a task fails: failover
//
// A failed task (a FAILED report, a submitTask that failed or timed out, a
// slot request the ResourceManager cannot serve or that timed out, a
// TaskExecutor that was lost) goes to handleTaskFailure, which asks the
// ExecutionFailureHandler (package executiongraph/failover) two questions:
// may the job restart (the RestartBackoffTimeStrategy: none, fixed-delay,
// failure-rate or exponential-delay), and which tasks (the failover
// strategy, jobmanager.execution.failover-strategy: "region" by default,
// the failed task's region, the regions that read its results, and the
// producers of inputs that are lost; or "full", every task). Then either
//
//	RUNNING → RESTARTING   "N tasks will be restarted to recover the failed task <attempt>."
//	                       those tasks are cancelled; their slots go back to the pool
//	  … the backoff passes and every one of them has stopped …
//	RESTARTING → RUNNING   each gets a new attempt (#1, #2, …), and the
//	                       scheduling strategy schedules their regions again,
//	                       as soon as their inputs allow, usually into the
//	                       same slots
//
// The other regions run on meanwhile, in their first attempt. Restarts
// can overlap: a region that fails while another restarts restarts too,
// and the job is RUNNING again when the last of them is (Flink's
// verticesWaitingForRestart); a restart leaves out the subtasks a later
// one took over (Flink's ExecutionVertexVersioner).
//
// or, when the restart strategy says no,
//
//	RUNNING → FAILING → FAILED   "JobException: Recovery is suppressed by <strategy>"
//
// Each failure is kept in the job's exception history (newest first), which
// the REST API shows as /jobs/{jobid}/exceptions. A failure that arrives
// while the job is failing or being cancelled is recorded as a concurrent
// exception of the one being handled.
//
// A failure of the whole job, not of one task, is a global failure (Flink's
// handleGlobalFailure): the CheckpointFailureManager's "Exceeded checkpoint
// tolerable failure threshold." is one. It logs "Trying to recover from a
// global failure." and asks the restart strategy as a task's failure does;
// every task restarts ("N tasks will be restarted to recover from a global
// failure."), from the latest completed checkpoint, or the job fails.
// Differs from Flink: a graph of the AdaptiveScheduler fails on a global
// failure, and the AdaptiveScheduler ends the job with it; Flink's
// AdaptiveScheduler restarts it by its restart strategy.
//
// Everything here runs on the JobMaster's main thread: the scheduler has no
// goroutines and no locks of its own. Calls to TaskExecutors go out with
// rpc.Ask; the restart backoff and the slot request timeout are
// ScheduleRunAsync timers on that thread.
// Pekko delivers a JobMaster's messages to one TaskExecutor in order; two
// rpc.Asks are not ordered, so a cancelTask for a task whose submitTask is
// still on its way waits for the submission's answer, lest it overtake it
// and leave the task running unseen.
//
// Differs from Flink: the regions and the partition tracker are the
// scheduler's own, computed once (Flink keeps them in a SchedulingTopology
// and a JobMaster-wide JobMasterPartitionTracker). Hybrid result
// partitions, whose consumers may start before their producers finish,
// do not exist here. The network memory a slot sharing group with
// resources needs is not added to its profile (Flink's
// SsgNetworkMemoryCalculationUtils). A restart restores the latest
// completed checkpoint of a checkpointed job (checkpointing.go).
//
// # Savepoints and stop-with-savepoint
//
// A savepoint is a checkpoint a user asks for (savepoints.go):
// TriggerSavepoint takes one and answers its path; StopWithSavepoint stops
// the periodic checkpoints, takes a SAVEPOINT_SUSPEND savepoint and ends
// the job:
//
//	RUNNING ── savepoint completed ──► the tasks end ──► RUNNING → FINISHED, the path
//	   │
//	   └── savepoint failed ──► periodic checkpoints again; the job runs on, the stop fails
//
// A job submitted with SavepointRestoreSettings (flink run -s) starts from
// that savepoint, unless it has a completed checkpoint of its own already
// (Flink's DefaultExecutionGraphFactory: restoreInitialCheckpointIfPresent,
// else tryRestoreExecutionGraphFromSavepoint).
//
// Differs from Flink: after the savepoint of a stop-with-savepoint the
// scheduler cancels the tasks, and the job FINISHES when the last has
// stopped, its tasks CANCELED; in Flink the sources stop after the
// synchronous savepoint and every task FINISHES. So records the sources
// emit between the savepoint and the cancellation reach the sinks (a
// restore from the savepoint emits them again). --drain takes the same
// savepoint: without event time there is no MAX_WATERMARK to send. A job
// without execution.checkpointing.interval has no CheckpointCoordinator:
// a savepoint of it fails with "Checkpointing has not been enabled.", and
// it cannot start from a savepoint (Flink gives every streaming job a
// coordinator, periodic or not).
package scheduler
