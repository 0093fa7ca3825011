package entrypoint

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/highavailability/hatrace"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/rest"
)

// TestMain stops the ZooKeeper server the HA tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}

// startHAJobManager starts a JobManager of a cluster with ZooKeeper HA:
// every JobManager of the cluster has the same quorum, cluster-id and
// storage directory.
func startHAJobManager(t *testing.T, quorum, clusterID, storageDir string, logs *logbuf.Buffer) *ClusterEntrypoint {
	t.Helper()
	return startHAJobManagerWith(t, haConfiguration(quorum, clusterID, storageDir), logs)
}

// startHAJobManagerWith starts a JobManager with the configuration conf.
func startHAJobManagerWith(t *testing.T, conf map[string]string, logs *logbuf.Buffer) *ClusterEntrypoint {
	t.Helper()
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress:        "127.0.0.1:0",
		RESTAddress:       "127.0.0.1:0",
		BlobServerAddress: "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(logs, nil)),
		Configuration:     conf,
	})
	require.NoError(t, jm.Start())
	t.Cleanup(func() { _ = jm.Close() })
	return jm
}

// haConfiguration is what every process of an HA cluster on the test's
// ZooKeeper is given: the quorum, the cluster-id, the storage directory,
// and a short session timeout.
func haConfiguration(quorum, clusterID, storageDir string) map[string]string {
	return map[string]string{
		zookeeper.KeyHighAvailabilityType: "zookeeper",
		zookeeper.KeyQuorum:               quorum,
		zookeeper.KeyClusterID:            clusterID,
		zookeeper.KeyStorageDir:           storageDir,
		zookeeper.KeySessionTimeout:       "2000",
	}
}

// startHATaskManager starts a TaskManager of the HA cluster: it finds the
// leaders through ZooKeeper, and downloads jars from the BlobServer the
// ResourceManager leader names.
func startHATaskManager(t *testing.T, quorum, clusterID, storageDir string, slots int, logs *logbuf.Buffer) *TaskManagerRunner {
	t.Helper()
	return startHATaskManagerWith(t, haConfiguration(quorum, clusterID, storageDir), slots, logs)
}

// startHATaskManagerWith starts a TaskManager with the configuration conf.
func startHATaskManagerWith(t *testing.T, conf map[string]string, slots int, logs *logbuf.Buffer) *TaskManagerRunner {
	t.Helper()
	tm := NewTaskManagerRunner(TaskManagerConfig{
		RPCAddress:    "127.0.0.1:0",
		NumberOfSlots: slots,
		WorkingDir:    t.TempDir(),
		Logger:        slog.New(slog.NewJSONHandler(logs, nil)),
		Configuration: conf,
	})
	require.NoError(t, tm.Start())
	t.Cleanup(func() { assert.NoError(t, tm.Close()) })
	return tm
}

// awaitLine waits until the log has a line with message.
func awaitLine(t *testing.T, logs *logbuf.Buffer, message string) {
	t.Helper()
	awaitAnyLine(t, message, logs)
}

// Two JobManagers share a ZooKeeper and a storage directory. The first
// leads: its REST endpoint takes the job, whose JobGraph and jar go to the
// storage directory. The standby's REST endpoint answers through the
// leader's Dispatcher, as Flink's LeaderRetrievalHandler does. When the
// leader goes, the standby is granted the leadership, recovers the job
// from ZooKeeper and runs it: its REST endpoint lists it, and on a
// TaskManager that registers at it, the job FINISHES with exact counts,
// its jar downloaded from the new leader's BlobServer, which found it in
// the storage directory.
func TestAStandbyJobManagerRecoversTheJobsOfALeaderThatWent(t *testing.T) {
	server := zookeepertest.Shared(t)
	storage := t.TempDir()
	clusterID := "/ha-" + api.NewJobID().String() // a cluster of its own on the shared ZooKeeper
	var leaderLogs, standbyLogs logbuf.Buffer
	leader := startHAJobManager(t, server.Address(), clusterID, storage, &leaderLogs)
	awaitLine(t, &leaderLogs, "Successfully recovered 0 persisted job graphs.")
	awaitLeadingREST(t, leader)
	standby := startHAJobManager(t, server.Address(), clusterID, storage, &standbyLogs)

	jobID := submitWordCount(t, leader, 2) // no TaskManager: the job waits for its slots
	jobs := awaitLeadingREST(t, standby)
	require.Len(t, jobs.Jobs, 1, "the standby answers with the leader's jobs")
	assert.Equal(t, jobID, jobs.Jobs[0].JobID)

	require.NoError(t, leader.Close())
	awaitLine(t, &standbyLogs, "Successfully recovered 1 persisted job graphs.")
	assert.NotEmpty(t, standbyLogs.Messages("Trying to recover job with job id "+jobID.String()+"."))
	assert.NotEmpty(t, standbyLogs.Messages("Recovered JobGraph(jobId: "+jobID.String()+")."))
	assert.NotEmpty(t, leaderLogs.Messages("Job "+jobID.String()+" reached terminal state SUSPENDED."), "the old leader suspends, it does not fail")

	jobs = awaitLeadingREST(t, standby)
	require.Len(t, jobs.Jobs, 1)
	assert.Equal(t, jobID, jobs.Jobs[0].JobID)
	assert.NotEqual(t, api.JobFailed, jobs.Jobs[0].JobState)

	var tmLogs logbuf.Buffer
	wordcount.Results.Clear()
	startHATaskManager(t, server.Address(), clusterID, storage, 2, &tmLogs)
	result := awaitResult(t, standby, jobID)
	require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
	assert.Equal(t, wantCounts(), wordcount.FinalCounts(wordcount.Results.Values()))
	assert.NotEmpty(t, tmLogs.Messages("Downloading BLOBs from the BlobServer at "+standby.BlobServerAddress()+" from now on."))
}

// awaitLeadingREST asks the JobManager's REST endpoint for its jobs, as a
// client told "Please refresh." does, until a leader answers: the
// endpoint learns of a new leader through ZooKeeper a moment after the
// leader's recovery is logged, and until then it answers 503 (no leader
// known) or 500 (the leader it knew is gone).
func awaitLeadingREST(t *testing.T, jm *ClusterEntrypoint) client.JobsOverview {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var jobs client.JobsOverview
		err := client.NewRestClusterClient(jm.RESTAddress()).SendRequest(ctx, http.MethodGet, "/jobs/overview", &jobs)
		var restErr *client.RestError
		if !errors.As(err, &restErr) || restErr.Status < http.StatusInternalServerError {
			require.NoError(t, err)
			return jobs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no leader answers through the REST endpoint within %v: %v", testTimeout, err)
		case <-tick.C:
		}
	}
}

// A TaskManager of an HA cluster finds the ResourceManager where
// ZooKeeper says it leads, and follows it: when the leading JobManager
// goes, the TaskManager registers at the standby's ResourceManager. Every
// REST endpoint lists the TaskManagers of the leading ResourceManager,
// the standby's too.
func TestATaskManagerFollowsTheResourceManagerLeader(t *testing.T) {
	server := zookeepertest.Shared(t)
	storage := t.TempDir()
	clusterID := "/ha-" + api.NewJobID().String()
	var leaderLogs, standbyLogs, tmLogs logbuf.Buffer
	leader := startHAJobManager(t, server.Address(), clusterID, storage, &leaderLogs)
	awaitLeadingREST(t, leader)
	standby := startHAJobManager(t, server.Address(), clusterID, storage, &standbyLogs)

	tm := startHATaskManager(t, server.Address(), clusterID, storage, 1, &tmLogs)
	awaitLine(t, &tmLogs, "Successful registration at resource manager pekko.tcp://flink@"+leader.RPCAddress()+"/user/rpc/resourcemanager_0")
	awaitTaskManagers(t, client.NewRestClusterClient(standby.RESTAddress()), 1)

	require.NoError(t, leader.Close())
	awaitLine(t, &tmLogs, "Successful registration at resource manager pekko.tcp://flink@"+standby.RPCAddress()+"/user/rpc/resourcemanager_0")
	awaitLine(t, &standbyLogs, "Registering TaskManager with ResourceID "+string(tm.ResourceID()))
}

// A job that FINISHED under one leader is not run again by the next: its
// result was stored and its JobGraph removed before the leader went. The
// job ran with every leader found through ZooKeeper: the TaskManager's
// ResourceManager and the job's JobMaster.
func TestAFinishedJobIsNotRunAgainAfterAFailover(t *testing.T) {
	server := zookeepertest.Shared(t)
	storage := t.TempDir()
	clusterID := "/ha-" + api.NewJobID().String()
	var leaderLogs, standbyLogs, tmLogs logbuf.Buffer
	leader := startHAJobManager(t, server.Address(), clusterID, storage, &leaderLogs)
	awaitLeadingREST(t, leader)
	standby := startHAJobManager(t, server.Address(), clusterID, storage, &standbyLogs)
	startHATaskManager(t, server.Address(), clusterID, storage, 2, &tmLogs)
	wordcount.Results.Clear()

	jobID := submitWordCount(t, leader, 2)
	result := awaitResult(t, leader, jobID)
	require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
	assert.Equal(t, wantCounts(), wordcount.FinalCounts(wordcount.Results.Values()))
	assert.NotEmpty(t, tmLogs.Messages("Successful registration at job manager pekko.tcp://flink@"+leader.RPCAddress()+"/user/rpc/jobmanager_"),
		"the TaskManager found the JobMaster through ZooKeeper")

	require.NoError(t, leader.Close())
	awaitLine(t, &standbyLogs, "Successfully recovered 0 persisted job graphs.")
	jobs := awaitLeadingREST(t, standby)
	assert.Empty(t, jobs.Jobs, "the finished job is not run again")
}

// submitTicker submits the unbounded ticker with POST /jobs.
func submitTicker(t *testing.T, jm *ClusterEntrypoint, parallelism int) api.JobID {
	t.Helper()
	jar, err := ticker.Jar()
	require.NoError(t, err)
	program, err := client.ReadPackagedProgram(jar)
	require.NoError(t, err)
	g, err := client.StreamingProgramRunner{}.JobGraph(program, "", nil, parallelism)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	jobID, err := client.NewRestClusterClient(jm.RESTAddress()).SubmitJob(ctx, g, "Ticker.jar", jar)
	require.NoError(t, err)
	return jobID
}

// awaitRunning asks the JobManager's REST endpoint for the job until it
// is RUNNING with every task running, as a client that polls
// GET /jobs/{jobid} does. A failover answers 500 or 503 for a moment.
func awaitRunning(t *testing.T, jm *ClusterEntrypoint, jobID api.JobID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last rest.JobDetailsInfo
	for {
		err := client.NewRestClusterClient(jm.RESTAddress()).SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String(), &last)
		if err == nil {
			require.NotEqual(t, api.JobFailed, last.State, "the job must not fail: it is recovered, not failed")
			tasks := 0
			for _, v := range last.Vertices {
				tasks += v.Parallelism
			}
			if last.State == api.JobRunning && tasks > 0 && last.StatusCounts[api.ExecutionRunning] == tasks {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s is not RUNNING with every task running within %v: %+v (%v)", jobID, testTimeout, last, err)
		case <-tick.C:
		}
	}
}

// A leader JobManager is cut off from ZooKeeper (its connection goes
// through a proxy that the test blocks), as a network partition would cut
// it off; the other processes reach ZooKeeper. Its connection is
// SUSPENDED. By default
// (high-availability.zookeeper.client.tolerate-suspended-connections:
// false) it stops leading at once; with tolerate-suspended-connections it
// leads on until its session is LOST, a session timeout later. Either
// way its job is SUSPENDED, not failed, and nothing is written to the
// JobResultStore. The standby leads once the cut-off leader's session has
// expired, recovers the job and runs it on the TaskManagers, which follow
// it. When the old leader reaches ZooKeeper again, its session is gone:
// it is a standby now, and its REST endpoint answers through the new
// leader. hatrace reads from the logs which of the two happened.
func TestALeaderCutOffFromZooKeeperSuspendsItsJobAndTheStandbyTakesOver(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tolerate bool
		cause    hatrace.Kind
	}{
		{"the leadership ends at SUSPENDED", false, hatrace.ConnectionSuspended},
		{"tolerate-suspended-connections: it ends when the session is LOST", true, hatrace.SessionExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := zookeepertest.Shared(t)
			proxy := zookeepertest.NewProxy(t, server.Address())
			storage := t.TempDir()
			clusterID := "/ha-" + api.NewJobID().String()
			conf := haConfiguration(proxy.Address(), clusterID, storage)
			conf[zookeeper.KeyTolerateSuspendedConn] = strconv.FormatBool(tc.tolerate)
			var leaderLogs, standbyLogs, tmLogs logbuf.Buffer
			leader := startHAJobManagerWith(t, conf, &leaderLogs)
			awaitLeadingREST(t, leader)
			standby := startHAJobManager(t, server.Address(), clusterID, storage, &standbyLogs)
			startHATaskManager(t, server.Address(), clusterID, storage, 2, &tmLogs)
			jobID := submitTicker(t, leader, 2)
			awaitRunning(t, leader, jobID)

			proxy.Block() // the leader can no longer reach ZooKeeper
			awaitLine(t, &leaderLogs, "Connection to ZooKeeper suspended, waiting for reconnection.")
			awaitLine(t, &leaderLogs, "Job "+jobID.String()+" reached terminal state SUSPENDED.")
			awaitLine(t, &standbyLogs, "Successfully recovered 1 persisted job graphs.")
			awaitRunning(t, standby, jobID)
			results, err := os.ReadDir(filepath.Join(storage, "job-result-store", strings.Trim(clusterID, "/")))
			require.NoError(t, err)
			assert.Empty(t, results, "a SUSPENDED job has no result: it is not over")

			proxy.Unblock() // the old leader reaches ZooKeeper again
			awaitLine(t, &leaderLogs, "Connection to ZooKeeper was reconnected. Leader election can be restarted.")
			jobs := awaitLeadingREST(t, leader)
			require.Len(t, jobs.Jobs, 1, "the old leader's REST endpoint answers through the new leader")
			assert.Equal(t, api.JobRunning, jobs.Jobs[0].JobState)
			assert.Empty(t, leaderLogs.Messages("Successfully recovered 1 persisted job graphs."), "the old leader does not lead again")
			assertCause(t, tc.cause, "standalonesession-0", map[string]*logbuf.Buffer{
				"standalonesession-0": &leaderLogs, "standalonesession-1": &standbyLogs, "taskexecutor-0": &tmLogs})
		})
	}
}

// ZooKeeper is out of reach of the whole cluster for a while: every
// process's connection, through one proxy, is cut, then let through
// again. By default (tolerate-suspended-connections: false) a SUSPENDED
// connection ends the leadership at once: the leader suspends its job (it
// does not fail it), and when ZooKeeper is back, the JobManagers enter
// the election anew and the one that leads now recovers the job and runs
// it. With tolerate-suspended-connections: true the leader keeps leading
// through an outage shorter than the session timeout, and the job runs
// on, untouched; an outage longer than that loses every session, and the
// leadership with it.
func TestZooKeeperOutOfReachForAWhile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tolerate bool
		longer   bool // than the session timeout
		cause    hatrace.Kind
	}{
		{"the leadership ends at SUSPENDED", false, false, hatrace.ZooKeeperDown},
		{"tolerate-suspended-connections keeps it", true, false, hatrace.SuspensionTolerated},
		{"tolerate-suspended-connections, longer than the session timeout", true, true, hatrace.ZooKeeperDown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := zookeepertest.Shared(t)
			zookeeperDown := zookeepertest.NewProxy(t, server.Address())
			storage := t.TempDir()
			clusterID := "/ha-" + api.NewJobID().String()
			conf := haConfiguration(zookeeperDown.Address(), clusterID, storage)
			conf[zookeeper.KeyTolerateSuspendedConn] = strconv.FormatBool(tc.tolerate)
			var firstLogs, secondLogs, tmLogs logbuf.Buffer
			logs := map[string]*logbuf.Buffer{"standalonesession-0": &firstLogs, "standalonesession-1": &secondLogs, "taskexecutor-0": &tmLogs}
			first := startHAJobManagerWith(t, conf, &firstLogs)
			awaitLeadingREST(t, first)
			second := startHAJobManagerWith(t, conf, &secondLogs)
			startHATaskManagerWith(t, conf, 2, &tmLogs)
			jobID := submitTicker(t, first, 2)
			awaitRunning(t, first, jobID)

			zookeeperDown.Block()
			awaitLine(t, &firstLogs, "Connection to ZooKeeper suspended, waiting for reconnection.")
			if tc.longer {
				awaitLine(t, &firstLogs, "Connection to ZooKeeper lost.")
			}
			if !tc.tolerate || tc.longer {
				awaitLine(t, &firstLogs, "Job "+jobID.String()+" reached terminal state SUSPENDED.")
			}
			zookeeperDown.Unblock()
			awaitLine(t, &firstLogs, "Connection to ZooKeeper was reconnected. Leader election can be restarted.")

			if tc.tolerate && !tc.longer {
				awaitRunning(t, first, jobID)
				assert.Empty(t, firstLogs.Messages("DefaultDispatcherRunner was revoked the leadership"), "the leader kept leading")
				assert.Empty(t, firstLogs.Messages("Job "+jobID.String()+" reached terminal state SUSPENDED."))
				assert.Empty(t, secondLogs.Messages("Successfully recovered 1 persisted job graphs."), "no failover")
				assertCause(t, tc.cause, "standalonesession-0", logs)
				return
			}
			// One of the two leads now, and runs the job again.
			awaitAnyLine(t, "Successfully recovered 1 persisted job graphs.", &firstLogs, &secondLogs)
			awaitRunning(t, second, jobID) // through whichever leads
			results, err := os.ReadDir(filepath.Join(storage, "job-result-store", strings.Trim(clusterID, "/")))
			require.NoError(t, err)
			assert.Empty(t, results, "the job did not end")
			assertCause(t, tc.cause, "standalonesession-0", logs)
		})
	}
}

// assertCause asserts that hatrace reads the cause kind, of the leader
// process, from the logs of an in-process cluster, each under the name
// its process's log file would have.
func assertCause(t *testing.T, kind hatrace.Kind, process string, logs map[string]*logbuf.Buffer) {
	t.Helper()
	var read []hatrace.Log
	for name, buf := range logs {
		l := hatrace.Log{Process: name}
		for _, r := range buf.Records() {
			l.Records = append(l.Records, hatrace.Record{Time: r.Time, Level: r.Level, Logger: r.Logger, Message: r.Msg})
		}
		read = append(read, l)
	}
	cause, ok := hatrace.Explain(read)
	require.True(t, ok, "hatrace finds no cause in the logs")
	t.Log(cause)
	assert.Equal(t, kind, cause.Kind, "%s", cause)
	assert.Equal(t, process, cause.Process, "%s", cause)
}

// awaitAnyLine waits until one of the logs has a line with message.
func awaitAnyLine(t *testing.T, message string, logs ...*logbuf.Buffer) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, l := range logs {
			if len(l.Messages(message)) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			for i, l := range logs {
				t.Logf("log %d of the awaited ones:\n%s", i, l.String())
			}
			t.Fatalf("no line %q within %v", message, testTimeout)
		}
		<-tick.C
	}
}
