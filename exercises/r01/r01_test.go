// Package r01 is the scenario of reading exercise r01: one job uploaded
// and run through the REST API of a MiniCluster, the cluster of `make
// run`. While it runs, the runtime records the causal stack of every
// hand-over (rpc.RecordCauses); when it ends, the ways the run took from
// the REST handler to the JobMaster's start go to the test's log, where
// `go run ./tools/learn check r01` finds them: a chain is right only if
// this run took it.
package r01

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutor's "class path"
)

// programClass names the scenario's program, in its jar's manifest and in
// the program registry.
const programClass = "flinklab.exercises.r01.Whisper"

// whispered is the job's sink: the runtime plans the program again in the
// task, so the sink must be found at package level.
var whispered streaming.CollectSink[string]

func init() { streaming.RegisterProgram(programClass, whisper) }

// whisper is the job: three words, lower-cased, collected.
func whisper(env *streaming.StreamExecutionEnvironment, _ []string) error {
	words := streaming.FromElements(env, "FOLLOW", "THE", "CALLS").Name("words")
	streaming.Map(words, strings.ToLower).Name("whisper").CollectAsync(&whispered).Name("collect")
	return env.Execute("r01")
}

// TestScenario uploads the job's jar (POST /jars/upload) and runs it
// (POST /jars/{jarid}/run), as the web UI's "Submit New Job" page does,
// on a MiniCluster with one TaskManager, and waits until it is FINISHED.
func TestScenario(t *testing.T) {
	scenario.RecordRunPaths(t)
	cluster, logs := scenario.RESTCluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 1})
	whispered.Clear()
	ctx := t.Context()

	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, programClass, nil))
	rc := client.NewRestClusterClient(cluster.RESTAddress())
	jarID, err := rc.UploadJar(ctx, "r01.jar", jar.Bytes())
	require.NoError(t, err)
	jobID, err := rc.RunJar(ctx, jarID, client.JarRunRequest{Parallelism: 1})
	require.NoError(t, err)

	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	require.Equal(t, api.JobFinished, result.JobStatus, "%s\n%s", result.FailureCause, logs)
	require.Equal(t, []string{"follow", "the", "calls"}, whispered.Values())
}
