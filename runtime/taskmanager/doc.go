// Package taskmanager holds the Task: one attempt of one subtask, running
// in a slot of a TaskExecutor. It mirrors Flink's
// org.apache.flink.runtime.taskmanager.Task and the pieces the Task hands
// its code:
//
//	Task                 → Task               (one subtask attempt and its thread)
//	Invokable            → AbstractInvokable  (the code the task runs; in practice a StreamTask)
//	Environment          → RuntimeEnvironment (what the invokable gets: ids, jars, partitions, gates)
//	TaskManagerActions   → TaskManagerActions (how a task reports to its TaskExecutor)
//	PermanentBlobService → PermanentBlobService (where the job's jars come from)
//
// The lesson "TaskManager and the slot model" teaches it together with
// runtime/taskexecutor, which creates the tasks.
//
// # A task's life
//
// The JobMaster deploys a task with TaskExecutorGateway.SubmitTask (step
// m9). The TaskExecutor checks the deployment, creates a Task from the
// TaskDeploymentDescriptor and calls Start, which launches the task's own
// goroutine (Flink's task thread). That goroutine does, in Flink's order
// (Task#doRun):
//
//  1. CREATED → DEPLOYING.
//  2. "Loading JAR files for task <name>.": every jar of the job is fetched
//     through the TaskExecutor's BlobCache and checked against its key
//     (step m10). A missing or corrupted jar fails the task.
//  3. The invokable class is resolved by name; an unknown name fails the
//     task with "Could not load the task's invokable class.".
//  4. The produced partitions, each of its descriptor's type
//     (PIPELINED_BOUNDED or BLOCKING), and the input gates are created
//     through the ShuffleEnvironment; creating a partition registers it, so
//     the consumers can find it.
//  5. The invokable is created with its Environment.
//  6. DEPLOYING → INITIALIZING, then Restore: state is restored and the
//     operators are opened. An operator whose open fails takes the task
//     from INITIALIZING to FAILED (since Flink 1.13).
//  7. INITIALIZING → RUNNING (step m11: the operators are open and the
//     JobMaster learns the task runs), then Invoke processes records until
//     the inputs end. User code that fails here takes the task from
//     RUNNING to FAILED.
//  8. The partitions are finished (consumers read EndOfPartition; a
//     blocking partition's files are complete and readable now), then
//     RUNNING → FINISHED.
//
// The states, with the moves a Task makes (see api.ExecutionState):
//
//	CREATED ─► DEPLOYING ─► INITIALIZING ─► RUNNING ─► FINISHED
//	   │           │              │             │
//	   └───────────┴──────────────┴─────────────┴──► CANCELING ─► CANCELED
//	DEPLOYING | INITIALIZING | RUNNING ─► CANCELED     a CancelTaskException
//	any state that is not terminal ─► FAILED
//
// Every transition is checked (an illegal one is a bug and panics), logged
// in Flink's words ("Map (2/4)#0 (<attempt>) switched from DEPLOYING to
// INITIALIZING.", and at WARN "... switched from INITIALIZING to FAILED with
// failure cause: <err>"), and reported through TaskManagerActions. The
// final state is reported once the task's resources are released, and Done
// is closed right after.
//
// When the task ends, its input gates are closed. The partitions of a task
// that failed are failed, so their consumers stop with the cause; those of
// a cancelled task are released; either way a blocking partition's files
// are deleted. A finished task's partitions stay: a pipelined one until
// its consumers have read it, a blocking one, which may be read any number
// of times, until the TaskExecutor releases it (see package taskexecutor).
//
// # Cancelling and failing from outside
//
// Cancel (the JobMaster cancels the task) moves a running task to CANCELING
// and cancels the ctx its invokable runs with; the task reaches CANCELED
// when its goroutine notices. FailExternally (the slot is freed, the
// JobManager is gone) moves it straight to FAILED with the given cause. A
// task that has not started yet goes through CANCELING to CANCELED at once
// (or straight to FAILED).
//
// A task whose code returns ErrCancelTaskException (Flink's
// CancelTaskException) cancels itself: it goes from DEPLOYING,
// INITIALIZING or RUNNING straight to CANCELED, logged at INFO as
//
//	Map (2/4)#0 (<attempt>) switched from RUNNING to CANCELED due to CancelTaskException.
//
// and the JobMaster hears CANCELED, not FAILED. So does a task whose input
// partition is released (its producer was cancelled), as Flink's
// LocalInputChannel throws a CancelTaskException then. A producer that
// failed fails its consumers.
//
// # Who may call what
//
// Start, Cancel, FailExternally and every getter may be called from any
// goroutine; State is a single atomic load. Restore and Invoke run on the
// task's goroutine only. The Task never touches its TaskExecutor's fields:
// it calls TaskManagerActions, whose implementation must not block (the
// TaskExecutor puts each report into its mailbox).
//
// # Differs from Flink
//
//   - Go has no class loading. Invokables are registered by class name with
//     RegisterInvokable (usually from an init function, like
//     database/sql.Register) and resolved when the task deploys. The job's
//     jars are still fetched and their local paths given to the invokable
//     in Environment.UserJarPaths.
//   - Cancellation is a context: the invokable must return when ctx ends.
//     Flink interrupts the task thread and, after
//     task.cancellation.timeout, kills the TaskManager; we have no
//     watchdog.
//   - A panic in user code fails the task (ErrUserCodePanicked), as Flink's
//     Task catches every Throwable of its invokable; so does a panic in the
//     Task's own run ("the task panicked: …"). A panic while the Task
//     handles a failure is logged as Flink logs it ("FATAL - exception in
//     exception handler of task …") and the task still ends FAILED, where
//     Flink would also terminate the TaskManager.
//   - The Task reports every transition to its TaskExecutor, DEPLOYING and
//     CANCELING too; the TaskExecutor forwards to the JobMaster only what
//     Flink's Task sends there (INITIALIZING, RUNNING and the final state).
//   - There is no ExecutionConfig to deserialize, no distributed cache, no
//     metrics and no accumulators.
package taskmanager
