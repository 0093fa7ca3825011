package gateway

import (
	"time"

	"flinklab/runtime/api"
)

// JobDetails is the short summary of a job that the jobs overview lists
// (Flink's JobDetails, in org.apache.flink.runtime.messages.webmonitor):
// enough to list the job, without its vertices and subtasks. The
// Dispatcher answers RequestMultipleJobDetails with one per job; its job
// store keeps them in memory for every ended job, while the graphs
// themselves may be on disk.
type JobDetails struct {
	JobID   api.JobID     `json:"jobId"`
	JobName string        `json:"jobName"`
	State   api.JobStatus `json:"state"`
	// StartTime is when the job became INITIALIZING, EndTime when it
	// reached State; zero if it never did.
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	// LastModification is the latest of the job's status changes.
	LastModification time.Time `json:"lastModification"`
	// NumTasks is the number of subtasks of all vertices, and
	// TasksPerState how many of them are in each ExecutionState.
	NumTasks      int                        `json:"numTasks"`
	TasksPerState map[api.ExecutionState]int `json:"tasksPerState"`
}

// JobDetailsOf summarizes a graph (Flink's JobDetails.createDetailsForJob).
func JobDetailsOf(g *ArchivedExecutionGraph) JobDetails {
	details := JobDetails{
		JobID:         g.JobID,
		JobName:       g.JobName,
		State:         g.State,
		StartTime:     g.StatusTimestamps[api.JobInitializing],
		EndTime:       g.StatusTimestamps[g.State],
		TasksPerState: make(map[api.ExecutionState]int),
	}
	for _, t := range g.StatusTimestamps {
		if t.After(details.LastModification) {
			details.LastModification = t
		}
	}
	for _, v := range g.Vertices {
		for _, subtask := range v.Subtasks {
			details.NumTasks++
			details.TasksPerState[subtask.State]++
		}
	}
	return details
}
