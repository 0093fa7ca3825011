//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/logging"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// checkInvariants checks invariants (a), (b) and (c) on the cluster c
// once the ticker is RUNNING again under leader, with details the
// leader's answer saying so.
func checkInvariants(t *testing.T, c *flinktest.HACluster, kill int, leader *flinktest.Process, jobID api.JobID, details rest.JobDetailsInfo) {
	t.Helper()
	// (a) Exactly one live JobManager's DefaultDispatcherRunner leads, by
	// its log, and it is the one ZooKeeper names.
	var leading []string
	for _, jm := range c.JobManagers {
		if !jm.Exited() && dispatcherRunnerLeads(t, jm) {
			leading = append(leading, jm.RPC())
		}
	}
	require.Equal(t, []string{leader.RPC()}, leading, "kill %d: the live JobManagers whose DefaultDispatcherRunner was granted the leadership and not revoked since", kill)

	// (b) The leader runs the ticker, under its JobID, every task RUNNING,
	// and no other job.
	require.Equal(t, jobID, details.JobID)
	require.True(t, flinktest.EveryTaskRunning(details), "kill %d: %s %v", kill, details.State, details.StatusCounts)
	jobs, err := leader.RestClient().ListJobs(context.Background())
	require.NoError(t, err)
	require.Len(t, jobs, 1, "kill %d: the leader's jobs: %+v", kill, jobs)
	assert.Equal(t, api.JobRunning, jobs[0].JobState, "kill %d", kill)

	// (c) One current attempt per subtask in the REST endpoint's vertex
	// view, and on the TaskManagers exactly one attempt per subtask that
	// has not reached a terminal state: RUNNING, of the leader's
	// ExecutionGraph, on the TaskManager the REST endpoint names.
	current := map[string]rest.SubtaskExecutionAttemptDetailsInfo{}
	for _, v := range details.Vertices {
		var vertex rest.JobVertexDetailsInfo
		require.NoError(t, leader.RestClient().SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/vertices/"+v.ID.String(), &vertex))
		require.Len(t, vertex.Subtasks, v.Parallelism, "kill %d: %s: one current attempt per subtask", kill, v.Name)
		for _, s := range vertex.Subtasks {
			name := fmt.Sprintf("%s (%d/%d)", v.Name, s.Subtask+1, v.Parallelism)
			require.NotContains(t, current, name, "kill %d: two current attempts of %s", kill, name)
			assert.Empty(t, s.OtherConcurrentAttempts, "kill %d: %s", kill, name)
			current[name] = s
		}
	}
	executionGraph := executionGraphOf(t, leader.LogPath(), jobID)
	live := liveAttempts(t, c.TaskManagers)
	require.Len(t, live, len(current), "kill %d: the subtasks with live attempts on the TaskManagers: %v", kill, live)
	for name, s := range current {
		attempts := live[name]
		require.Len(t, attempts, 1, "kill %d: the live attempts of %s on the TaskManagers", kill, name)
		assert.Equal(t, api.ExecutionRunning, attempts[0].state, "kill %d: %s", kill, name)
		assert.True(t, strings.HasPrefix(attempts[0].id, executionGraph+"_"), "kill %d: %s's live attempt %s is of the leader's ExecutionGraph %s", kill, name, attempts[0].id, executionGraph)
		assert.Equal(t, s.TaskManagerID, attempts[0].taskManager, "kill %d: %s runs where the REST endpoint says", kill, name)
	}
}

// logLines reads a process's log and returns its whole lines: a line the
// process is writing at that moment is left out.
func logLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	text = text[:strings.LastIndexByte(text, '\n')+1]
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// dispatcherRunnerLeads reports whether the JobManager's log says its
// DefaultDispatcherRunner was granted the leadership and not revoked
// since.
func dispatcherRunnerLeads(t testing.TB, jm *flinktest.Process) bool {
	t.Helper()
	leads := false
	for _, line := range logLines(t, jm.LogPath()) {
		switch {
		case strings.Contains(line, "DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id "):
			leads = true
		case strings.Contains(line, "DefaultDispatcherRunner [] - DefaultDispatcherRunner was revoked the leadership with leader id "):
			leads = false
		}
	}
	return leads
}

// executionGraphOf returns the ID of the ExecutionGraph the JobManager's
// JobMaster built last for the job: "Created execution graph EG for job
// JOBID.". Every attempt of its tasks has an ID that begins "EG_".
func executionGraphOf(t testing.TB, jobManagerLog string, jobID api.JobID) string {
	t.Helper()
	re := regexp.MustCompile(`JobMaster \[\] - Created execution graph (\S+) for job ` + jobID.String() + `\.$`)
	executionGraph := ""
	for _, line := range logLines(t, jobManagerLog) {
		if m := re.FindStringSubmatch(line); m != nil {
			executionGraph = m[1]
		}
	}
	require.NotEmpty(t, executionGraph, "no ExecutionGraph for job %s in %s", jobID, jobManagerLog)
	return executionGraph
}

// taskSwitch is a TaskManager's log line of a task that switched from
// one ExecutionState to another, e.g.
//
//	2026-12-02 06:44:48,832 INFO  Task [] - Source: sensor-events (1/2)#0 (61a6…_f93b…_0_0) switched from DEPLOYING to INITIALIZING.
//
// with the timestamp, the subtask's name (with its index), the attempt's
// ID, and both states.
var taskSwitch = regexp.MustCompile(`^(\S+ \S+) \w+ +Task \[\] - (.+ \(\d+/\d+\))#\d+ \((\S+)\) switched from ([A-Z]+) to ([A-Z]+)`)

// taskAttempt is one attempt of a subtask as a TaskManager's log tells it.
type taskAttempt struct {
	id          string
	state       api.ExecutionState
	taskManager string // the ResourceID of the TaskManager it is on
}

// liveAttempts reads the TaskManagers' logs and returns, by subtask
// ("NAME (i/n)"), its attempts that have not reached a terminal state.
// A terminal state is final: an attempt that reached one stays there,
// whatever line of it comes after.
func liveAttempts(t testing.TB, taskManagers []*flinktest.Process) map[string][]taskAttempt {
	t.Helper()
	type key struct{ subtask, id string }
	attempts := map[key]*taskAttempt{}
	var order []key
	for _, tm := range taskManagers {
		for _, line := range logLines(t, tm.LogPath()) {
			m := taskSwitch.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			var to api.ExecutionState
			require.NoError(t, to.UnmarshalText([]byte(m[5])), "%s: %s", tm, line)
			k := key{m[2], m[3]}
			a, ok := attempts[k]
			if !ok {
				a = &taskAttempt{id: m[3], taskManager: tm.ResourceID()}
				attempts[k] = a
				order = append(order, k)
			}
			if !a.state.IsTerminal() {
				a.state = to
			}
		}
	}
	live := map[string][]taskAttempt{}
	for _, k := range order {
		if a := attempts[k]; !a.state.IsTerminal() {
			live[k.subtask] = append(live[k.subtask], *a)
		}
	}
	return live
}

// logTime is the time a log line was written, from its timestamp
// ("2026-12-02 06:44:48,832", the local time, to the millisecond).
func logTime(t testing.TB, line string) time.Time {
	t.Helper()
	if len(line) < len(logging.TimeLayout) {
		t.Fatalf("no timestamp in log line %q", line)
	}
	ts, err := time.ParseInLocation(logging.TimeLayout, line[:len(logging.TimeLayout)], time.Local)
	require.NoError(t, err, "log line %q", line)
	return ts
}

// firstLogLine returns the first line of a log that contains s.
func firstLogLine(t testing.TB, path, s string) string {
	t.Helper()
	for _, line := range logLines(t, path) {
		if strings.Contains(line, s) {
			return line
		}
	}
	t.Fatalf("%s has no line %q", filepath.Base(path), s)
	return ""
}
