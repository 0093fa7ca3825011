// Package r03 is the scenario of exercise r03, "Predict, then run": one job
// submitted through the REST API, run to FINISHED, its trace of steps
// m1…m11 written to the test's log for `go run ./tools/learn check r03` to
// lay next to the learner's prediction.
package r03

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutor's "class path"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/tracediff"
)

// programClass names the scenario's program, in its jar's manifest and in
// the program registry.
const programClass = "flinklab.exercises.r03.Shout"

// shouted is the job's sink: the runtime plans the program again in the
// task, so the sink must be found at package level.
var shouted streaming.CollectSink[string]

func init() { streaming.RegisterProgram(programClass, shout) }

// shout is the job: three words, upper-cased, collected. Source, map and
// sink are joined by forward edges at the same parallelism, so chaining
// makes them one task, "Source: words -> shout -> Sink: collect"; at
// parallelism 1 that is one subtask in one slot, and each step of the
// submission happens exactly once.
func shout(env *streaming.StreamExecutionEnvironment, _ []string) error {
	words := streaming.FromElements(env, "predict", "then", "run").Name("words")
	streaming.Map(words, strings.ToUpper).Name("shout").CollectAsync(&shouted).Name("collect")
	return env.Execute("r03")
}

// TestSubmissionTrace is the run the learner predicts. A cluster of one
// TaskManager with one slot and a REST endpoint; a client that uploads the
// job's jar and runs it, as the Web UI's "Submit New Job" page does; the
// job runs to FINISHED; each of the eleven steps happened once. When the
// test ends, the trace goes to the test's log.
//
// The REST endpoint listens on a real socket, so the test runs outside a
// synctest bubble (see scenario.RESTCluster). It still never sleeps: it
// waits for the Dispatcher's answer, and each step is caused by the one
// before it, so the trace comes out in the same order on every run.
func TestSubmissionTrace(t *testing.T) {
	cluster, logs := scenario.RESTCluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 1})
	shouted.Clear()
	ctx := t.Context()

	// The client packages the program into a jar…
	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, programClass, nil))
	rc := client.NewRestClusterClient(cluster.RESTAddress())

	// …uploads it: POST /jars/upload (step m1)…
	jarID, err := rc.UploadJar(ctx, "r03.jar", jar.Bytes())
	require.NoError(t, err)

	// …and runs it: POST /jars/{jarid}/run (step m2). The answer, the
	// JobID, comes once the Dispatcher has accepted the job (step m3);
	// steps m4…m11 follow inside the cluster.
	jobID, err := rc.RunJar(ctx, jarID, client.JarRunRequest{Parallelism: 1})
	require.NoError(t, err)

	// The Dispatcher answers when the job has reached a terminal state.
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	require.Equal(t, api.JobFinished, result.JobStatus, "%s\n%s", result.FailureCause, logs)
	assert.Equal(t, []string{"PREDICT", "THEN", "RUN"}, shouted.Values())

	events := cluster.Trace().JobEvents(jobID)
	assert.Empty(t, trace.Failures(events), "no step broke")
	for n := 1; n <= 11; n++ {
		step := trace.Step(fmt.Sprintf("m%d", n))
		assert.Equal(t, 1, trace.Count(events, step), "step %s happens once in %v", step, trace.Steps(events))
	}
}

// TestReferenceIsHonest runs the scenario in a process of its own, as
// `learn check` does, and proves with tracediff.VerifyPrediction that the
// reference prediction matches the trace that really happens, and that
// swapping any two neighbouring messages of it does not.
func TestReferenceIsHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scenario in a second process")
	}
	// The test binary itself, asked to run the scenario only.
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSubmissionTrace$", "-test.v", "-test.count=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	reference, err := os.Open("../../solutions/r03/reference.txt")
	require.NoError(t, err)
	defer reference.Close()
	require.NoError(t, tracediff.VerifyPrediction(bytes.NewReader(out), reference))
}

// The trace lines the scenario writes are the ones tracediff looks for.
func TestTracePrefixesAgree(t *testing.T) {
	assert.Equal(t, scenario.TracePrefix, tracediff.TracePrefix)
}
