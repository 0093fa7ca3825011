package diagnose_test

// The synthetic failover drills: two JobManagers and two TaskManagers,
// the ticker running under standalonesession-0, cut from the logs of real
// runs of exercises/internal/drill.ProduceFailover.

import (
	"slices"

	"flinklab/tools/learn/diagnose"
)

const (
	tickerJob = "0252638ed5f20f98e9cf341c0d926b67"
	session0  = "6313c3387cc5deed0e2eac5570f1c79f" // standalonesession-0's leadership
	session1  = "a50c7f5fef0024c789d762c9c45b48bd" // standalonesession-1's, after the failover
	source1   = "Source: sensor-events (1/2) (096dba6ac7c3f71217db0e92c5b9d107_80294f0e7b4a8c158f2ecf7fd09dfc70_0_0)"
	taskOf1   = "Source: sensor-events (1/2)#0 (096dba6ac7c3f71217db0e92c5b9d107_80294f0e7b4a8c158f2ecf7fd09dfc70_0_0)"
)

// The log files of the four processes, as the producer names them.
var (
	jobManager0Log = "flink-flinklab-standalonesession-0-localhost.log"
	jobManager1Log = "flink-flinklab-standalonesession-1-localhost.log"
	tm1            = diagnose.TaskManagerLogFile(1)
)

// The lines every run has: standalonesession-0 leads and runs the ticker,
// standalonesession-1 waits, the TaskManagers run its tasks.
var (
	leaderStart = []string{
		"2026-11-30 16:43:17,206 INFO  ZooKeeperUtils [] - Using '/flink/default' as Zookeeper namespace.",
		"2026-11-30 16:43:17,228 INFO  ResourceManagerServiceImpl [] - Resource manager service is granted leadership with session id " + session0 + ".",
		"2026-11-30 16:43:17,241 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id " + session0 + ". Creating new DispatcherLeaderProcess.",
		"2026-11-30 16:43:17,317 INFO  StandaloneDispatcher [] - Received JobGraph submission 'Ticker' (" + tickerJob + ").",
		"2026-11-30 16:43:17,353 INFO  JobMaster [] - Starting execution of job 'Ticker' (" + tickerJob + ") under job master id " + session0 + ".",
		"2026-11-30 16:43:17,413 INFO  ExecutionGraph [] - " + source1 + " switched from SCHEDULED to DEPLOYING.",
		"2026-11-30 16:43:17,420 INFO  ExecutionGraph [] - " + source1 + " switched from DEPLOYING to INITIALIZING.",
		"2026-11-30 16:43:17,421 INFO  ExecutionGraph [] - " + source1 + " switched from INITIALIZING to RUNNING.",
	}
	standbyStart = []string{
		"2026-11-30 16:43:17,251 INFO  ZooKeeperUtils [] - Using '/flink/default' as Zookeeper namespace.",
		"2026-11-30 16:43:17,275 INFO  DefaultLeaderElectionService [] - LeaderContender has been registered under component 'dispatcher' for ZooKeeperLeaderElectionDriver.",
	}
	taskManagerStart = []string{
		"2026-11-30 16:43:17,290 INFO  TaskExecutor [] - Connecting to ResourceManager pekko.tcp://flink@localhost:43951/user/rpc/resourcemanager_0(" + session0 + ").",
		"2026-11-30 16:43:17,292 INFO  TaskExecutor [] - Successful registration at resource manager pekko.tcp://flink@localhost:43951/user/rpc/resourcemanager_0 under registration id 5494b33fb45cb9198fe998eea76cb634.",
		"2026-11-30 16:43:17,415 INFO  Task [] - " + taskOf1 + " switched from CREATED to DEPLOYING.",
		"2026-11-30 16:43:17,419 INFO  Task [] - " + taskOf1 + " switched from INITIALIZING to RUNNING.",
	}
	// standbyLeads is standalonesession-1 granted the leadership and
	// running the ticker again.
	standbyLeads = []string{
		"2026-11-30 16:43:19,725 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id " + session1 + ". Creating new DispatcherLeaderProcess.",
		"2026-11-30 16:43:19,726 INFO  ResourceManagerServiceImpl [] - Resource manager service is granted leadership with session id " + session1 + ".",
		"2026-11-30 16:43:19,740 INFO  SessionDispatcherLeaderProcess [] - Successfully recovered 1 persisted job graphs.",
		"2026-11-30 16:43:19,777 INFO  ExecutionGraph [] - Job Ticker (" + tickerJob + ") switched from state CREATED to RUNNING.",
	}
	// taskManagerFollows is a TaskManager leaving the old leader for the
	// new one.
	taskManagerFollows = []string{
		"2026-11-30 16:43:19,727 WARN  Task [] - " + taskOf1 + " switched from RUNNING to FAILED with failure cause: Disconnect from JobManager responsible for " + tickerJob + ".",
		"2026-11-30 16:43:19,749 INFO  TaskExecutor [] - Connecting to ResourceManager pekko.tcp://flink@localhost:39051/user/rpc/resourcemanager_0(" + session1 + ").",
		"2026-11-30 16:43:19,752 INFO  TaskExecutor [] - Successful registration at resource manager pekko.tcp://flink@localhost:39051/user/rpc/resourcemanager_0 under registration id 10ac64dfc4a81296ef76626b662d83b3.",
	}
)

// closedByPeer is what TaskManager 0 saw when the leader died.
const closedByPeer = "2026-11-30 16:43:17,438 INFO  PekkoRpcService [] - The connection to the RPC service at localhost:43951 was closed by the peer."

// revokedLate is the paused leader's revocation, a second after the
// standby's grant.
const revokedLate = "2026-11-30 16:43:20,631 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was revoked the leadership with leader id " + session0 + ". Stopping the SessionDispatcherLeaderProcess."

// leaderKilled is the drill of a leader killed with SIGKILL: its log
// stops, TaskManager 0 sees its connection close, and the standby is
// granted the leadership a session timeout later.
func leaderKilled() map[string][]string {
	return map[string][]string{
		jobManager0Log: leaderStart,
		jobManager1Log: slices.Concat(standbyStart, standbyLeads),
		tm0:            slices.Concat(taskManagerStart, []string{closedByPeer}, taskManagerFollows),
		tm1:            slices.Concat(taskManagerStart[:2], taskManagerFollows[1:]),
	}
}

// leaderPaused is the drill of a leader paused with SIGSTOP: silent
// across the standby's grant, it resumes, loses its connection and its
// leadership after that grant, and suspends its job.
func leaderPaused() map[string][]string {
	return map[string][]string{
		jobManager0Log: slices.Concat(leaderStart, []string{
			"2026-11-30 16:43:19,800 INFO  ExecutionGraph [] - Job Ticker (" + tickerJob + ") switched from state RUNNING to FAILING.",
			"2026-11-30 16:43:19,800 WARN  ZooKeeperLeaderElectionDriver [] - Connection to ZooKeeper suspended, waiting for reconnection.",
			"2026-11-30 16:43:20,631 WARN  ZooKeeperLeaderElectionDriver [] - Connection to ZooKeeper lost. The contender no longer participates in the leader election.",
			revokedLate,
			"2026-11-30 16:43:20,631 INFO  StandaloneDispatcher [] - Job " + tickerJob + " reached terminal state SUSPENDED.",
		}),
		jobManager1Log: slices.Concat(standbyStart, standbyLeads),
		tm0:            slices.Concat(taskManagerStart, taskManagerFollows),
		tm1:            slices.Concat(taskManagerStart[:2], taskManagerFollows[1:]),
	}
}

// healthyHA is the same cluster and job with nothing happening to the
// leader.
func healthyHA() map[string][]string {
	return map[string][]string{
		jobManager0Log: leaderStart,
		jobManager1Log: standbyStart,
		tm0:            taskManagerStart,
		tm1:            taskManagerStart[:2],
	}
}
