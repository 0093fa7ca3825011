package entrypoint

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// These tests run a JobManager and TaskManagers in the test's process,
// each with an RPC service of its own: every call between them goes over
// TCP, through the gateways' stubs, as between processes. Real sockets
// cannot run inside testing/synctest, so the tests wait on real time,
// each wait bounded by testTimeout; none sleeps.

const testTimeout = 20 * time.Second

// startSession starts a session cluster on free loopback ports.
func startSession(t *testing.T, logs *logbuf.Buffer) *ClusterEntrypoint {
	t.Helper()
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress:        "127.0.0.1:0",
		RESTAddress:       "127.0.0.1:0",
		BlobServerAddress: "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(logs, nil)),
	})
	require.NoError(t, jm.Start())
	t.Cleanup(func() { assert.NoError(t, jm.Close()) })
	return jm
}

// startTaskManager starts a TaskManager that registers at jm and
// downloads jars from its BlobServer.
func startTaskManager(t *testing.T, jm *ClusterEntrypoint, slots int, logs *logbuf.Buffer) *TaskManagerRunner {
	t.Helper()
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: jm.RPCAddress(),
		BlobServerAddress: jm.BlobServerAddress(),
		RPCAddress:        "127.0.0.1:0",
		NumberOfSlots:     slots,
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(logs, nil)),
	})
	require.NoError(t, tm.Start())
	t.Cleanup(func() { assert.NoError(t, tm.Close()) })
	return tm
}

// submitWordCount plans WordCount on the client side and submits it with
// POST /jobs, as flink run does.
func submitWordCount(t *testing.T, jm *ClusterEntrypoint, parallelism int) api.JobID {
	t.Helper()
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	program, err := client.ReadPackagedProgram(jar)
	require.NoError(t, err)
	g, err := client.StreamingProgramRunner{}.JobGraph(program, "", []string{"--output", wordcount.OutputCollect}, parallelism)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	jobID, err := client.NewRestClusterClient(jm.RESTAddress()).SubmitJob(ctx, g, "WordCount.jar", jar)
	require.NoError(t, err)
	return jobID
}

func awaitResult(t *testing.T, jm *ClusterEntrypoint, jobID api.JobID) api.JobResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	result, err := jm.clusterComponent.Dispatcher().RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	return result
}

// The whole submission, m1 to m11, between processes: every RPC over
// TCP, the jar downloaded from the BlobServer over TCP. The TaskManager
// learns the JobMaster's address from the slot requests. Its two slots
// hold both subtasks of every vertex, so WordCount's keyed records stay
// within its process.
func TestSessionClusterRunsAJobOverTCP(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	tm := startTaskManager(t, jm, 2, &tmLogs)
	wordcount.Results.Clear()

	jobID := submitWordCount(t, jm, 2)
	result := awaitResult(t, jm, jobID)

	require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
	assert.Equal(t, wantCounts(), wordcount.FinalCounts(wordcount.Results.Values()))

	assert.Contains(t, tmLogs.Messages("Starting TaskManager with ResourceID: "),
		"Starting TaskManager with ResourceID: "+string(tm.ResourceID()))
	assert.NotEmpty(t, tmLogs.Messages("Successful registration at resource manager pekko.tcp://flink@"+jm.RPCAddress()))
	assert.NotEmpty(t, tmLogs.Messages("Successful registration at job manager pekko.tcp://flink@"+jm.RPCAddress()+"/user/rpc/jobmanager_"),
		"the TaskManager found the JobMaster through the slot request")
	assert.NotEmpty(t, jmLogs.Messages("Starting StandaloneSessionClusterEntrypoint."))
	assert.NotEmpty(t, jmLogs.Messages("Rest endpoint listening at "))
	assert.NotEmpty(t, jmLogs.Messages("Started BLOB server at "+jm.BlobServerAddress()))
	assert.NotEmpty(t, jmLogs.Messages("Resource manager service is granted leadership with session id "+highavailability.DefaultLeaderID.String()+"."))
}

// With one slot on each of two TaskManagers, WordCount's keyed records
// cross from one process to the other, through the producer's
// PartitionRequestServer: the JobMaster puts the producer's data address
// into the shuffle descriptors it deploys. (A task that would read a
// partition of another TaskManager without one is refused at step m9 with
// gateway.ErrNoDataAddress, rather than waiting for it forever.)
func TestRecordsCrossTaskManagers(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	startTaskManager(t, jm, 1, &tmLogs)
	startTaskManager(t, jm, 1, &tmLogs)
	wordcount.Results.Clear()

	result := awaitResult(t, jm, submitWordCount(t, jm, 2))

	require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
	assert.Equal(t, wantCounts(), wordcount.FinalCounts(wordcount.Results.Values()))
}

// wantCounts counts the words of the bundled text as WordCount does.
func wantCounts() map[string]int {
	counts := map[string]int{}
	for _, line := range strings.Split(wordcount.Text(), "\n") {
		for _, w := range wordcount.Tokenize(line) {
			counts[w]++
		}
	}
	return counts
}

// A TaskManager that cannot reach the BlobServer cannot load the job's
// code: the job fails at step m10, with Flink's words for it.
func TestATaskManagerWithoutTheBlobServerFailsTheJobAtM10(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	nobody := freeAddress(t)
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: jm.RPCAddress(),
		BlobServerAddress: nobody,
		RPCAddress:        "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(&tmLogs, nil)),
	})
	require.NoError(t, tm.Start())
	defer tm.Close()

	result := awaitResult(t, jm, submitWordCount(t, jm, 1))

	assert.Equal(t, api.JobFailed, result.JobStatus)
	assert.Contains(t, result.FailureCause, "Failed to fetch BLOB ")
	assert.Contains(t, result.FailureCause, "from "+nobody+" and store it under ")
	assert.NotEmpty(t, tmLogs.Messages("Failed to fetch BLOB "), "each attempt is logged, with its cause")
}

// freeAddress returns a loopback address where nothing listens.
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	address := ln.Addr().String()
	require.NoError(t, ln.Close())
	return address
}

// Closing a TaskManager deregisters it at once: the ResourceManager
// forgets it without waiting for a heartbeat timeout.
func TestClosingATaskManagerDeregistersIt(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	rc := client.NewRestClusterClient(jm.RESTAddress())
	tm := startTaskManager(t, jm, 3, &tmLogs)
	awaitTaskManagers(t, rc, 1)

	require.NoError(t, tm.Close())
	awaitTaskManagers(t, rc, 0)
	assert.NotEmpty(t, jmLogs.Messages("Closing TaskExecutor connection "+string(tm.ResourceID())))
}

// awaitTaskManagers asks GET /taskmanagers until n TaskManagers are
// registered.
func awaitTaskManagers(t *testing.T, rc *client.RestClusterClient, n int) {
	t.Helper()
	awaitTaskManagersInfo(t, rc, fmt.Sprintf("%d TaskManagers registered", n), func(info rest.TaskManagersInfo) bool {
		return len(info.TaskManagers) == n
	})
}

// awaitTaskManagersInfo asks GET /taskmanagers until its answer is done.
// TaskManagers register, and then report their slots, over TCP on
// goroutines of their own, so there is nothing to wait on but the answer;
// the polling is bounded by testTimeout, and a timeout says what was
// wanted and what the last answer was.
func awaitTaskManagersInfo(t *testing.T, rc *client.RestClusterClient, want string, done func(rest.TaskManagersInfo) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var info rest.TaskManagersInfo
		err := rc.SendRequest(ctx, http.MethodGet, "/taskmanagers", &info)
		if err == nil && done(info) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("want %s; the last answer: %+v (error: %v)", want, info.TaskManagers, err)
		case <-tick.C:
		}
	}
}

func TestApplicationClusterRunsItsJobAndAsksToShutDown(t *testing.T) {
	var logs logbuf.Buffer
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	jarFile := t.TempDir() + "/WordCount.jar"
	require.NoError(t, os.WriteFile(jarFile, jar, 0o644))
	wordcount.Results.Clear()

	jm := NewStandaloneApplicationClusterEntryPoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir: t.TempDir(), Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	}, Application{JarFile: jarFile, Args: []string{"--output", wordcount.OutputCollect}, Parallelism: 2})
	require.NoError(t, jm.Start())
	defer jm.Close()
	assert.Equal(t, api.ApplicationUnknown, jm.ApplicationStatus(), "running")

	// Another job is refused: the cluster runs its application's only.
	_, err = client.NewRestClusterClient(jm.RESTAddress()).SubmitJob(context.Background(), mustPlan(t, jar), "WordCount.jar", jar)
	var restErr *client.RestError
	require.ErrorAs(t, err, &restErr)
	assert.Contains(t, restErr.Error(), ErrApplicationMode.Error())

	startTaskManager(t, jm, 2, &logs)
	select {
	case <-jm.Done():
	case <-time.After(testTimeout):
		t.Fatal("the application's job did not end")
	}
	assert.Equal(t, api.ApplicationSucceeded, jm.ApplicationStatus())
	assert.Equal(t, 0, jm.ExitCode())
	assert.Equal(t, wantCounts(), wordcount.FinalCounts(wordcount.Results.Values()))
	require.NoError(t, jm.Close())
	assert.NotEmpty(t, logs.Messages("Starting StandaloneApplicationClusterEntryPoint."))
	assert.NotEmpty(t, logs.Messages("Shutting StandaloneApplicationClusterEntryPoint down with application status SUCCEEDED."))
}

func TestApplicationThatFailsExitsWithFlinksCode(t *testing.T) {
	var logs logbuf.Buffer
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	jarFile := t.TempDir() + "/WordCount.jar"
	require.NoError(t, os.WriteFile(jarFile, jar, 0o644))

	jm := NewStandaloneApplicationClusterEntryPoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir: t.TempDir(), Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	}, Application{JarFile: jarFile, Args: []string{"--input", "no/such/resource.txt"}})
	require.NoError(t, jm.Start())
	defer jm.Close()
	startTaskManager(t, jm, 1, &logs) // the task cannot find its input: the job FAILS
	select {
	case <-jm.Done():
	case <-time.After(testTimeout):
		t.Fatal("the application's job did not end")
	}
	assert.Equal(t, api.ApplicationFailed, jm.ApplicationStatus())
	assert.Equal(t, 1443, jm.ExitCode())
}

func TestAClusterThatCannotStartSaysWhy(t *testing.T) {
	var logs logbuf.Buffer
	jm := startSession(t, &logs)
	taken := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: jm.RPCAddress(), RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir: t.TempDir(), Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	err := taken.Start()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not start cluster entrypoint StandaloneSessionClusterEntrypoint")
	assert.Equal(t, 1, taken.ExitCode())
	assert.NotEmpty(t, logs.Messages("Could not start cluster entrypoint StandaloneSessionClusterEntrypoint."))

	bad := NewTaskManagerRunner(TaskManagerConfig{JobManagerAddress: "no-port", Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	assert.ErrorContains(t, bad.Start(), `"no-port" is not an address of the form HOST:PORT`)
}

func TestTheFixedAddressesAreWhereTheLeadersServe(t *testing.T) {
	var logs logbuf.Buffer
	jm := startSession(t, &logs)
	assert.Equal(t, jm.clusterComponent.ResourceManager().Address(), resourceManagerURL(jm.RPCAddress()))
	assert.Equal(t, jm.clusterComponent.Dispatcher().Address(), dispatcherURL(jm.RPCAddress()))
}

// mustPlan plans WordCount from its jar.
func mustPlan(t *testing.T, jar []byte) *jobgraph.JobGraph {
	t.Helper()
	program, err := client.ReadPackagedProgram(jar)
	require.NoError(t, err)
	g, err := client.StreamingProgramRunner{}.JobGraph(program, "", nil, 1)
	require.NoError(t, err)
	return g
}
