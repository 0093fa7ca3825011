// Package scheduler decides when each task of a job runs and where: it asks
// the slot pool for slots, deploys tasks into them, follows their state
// reports, and moves the job through its lifecycle.
//
// It mirrors Flink's SchedulerNG and DefaultScheduler
// (org.apache.flink.runtime.scheduler), with the parts the DefaultScheduler
// delegates to: SlotSharingExecutionSlotAllocator (slot sharing),
// DefaultExecutionDeployer (allocateSlotsAndDeploy) and
// TaskDeploymentDescriptorFactory.
//
// # From RUNNING to deployed tasks
//
// startScheduling moves the job CREATED → RUNNING and schedules every task
// at once: a streaming job whose edges are all pipelined is a single
// pipelined region, and Flink's PipelinedRegionSchedulingStrategy schedules
// a region as a whole. For each task (an Execution):
//
//  1. CREATED → SCHEDULED, and a slot is requested. With slot sharing,
//     a slot holds one subtask of every vertex of a slot sharing group,
//     so a job needs as many slots as its largest parallelism per group,
//     not the sum of all parallelisms. Which subtasks share a slot was
//     decided once, when the scheduler was created (slotsharing.go,
//     Flink's LocalInputPreferredSlotSharingStrategy: co-location first,
//     then a producer's slot, so that inputs stay local), and each slot is
//     requested with its group's resources, or as any slot.
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
// the job's start, or a restart) are one bulk, which the slot pool's
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
// TaskExecutor that was lost) goes to handleTaskFailure, which asks the ExecutionFailureHandler
// (package executiongraph/failover) two questions: may the job restart
// (the RestartBackoffTimeStrategy: none, fixed-delay, failure-rate or
// exponential-delay), and which tasks (the failover strategy: here always
// all of them, Flink's "full" strategy). Then either
//
//	RUNNING → RESTARTING   "N tasks will be restarted to recover the failed task <attempt>."
//	                       every task is cancelled; its slot goes back to the pool
//	  … the backoff passes and every old attempt has stopped …
//	RESTARTING → RUNNING   each task gets a new attempt (#1, #2, …) and is
//	                       scheduled again, usually into the same slots
//
// or, when the restart strategy says no,
//
//	RUNNING → FAILING → FAILED   "JobException: Recovery is suppressed by <strategy>"
//
// Each failure is kept in the job's exception history (newest first), which
// the REST API shows as /jobs/{jobid}/exceptions. A failure that arrives
// while the job is already restarting or failing is recorded as a
// concurrent exception of the one being handled.
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
// Differs from Flink: failover restarts every task, as Flink's "full"
// strategy (jobmanager.execution.failover-strategy: full) does. Flink's
// default, "region", restarts only the failed task's pipelined region and
// those downstream of it: for a job whose exchanges are all-to-all (keyBy,
// rebalance) that is every task too, but a job of forward exchanges only
// has one region per subtask, and Flink restarts just one of them.
// (Package executiongraph/failover has the region strategy; partial
// restarts with shared slots are not wired in yet.) The network memory a
// slot sharing group with resources needs is not added to its profile
// (Flink's SsgNetworkMemoryCalculationUtils). No state is restored on
// restart: there are no checkpoints yet.
package scheduler
