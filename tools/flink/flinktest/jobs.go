package flinktest

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/rest"
)

// submitted is what `flink run` prints once the Dispatcher took the job.
var submitted = regexp.MustCompile(`Job has been submitted with JobID ([0-9a-f]{32})`)

// SubmittedJobID returns the JobID `flink run` printed.
func SubmittedJobID(t testing.TB, stdout string) api.JobID {
	t.Helper()
	m := submitted.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no JobID in:\n%s", stdout)
	jobID, err := api.ParseJobID(m[1])
	require.NoError(t, err)
	return jobID
}

// SubmitDetached submits a job jar with `flink run -d` and returns its
// JobID.
func SubmitDetached(t testing.TB, bin, restAddress, jar string, parallelism int) api.JobID {
	t.Helper()
	return SubmittedJobID(t, Run(t, bin, "run", "-d", "-m", restAddress, "-p", strconv.Itoa(parallelism), jar))
}

// AwaitJob asks GET /jobs/{jobid} until done holds for the answer, and
// returns it. A job's state changes in the JobManager process, and only
// asking tells when; the polling is bounded by Timeout.
func AwaitJob(t testing.TB, rc *client.RestClusterClient, jobID api.JobID, what string, done func(rest.JobDetailsInfo) bool) rest.JobDetailsInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var details rest.JobDetailsInfo
		err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String(), &details)
		if err == nil && done(details) {
			return details
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: not %s within %v: state %s, tasks %v (last error: %v)", jobID, what, Timeout, details.State, details.StatusCounts, err)
		case <-tick.C:
		}
	}
}

// EveryTaskRunning says that the job is RUNNING and so is each of its
// tasks.
func EveryTaskRunning(d rest.JobDetailsInfo) bool {
	total := 0
	for _, v := range d.Vertices {
		total += v.Parallelism
	}
	return d.State == api.JobRunning && total > 0 && d.StatusCounts[api.ExecutionRunning] == total
}
