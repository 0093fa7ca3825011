package entrypoint

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/streaming"
)

// The ticker checkpoints every 200 ms on a cluster with ZooKeeper HA: the
// leader's JobMaster writes each completed checkpoint to the HA storage
// directory and a node that points at it to ZooKeeper
// (DefaultCompletedCheckpointStore), and takes the checkpoint IDs from a
// counter there (ZooKeeperCheckpointIDCounter). The leader goes; its
// JobMaster suspends the job and leaves both where they are. The standby
// is granted the leadership, recovers the job, and its JobMaster's store
// finds the checkpoint: the job restores it, and every sensor's count
// goes on from where the checkpoint left it. No count goes back to 1, as
// it would if the new JobMaster started with an empty store; and the new
// JobMaster's checkpoints count on after the restored one.
//
// The counts are those of a collect sink: every count the tasks emitted,
// under either leader, in the order they came.
func TestAJobResumesFromItsLatestCheckpointAfterTheLeaderGoes(t *testing.T) {
	server := zookeepertest.Shared(t)
	storage, checkpoints := t.TempDir(), t.TempDir()
	clusterID := "/ha-" + api.NewJobID().String()
	conf := haConfiguration(server.Address(), clusterID, storage)
	conf["execution.checkpointing.interval"] = "200ms"
	conf["state.checkpoints.dir"] = checkpoints
	var leaderLogs, standbyLogs, tmLogs logbuf.Buffer
	leader := startHAJobManagerWith(t, conf, &leaderLogs)
	awaitLeadingREST(t, leader)
	standby := startHAJobManagerWith(t, conf, &standbyLogs)
	startHATaskManagerWith(t, conf, 2, &tmLogs)
	ticker.Results.Clear()
	jobID := submitTickerWith(t, leader, 2, "--rate", "50", "--output", "collect")
	awaitLine(t, &leaderLogs, "Completed checkpoint 3 for job "+jobID.String())

	// The leader goes: its JobMaster suspends the job, and its store keeps
	// the checkpoints in ZooKeeper for the next one.
	require.NoError(t, leader.Close())
	awaitLine(t, &leaderLogs, "Job "+jobID.String()+" reached terminal state SUSPENDED.")
	assert.Contains(t, loggedBy(&leaderLogs, "DefaultCompletedCheckpointStore"), "Suspending", "the store keeps the checkpoints")
	before := highestCounts(ticker.Results.Values())
	require.Len(t, before, ticker.NumSensors, "every sensor counted under the first leader")

	// The standby's JobMaster finds the checkpoint and restores it.
	awaitLine(t, &standbyLogs, "Restoring job "+jobID.String()+" from Checkpoint ")
	handles := "ZooKeeperStateHandleStore{namespace='flink/" + clusterID[1:] + "/jobs/" + jobID.String() + "/checkpoints'}"
	assert.Equal(t, []string{"Found 1 checkpoints in " + handles + "."}, standbyLogs.Messages("Found "))
	restoring := standbyLogs.Messages("Restoring job " + jobID.String() + " from Checkpoint ")
	require.Len(t, restoring, 1)
	m := regexp.MustCompile(`^Restoring job ` + jobID.String() + ` from Checkpoint (\d+) @ \d+ for ` + jobID.String() +
		` located at ` + regexp.QuoteMeta(filepath.Join(checkpoints, jobID.String())) + `/chk-(\d+)\.$`).FindStringSubmatch(restoring[0])
	require.NotNil(t, m, restoring[0])
	restored, _ := strconv.ParseInt(m[1], 10, 64)
	assert.Equal(t, m[1], m[2], "the checkpoint's directory is chk-<its ID>")
	assert.NotEmpty(t, leaderLogs.Messages("Completed checkpoint "+m[1]+" for job "+jobID.String()), "a checkpoint the first leader completed")

	// The job runs again, its checkpoints count on, and so do its counts.
	awaitRunning(t, standby, jobID)
	awaitLine(t, &standbyLogs, "Completed checkpoint ")
	triggered := regexp.MustCompile(`^Triggering checkpoint (\d+) `).FindStringSubmatch(standbyLogs.Messages("Triggering checkpoint ")[0])
	require.NotNil(t, triggered)
	first, _ := strconv.ParseInt(triggered[1], 10, 64)
	assert.Greater(t, first, restored, "the new JobMaster's first checkpoint comes after the restored one")
	awaitCountsPast(t, before)
	for sensor, ones := range countsOf(ticker.Results.Values(), 1) {
		assert.Equal(t, 1, ones, "%s counted 1 once: its count did not start again", sensor)
	}
}

// submitTickerWith submits the ticker with its arguments through POST /jobs.
func submitTickerWith(t *testing.T, jm *ClusterEntrypoint, parallelism int, args ...string) api.JobID {
	t.Helper()
	jar, err := ticker.Jar()
	require.NoError(t, err)
	program, err := client.ReadPackagedProgram(jar)
	require.NoError(t, err)
	g, err := client.StreamingProgramRunner{}.JobGraph(program, "", args, parallelism)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	jobID, err := client.NewRestClusterClient(jm.RESTAddress()).SubmitJob(ctx, g, "Ticker.jar", jar)
	require.NoError(t, err)
	return jobID
}

// highestCounts returns each sensor's highest count among counts.
func highestCounts(counts []streaming.Tuple2[string, int64]) map[string]int64 {
	highest := map[string]int64{}
	for _, c := range counts {
		highest[c.F0] = max(highest[c.F0], c.F1)
	}
	return highest
}

// countsOf returns, for every sensor, how often its count was n.
func countsOf(counts []streaming.Tuple2[string, int64], n int64) map[string]int {
	times := map[string]int{}
	for _, c := range counts {
		if _, ok := times[c.F0]; !ok {
			times[c.F0] = 0
		}
		if c.F1 == n {
			times[c.F0]++
		}
	}
	return times
}

// awaitCountsPast waits until every sensor's count is higher than in
// before: the job counted past where the first leader's tasks stopped.
func awaitCountsPast(t *testing.T, before map[string]int64) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		now := highestCounts(ticker.Results.Values())
		past := true
		for sensor, n := range before {
			past = past && now[sensor] > n
		}
		if past {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the counts did not go past %v within %v: %v", before, testTimeout, now)
		}
		<-tick.C
	}
}

// loggedBy returns the messages the logger wrote, in order.
func loggedBy(logs *logbuf.Buffer, logger string) []string {
	var out []string
	for _, r := range logs.Records() {
		if r.Logger == logger {
			out = append(out, r.Msg)
		}
	}
	return out
}
