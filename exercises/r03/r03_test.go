// Package r03 is the scenario of exercise r03, "Predict, then run": a job
// that needs one slot more than the cluster has, submitted through the
// REST API. Its trace of steps m1…m11 goes to the test's log, for
// `go run ./tools/learn check r03` to lay next to the learner's
// prediction.
package r03

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/minicluster"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutor's "class path"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/tracediff"
)

// The scenario's cluster and job, as the README describes them.
const (
	// taskManagers is how many TaskManagers the cluster has, each with one
	// slot (taskmanager.numberOfTaskSlots: 1).
	taskManagers = 4
	// parallelism is the job's, given with the run request.
	parallelism = 5
	// startUpPeriod is resourcemanager.standalone.start-up-time, Flink's
	// default: how long a standalone ResourceManager waits for
	// TaskManagers before it tells a job that its requirements cannot be
	// met.
	startUpPeriod = 5 * time.Minute
	// slotRequestTimeout is slot.request.timeout, set above the start-up
	// period so that the ResourceManager speaks first.
	slotRequestTimeout = 10 * time.Minute
)

// TestSubmissionWithOneSlotTooFew is the run the learner predicts. A
// cluster of four TaskManagers with one slot each, just started; a client
// that uploads WordCount's jar and runs it at parallelism 5, as the Web
// UI's "Submit New Job" page does; the job ends, and the trace goes to the
// test's log.
//
// The cluster runs in a synctest bubble, where waiting takes no time, and
// every wait is for the next thing to happen, so every run gives the same
// trace, counted as a prediction is checked (TestEveryRunCountsTheSame).
func TestSubmissionWithOneSlotTooFew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { submitWithOneSlotTooFew(t) })
}

// submitWithOneSlotTooFew runs the scenario inside a synctest bubble and
// returns the job's trace.
func submitWithOneSlotTooFew(t *testing.T) []trace.Event {
	cluster, logs := scenario.Cluster(t, minicluster.Config{
		NumTaskManagers:        taskManagers,
		NumSlotsPerTaskManager: 1,
		StartUpPeriod:          startUpPeriod,
		SlotRequestTimeout:     slotRequestTimeout,
	})
	restEndpoint := startEndpoint(t, cluster, logs)
	start := time.Now()

	// The client uploads WordCount's jar: POST /jars/upload (step m1)…
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	jarID := restEndpoint.uploadJar("WordCount.jar", jar)

	// …and runs it at parallelism 5: POST /jars/{jarid}/run (step m2).
	// The answer, the JobID, comes once the Dispatcher has accepted the
	// job (step m3).
	jobID := restEndpoint.runJar(jarID, parallelism)

	// The Dispatcher answers when the job has reached a terminal state.
	result, err := cluster.RequestJobResult(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobFailed, result.JobStatus)
	assert.Contains(t, result.FailureCause, "NoResourceAvailableException: Could not acquire the minimum required resources.")
	waited := time.Since(start)
	assert.True(t, waited >= startUpPeriod && waited < slotRequestTimeout,
		"the ResourceManager ends the wait when its start-up period is over, not the job's slot request timeout: %v", waited)
	assert.Contains(t, logs.String(), "Could not fulfill resource requirements of job "+jobID.String()+".")
	assert.Contains(t, logs.String(), "Could not acquire the minimum required resources, failing slot requests.")
	return cluster.Trace().JobEvents(jobID)
}

// Every run of the scenario gives the same trace, counted as a prediction
// is checked: each message as many times, and the messages first happening
// in the same order. (Row for row the runs differ: the TaskExecutors'
// offers interleave with the SlotManager's requests as the goroutines
// run.)
func TestEveryRunCountsTheSame(t *testing.T) {
	const runs = 5
	var first []tracediff.Counted
	for i := range runs {
		var events []trace.Event
		synctest.Test(t, func(t *testing.T) { events = submitWithOneSlotTooFew(t) })
		counted := tracediff.Count(asTracediff(events))
		if i == 0 {
			first = counted
			continue
		}
		if d := tracediff.FirstCountDifference(counted, first); d >= 0 {
			t.Fatalf("run %d differs from run 1:\n%s", i+1, tracediff.RenderCounts(counted, first, tracediff.Options{
				LeftTitle: fmt.Sprintf("run %d", i+1), RightTitle: "run 1",
			}))
		}
	}
}

// asTracediff turns the runtime's trace events into tracediff's.
func asTracediff(events []trace.Event) []tracediff.Event {
	out := make([]tracediff.Event, len(events))
	for i, e := range events {
		out[i] = tracediff.Event{Step: string(e.Step), From: e.From, To: e.To, Message: e.Message, JobID: e.JobID.String(), Failed: e.Failed}
	}
	return out
}

// TestReferenceIsHonest runs the scenario in a process of its own, as
// `learn check` does, and proves with tracediff.VerifyPrediction that the
// reference prediction matches the trace that really happens, and that
// the table of a clean submission, a swapped pair of messages and a wrong
// count do not.
func TestReferenceIsHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scenario in a second process")
	}
	// The test binary itself, asked to run the scenario only.
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSubmissionWithOneSlotTooFew$", "-test.v", "-test.count=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	reference, err := os.ReadFile("../../solutions/r03/reference.txt")
	require.NoError(t, err)
	require.NoError(t, tracediff.VerifyPrediction(bytes.NewReader(out), bytes.NewReader(reference)))
}

// The trace lines the scenario writes are the ones tracediff looks for.
func TestTracePrefixesAgree(t *testing.T) {
	assert.Equal(t, scenario.TracePrefix, tracediff.TracePrefix)
}
