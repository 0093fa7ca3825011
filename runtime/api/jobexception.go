package api

// JobException is Flink's org.apache.flink.runtime.JobException: the error
// a job fails with when it cannot be built (a parallelism above the max
// parallelism) or will not be restarted, wrapping the failure that caused
// it, so errors.Is and errors.As reach it. Package failover, which decides
// about restarts, calls it failover.JobException.
type JobException struct {
	Message string
	Cause   error
}

func (e *JobException) Error() string {
	if e.Cause == nil {
		return "JobException: " + e.Message
	}
	return "JobException: " + e.Message + ": " + e.Cause.Error()
}

func (e *JobException) Unwrap() error { return e.Cause }
