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
//     subtask i of every vertex in one slot sharing group shares one
//     slot, so a job needs as many slots as its largest parallelism per
//     group, not the sum of all parallelisms.
//  2. When every slot of the region has arrived (the slot pool declares
//     the requirements to the ResourceManager, step m6, and TaskExecutors
//     offer slots, step m8), each Execution gets its slot and moves
//     SCHEDULED → DEPLOYING.
//  3. A TaskDeploymentDescriptor goes to the TaskExecutor with submitTask
//     (step m9). Its answer comes back on the JobMaster's main thread; an
//     error fails the task.
//
// From there the TaskExecutor reports each state change through
// updateTaskExecutionState: INITIALIZING, RUNNING (step m11), and finally
// FINISHED, FAILED or CANCELED. When every task has FINISHED the job is
// FINISHED. A failed task fails the whole job (FAILING → FAILED) until
// restart strategies arrive; cancelling takes the job through CANCELLING
// to CANCELED.
//
// Everything here runs on the JobMaster's main thread: the scheduler has no
// goroutines and no locks of its own. Calls to TaskExecutors go out with
// rpc.Ask.
//
// Differs from Flink: the failover strategy is "fail the job" (no restart
// strategies yet); there is one pipelined region per job; the slot sharing
// strategy groups subtasks by index only (Flink's
// LocalInputPreferredSlotSharingStrategy also prefers co-locating
// producers and consumers).
package scheduler
