//go:build unix && chaos

package main

import (
	"fmt"
	"testing"
	"time"

	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/flink/flinktest"
)

// Twenty leader kills in a row, with the ticker running. The cluster has
// two JobManagers at all times, a leader and a standby, and two
// TaskManagers with 2 slots each; the ZooKeeper session timeout is 1 s,
// the shortest the test's ZooKeeper server grants, so that each failover
// takes a little over a second.
//
// Each round kills the JobManager that leads with SIGKILL and starts a new
// standby at once, while the killed leader's session expires. The standby
// of before is granted the leadership (it entered the LeaderLatch before
// the new one, and a latch goes to the oldest contender; only if its
// ZooKeeper connection was suspended meanwhile would it have entered the
// election again, behind the new one, which the test then logs), recovers
// the ticker from ZooKeeper and runs it again. Once the ticker is RUNNING
// again, three invariants are checked:
//
//	(a) one leader: of the live JobManagers, exactly one has a
//	    DefaultDispatcherRunner that was granted the leadership and not
//	    revoked since (its log says so), and it is the one ZooKeeper names;
//	(b) no job lost: the new leader runs the ticker, under its JobID, every
//	    task RUNNING, and no other job;
//	(c) no subtask runs twice: in the TaskManagers' logs ("Task [] - NAME
//	    (i/n)#a (ATTEMPT) switched from X to Y"), each subtask has exactly
//	    one attempt that has not reached a terminal state, RUNNING, of the
//	    new leader's ExecutionGraph, on the TaskManager the REST endpoint
//	    names; and the REST endpoint's vertex view shows one current
//	    attempt per subtask.
//
// Who leads is read from ZooKeeper, as start-cluster's leaderWatch
// (leaders.go) and every REST endpoint and TaskManager read it: the
// Dispatcher's leader node, which the leader writes once it has recovered
// the jobs and confirmed its leadership. That is the one place that
// decides who leads for the rest of the cluster, and it leaves the logs
// free to be the independent witness of invariant (a).
//
// The test starts every process itself, `flink jobmanager` and `flink
// taskmanager` as start-cluster starts them (the same -D options, and
// the ready line on file descriptor 3), rather than through start-cluster:
// start-cluster stops the whole cluster, TaskManagers included, once the
// last JobManager it started has exited, and with two JobManagers at a
// time the second kill is of start-cluster's last one.
//
// It takes about 35 s with the race detector on two cores: about 1.5 s a
// round, most of it the killed leader's session running out (the 1 s
// timeout, found expired by ZooKeeper at its next 500 ms tick), the new
// standby's start overlapping with it; and the build and the cluster's
// start. It runs with the build tag chaos: make chaos, which CI runs
// after make test; -short skips it.
func TestLeaderKillsInARow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes and kills 20 of them: skipped with -short")
	}
	const leaderKills = 20
	server := zookeepertest.Shared(t)
	bin := flinktest.Build(t)
	started := time.Now()
	cl := flinktest.StartHACluster(t, bin, t.TempDir(), flinktest.HAConfiguration(server.Address(), t.TempDir(), time.Second))

	// The ticker runs at parallelism 2, submitted to the leader.
	leader, _ := cl.LeaderAndStandby(t)
	awaitRegisteredTaskManagers(t, leader.RestClient(), 2)
	tickerID := flinktest.SubmitDetached(t, bin, leader.REST(), writeTickerJar(t, bin), 2)
	details := flinktest.AwaitJob(t, leader.RestClient(), tickerID, "every task RUNNING", flinktest.EveryTaskRunning)
	checkInvariants(t, cl, 0, leader, tickerID, details)

	for kill := 1; kill <= leaderKills; kill++ {
		// The JobManager that leads now is killed, without a goodbye.
		leader, standby := cl.LeaderAndStandby(t)
		leader.Kill(t)
		// A new standby joins while the killed leader's session expires.
		cl.StartJobManager(t)
		// ZooKeeper names a new leader: the standby of before, whose latch
		// node is now the oldest.
		next := cl.AwaitLeader(t, fmt.Sprintf("kill %d: a new leader", kill), func(jm *flinktest.Process) bool { return jm != leader })
		if next != standby {
			t.Logf("kill %d: the newest standby %s leads, not the standby of before %s: see that one's log for a suspended ZooKeeper connection", kill, next, standby)
		}
		// The ticker runs again under the new leader.
		details := flinktest.AwaitJob(t, next.RestClient(), tickerID, fmt.Sprintf("RUNNING again after kill %d, every task", kill), flinktest.EveryTaskRunning)
		checkInvariants(t, cl, kill, next, tickerID, details)
	}
	t.Logf("the cluster's start, the ticker's submission and %d leader kills took %v", leaderKills, time.Since(started).Round(time.Millisecond))

	cl.Stop(t)
}
