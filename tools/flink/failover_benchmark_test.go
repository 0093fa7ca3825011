//go:build unix

package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// BenchmarkLeaderFailover measures how long a job stands still when its
// JobManager leader dies: from the SIGKILL of the leader until the
// standby's REST endpoint says that the ticker (parallelism 2, 4 tasks on
// two TaskManagers × 2 slots) is RUNNING again, every task, on a ZooKeeper
// HA cluster of real processes with a session timeout of 2 s
// (high-availability.zookeeper.client.session-timeout=2000).
//
// The processes are started as in TestLeaderKillsInARow: two JobManagers
// and two TaskManagers, each by the benchmark itself. Each iteration kills
// the leader, which starts the clock, and waits, asking the standby's REST
// endpoint every 2 ms, until the ticker runs again; then, off the clock,
// it reads the phases of the failover from the logs and starts a new
// standby, so that the next iteration has one.
//
// Besides ns/op, the benchmark reports the average of each phase, read
// from the timestamps (to the millisecond) of the new leader's log and of
// the TaskManagers' logs:
//
//	ms-expiry+election/op  from the SIGKILL until "DefaultDispatcherRunner was granted leadership":
//	                       the killed leader's ZooKeeper session expires (ZooKeeper checks once a
//	                       tick, 500 ms on the test's server, so this is the session timeout give
//	                       or take a tick and a third of the timeout, the client's ping interval),
//	                       its latch node goes, and the standby's LeaderLatch is the oldest left;
//	ms-recovery/op         until "Successfully recovered 1 persisted job graphs.": the
//	                       SessionDispatcherLeaderProcess reads the JobGraph from ZooKeeper;
//	ms-deploy/op           until the last of the new ExecutionGraph's 4 tasks "switched from
//	                       INITIALIZING to RUNNING" on a TaskManager: the JobMaster starts and
//	                       registers at the new ResourceManager, the TaskManagers (told of the new
//	                       leaders by ZooKeeper) fail their old tasks, register there and offer
//	                       their slots, and the tasks are deployed and started;
//	ms-total/op            the whole, as the benchmark's clock measured it: the three phases, and
//	                       then the report of RUNNING to the JobMaster and the REST endpoint's
//	                       next answer.
//
// Run it with a fixed number of iterations, each a few seconds:
//
//	go test -run '^$' -bench LeaderFailover -benchtime 5x ./tools/flink
func BenchmarkLeaderFailover(b *testing.B) {
	server := zookeepertest.Shared(b)
	bin := flinktest.Build(b)
	cl := flinktest.StartHACluster(b, bin, b.TempDir(), flinktest.HAConfiguration(server.Address(), b.TempDir(), 2*time.Second))
	leader, standby := cl.LeaderAndStandby(b)
	awaitRegisteredTaskManagers(b, leader.RestClient(), 2)
	tickerID := flinktest.SubmitDetached(b, bin, leader.REST(), writeTickerJar(b, bin), 2)
	flinktest.AwaitJob(b, leader.RestClient(), tickerID, "every task RUNNING", flinktest.EveryTaskRunning)

	var iterations int
	var sum failoverPhases
	for b.Loop() {
		// The leader dies; the clock runs.
		killedAt := time.Now()
		leader.Kill(b)
		// The standby leads, recovers the ticker and runs it again.
		awaitRunningAgain(b, standby, tickerID)
		sum.total += time.Since(killedAt)

		b.StopTimer()
		// Off the clock: the phases, from the logs.
		p := readFailoverPhases(b, cl, standby, tickerID, killedAt)
		sum.expiryAndElection += p.expiryAndElection
		sum.recovery += p.recovery
		sum.deploy += p.deploy
		iterations++
		// Off the clock: a new standby, and the new roles.
		cl.StartJobManager(b)
		leader, standby = cl.LeaderAndStandby(b)
		b.StartTimer()
	}
	b.StopTimer()
	cl.Stop(b)

	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(iterations) }
	b.ReportMetric(perOp(sum.total), "ms-total/op")
	b.ReportMetric(perOp(sum.expiryAndElection), "ms-expiry+election/op")
	b.ReportMetric(perOp(sum.recovery), "ms-recovery/op")
	b.ReportMetric(perOp(sum.deploy), "ms-deploy/op")
}

// failoverPhases are the phases of one failover, or their sums.
type failoverPhases struct {
	expiryAndElection time.Duration // the SIGKILL → the new leader's DefaultDispatcherRunner granted
	recovery          time.Duration // granted → "Successfully recovered 1 persisted job graphs."
	deploy            time.Duration // recovered → the last task RUNNING on a TaskManager
	total             time.Duration // the SIGKILL → the REST endpoint says RUNNING
}

// readFailoverPhases reads the phases of the failover to leader from the
// logs. Each JobManager leads once in its life here, so the first
// "granted" line of its log is the one of this failover.
func readFailoverPhases(b *testing.B, cl *flinktest.HACluster, leader *flinktest.Process, jobID api.JobID, killedAt time.Time) failoverPhases {
	b.Helper()
	granted := logTime(b, firstLogLine(b, leader.LogPath(), "DefaultDispatcherRunner was granted leadership with leader id "))
	recovered := logTime(b, firstLogLine(b, leader.LogPath(), "Successfully recovered 1 persisted job graphs."))
	executionGraph := executionGraphOf(b, leader.LogPath(), jobID)
	var lastRunning time.Time
	running := 0
	for _, tm := range cl.TaskManagers {
		for _, line := range logLines(b, tm.LogPath()) {
			m := taskSwitch.FindStringSubmatch(line)
			if m == nil || !strings.HasPrefix(m[3], executionGraph+"_") || m[5] != api.ExecutionRunning.String() {
				continue
			}
			running++
			if ts := logTime(b, m[1]); ts.After(lastRunning) {
				lastRunning = ts
			}
		}
	}
	require.Equal(b, 4, running, "the tasks of ExecutionGraph %s that switched to RUNNING on the TaskManagers", executionGraph)
	return failoverPhases{
		expiryAndElection: granted.Sub(killedAt),
		recovery:          recovered.Sub(granted),
		deploy:            lastRunning.Sub(recovered),
	}
}

// awaitRunningAgain asks the JobManager's REST endpoint every 2 ms until
// the job is RUNNING with every task. The endpoint answers 500 or 503
// until its JobManager leads; the killed leader is gone before the first
// question, so no answer can come from it.
func awaitRunningAgain(b *testing.B, jm *flinktest.Process, jobID api.JobID) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	rc := jm.RestClient()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		var details rest.JobDetailsInfo
		err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String(), &details)
		if err == nil && flinktest.EveryTaskRunning(details) {
			return
		}
		select {
		case <-ctx.Done():
			b.Fatalf("job %s: not RUNNING again within %v: state %s, tasks %v (last error: %v)", jobID, e2eTimeout, details.State, details.StatusCounts, err)
		case <-tick.C:
		}
	}
}
