// Package adaptive is Flink's AdaptiveScheduler
// (org.apache.flink.runtime.scheduler.adaptive), selected with
// jobmanager.scheduler: adaptive, or by reactive mode (scheduler-mode:
// reactive). Where the DefaultScheduler asks for one slot per shared slot
// of a job whose parallelism is fixed, and waits, the AdaptiveScheduler
// declares how many slots it would like, takes what comes, and decides
// the parallelism from the slots it got. When slots come or go, it runs
// the job again at the new parallelism, with a new ExecutionGraph.
//
// # The state machine
//
//	Created ──► WaitingForResources ──► CreatingExecutionGraph ──► Executing ──► Finished
//	                ▲   (enough slots)        │ (too few: FAILED)      │  │
//	                │                          ▼                        │  ├─► Canceling ─► Finished
//	                └──────── Restarting ◄─────────────────────────────┘  ├─► Failing ───► Finished
//	                     (a task failed, or the parallelism can change)    │
//	                                                                        └─► StopWithSavepoint ─► Finished
//	                                                                           (flink stop; back to Executing
//	                                                                            if the savepoint fails)
//
// Each state is a type here and a class in Flink, with its JobStatus:
//
//	Created                 INITIALIZING  nothing asked for yet
//	WaitingForResources     CREATED       the slots are declared; wait for them
//	CreatingExecutionGraph  CREATED       decide the parallelism, build the graph
//	Executing               RUNNING       the graph is deployed and runs
//	Restarting              RESTARTING    the graph is cancelled; then wait again
//	Canceling, Failing      CANCELLING, FAILING
//	StopWithSavepoint       RUNNING       a savepoint, then the tasks end and the job FINISHES
//	Finished                the graph's final status
//
// Every move is logged at DEBUG, as Flink does: "Transition from state
// WaitingForResources to CreatingExecutionGraph." (Transitions keeps them
// for tests and drawings). At INFO a job that waits says nothing.
//
// # How many slots, and what parallelism
//
// Each JobVertex has bounds for its parallelism, [1, its parallelism in
// the JobGraph] (in reactive mode [1, its max parallelism]); PUT
// /jobs/{jobid}/resource-requirements changes them. The scheduler declares
// the desired slots, every vertex at its upper bound, one slot per
// subtask of each slot sharing group's widest vertex
// (CalculateRequiredSlots), and from the slots the pool holds decides
// (DetermineParallelism, Flink's SlotSharingSlotAllocator): each group
// gets its minimum, the rest is shared out evenly, the group with the
// narrowest range first, and no vertex runs wider than its upper bound.
//
// WaitingForResources leaves
//
//   - at once when the desired slots are there;
//   - when the slots are sufficient (every vertex at its lower bound) and
//     have stayed so for jobmanager.adaptive-scheduler.resource-stabilization-timeout
//     (10 s), in case more come;
//   - after jobmanager.adaptive-scheduler.resource-wait-timeout (5 min)
//     in any case: with too few slots the job then FAILS, with
//     "NoResourceAvailableException: Not enough resources available for
//     scheduling." A negative timeout waits forever, as reactive mode
//     does. This is the "stuck" AdaptiveScheduler: a job CREATED for
//     minutes whose log says nothing at INFO; the ResourceManager's log
//     says which slots are missing.
//
// # Rescaling
//
// A running job (Executing) restarts at another parallelism when the slots
// change, but not too often: once jobmanager.adaptive-scheduler.scaling-interval.min
// (30 s) has passed since it started running, if some vertex would grow by
// jobmanager.adaptive-scheduler.min-parallelism-increase (1) or more, or
// shrink: "Can change the parallelism of the job. Restarting the job."
// Losing a TaskManager fails its tasks, and the restart strategy decides
// as for any failure ("Restarting job." or "Failing job."); after the
// restart the job waits for resources again and runs with what is left.
// Every restart builds a new ExecutionGraph; attempt numbers count on
// across graphs, as they do under the DefaultScheduler.
//
// # Differs from Flink
//
//   - This is Flink 1.19's AdaptiveScheduler. Flink 1.20 moves the
//     rescaling decision into a RescaleManager, and Flink 2.0 ties it to
//     checkpoints (jobmanager.adaptive-scheduler.rescale-trigger.*) and
//     adds the executing.* and submission.* options.
//   - The ExecutionGraph is built on the main thread, one mailbox turn
//     after entering CreatingExecutionGraph; Flink builds it in the
//     background.
//   - Each ExecutionGraph has a CheckpointCoordinator of its own, over the
//     job's one store of completed checkpoints: the statistics start anew
//     with each graph, and a state without a graph has none.
//   - StopWithSavepoint ends its graph's tasks as the DefaultScheduler
//     does (package scheduler: they are cancelled after the savepoint,
//     where Flink's sources stop and the tasks finish).
//   - Slots are counted, not matched by profile: slot sharing groups with
//     resources and co-location are not taken into account.
//   - A BATCH job runs on the DefaultScheduler (Flink: on its
//     AdaptiveBatchScheduler, which this runtime does not have).
//   - Slots the job no longer wants stay in its slot pool until their
//     TaskManager goes (Flink returns them after slot.idle.timeout).
package adaptive
