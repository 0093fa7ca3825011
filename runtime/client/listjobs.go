package client

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"flinklab/runtime/api"
)

// JobStatusMessage is what a client knows of one job from the cluster's
// overview (Flink's JobStatusMessage): enough to list it.
type JobStatusMessage struct {
	JobID     api.JobID     `json:"jid"`
	JobName   string        `json:"name"`
	JobState  api.JobStatus `json:"state"`
	StartTime int64         `json:"start-time"` // ms since the epoch
}

// JobsOverview is the part of GET /jobs/overview's answer a client lists
// (Flink's MultipleJobsDetails, read as JobStatusMessages).
type JobsOverview struct {
	Jobs []JobStatusMessage `json:"jobs"`
}

// ListJobs returns the cluster's jobs (GET /jobs/overview), as Flink's
// RestClusterClient#listJobs does.
func (c *RestClusterClient) ListJobs(ctx context.Context) ([]JobStatusMessage, error) {
	var overview JobsOverview
	err := c.do(ctx, http.MethodGet, "/jobs/overview", "", nil, &overview)
	return overview.Jobs, err
}

// JobList says which of the three groups of `flink list` to print.
// Without -r, -s or -a, Flink prints the running and the scheduled jobs.
type JobList struct {
	Running, Scheduled, Terminated bool
}

// Print prints jobs as Flink's CliFrontend#list does: grouped (CREATED and
// INITIALIZING jobs are scheduled, globally terminal ones terminated, all
// others running), each group sorted by start time, each job on a line
// "dd.MM.yyyy HH:mm:ss : <jobid> : <name> (<state>)" with its start time
// in loc. "No running jobs." and "No scheduled jobs." stand for an empty
// group; an empty terminated group prints nothing.
func (l JobList) Print(w io.Writer, jobs []JobStatusMessage, loc *time.Location) {
	var running, scheduled, terminated []JobStatusMessage
	for _, job := range jobs {
		switch {
		case job.JobState == api.JobCreated || job.JobState == api.JobInitializing:
			scheduled = append(scheduled, job)
		case job.JobState.IsGloballyTerminalState():
			terminated = append(terminated, job)
		default:
			running = append(running, job)
		}
	}
	group := func(title, none string, jobs []JobStatusMessage) {
		if len(jobs) == 0 {
			if none != "" {
				fmt.Fprintln(w, none)
			}
			return
		}
		fmt.Fprintln(w, title)
		slices.SortStableFunc(jobs, func(a, b JobStatusMessage) int { return cmp.Compare(a.StartTime, b.StartTime) })
		for _, job := range jobs {
			fmt.Fprintf(w, "%s : %s : %s (%s)\n",
				time.UnixMilli(job.StartTime).In(loc).Format("02.01.2006 15:04:05"), job.JobID, job.JobName, job.JobState)
		}
		fmt.Fprintln(w, "--------------------------------------------------------------")
	}
	if l.Running {
		group("------------------ Running/Restarting Jobs -------------------", "No running jobs.", running)
	}
	if l.Scheduled {
		group("----------------------- Scheduled Jobs -----------------------", "No scheduled jobs.", scheduled)
	}
	if l.Terminated {
		group("---------------------- Terminated Jobs -----------------------", "", terminated)
	}
}
