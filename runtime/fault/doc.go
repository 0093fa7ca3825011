// Package fault breaks the submission and the checkpoints on purpose: one
// named injection point per step m1…m11 of a submission and per step k1,
// k2, k4, k5, k6 of a checkpoint, at the line marked "// Step mN:" or
// "// Step kN:" in the component that performs the step. It is flinklab's
// own; Flink has nothing like it. It exists so that a learner can watch
// each step fail, read the log lines a real Flink cluster writes when that
// step fails, and learn which component to open.
//
// # Faults
//
// A Fault names a step, what goes wrong there (its Kind), how many times it
// fires, and optionally the one job it applies to:
//
//	step  kinds                                   what the cluster does, as Flink does
//	m1    upload-rejected                         the upload is refused, nothing is stored
//	m2    malformed-run-request                   400 Bad Request, no job is created
//	m3    invalid-jobgraph, duplicate-job-id      JobSubmissionException / DuplicateJobSubmissionException, nothing persisted
//	m4    jobmaster-start-failure                 "Could not start the JobMaster.": the job is FAILED during initialization
//	      max-parallelism-exceeded                the JobGraph cannot become an ExecutionGraph: "Vertex …'s parallelism (N)
//	                                              is higher than the max parallelism (M)…": FAILED during initialization,
//	                                              the ExecutionGraph never built
//	m5    resourcemanager-unreachable             the JobMaster's registration times out and is retried with backoff; armed
//	                                              for every attempt (always), the job's slot requests fail after
//	                                              slot.request.timeout: "Slot request bulk is not fulfillable!", failover
//	      registration-error                      the registration fails with an error ("Registration at ResourceManager
//	                                              failed due to an error"), pauses cluster.registration.error-delay, starts over
//	m6    resource-declaration-lost               the declaration does not arrive; the JobMaster declares again
//	m7    no-matching-slot                        no slot matches; after the start-up period "Could not acquire the minimum required resources."
//	      slot-sharing-group-too-large            the job's slots are larger than any TaskManager ("ResourceRequirement{resourceProfile=
//	                                              ResourceProfile{cpuCores=16, …}"): after the start-up period the same failure, on
//	                                              every restart, until the job is FAILED
//	m8    slot-offer-rejected, slot-offer-timeout the TaskExecutor frees the slot, the SlotManager matches again
//	m9    taskexecutor-dies                       the TaskExecutor dies between offerSlots and submitTask: deployment fails, failover
//	m10   blob-unavailable, jar-corrupted         "Failed to fetch BLOB …": the task FAILS while DEPLOYING, failover
//	m11   operator-open-throws                    the task goes INITIALIZING → FAILED, failover
//
// A checkpoint's steps (package checkpoint) break only a job that
// checkpoints (execution.checkpointing.interval). Steps returns the
// submission's steps, which every job takes, and CheckpointSteps these:
//
//	step  kinds                                   what the cluster does, as Flink does
//	k1    checkpoint-expired                      the CheckpointCoordinator's triggers are lost on their way to the sources:
//	                                              no task acknowledges, "Checkpoint N of job … expired before completing."
//	                                              after execution.checkpointing.timeout; CHECKPOINT_EXPIRED counts, and with
//	                                              tolerable-failed-checkpoints 0 (the default) "Exceeded checkpoint tolerable
//	                                              failure threshold.": a global failure, every task restarts by the restart
//	                                              strategy, from the latest completed checkpoint
//	k2    task-not-ready                          a source's Task declines the trigger as if not RUNNING ("Declining checkpoint
//	                                              request for non-running task …", CHECKPOINT_DECLINED_TASK_NOT_READY): the
//	                                              checkpoint is aborted and not counted; the job runs on, the next completes
//	k4    barrier-lost                            a task with several inputs never gets one channel's barrier: its aligned
//	                                              channels stay blocked, backpressure stops the job, the checkpoint expires: as k1
//	k5    storage-write-fails                     a task's asynchronous part cannot write its state ("… - asynchronous part of
//	                                              checkpoint N could not be completed."): it declines with
//	                                              CHECKPOINT_ASYNC_EXCEPTION, which counts: as k1, a global failover
//	      taskexecutor-dies-during-checkpoint     the TaskManager dies as its tasks acknowledge: its heartbeat times out, its
//	                                              tasks fail, the pending checkpoint is aborted uncounted (TASK_FAILURE, or
//	                                              CHECKPOINT_COORDINATOR_SUSPEND), failover from the latest completed checkpoint
//	k6    metadata-write-fails                    the CheckpointCoordinator cannot write _metadata: FINALIZE_CHECKPOINT_FAILURE,
//	                                              the checkpoint aborted and its chk-N deleted, not counted; the job runs on
//
// Killing a TaskManager (MiniCluster.KillTaskManager, or kill -9 of a
// TaskManager process) while a checkpoint is pending is the same failure
// as k5's taskexecutor-dies-during-checkpoint, at a moment of the user's
// choosing; the kind makes it happen at the one moment that matters to a
// checkpoint, while acknowledgements are on their way. It is a kind of
// k5 because the acknowledgement is what the TaskManager was sending;
// its component is the TaskExecutor (Evidence.Component), not the
// checkpoint storage, and Explain names it.
//
// Not every step of a checkpoint has a fault of its own: a source whose
// snapshot (k3) fails declines the checkpoint, as any task does, and the
// decline shows at k5; a notification of a completed checkpoint (k7)
// fails only in what a transactional sink does with it. Those steps have
// no injection point.
//
// A fault fires once by default, Times times if set, or on every pass with
// Always; with After it first lets that many passes of its step go by (a
// TaskManager that dies at the fifth deployment, once the job's first
// tasks run or, in a BATCH job, have finished). The components ask the Injector at their step (Fire) and, when it
// says so, fail exactly as they would if the thing had really gone wrong:
// the same error, the same log line, the same recovery. They ask only where
// the real failure would come from, after the checks the component makes
// first: a submission that is a true duplicate (m3), a slot offer with a
// stale fencing token or from an unregistered TaskManager (m8), a task for
// a JobMaster that is no longer leader or a slot the job does not hold
// (m9) is refused as it would be without the fault, which stays armed.
// Nothing else about them changes, so a run with a fault is a real run of
// the real code.
//
// Some kinds make the real failure happen rather than report it. For
// max-parallelism-exceeded the JobMaster builds the ExecutionGraph from a
// copy of the JobGraph in which the widest vertex has half its parallelism
// as max parallelism, as if the program had set it so and the job had been
// rescaled (flink run -p) past it; the ExecutionGraph's own check then
// fails with Flink's JobException. A job whose every vertex has
// parallelism 1 cannot be past any max parallelism, so there it does not
// fire. For slot-sharing-group-too-large the JobMaster builds and schedules
// the job from a copy of the JobGraph in which the slot sharing group of
// the first vertex has 16 CPU cores, 256 MB of task heap and 128 MB of
// managed memory, as if the program had set them (a typo in setCpuCores,
// a size in the wrong unit); no TaskManager has that much, and the
// SlotManager's matching, step m7, is where the job breaks, although the
// JobMaster, where the program's resources enter the runtime, applies it.
// Where one step breaks in two places (m4: the JobMaster's creation, then
// its start; m7: the JobMaster's creation, then the SlotManager), each
// place asks only for its own kind (FireKind), and Fire, the step's usual
// question, never fires a kind asked for by name elsewhere.
//
// A checkpoint's faults fire where the real failure would come from, as
// the submission's do. k1 drops the triggerCheckpoint RPCs of a checkpoint
// that has sources to trigger. k2 is asked by the Task of a RUNNING source
// that would take the checkpoint, and sends it down the decline path of a
// task that is not running. k4 is asked by a task with more than one open
// input channel for an aligned barrier of a checkpoint it has not taken.
// k5's storage-write-fails is asked by a task's asynchronous part that
// writes state into a checkpoint directory, and k6 by the
// CheckpointCoordinator that writes a checkpoint's _metadata: with
// JobManagerCheckpointStorage (no state.checkpoints.dir) nothing is
// written, and neither fires. k5's taskexecutor-dies-during-checkpoint is
// asked by the TaskExecutor as a task's acknowledgement leaves it. The
// errors are Flink's (the file system output stream that cannot be
// flushed and closed, "Could not materialize checkpoint …", the declines'
// reasons), and the failures take Flink's path through the
// CheckpointFailureManager: expired and asynchronous failures count
// against execution.checkpointing.tolerable-failed-checkpoints, a task
// that is not ready, a failed _metadata and a failed task do not.
//
// Parse reads the short form used by `make run INJECT=m9`, the flink CLI's
// --inject and POST /cluster/faults,
// STEP[:KIND][,times=N|always][,after=N][,job=JOBID]: "m9",
// "m10:jar-corrupted", "m8:slot-offer-timeout,times=2", "m9,after=4",
// "m11,times=always,job=3f0e…", "k4,after=4". String prints a Fault in
// the same form.
//
// # Diagnosis
//
// Diagnose reads a job's trace the way an engineer reads the logs: it finds
// the first step that broke and names the component to dig into, with what
// happened and where to look. Explain then reads the cluster's log (the
// records a LogCapture kept, next to the handler that prints the log): it
// finds which kind of failure of that step the log shows, names its cause
// in the words of Flink's log lines, and quotes the three to five lines
// that prove it, each labelled with the log it is in, the JobManager's or a
// TaskManager's. A checkpoint that expired reads the same in the log
// whether its triggers were lost (k1) or an alignment hung (k4): Flink
// logs no more than the expiry and what followed. The trace tells the two
// apart, as the checkpoint's statistics do in Flink (GET
// /jobs/<jobid>/checkpoints: how many subtasks acknowledged the failed
// checkpoint), and the diagnosis says so:
//
//	diagnosis: step m10 — BlobServer/BlobCache: the jar reached the TaskManager damaged: …
//	  where to look: the TaskManager log: the cause under "Failed to fetch BLOB … No retries left." …
//	  the log lines that prove it:
//	    TaskManager  10:33:34,556 ERROR BlobClient [] - Failed to fetch BLOB f02f…/p-f91a… … No retries left.
//	                 Detected data corruption during transfer …
//	    TaskManager  10:33:34,557 WARN  Task [] - Source: … switched from DEPLOYING to FAILED with failure cause: Failed to fetch BLOB … No retries left.
//	    …
//
// What the log shows for each kind is data (evidence.go): an Evidence holds
// the cause, where to look, and Clues, each a component's logger and a
// pattern of the line it writes. EvidenceFor returns it and Find picks the
// proving lines from a log's records, so that a log-detective drill can
// ask a learner to find the same lines, and check the one they found with
// Clue.Matches. The FaultInjector's own lines are never evidence: a real
// cluster does not write them. Where the kinds of a step can leave the
// same lines (a slot offer that a newer offer replaced, m8), EvidenceFor
// with the empty kind says what the log shows of either.
//
// # Differs from Flink
//
// Flink has no fault injection; what differs is how a fault meets the
// runtime. Triggers lost on their way (k1) end here in the checkpoint's
// expiry, whatever the timeouts. Flink's CheckpointCoordinator waits for
// the answers to its trigger RPCs, and one that never comes fails after
// pekko.ask.timeout (10 s): the checkpoint is aborted with
// TRIGGER_CHECKPOINT_FAILURE, which does not count, unless
// execution.checkpointing.timeout is shorter (package checkpoint). What
// k1 shows is Flink's path of a checkpoint that no source takes although
// its trigger arrived: a source stuck in user code or in a blocking call.
package fault
