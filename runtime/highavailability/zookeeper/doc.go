// Package zookeeper is the leader election of a highly available
// cluster, and the store of what outlives its leaders (JobGraphs,
// completed checkpoints), on a real ZooKeeper, as Flink 1.15+ does it: Flink's
// ZooKeeperLeaderElectionDriver and ZooKeeperLeaderRetrievalDriver under
// its DefaultLeaderElectionService, with the semantics of Curator's
// LeaderLatch, through the Go client github.com/go-zookeeper/zk.
//
// # What ZooKeeper holds
//
// Every node of a cluster is under its namespace,
// high-availability.zookeeper.path.root + high-availability.cluster-id:
//
//	/flink/default/leader/latch/_c_<guid>-latch-0000000007   one EPHEMERAL_SEQUENTIAL node per JobManager process
//	/flink/default/leader/dispatcher/connection_info         EPHEMERAL: the leader's address and session
//	/flink/default/leader/resource_manager/connection_info
//	/flink/default/leader/rest_server/connection_info
//	/flink/default/leader/job-<jobid>/connection_info
//
// and what must outlive a JobManager: pointers to files of the HA storage
// directory, <high-availability.storageDir>/<cluster-id>
// (StateHandleStore), and each job's checkpoint ID counter:
//
//	/flink/default/jobgraphs/<jobid>                                   {"path": ".../submittedJobGraph3fa1…"}
//	/flink/default/jobs/<jobid>/checkpoints/0000000000000000007        {"path": ".../completedCheckpoint9c2e…"}
//	/flink/default/jobs/<jobid>/checkpoint_id_counter                  the job's next checkpoint ID
//
// with, under each JobGraph and checkpoint, locks/<uuid>: an EPHEMERAL
// node per process that holds it.
//
// An ephemeral node lives as long as the session of the process that
// created it. That is the whole trick: a process that dies, or that
// ZooKeeper stops hearing from for the session timeout
// (high-availability.zookeeper.client.session-timeout), loses its nodes,
// and the others see them go.
//
// # One election per process
//
// Since Flink 1.15 a JobManager process enters the election once, with
// one LeaderLatch; its components (ResourceManager, Dispatcher, REST
// endpoint, a JobMaster per job) are contenders of its
// LeaderElectionService, each under a component ID:
//
//	ZooKeeper      latch node of process A is the lowest
//	LeaderLatch    IsLeader()
//	service        a new LeaderSessionID; GrantLeadership(id) to every contender
//	contender      becomes leader: its fencing token is id; ConfirmLeadership(id, address)
//	service        writes leader/<component>/connection_info (EPHEMERAL)
//	retriever      (in a TaskManager, a client, another JobManager) reads it, watches it
//
// A process leads while its latch node is the lowest. The others wait,
// each watching the node just before its own (LeaderLatch). When the
// leader's node goes, the next process's latch leads, its service issues
// a new session, and its contenders lead under a new fencing token:
// whatever the old leader still sends carries the old token and is
// refused.
//
// # When the connection breaks
//
// The client follows Curator's connection states (ConnectionState):
// SUSPENDED when the connection breaks, RECONNECTED when it is back, LOST
// when the session is gone. A leader whose connection is SUSPENDED cannot
// know whether its latch node still exists (ZooKeeper may have expired
// its session already, and another process may lead), so it stops
// leading at once: every contender is revoked. With
// high-availability.zookeeper.client.tolerate-suspended-connections it
// keeps leading until the session is LOST, trading safety for fewer
// failovers on a flaky network. Either way, on RECONNECTED a process
// that does not lead enters the election again, with a new latch node
// behind the current leader's.
//
// # Completed checkpoints survive the JobManager
//
// A JobMaster gets its job's CompletedCheckpointStore and
// CheckpointIDCounter from the services' CheckpointRecoveryFactory
// (Flink's ZooKeeperCheckpointRecoveryFactory). The store writes each
// completed checkpoint (its _metadata, inline state included, and its
// properties) to a completedCheckpoint<random> file, then its node,
// named by the ID, which points at the file; it lets the oldest go once
// more than state.checkpoints.num-retained are kept: node and file
// removed, the checkpoint handed back for the CheckpointCoordinator to
// delete. The counter hands out IDs with a compare-and-set on its node.
//
// When the leader goes, the new leader's Dispatcher recovers the job, and
// the new JobMaster's store reads every node of the job once:
//
//	Recovering checkpoints from ZooKeeperStateHandleStore{namespace='flink/default/jobs/<jobid>/checkpoints'}.
//	Found 2 checkpoints in ZooKeeperStateHandleStore{namespace='flink/default/jobs/<jobid>/checkpoints'}.
//	Trying to fetch 2 checkpoints from storage.
//	Trying to retrieve checkpoint 6.
//	Trying to retrieve checkpoint 7.
//	Initialized DefaultCompletedCheckpointStore in 'ZooKeeperStateHandleStore{namespace='flink/default/jobs/<jobid>/checkpoints'}' with /checkpoints.
//
// and its scheduler restores the latest when it starts ("Restoring job
// <jobid> from Checkpoint 7 @ … for <jobid> located at …."), while the
// counter goes on at 8. A node whose data is no handle is left out with
// a WARN ("… contained corrupted data. Ignoring this node."); a handle
// whose file cannot be read fails the JobMaster ("Could not retrieve
// checkpoint 7 from state handle under /0000000000000000007. …"), so
// that the job never quietly resumes from an older checkpoint than the
// one its sinks committed last. When the job is globally terminal the
// store and the counter remove the job's nodes ("Removing … from
// ZooKeeper"); when it is SUSPENDED they only let go of their locks.
//
// # The server
//
// StartServer runs the ZooKeeper server the machine has installed
// (Debian's zookeeper package; FindInstallation), as `flink
// start-zookeeper-quorum` does and as the tests do (package
// zookeepertest, which also has a Proxy to cut one process off from
// ZooKeeper).
//
// # Differs from Flink
//
//   - Leader information is JSON ({"address": …, "sessionId": …}), where
//     Flink writes the address with writeUTF and the UUID with Java
//     serialization.
//   - The LeaderLatch is written here, not Curator's, with Curator's
//     node names (the protection prefix _c_<guid>-) and its reactions to
//     the connection states; Curator's retry policy is the Go client's
//     reconnecting, and an operation that fails on a broken connection is
//     simply done again on RECONNECTED.
//   - A process leads only while ZooKeeper has answered a request of its
//     latch node's session within the session timeout
//     (Client.SessionAlive, LeaderLatch.Leads): a JobManager paused longer
//     than that, which Curator would let act on its old leadership until
//     the connection's events reach it, asks first and learns it does not
//     lead. Leader information is deleted only if it is the deleting
//     process's own session's.
//   - A node of the StateHandleStore holds its handle as JSON
//     ({"path": …}), where Flink writes a Java-serialized
//     RetrievableStreamStateHandle; a completed checkpoint's file holds
//     the checkpoint as JSON (its _metadata and properties), where Flink
//     writes the Java-serialized CompletedCheckpoint.
//   - The checkpoint store and counter work synchronously on the
//     JobMaster's main thread; Flink removes subsumed checkpoints on an
//     I/O executor.
//   - A store whose recovery fails lets go of the locks it took, for the
//     next try; Flink's keeps them until its session ends.
//   - When a globally terminal job's store and counter are both gone,
//     they delete the empty jobs/<jobid> node too: flinklab's Dispatcher
//     has no HA job-data cleanup (Flink's
//     HighAvailabilityServices#globalCleanupAsync) that would.
package zookeeper
