package heartbeat

// What a component logs, and puts into the cause of the disconnect, when a
// heartbeat target is lost. They are fmt formats for the target's
// ResourceID, worded as in Flink's heartbeat listeners (inner classes of
// JobMaster, ResourceManager and TaskExecutor), which log them at INFO and
// then close the connection to the target with the message as the cause.
const (
	// TaskManagerTimedOutAtJobMaster is the JobMaster's
	// (TaskManagerHeartbeatListener) message, wrapped in a TimeoutException;
	// the JobMaster then logs "Disconnect TaskExecutor {} because: {}" and
	// releases the TaskExecutor's slots. Unlike the others it has no "The".
	TaskManagerTimedOutAtJobMaster = "Heartbeat of TaskManager with id %s timed out."
	// TaskManagerTimedOut is the ResourceManager's message for a
	// TaskExecutor, followed by "Closing TaskExecutor connection {} because: {}".
	TaskManagerTimedOut = "The heartbeat of TaskManager with id %s timed out."
	// JobManagerTimedOut is logged by the ResourceManager (followed by
	// "Disconnect job manager {}@{} for job {} from the resource manager.")
	// and by the TaskExecutor, which then fails the job's tasks with
	// "Disconnect from JobManager responsible for <jobId>.".
	JobManagerTimedOut = "The heartbeat of JobManager with id %s timed out."
	// ResourceManagerTimedOut is logged by the JobMaster and the
	// TaskExecutor; both then reconnect to the ResourceManager.
	ResourceManagerTimedOut = "The heartbeat of ResourceManager with id %s timed out."

	// TaskManagerUnreachable is the JobMaster's (as a JobMasterException)
	// and the ResourceManager's (as a ResourceManagerException) message
	// when heartbeat RPCs to a TaskExecutor keep failing.
	TaskManagerUnreachable = "TaskManager with id %s is no longer reachable."
	// JobManagerUnreachable is the ResourceManager's and the
	// TaskExecutor's message for an unreachable JobMaster.
	JobManagerUnreachable = "JobManager with id %s is no longer reachable."
	// ResourceManagerUnreachable is the JobMaster's and the TaskExecutor's
	// message for an unreachable ResourceManager.
	ResourceManagerUnreachable = "ResourceManager with id %s is no longer reachable."
)
