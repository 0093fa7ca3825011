package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
)

// `flink list -a` groups the jobs as Flink's CliFrontend does, each group
// in the order the jobs started.
func TestJobListPrintsFlinkListsGroups(t *testing.T) {
	at := func(clock string) int64 {
		t.Helper()
		ts, err := time.Parse("2006-01-02 15:04:05", "2026-11-30 "+clock)
		require.NoError(t, err)
		return ts.UnixMilli()
	}
	job := func(id, name string, state api.JobStatus, start int64) client.JobStatusMessage {
		t.Helper()
		jobID, err := api.ParseJobID(strings.Repeat(id, 32))
		require.NoError(t, err)
		return client.JobStatusMessage{JobID: jobID, JobName: name, JobState: state, StartTime: start}
	}
	jobs := []client.JobStatusMessage{
		job("b", "Ticker", api.JobRunning, at("10:05:00")),
		job("c", "WordCount", api.JobFailed, at("09:00:00")),
		job("a", "Ticker", api.JobRestarting, at("10:00:00")),
		job("d", "WordCount", api.JobInitializing, at("10:07:30")),
	}

	var all strings.Builder
	client.JobList{Running: true, Scheduled: true, Terminated: true}.Print(&all, jobs, time.UTC)
	assert.Equal(t, ""+
		"------------------ Running/Restarting Jobs -------------------\n"+
		"30.11.2026 10:00:00 : "+strings.Repeat("a", 32)+" : Ticker (RESTARTING)\n"+
		"30.11.2026 10:05:00 : "+strings.Repeat("b", 32)+" : Ticker (RUNNING)\n"+
		"--------------------------------------------------------------\n"+
		"----------------------- Scheduled Jobs -----------------------\n"+
		"30.11.2026 10:07:30 : "+strings.Repeat("d", 32)+" : WordCount (INITIALIZING)\n"+
		"--------------------------------------------------------------\n"+
		"---------------------- Terminated Jobs -----------------------\n"+
		"30.11.2026 09:00:00 : "+strings.Repeat("c", 32)+" : WordCount (FAILED)\n"+
		"--------------------------------------------------------------\n", all.String())

	var none strings.Builder
	client.JobList{Running: true, Scheduled: true, Terminated: true}.Print(&none, nil, time.UTC)
	assert.Equal(t, "No running jobs.\nNo scheduled jobs.\n", none.String(), "an empty terminated group prints nothing")
}
