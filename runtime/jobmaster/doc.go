// Package jobmaster runs one job: the JobMaster builds the job's
// ExecutionGraph, connects to the ResourceManager, collects slots and lets
// its scheduler deploy the tasks, then follows them to the end.
//
// It mirrors Flink's JobMaster (org.apache.flink.runtime.jobmaster), a
// FencedRpcEndpoint whose fencing token, the JobMasterID, is the leader
// session its JobManagerRunner was granted.
//
// # Lifecycle
//
//	New        "Initializing job 'name' (id)." — build the ExecutionGraph and
//	           the scheduler (Flink does this in the constructor, through
//	           createScheduler). An invalid graph fails here, and the runner
//	           reports "Could not start the JobMaster."; so does a vertex
//	           whose parallelism is higher than its max parallelism, which
//	           the client and the Dispatcher accept, as in Flink
//	           (failover.JobException).
//	Start      onStart → startJobExecution: "Starting execution of job ...",
//	           leader retrieval of the ResourceManager, startScheduling.
//	           Slot requests wait in the slot pool until the ResourceManager
//	           is connected, and fail if they are not fulfilled within
//	           slot.request.timeout (Config.SlotRequestTimeout, 5 min).
//	(the job runs: see the scheduler package)
//	terminal   as soon as the job is globally terminal, the slot pool frees
//	           the job's slots (they stay in the pool) and declares that the
//	           job needs none, and the runner learns the result (Flink's
//	           jobStatusChanged → jobReachedGloballyTerminalState). The
//	           runner tells the Dispatcher, which removes the job: that
//	           closes the runner, and the runner stops the JobMaster.
//	Close      onStop → stopJobExecution: "Stopping the JobMaster for job
//	           'name' (id).", then, for each registered TaskExecutor,
//	           "Disconnect TaskExecutor <id> because: Stopping JobMaster for
//	           job 'name' (id).": its slots are released ("Releasing slot
//	           [<id>].") and freed there (FreeSlot), and it is told
//	           (DisconnectJobManager). Last, "Close ResourceManager connection
//	           <id>: ..." and DisconnectJobManager with the job's status: a
//	           globally terminal job's requirements are cleared, a suspended
//	           job's (Close before the job ended: leadership lost, cluster
//	           shut down) are kept for its next JobMaster. The disconnects
//	           wait on the lane of the declarations, so the ResourceManager
//	           knows the job needs no more slots before any of them is freed:
//	           a freed slot is never handed back to the finished job.
//
// # Messages
//
// From the ResourceManager side (step m5, step m6): the JobMaster registers
// with RegisterJobMaster, retried with Flink's backoff (package
// registration; the JobMaster retries forever, though its job's slot
// requests fail after slot.request.timeout), then declares its slot pool's
// requirements. From TaskExecutors: RegisterTaskManager, OfferSlots (step
// m8), UpdateTaskExecutionState (m11 and the other state reports). From its
// runner: RequestJobStatus, RequestJob, Cancel, and, for the Dispatcher,
// TriggerSavepoint, StopWithSavepoint and RequestCheckpointStats
// (savepoints.go). A savepoint is started on the main thread and waited
// for on the caller's goroutine: the scheduler answers on the main thread
// when the savepoint completed (and, for a stop, when the job FINISHED),
// and a JobMaster that stops first answers "CheckpointCoordinator
// shutdown.".
//
// All state lives on the JobMaster's main thread, including the scheduler's,
// the ExecutionGraph's and the slot pool's. Outgoing calls from the main
// thread go out with rpc.Ask, or rpc.AskInOrder where their order matters
// (declarations, then the disconnects when the JobMaster stops); Close,
// which runs on its caller's goroutine, waits for those disconnects.
//
// # Heartbeats
//
// The JobMaster watches its peers with package heartbeat (heartbeats.go),
// with the managers it creates when it starts:
//
//	TaskExecutors    it asks each registered one every heartbeat.interval (sender)
//	ResourceManager  it answers its requests (receiver)
//
// A TaskExecutor that does not answer for heartbeat.timeout is lost:
//
//	INFO Heartbeat of TaskManager with id tm-1 timed out.
//	INFO Disconnect TaskExecutor tm-1 because: Heartbeat of TaskManager with id tm-1 timed out.
//
// Its slots are released, the tasks that ran in them fail with that
// TimeoutException, and the restart strategy decides whether the job
// restarts (in other slots) or fails; the TaskExecutor is told
// (DisconnectJobManager), in case it is alive. A TaskExecutor that shuts
// down says so itself (DisconnectTaskManager) and is handled the same way
// at once. When the ResourceManager stops asking, the JobMaster logs "The
// heartbeat of ResourceManager with id rm timed out.", closes the
// connection ("Close ResourceManager connection rm: ..."), tells the
// ResourceManager, and registers at the leader again, which keeps the
// job's requirements meanwhile.
//
// # Differs from Flink
//
//   - The heartbeats carry no payloads (see gateway.AllocatedSlotReport):
//     the JobMaster does not reconcile its deployments with the
//     TaskExecutors' reports.
//   - No shuffle master; the partition tracker is the DefaultScheduler's
//     own (package scheduler), not the JobMaster's.
//   - The scheduler is the DefaultScheduler, or the AdaptiveScheduler
//     (package scheduler/adaptive) with jobmanager.scheduler: adaptive or
//     scheduler-mode: reactive; a BATCH job always gets the
//     DefaultScheduler (Flink: its AdaptiveBatchScheduler).
//   - A stopped JobMaster's scheduler is not closed first, so it reports
//     SUSPENDED itself for a job that had not ended, and shuts the job's
//     completed checkpoint store and ID counter down as SUSPENDED itself
//     (suspendCheckpointServices): a ZooKeeper store lets go of its locks
//     and keeps the checkpoints for the next JobMaster. Nothing is
//     discarded then, where Flink's standalone store deletes the
//     checkpoints a SUSPENDED job's properties discard.
//   - The disconnects at the stop wait until the ResourceManager has
//     answered the last declaration; Flink relies on it arriving first.
//   - Step m8's fault (package fault) fires only for an offer that passed
//     the fencing check and comes from a registered TaskManager.
//   - Step m4's fault max-parallelism-exceeded (package fault) builds the
//     ExecutionGraph from a copy of the JobGraph whose widest vertex has
//     half its parallelism as max parallelism, so that the ExecutionGraph's
//     own check fails; it fires only for a job with a vertex of parallelism
//     2 or more.
package jobmaster
