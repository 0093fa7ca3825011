package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// The client's actions against a MiniCluster with its REST endpoint: the
// same HTTP API a standalone cluster serves, with the whole cluster in the
// test's process, so that jobs run to the end (and --output collect
// works). REST is real HTTP, so these tests run on real time; every wait
// is bounded by actionTimeout.

const actionTimeout = 20 * time.Second

func startMiniCluster(t *testing.T) *minicluster.MiniCluster {
	t.Helper()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             t.TempDir(),
		REST:                   &rest.Config{},
		Logger:                 slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { assert.NoError(t, cluster.Close()) })
	return cluster
}

// flink runs the command line and returns its exit code, stdout and
// stderr.
func flink(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// writeJarOf writes a program's jar with the jar action.
func writeJarOf(t *testing.T, program string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), program+".jar")
	code, out, errOut := flink(t, "jar", program, "-o", path)
	require.Equal(t, 0, code, out+errOut)
	return path
}

func TestRunAttachedWaitsAndPrintsTheTraceAndTheResult(t *testing.T) {
	cluster := startMiniCluster(t)
	jar := writeJarOf(t, wordcount.ProgramClass)
	wordcount.Results.Clear()

	code, out, errOut := flink(t, "run", "-m", cluster.RESTAddress(), "-p", "2", jar, "--output", wordcount.OutputCollect)

	require.Equal(t, 0, code, out+errOut)
	jobID := flinktest.SubmittedJobID(t, out)
	assert.Contains(t, out, "Submission trace:")
	for _, step := range []string{" m1 ", " m2 ", " m3 ", " m4 ", " m7 ", " m9 ", " m10 ", " m11 "} {
		assert.Contains(t, out, step)
	}
	assert.NotContains(t, out, "Steps m9 to m11 happen on the TaskManagers", "one process: the trace has them")
	assert.Contains(t, out, "Program execution finished\nJob with JobID "+jobID.String()+" has finished.\nJob Runtime: ")
	assert.NotEmpty(t, wordcount.FinalCounts(wordcount.Results.Values()))
}

func TestRunAttachedReportsAFailedJob(t *testing.T) {
	cluster := startMiniCluster(t)
	jar := writeJarOf(t, wordcount.ProgramClass)

	code, out, errOut := flink(t, "run", "-m", cluster.RESTAddress(), jar, "--input", "no/such/resource.txt", "--output", wordcount.OutputCollect)

	assert.Equal(t, 1, code)
	jobID := flinktest.SubmittedJobID(t, out)
	assert.Contains(t, errOut, "The program finished with the following exception:")
	assert.Contains(t, errOut, "Job failed (JobID: "+jobID.String()+")\nCaused by: ")
	assert.Contains(t, errOut, "no/such/resource.txt")
}

func TestRunDetachedListAndCancel(t *testing.T) {
	cluster := startMiniCluster(t)
	jar := writeJarOf(t, ticker.ProgramClass) // unbounded: it runs until cancelled

	code, out, errOut := flink(t, "run", "-d", "-m", cluster.RESTAddress(), jar, "--output", ticker.OutputCollect)
	require.Equal(t, 0, code, out+errOut)
	jobID := flinktest.SubmittedJobID(t, out)
	assert.Equal(t, "Job has been submitted with JobID "+jobID.String()+"\n", out, "detached: nothing else")

	code, out, _ = flink(t, "list", "-m", cluster.RESTAddress())
	require.Equal(t, 0, code)
	assert.Regexp(t, `Waiting for response\.\.\.\n`, out)
	assert.Regexp(t, `\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d : `+jobID.String()+` : Ticker \((CREATED|INITIALIZING|RUNNING)\)`, out)

	code, out, errOut = flink(t, "cancel", "-m", cluster.RESTAddress(), jobID.String())
	require.Equal(t, 0, code, out+errOut)
	assert.Equal(t, "Cancelling job "+jobID.String()+".\nCancelled job "+jobID.String()+".\n", out)

	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	assert.Equal(t, api.JobCanceled, result.JobStatus)

	code, out, _ = flink(t, "list", "-m", cluster.RESTAddress())
	require.Equal(t, 0, code)
	assert.Equal(t, "Waiting for response...\nNo running jobs.\nNo scheduled jobs.\n", out, "terminated jobs only with -a")
	code, out, _ = flink(t, "list", "-a", "-m", cluster.RESTAddress())
	require.Equal(t, 0, code)
	assert.Contains(t, out, "---------------------- Terminated Jobs -----------------------\n")
	assert.Contains(t, out, " : "+jobID.String()+" : Ticker (CANCELED)\n")
}

func TestCancelOfAnUnknownJobFails(t *testing.T) {
	cluster := startMiniCluster(t)
	code, _, errOut := flink(t, "cancel", "-m", cluster.RESTAddress(), api.NewJobID().String())
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "REST request failed with status 404")
}

func TestRunWithoutAClusterSaysWhere(t *testing.T) {
	jar := writeJarOf(t, wordcount.ProgramClass)
	code, _, errOut := flink(t, "run", "-m", "127.0.0.1:1", jar)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "Failed to submit JobGraph to 127.0.0.1:1")
}

func TestInfoPrintsThePlanWithoutACluster(t *testing.T) {
	jar := writeJarOf(t, wordcount.ProgramClass)

	code, out, errOut := flink(t, "info", "-p", "3", jar)

	require.Equal(t, 0, code, out+errOut)
	assert.Regexp(t, `(?s)^----------------------- Execution Plan -----------------------\n\{.*\}\n`+
		`--------------------------------------------------------------\n\nNo description provided.\n$`, out)
	assert.Contains(t, out, `"name": "WordCount"`)
	assert.Contains(t, out, `"description": "Source: file-input -&gt; tokenizer"`)
	assert.Contains(t, out, `"parallelism": 3`)
	assert.Contains(t, out, `"ship_strategy": "HASH"`)
}

func TestJarWritesTheJarOfARegisteredProgram(t *testing.T) {
	path := writeJarOf(t, wordcount.ProgramClass)
	program, err := client.OpenPackagedProgram(path)
	require.NoError(t, err)
	assert.Equal(t, wordcount.ProgramClass, program.ProgramClass())
	assert.Contains(t, program.Resources(), wordcount.TextResource)

	code, _, errOut := flink(t, "jar", "nosuchprogram", "-o", filepath.Join(t.TempDir(), "x.jar"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "ClassNotFoundException: nosuchprogram")
	assert.Contains(t, errOut, "registered programs: [")
}

func TestActionsAndHelp(t *testing.T) {
	code, out, _ := flink(t, "launch")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "\"launch\" is not a valid action.\n\nValid actions are \"run\", \"run-application\", \"info\", \"list\", \"cancel\", ")

	code, out, _ = flink(t, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "./flink <ACTION> [OPTIONS] [ARGUMENTS]")
	for _, action := range []string{"run", "run-application", "info", "list", "cancel", "jar", "start-cluster", "jobmanager", "standalone-job", "taskmanager"} {
		assert.Contains(t, out, `Action "`+action+`"`)
	}

	code, out, _ = flink(t, "run", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Syntax: run [OPTIONS] <jar-file> <arguments>")
	assert.NotContains(t, out, `Action "list"`)

	code, out, _ = flink(t, "run")
	assert.Equal(t, 1, code)
	assert.Equal(t, "Java program should be specified a JAR file.\n\nUse the help option (-h or --help) to get help on the command.\n", out)

	code, out, _ = flink(t, "taskmanager")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "Missing --jobmanager HOST:PORT")
}
