package entrypoint

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/internal/logbuf"
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
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress:        "127.0.0.1:0",
		RESTAddress:       "127.0.0.1:0",
		BlobServerAddress: "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(logs, nil)),
		Configuration:     haConfiguration(quorum, clusterID, storageDir),
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
	tm := NewTaskManagerRunner(TaskManagerConfig{
		RPCAddress:        "127.0.0.1:0",
		NumberOfSlots:     slots,
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.NewJSONHandler(logs, nil)),
		Configuration:     haConfiguration(quorum, clusterID, storageDir),
	})
	require.NoError(t, tm.Start())
	t.Cleanup(func() { assert.NoError(t, tm.Close()) })
	return tm
}

// awaitLine waits until the log has a line with message.
func awaitLine(t *testing.T, logs *logbuf.Buffer, message string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for len(logs.Messages(message)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no line %q within %v", message, testTimeout)
		}
		<-tick.C
	}
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
// goes, the TaskManager registers at the standby's ResourceManager.
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
