// Package checkpoint is the JobManager's side of checkpointing: it
// triggers a job's checkpoints, collects what the tasks snapshot, keeps the
// completed checkpoints, and hands their state back to the tasks when the
// job restarts. It mirrors Flink 1.20's org.apache.flink.runtime.checkpoint:
//
//	CheckpointCoordinator          → CheckpointCoordinator       (triggers, collects, completes, restores)
//	PendingCheckpoint              → PendingCheckpoint           (a checkpoint waiting for acknowledgements)
//	CompletedCheckpoint            → CompletedCheckpoint         (a checkpoint to restore from)
//	OperatorState                  → OperatorState               (one operator's state, by subtask)
//	CompletedCheckpointStore       → CompletedCheckpointStore    (the latest completed checkpoints)
//	  StandaloneCompletedCheckpointStore → StandaloneCompletedCheckpointStore
//	CheckpointIDCounter            → CheckpointIDCounter, StandaloneCheckpointIDCounter
//	CheckpointProperties           → CheckpointProperties        (who deletes a snapshot, when)
//	checkpointRequestDecider       → CheckpointRequestDecider    (run, queue or drop a trigger)
//	CheckpointFailureManager       → CheckpointFailureManager    (tolerable-failed-checkpoints)
//	stateAssignmentOperation       → StateAssignmentOperation    (restore, rescaled)
//	repartitionOperatorState       → RoundRobinOperatorStateRepartitioner
//	CheckpointMetadata, Load/StoreCheckpointMetadata → CheckpointMetadata, Checkpoints
//	CheckpointStatsTracker         → CheckpointStatsTracker      (GET /jobs/:jobid/checkpoints)
//	CheckpointCoordinatorConfiguration, FromMap → CheckpointCoordinatorConfiguration, ExecutionCheckpointingOptions
//
// The tasks' side (barriers, snapshots, acknowledgements) lives in the
// streaming runtime; the state handles and the checkpoint directories in
// package state.
//
// # Pending, then completed
//
// The coordinator keeps two kinds of checkpoints. A PendingCheckpoint was
// triggered and waits for every task of its CheckpointPlan to acknowledge;
// each acknowledgement brings the handles of the task's state, which the
// pending checkpoint files under each operator of the task's chain
// (OperatorState, by subtask index). When the last task acknowledges, the
// pending checkpoint becomes a CompletedCheckpoint: its _metadata is
// written and the CompletedCheckpointStore keeps it. The store keeps
// state.checkpoints.num-retained of them; the oldest is subsumed, and its
// files deleted. A pending checkpoint can also be aborted: expired after
// execution.checkpointing.timeout, declined by a task, subsumed by a newer
// completed one, or cancelled because a task failed or the job stops. Its
// files are deleted then, and the tasks are told.
//
//	TriggerCheckpoint, periodic timer
//	        │
//	        ▼
//	PendingCheckpoint ── every task acknowledged ──► CompletedCheckpoint ──► CompletedCheckpointStore
//	        │                                                                (keeps num-retained, lets
//	        │ expired, declined, subsumed,                                    the oldest go: deleted)
//	        │ a task failed, the job stops
//	        ▼
//	     aborted: its files deleted, the tasks told
//
// # A checkpoint in seven steps
//
// The runtime marks each step "// Step kN:" where it happens, and records
// it in the job's trace (package trace):
//
//	k1  CheckpointCoordinator   the periodic timer (or a user) triggers: the CheckpointRequestDecider lets it run,
//	                            the plan names the tasks, the CheckpointIDCounter the ID, and a PendingCheckpoint
//	                            with a timeout canceller is created: "Triggering checkpoint 5 (type=…) @ … for job ….".
//	                            Its directory chk-5 is created, and triggerCheckpoint goes to every source.
//	k2  TaskExecutor            a source's TaskExecutor receives triggerCheckpoint.
//	k3  source StreamTask       the source snapshots its state and sends the barrier on every output channel.
//	k4  CheckpointBarrierHandler a task with inputs has the barrier on all of them (EXACTLY_ONCE aligns: an input
//	                            that delivered it is not read until all did), snapshots, and sends it on.
//	k5  CheckpointCoordinator   a task's AcknowledgeCheckpoint arrives with its state's handles
//	                            (PendingCheckpoint.AcknowledgeTask). A task may decline instead.
//	k6  CheckpointCoordinator   the last acknowledgement: _metadata is written, the CompletedCheckpoint goes into
//	                            the store, older pending checkpoints are dropped: "Completed checkpoint 5 for job …
//	                            (… bytes, checkpointDuration=… ms, finalizationTime=… ms).".
//	k7  every task              notifyCheckpointComplete: a transactional sink commits what the checkpoint covers.
//
// Steps k1, k5, k6 and k7 are in this package; a failure is recorded as a
// failed event of the step where it shows: a failed trigger at k1, a
// decline at k5, an expiry or a failed _metadata at k6. Two faults of
// package fault break steps here (CoordinatorDeps.Faults): at k1 the
// triggers of a checkpoint are lost on their way to the sources
// (checkpoint-expired), at k6 its _metadata cannot be written
// (metadata-write-fails); the others break the tasks' steps.
//
// Three rules decide when a checkpoint may start (checkpointRequestDecider):
// at most execution.checkpointing.max-concurrent-checkpoints are pending
// (a periodic or user's checkpoint waits until one ends; a savepoint is
// forced and does not wait); a periodic checkpoint starts no sooner than
// execution.checkpointing.min-pause after the last completion (the
// periodic timer is moved to when the pause ends); and nothing starts
// once the scheduler is stopped or the coordinator shut down.
//
// Not every failure counts against
// execution.checkpointing.tolerable-failed-checkpoints
// (CheckpointFailureManager): an expiry, a declined or failed snapshot
// and an I/O error do, once per checkpoint; a busy coordinator, a task not
// running or not ready, a subsumed checkpoint, a suspension do not. The
// (n+1)-th failure in a row fails the job with "Exceeded checkpoint
// tolerable failure threshold.", a global failure: the scheduler restarts
// every task by the job's restart strategy ("Trying to recover from a
// global failure."), from the latest completed checkpoint. A completed
// checkpoint starts the count again.
//
// # Where the state goes
//
// With state.checkpoints.dir set (Flink's FileSystemCheckpointStorage),
// each checkpoint has a directory (package state):
//
//	<state.checkpoints.dir>/<job id>/
//	    shared/        state several checkpoints share (incremental checkpoints; unused in flinklab)
//	    taskowned/     state the tasks own
//	    chk-5/
//	        _metadata  the CheckpointMetadata: every operator's state handles
//	        3f2a…      a task's state of 20 KiB or more; smaller state is inline in _metadata
//
// Without it (JobManagerCheckpointStorage) the state travels inline in the
// acknowledgements and stays in the JobManager's memory: nothing survives
// the JobManager. Savepoints go to the request's directory or
// state.savepoints.dir, into savepoint-<job id prefix>-<random>/.
//
// Who deletes what (CheckpointProperties): Flink owns its checkpoints and
// deletes them when subsumed, and when the job ends, unless
// execution.checkpointing.externalized-checkpoint-retention keeps them
// (RETAIN_ON_CANCELLATION: kept when the job is cancelled, fails or is
// suspended; DELETE_ON_CANCELLATION: kept when it fails). The user owns
// savepoints: they are never deleted, nor is a snapshot a job was started
// from.
//
// # Restoring, and key groups
//
// A restarting job gets its state back from the latest completed
// checkpoint (RestoreLatestCheckpointedStateToSubtasks), or from a
// savepoint or retained checkpoint a user names (RestoreSavepoint). Each
// subtask's share goes to it in a JobManagerTaskRestore, in its
// deployment.
//
// At the checkpoint's parallelism each subtask gets back what it wrote. At
// another parallelism the state is split anew, without reading it. Keyed
// state is cut by key group: a key belongs to key group
// murmur(hash(key)) % maxParallelism, and subtask i of parallelism p owns
// the consecutive key groups ComputeKeyGroupRangeForOperatorIndex(maxParallelism, p, i);
// every old handle records where each of its key groups starts, so the
// coordinator hands each new subtask the Intersection of every old handle
// with its range. With max parallelism 128, 4 subtasks own 0–31, 32–63,
// 64–95, 96–127; 3 subtasks own 0–42, 43–85, 86–127, and the new subtask
// 0 reads key groups 0–31 from the old subtask 0 and 32–42 from the old
// subtask 1. That is why the max parallelism can never change: it is the
// number of key groups. Operator state is a list of elements: a
// SPLIT_DISTRIBUTE list is cut into runs of consecutive elements, one per
// new subtask; a UNION list goes whole to every subtask.
//
// # One goroutine
//
// Every method runs on one goroutine, the JobMaster's main thread, and so
// does every function the coordinator schedules (CoordinatorDeps.Schedule):
// the expiry of a checkpoint, the periodic trigger, the retry of a
// queued request. Nothing here locks. Acknowledgements and declines arrive
// as RPCs to the JobMaster, which hands them to its main thread; the RPCs
// the coordinator sends (TaskToCheckpoint's functions) do not wait.
//
// # Differs from Flink
//
//   - _metadata is JSON (CheckpointMetadata), not Flink's binary
//     MetadataV3Serializer format: flinklab cannot read Flink's files, nor
//     Flink flinklab's. It names state files by absolute path.
//   - One goroutine instead of Flink's timer thread, I/O executor and
//     coordinator-wide lock: the plan, the ID, the directory and the
//     _metadata are done synchronously, and deleting a subsumed
//     checkpoint happens on the main thread (Flink's CheckpointsCleaner
//     works on the I/O executor).
//   - At most one periodic trigger request waits while max-concurrent
//     checkpoints are pending; Flink queues every firing of the timer.
//   - A completed checkpoint's external pointer is its directory as a
//     plain path; Flink prints it as a URI (file:/…/chk-5). Restoring
//     accepts both.
//   - No operator coordinators, master hooks, unaligned checkpoints,
//     incremental checkpoints or shared state registry; full checkpoints
//     only, so checkpointed_size is state_size.
//   - The trigger RPCs are not waited for. Flink's coordinator waits for
//     each source's answer to triggerCheckpoint and aborts the checkpoint
//     when one fails ("Triggering Checkpoint 5 for job … failed due to …",
//     TRIGGER_CHECKPOINT_FAILURE, which does not count), for example after
//     the RPC timeout when a TaskManager does not answer. flinklab's does
//     not: a trigger that never arrives shows only when the checkpoint
//     expires, which counts.
//   - A job's max parallelism is taken as configured: a restore never
//     adopts the checkpoint's, where Flink does when the user did not set
//     one.
//   - A restored savepoint is always unclaimed (RecoveryClaimMode
//     NO_CLAIM, Flink's default); CLAIM and LEGACY are not offered.
//   - The state an acknowledgement carries for a completed checkpoint that
//     is still retained is not deleted when it arrives late.
//   - The ZooKeeper-backed store (/jobs/<id>/checkpoints) and counter
//     (/jobs/<id>/checkpoint_id_counter) live in
//     runtime/highavailability/zookeeper, behind the HA services'
//     CheckpointRecoveryFactory (Flink keeps that interface in this
//     package).
package checkpoint
