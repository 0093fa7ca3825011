package api

import "time"

// ApplicationStatus is how a finished job ended, as its JobResult reports
// it (Flink's org.apache.flink.runtime.clusterframework.ApplicationStatus).
type ApplicationStatus string

// The application statuses.
const (
	ApplicationSucceeded ApplicationStatus = "SUCCEEDED"
	ApplicationFailed    ApplicationStatus = "FAILED"
	ApplicationCanceled  ApplicationStatus = "CANCELED"
	ApplicationUnknown   ApplicationStatus = "UNKNOWN"
)

// ApplicationStatusOf maps a terminal JobStatus to its ApplicationStatus.
func ApplicationStatusOf(s JobStatus) ApplicationStatus {
	switch s {
	case JobFinished:
		return ApplicationSucceeded
	case JobFailed:
		return ApplicationFailed
	case JobCanceled:
		return ApplicationCanceled
	default:
		return ApplicationUnknown
	}
}

// JobResult is what remains of a job once it reached a globally terminal
// state (Flink's org.apache.flink.runtime.jobmaster.JobResult). The
// Dispatcher writes it to the JobResultStore, and a later submission with the
// same JobID is rejected because of it.
type JobResult struct {
	JobID             JobID             `json:"jobId"`
	JobName           string            `json:"jobName"`
	JobStatus         JobStatus         `json:"jobStatus"`
	ApplicationStatus ApplicationStatus `json:"applicationStatus"`
	NetRuntime        time.Duration     `json:"netRuntime"`
	// FailureCause is the error that failed the job, or "" when it did not
	// fail.
	FailureCause string `json:"failureCause,omitempty"`
}
