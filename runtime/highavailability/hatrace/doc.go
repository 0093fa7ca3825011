// Package hatrace reads a failover's steps, h1 to h5, from the logs of a
// cluster's processes, as an engineer reads them side by side: which
// JobManager was granted the leadership, under which leader session, when
// it had recovered the jobs, and when each TaskManager had found and
// registered at the new leader.
//
//	h1  LeaderLatch                      "DefaultDispatcherRunner was granted leadership with leader id S."
//	h2  leader election service          (not logged: the leader information of S, which h3 reads)
//	h3  leader retrieval                 a TaskManager: "Connecting to ResourceManager ADDRESS(S)."
//	h4  SessionDispatcherLeaderProcess   "Successfully recovered N persisted job graphs."
//	h5  TaskExecutor                     "Successful registration at resource manager ADDRESS …"
//
// The steps are marked "// Step hN:" in the code where they happen. A
// submission's steps m1–m11 happen in one JobManager's components and a
// TaskManager's, and the trace package records them as they happen; a
// failover's span processes that do not share a recorder, one of which
// may be dead, so they are read from what every process leaves behind:
// its log. Trace gives the steps of one leader session in the order they
// happened; Diagnose names the first step that is missing, the component
// to open, and what to look for.
//
// Explain answers the question before those: why the previous leader
// stopped leading. It reads the Dispatcher runner's grants and
// revocations and the ZooKeeper connection states of every process side
// by side, and tells seven causes apart by the order of a few lines:
//
//	leader-killed         the old leader's log stops; no revocation
//	leader-paused         its revocation comes after the next grant, and its log is silent across it
//	connection-suspended  it alone was SUSPENDED, and revoked at once (the default)
//	session-expired       it alone was SUSPENDED, led on, and revoked when LOST (tolerating)
//	zookeeper-down        every process was SUSPENDED at the same time, TaskManagers too
//	suspension-tolerated  the only leader was SUSPENDED and reconnected, and led on
//	leader-stopped        it was shut down before the next grant
//
// This package is ours; Flink has no such reader.
package hatrace
