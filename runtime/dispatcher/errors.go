package dispatcher

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// JobSubmissionError is Flink's JobSubmissionException: the Dispatcher
// refused a job, and nothing was persisted.
type JobSubmissionError struct {
	JobID   api.JobID
	Message string
	Cause   error
}

func (e *JobSubmissionError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("JobSubmissionException: %s: %v", e.Message, e.Cause)
	}
	return "JobSubmissionException: " + e.Message
}

func (e *JobSubmissionError) Unwrap() error { return e.Cause }

// DuplicateJobSubmissionError is Flink's DuplicateJobSubmissionException, a
// JobSubmissionException: a job with this JobID is running, or has already
// reached a globally terminal state (GloballyTerminated).
type DuplicateJobSubmissionError struct {
	JobID              api.JobID
	GloballyTerminated bool
}

func (e *DuplicateJobSubmissionError) Error() string {
	return "DuplicateJobSubmissionException: Job has already been submitted."
}

func jobNotFound(jobID api.JobID) error {
	return fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, jobID)
}
