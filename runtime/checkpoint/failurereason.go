package checkpoint

import "errors"

// CheckpointFailureReason says why a checkpoint did not complete (Flink's
// CheckpointFailureReason): its name, its message, and whether it failed
// before it was triggered at all (pre-flight).
type CheckpointFailureReason struct {
	Name      string
	Message   string
	PreFlight bool
}

func (r CheckpointFailureReason) String() string { return r.Name }

// The reasons flinklab gives, with Flink's names and messages.
var (
	PeriodicSchedulerShutdown      = CheckpointFailureReason{"PERIODIC_SCHEDULER_SHUTDOWN", "Periodic checkpoint scheduler is shut down.", true}
	TooManyCheckpointRequests      = CheckpointFailureReason{"TOO_MANY_CHECKPOINT_REQUESTS", "The maximum number of queued checkpoint requests exceeded", true}
	MinimumTimeBetweenCheckpoints  = CheckpointFailureReason{"MINIMUM_TIME_BETWEEN_CHECKPOINTS", "The minimum time between checkpoints is still pending. Checkpoint will be triggered after the minimum time.", true}
	NotAllRequiredTasksRunning     = CheckpointFailureReason{"NOT_ALL_REQUIRED_TASKS_RUNNING", "Not all required tasks are currently running.", true}
	IOException                    = CheckpointFailureReason{"IO_EXCEPTION", "An Exception occurred while triggering the checkpoint. IO-problem detected.", true}
	CheckpointAsyncException       = CheckpointFailureReason{"CHECKPOINT_ASYNC_EXCEPTION", "Asynchronous task checkpoint failed.", false}
	CheckpointExpired              = CheckpointFailureReason{"CHECKPOINT_EXPIRED", "Checkpoint expired before completing.", false}
	CheckpointSubsumed             = CheckpointFailureReason{"CHECKPOINT_SUBSUMED", "Checkpoint has been subsumed.", false}
	CheckpointDeclined             = CheckpointFailureReason{"CHECKPOINT_DECLINED", "Checkpoint was declined.", false}
	CheckpointDeclinedTaskNotReady = CheckpointFailureReason{"CHECKPOINT_DECLINED_TASK_NOT_READY", "Checkpoint was declined (tasks not ready)", false}
	CheckpointDeclinedTaskClosing  = CheckpointFailureReason{"CHECKPOINT_DECLINED_TASK_CLOSING", "Checkpoint was declined (task is closing)", false}
	CheckpointDeclinedSubsumed     = CheckpointFailureReason{"CHECKPOINT_DECLINED_SUBSUMED", "Checkpoint was canceled because a barrier from newer checkpoint was received.", false}
	CheckpointDeclinedInputEnd     = CheckpointFailureReason{"CHECKPOINT_DECLINED_INPUT_END_OF_STREAM", "Checkpoint was declined because one input stream is finished", false}
	CheckpointCoordinatorShutdown  = CheckpointFailureReason{"CHECKPOINT_COORDINATOR_SHUTDOWN", "CheckpointCoordinator shutdown.", false}
	CheckpointCoordinatorSuspend   = CheckpointFailureReason{"CHECKPOINT_COORDINATOR_SUSPEND", "Checkpoint Coordinator is suspending.", false}
	FinalizeCheckpointFailure      = CheckpointFailureReason{"FINALIZE_CHECKPOINT_FAILURE", "Failure to finalize checkpoint.", false}
	TriggerCheckpointFailure       = CheckpointFailureReason{"TRIGGER_CHECKPOINT_FAILURE", "Trigger checkpoint failure.", false}
	TaskFailure                    = CheckpointFailureReason{"TASK_FAILURE", "Task has failed.", false}
	TaskCheckpointFailure          = CheckpointFailureReason{"TASK_CHECKPOINT_FAILURE", "Task local checkpoint failure.", false}
)

// ErrCheckpoint is wrapped by every CheckpointException.
var ErrCheckpoint = errors.New("CheckpointException")

// CheckpointException is a checkpoint's failure: its reason and, maybe, a
// cause (Flink's CheckpointException). It crosses processes as text (a
// task's decline carries it to the JobMaster); ReasonOf finds the reason
// again by its message.
type CheckpointException struct {
	Reason CheckpointFailureReason
	Cause  error
}

func (e *CheckpointException) Error() string {
	if e.Cause == nil {
		return e.Reason.Message
	}
	return e.Reason.Message + " Caused by: " + e.Cause.Error()
}

func (e *CheckpointException) Unwrap() []error { return []error{ErrCheckpoint, e.Cause} }

// NewCheckpointException returns the failure of reason, with cause (may be nil).
func NewCheckpointException(reason CheckpointFailureReason, cause error) *CheckpointException {
	return &CheckpointException{Reason: reason, Cause: cause}
}

// allReasons lists the reasons ReasonOf knows.
var allReasons = []CheckpointFailureReason{
	PeriodicSchedulerShutdown, TooManyCheckpointRequests, MinimumTimeBetweenCheckpoints, NotAllRequiredTasksRunning,
	IOException, CheckpointAsyncException, CheckpointExpired, CheckpointSubsumed, CheckpointDeclined,
	CheckpointDeclinedTaskNotReady, CheckpointDeclinedTaskClosing, CheckpointDeclinedSubsumed, CheckpointDeclinedInputEnd,
	CheckpointCoordinatorShutdown, CheckpointCoordinatorSuspend, FinalizeCheckpointFailure, TriggerCheckpointFailure,
	TaskFailure, TaskCheckpointFailure,
}

// ReasonOf returns the reason whose Name, or else whose Message, is s: a
// task's decline names its reason, and the JobMaster finds it again.
func ReasonOf(s string) (CheckpointFailureReason, bool) {
	for _, r := range allReasons {
		if r.Name == s {
			return r, true
		}
	}
	for _, r := range allReasons {
		if r.Message == s {
			return r, true
		}
	}
	return CheckpointFailureReason{}, false
}
